// @ts-check
// The table's chat and quick reactions (docs/web.md, "Chat and reactions"): what the players say,
// never a move. Lines come from the WebSocket (the `hello` holds the chat so far, then a `chat`
// message per line) and are written as text, never as HTML: a tag or an address shows as typed.
// Each player may mute another player's lines; the mutes are kept in this browser, per table.
import { api, refusal } from "./api.js";
import { $, button, el, plural } from "./dom.js";
import { nameIn, state } from "./state.js";

/** @typedef {import("./types.js").ChatLine} ChatLine */
/** @typedef {import("./types.js").ChatFeed} ChatFeed */

/**
 * @type {{tableId: string | null, feed: ChatFeed | null, lines: ChatLine[], open: boolean, unread: number, error: string | null, sending: boolean}}
 */
const chat = { tableId: null, feed: null, lines: [], open: false, unread: 0, error: null, sending: false };

/** Under this width the chat starts closed (the phone's layout): its toggle is in the top bar. */
const PHONE = "(max-width: 860px)";

/** A new table's chat: nothing read yet, open on a wide screen, closed on a phone. */
export function forgetChat() {
  Object.assign(chat, { tableId: state.tableId, feed: null, lines: [], unread: 0, error: null, sending: false });
  chat.open = !window.matchMedia(PHONE).matches;
  $("#chat").innerHTML = "";
  drawChat();
}

/**
 * The chat so far, from a `hello`: lines beyond those already read count as unread.
 * @param {ChatFeed | undefined} feed
 */
export function takeChatFeed(feed) {
  if (!feed) return;
  const known = chat.lines.length;
  chat.feed = feed;
  chat.lines = feed.lines;
  if (chat.feed && known) countUnread(feed.lines.slice(known));
  drawChat();
}

/**
 * One line said at the table (a WebSocket `chat` message).
 * @param {ChatLine} line
 */
export function takeChatLine(line) {
  chat.lines = chat.lines.concat([line]);
  countUnread([line]);
  drawChat();
}

/** @param {ChatLine[]} lines */
function countUnread(lines) {
  if (chat.open) return;
  const muted = mutedSeats();
  chat.unread += lines.filter((line) => line.by !== state.seat && !muted.includes(line.by)).length;
}

/** @returns {string} where this browser keeps the table's mutes */
function muteKey() {
  return `triage.mute.${chat.tableId}`;
}

/** @returns {number[]} the seats whose lines this browser hides at this table */
export function mutedSeats() {
  try {
    const kept = JSON.parse(localStorage.getItem(muteKey()) || "[]");
    return Array.isArray(kept) ? kept.filter((seat) => typeof seat === "number") : [];
  } catch (e) { return []; }
}

/**
 * @param {number} seat
 * @param {boolean} muted
 */
function setMuted(seat, muted) {
  const seats = mutedSeats().filter((other) => other !== seat);
  if (muted) seats.push(seat);
  try { localStorage.setItem(muteKey(), JSON.stringify(seats)); } catch (e) { /* private mode: not kept */ }
  drawChat();
}

/**
 * A seat's player in the chat: their name ("You" for this seat).
 * @param {number} seat
 * @returns {string}
 */
function speaker(seat) {
  return seat === state.seat ? "You" : nameIn(state.summary && state.summary.seats, seat);
}

/** Open or close the chat (the top bar's toggle); opening it reads what waited. */
function toggle() {
  chat.open = !chat.open;
  if (chat.open) chat.unread = 0;
  drawChat();
  if (chat.open) {
    const box = $("#chat");
    box.scrollIntoView({ block: "nearest" });
    const input = /** @type {HTMLInputElement | null} */ (box.querySelector("#chat-text"));
    (input || box).focus();
  }
}

/**
 * Say a line, or react.
 * @param {{text: string} | {reaction: string}} body
 */
async function send(body) {
  if (chat.sending) return;
  chat.sending = true;
  try {
    await api("POST", `/api/tables/${state.tableId}/chat`, body, state.token);
    chat.error = null;
    if ("text" in body) /** @type {HTMLInputElement} */ ($("#chat-text")).value = "";
  } catch (thrown) {
    chat.error = refusal(thrown).message;
  } finally {
    chat.sending = false;
  }
  drawChat();
}

/** The chat's parts that stay while the table is open (the form keeps what is typed). */
function build() {
  const box = $("#chat");
  box.innerHTML = "";
  box.appendChild(el("h2", "", "Chat")).id = "chat-title";
  const log = el("div", "chat-log");
  Object.assign(log, { id: "chat-log", tabIndex: 0 });
  log.setAttribute("role", "log");
  log.setAttribute("aria-label", "What the players said, oldest first");
  log.appendChild(el("ol", "chat-lines")).id = "chat-lines";
  box.appendChild(log);
  box.appendChild(el("p", "hint chat-muted")).id = "chat-muted";
  const problem = el("p", "refusal chat-error");
  problem.id = "chat-error";
  problem.setAttribute("role", "alert");
  box.appendChild(problem);
  if (chat.feed && chat.feed.post) {
    const reactions = el("div", "chat-reactions");
    reactions.setAttribute("role", "group");
    reactions.setAttribute("aria-label", "Quick reactions");
    for (const reaction of chat.feed.reactions) {
      const react = button(reaction.words, "react", `react:${reaction.name}`, () => send({ reaction: reaction.name }));
      react.setAttribute("aria-label", `React: ${reaction.words}`);
      reactions.appendChild(react);
    }
    box.appendChild(reactions);
    const form = el("form", "chat-form");
    const label = el("label", "sr-only", "Message to the table");
    label.htmlFor = "chat-text";
    const input = el("input");
    Object.assign(input, { id: "chat-text", type: "text", maxLength: 280, autocomplete: "off", placeholder: "Say something to the table" });
    form.append(label, input, el("button", "", "Send"));
    form.addEventListener("submit", (submit) => {
      submit.preventDefault();
      const text = input.value.trim();
      if (text) send({ text });
    });
    box.appendChild(form);
  } else if (chat.feed) {
    box.appendChild(el("p", "hint", chat.feed.readable ? "Spectators read the chat; only the players write in it." : "This table's chat is for its players: spectators do not read it."));
  }
  const mutes = el("fieldset", "chat-mutes");
  mutes.id = "chat-mutes";
  box.appendChild(mutes);
  box.dataset.built = chat.feed && chat.feed.post ? "post" : "read";
}

/** The mute boxes: one per other human player, kept in this browser. */
function drawMutes() {
  const box = $("#chat-mutes");
  const seats = ((state.summary && state.summary.seats) || []).filter((info) => !info.bot && info.seat !== state.seat);
  box.hidden = !seats.length;
  box.innerHTML = "";
  if (!seats.length) return;
  box.appendChild(el("legend", "", "Hide a player's lines (in this browser only)"));
  const muted = mutedSeats();
  for (const info of seats) {
    const label = el("label", "check");
    const tick = el("input");
    Object.assign(tick, { type: "checkbox", checked: muted.includes(info.seat) });
    tick.dataset.key = `mute:${info.seat}`;
    tick.addEventListener("change", () => setMuted(info.seat, tick.checked));
    label.append(tick, ` Mute ${speaker(info.seat)}`);
    box.appendChild(label);
  }
}

/**
 * The lines said, as text, the muted players' left out (and counted). Drawn again only when they
 * or their speakers' names changed: the list is a live region, read out as lines are added.
 */
function drawLines() {
  const list = $("#chat-lines");
  const log = $("#chat-log");
  const muted = mutedSeats();
  const shown = chat.lines.filter((line) => !muted.includes(line.by));
  const drawn = JSON.stringify([chat.lines.length, muted, shown.map((line) => line.by).filter((by, index, all) => all.indexOf(by) === index).map(speaker)]);
  if (list.dataset.drawn === drawn) return;
  list.dataset.drawn = drawn;
  const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 8;
  list.innerHTML = "";
  for (const line of shown) {
    const item = el("li", line.kind === "react" ? "reaction" : "said");
    item.append(el("span", "who", `${speaker(line.by)}:`), " ", el("span", "what", line.text));
    list.appendChild(item);
  }
  if (!shown.length) list.appendChild(el("li", "hint", chat.feed && !chat.feed.readable ? "No chat for spectators at this table." : "Nothing said yet."));
  if (atEnd || shown.length <= 1) log.scrollTop = log.scrollHeight;
  const hidden = chat.lines.length - shown.length;
  $("#chat-muted").textContent = hidden ? `${plural(hidden, "line")} from muted players hidden.` : "";
}

/** The top bar's toggle, with the lines that came while the chat was closed. */
function drawToggle() {
  const toggleButton = /** @type {HTMLButtonElement} */ ($("#chat-toggle"));
  if (!toggleButton.dataset.bound) {
    toggleButton.dataset.bound = "yes";
    toggleButton.addEventListener("click", toggle);
  }
  toggleButton.textContent = chat.unread ? `Chat (${chat.unread} new)` : "Chat";
  toggleButton.setAttribute("aria-expanded", String(chat.open));
  toggleButton.classList.toggle("unread", chat.unread > 0);
}

/** Draw the chat (and its toggle) as it stands. */
export function drawChat() {
  const box = $("#chat");
  box.hidden = !chat.open || !chat.feed;
  drawToggle();
  if (!chat.feed) return;
  if (box.dataset.built !== (chat.feed.post ? "post" : "read") || !box.firstChild) build();
  drawLines();
  drawMutes();
  $("#chat-error").textContent = chat.error || "";
}

/**
 * The lines said at a step of a replay (the record's `chat`, placed by `at`), as text.
 * @param {import("./types.js").GameRecord | import("./types.js").SeatRecord} record
 * @param {number} step
 * @returns {HTMLElement | null}
 */
export function replayChat(record, step) {
  const muted = mutedSeats();
  const said = (record.chat || []).filter((line) => line.at === step && !muted.includes(line.by));
  if (!said.length) return null;
  const list = el("ul", "replay-chat");
  list.setAttribute("aria-label", "Said at this step");
  for (const line of said) list.appendChild(el("li", line.kind, `${speaker(line.by)}: ${line.text}`));
  return list;
}
