// @ts-check
// Small DOM helpers shared by every part of the page.

export const RULES = "/static/rules.html";

/**
 * The element matching `selector`; the page's fixed sections always exist.
 * @param {string} selector
 * @returns {HTMLElement}
 */
export function $(selector) {
  return /** @type {HTMLElement} */ (document.querySelector(selector));
}

/**
 * A new element with a class and a text.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} [className]
 * @param {string | number | null} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

/**
 * "1 Credit" / "3 Credits".
 * @param {number} count
 * @param {string} one
 * @param {string} [many]
 * @returns {string}
 */
export function plural(count, one, many) {
  return `${count} ${count === 1 ? one : many || one + "s"}`;
}

/**
 * A link to a rule (or a section) of the rules page, in a new tab.
 * @param {string} rule
 * @param {string} [text]
 * @returns {HTMLAnchorElement}
 */
export function ruleLink(rule, text) {
  const link = el("a", "rule", text || rule);
  link.href = `${RULES}#${rule}`;
  link.target = "_blank";
  link.rel = "noopener";
  link.title = /^[A-Z]\d+$/.test(rule) ? `Rule ${rule} in the rules` : "The rules page";
  return link;
}

/**
 * A button of the page: a key for the focus to come back to, and what a click does.
 * @param {string} text
 * @param {string} className
 * @param {string | null} key
 * @param {() => void} onClick
 * @returns {HTMLButtonElement}
 */
export function button(text, className, key, onClick) {
  const node = el("button", className, text);
  node.type = "button";
  if (key) node.dataset.key = key;
  node.addEventListener("click", onClick);
  return node;
}
