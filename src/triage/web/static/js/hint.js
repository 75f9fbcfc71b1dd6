// @ts-check
// "Suggest a move": the server asks its expert bot for this seat's move (from the seat's own view)
// and says why in one line; the page selects the thing it acts on and marks the suggested button.
// The page adds no rule: the move and its reason are the server's (triage.web.hints).
import { api, refusal } from "./api.js";
import { button, el } from "./dom.js";
import { draw } from "./render.js";
import { state } from "./state.js";

/**
 * @typedef {import("./state.js").Action} Action
 */

/**
 * @typedef {import("./types.js").HintAnswer} Hint
 */

/** @type {{hint: Hint | null, asking: boolean, error: string | null, tableId: string | null}} */
const asked = { hint: null, asking: false, error: null, tableId: null };

/** @returns {Hint | null} the hint for the position drawn, if one was asked for it */
export function currentHint() {
  if (asked.tableId !== state.tableId || !asked.hint || asked.hint.at !== state.actions) return null;
  return asked.hint;
}

/**
 * The panel's selection that holds a move's controls.
 * @param {Action} action
 * @returns {string | null}
 */
function selectionOf(action) {
  if (action.type === "buy") return "buy:" + action.item;
  if (action.type === "helicopter") return action.remove && !action.draw_all ? "card:" + action.remove : "heli";
  const target = action.card || action.patient;
  return target ? "card:" + target : null;
}

/**
 * Set the panel's controls to the suggested move: its amount and its payment.
 * @param {Action} action
 */
function presetControls(action) {
  if (action.type === "heal") {
    const patient = action.patient || "";
    state.heal[patient] = action.amount ?? 0;
    if (action.pay) state.pay["heal:" + patient] = action.pay;
  } else if ((action.type === "diagnose" || action.type === "treat") && action.pay) {
    state.pay[action.type + ":" + action.patient] = action.pay;
  } else if (action.type === "helicopter" && selectionOf(action) === "heli") {
    state.heliForm = { remove: action.remove || null, draw: !!action.draw_all };
  }
}

async function askHint() {
  if (asked.asking) return;
  Object.assign(asked, { asking: true, error: null, tableId: state.tableId });
  state.focusKey = "hint";
  draw();
  try {
    /** @type {Hint} */
    const answer = await api("POST", `/api/tables/${state.tableId}/hint`, { expected: state.actions }, state.token);
    asked.hint = answer;
    presetControls(answer.action);
    state.selected = selectionOf(answer.action);
    state.error = null;
  } catch (thrown) {
    asked.error = refusal(thrown).message;
  }
  asked.asking = false;
  state.focusKey = "hint";
  draw();
  // The suggested move's thing on the board, scrolled to (its panel is in view already).
  const shown = document.querySelector("#me .suggested, #market .suggested");
  if (shown) shown.scrollIntoView({ block: "center" });
}

/**
 * The suggested move in a few words.
 * @param {Action} action
 * @returns {string}
 */
function moveText(action) {
  switch (action.type) {
    case "admit": return `Admit ${action.card} to space ${action.space}`;
    case "heal": return `Heal ${action.patient} by ${action.amount}`;
    case "helicopter": return "Fly the Helicopter" + (action.remove ? `, removing ${action.remove}` : "") + (action.draw_all ? ", everyone draws" : "");
    case "buy": return `Buy 1 ${String(action.item).replace(/_/g, " ")}`;
    case "pass": return "Pass";
    default: return `${action.type[0].toUpperCase()}${action.type.slice(1)} ${action.card || action.patient || ""}`.trim();
  }
}

/**
 * "Suggest a move" and, once answered, the move with its one-line reason: at the panel's top.
 * @param {HTMLElement} panel
 */
export function drawHint(panel) {
  if (state.seat === null || !state.choices.length) return;
  const box = el("div", "hint-box");
  const ask = button(asked.asking ? "Thinking..." : "Suggest a move", "suggest", "hint", askHint);
  ask.disabled = asked.asking;
  ask.title = "Ask the strongest bot level for its move, from what you can see (kept in the game record as a hint)";
  box.appendChild(ask);
  const hint = currentHint();
  const said = el("p", "hint-said");
  said.setAttribute("role", "status");
  said.setAttribute("aria-live", "polite");
  if (hint) {
    said.appendChild(el("strong", "", `Suggested: ${moveText(hint.action)}. `));
    said.appendChild(document.createTextNode(`Why: ${hint.reason}.`));
  } else if (asked.error && asked.tableId === state.tableId) {
    said.textContent = `No suggestion: ${asked.error}`;
  }
  box.appendChild(said);
  panel.appendChild(box);
}

/**
 * Whether a button's action is the suggested move (its payment aside, when the hint names none).
 * @param {Action} action
 * @param {Action} suggested
 * @returns {boolean}
 */
function sameMove(action, suggested) {
  for (const key of /** @type {(keyof Action)[]} */ (["type", "card", "space", "patient", "amount", "item", "remove", "draw_all"])) {
    const mine = action[key] === undefined ? null : action[key];
    const theirs = suggested[key] === undefined ? null : suggested[key];
    if (key === "draw_all" && action.type !== "helicopter") continue;
    if (mine !== theirs) return false;
  }
  return true;
}

/** Mark the suggested move's button (and its card) after each drawing of the table. */
export function markHint() {
  const hint = currentHint();
  for (const node of document.querySelectorAll(".suggested")) node.classList.remove("suggested");
  if (!hint) return;
  /** @type {HTMLElement[]} */
  const marked = [];
  if (hint.action.type === "pass") {
    const pass = /** @type {HTMLElement | null} */ (document.querySelector("#bar [data-key='pass']"));
    if (pass) marked.push(pass);
  }
  for (const node of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("#panel [data-action], #me [data-action]"))) {
    if (node.classList.contains("all")) continue;
    if (sameMove(JSON.parse(node.dataset.action || "{}"), hint.action)) marked.push(node);
  }
  const key = selectionOf(hint.action);
  const card = key ? /** @type {HTMLElement | null} */ (document.querySelector(`#me [data-key="${key}"], #market [data-key="${key}"]`)) : null;
  if (card) marked.push(card);
  for (const node of marked) node.classList.add("suggested");
}
