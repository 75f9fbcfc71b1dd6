// @ts-check
// Watching the others play: each action of another seat (a bot, a stand-in, an opponent) that the
// WebSocket brings is shown as its own step, a pace apart: the position just after it, its card
// marked on the board, and its line under the status bar. The pace only presents moves the server
// has already made: your own action is drawn at once, "Skip to my turn" shows the table as it is
// now, and a (re)connecting page's `hello` draws the present at once.
import { $, el } from "./dom.js";
import { state } from "./state.js";

/** The paces on offer, in milliseconds a step stays on screen. */
export const PACES = { instant: 0, quick: 350, normal: 800, slow: 1600 };
/** Where this browser keeps the pace chosen (every table). */
const PACE_KEY = "triage.pace";

/** @typedef {import("./types.js").TableMessage & Required<Pick<import("./types.js").TableMessage, "number" | "by" | "action" | "events">>} Update  a WebSocket `update` message (it always says which action, by whom, and its events) */

/** @type {{queue: Update[], timer: number | null, shownAt: number, draw: () => unknown}} */
const steps = { queue: [], timer: null, shownAt: 0, draw: () => {} };

/** @returns {keyof typeof PACES | null} the pace chosen in this browser, if one was */
function browserPace() {
  let chosen = null;
  try { chosen = localStorage.getItem(PACE_KEY); } catch (e) { /* private mode: the table's */ }
  return chosen && chosen in PACES ? /** @type {keyof typeof PACES} */ (chosen) : null;
}

/** @returns {keyof typeof PACES} the table's pace, chosen at its creation ("normal" by default) */
function tablePace() {
  const settings = state.summary && state.summary.settings;
  return settings && settings.pace in PACES ? settings.pace : "normal";
}

/** @returns {keyof typeof PACES} the pace others' moves are shown at: this browser's choice, else the table's */
export function paceName() {
  return browserPace() || tablePace();
}

/** @param {string} name  a pace, or "" for the table's own */
function choosePace(name) {
  try {
    if (name) localStorage.setItem(PACE_KEY, name);
    else localStorage.removeItem(PACE_KEY);
  } catch (e) { /* private mode: this page only */ }
  if (paceName() === "instant") skipToNow();
}

/**
 * Set the function that draws the table (table.js's: this module is below it).
 * @param {() => unknown} draw
 */
export function paceDrawsWith(draw) {
  steps.draw = draw;
}

/** @returns {number} how many moves wait to be shown */
export function pending() {
  return steps.queue.length;
}

/**
 * The table as it is now came by HTTP (newer than what waits): the waiting moves only add their
 * events to the log.
 */
export function overtaken() {
  for (const message of steps.queue) state.log = state.log.concat(message.events);
  forgetSteps();
}

/** Forget what waits (another table opens, or a `hello` brings the present). */
export function forgetSteps() {
  steps.queue = [];
  if (steps.timer !== null) { clearTimeout(steps.timer); steps.timer = null; }
  state.acting = null;
}

/**
 * Take one position of the server (an update) into the page: the log grows by its events and the
 * table shows the position after it.
 * @param {Update} message
 */
function show(message) {
  state.log = state.log.concat(message.events);
  Object.assign(state, { view: message.view, choices: message.choices, forecast: message.forecast || null, actions: message.actions });
  state.undo = message.undo || null;
  state.acting = message.by !== state.seat ? { by: message.by, action: message.action, events: message.events } : null;
  steps.shownAt = performance.now();
}

/**
 * An `update` of the WebSocket: yours is shown at once; another seat's waits its turn.
 * @param {Update} message
 * @returns {boolean} whether it was shown now (the caller draws)
 */
export function takeUpdate(message) {
  const wait = PACES[paceName()];
  if (!steps.queue.length && (message.by === state.seat || wait === 0 || performance.now() - steps.shownAt >= wait)) {
    show(message);
    return true;
  }
  steps.queue.push(message);
  schedule();
  return false;
}

function schedule() {
  if (steps.timer !== null || !steps.queue.length) return;
  const wait = Math.max(0, steps.shownAt + PACES[paceName()] - performance.now());
  steps.timer = window.setTimeout(next, wait);
}

/** Show the next waiting move, then wait again. */
function next() {
  steps.timer = null;
  const message = steps.queue.shift();
  if (!message) return;
  show(message);
  steps.draw();
  schedule();
}

/** "Skip to my turn": every waiting move at once, the table as it is now. */
export function skipToNow() {
  if (steps.timer !== null) { clearTimeout(steps.timer); steps.timer = null; }
  const waiting = steps.queue;
  steps.queue = [];
  for (const message of waiting) show(message);
  state.acting = null;
  state.focusKey = "first";
  steps.draw();
}

/**
 * The card (or item) a move acts on, to mark it on the board.
 * @param {import("./types.js").Action | null | undefined} action
 * @returns {string | null}
 */
export function actedOn(action) {
  if (!action) return null;
  return action.patient || action.card || action.remove || action.item || null;
}

/** The move on screen, in words, under the status bar (a polite live region). */
export function drawTicker() {
  const ticker = $("#ticker");
  const acting = state.acting;
  if (!acting) { ticker.textContent = ""; return; }
  // The move's own events (the mover's): the Cleanup, the next round and the draws of other
  // seats it may lead to are in the log.
  const own = [];
  for (const event of acting.events) {
    if (event.type === "time_added" || event.type === "round_started") break;
    if (event.player === undefined || event.player === acting.by) own.push(event.text);
  }
  ticker.textContent = own.slice(0, 3).join("; ") || (acting.events.length ? acting.events[0].text : "");
}

/** The paces in words. */
export const PACE_WORDS = { instant: "instant", quick: "quick (a third of a second)", normal: "normal (under a second)", slow: "slow (1.6 seconds)" };

/**
 * The pace setting of the table page, with the other settings of this browser: the table's pace
 * (its creator's choice) unless this browser chose its own.
 */
export function drawPaceSetting() {
  const box = $("#settings");
  let select = /** @type {HTMLSelectElement | null} */ (box.querySelector("#pace"));
  if (!select) {
    const label = el("label", "setting", "Others' moves, shown one by one: ");
    select = el("select");
    select.id = "pace";
    select.appendChild(el("option")).value = "";
    for (const name of /** @type {(keyof typeof PACES)[]} */ (Object.keys(PACES))) {
      const option = el("option", "", PACE_WORDS[name]);
      option.value = name;
      select.appendChild(option);
    }
    const chosen = select;
    select.addEventListener("change", () => choosePace(chosen.value));
    label.appendChild(select);
    box.appendChild(label);
  }
  /** @type {HTMLOptionElement} */ (select.options[0]).textContent = `the table's: ${PACE_WORDS[tablePace()]}`;
  select.value = browserPace() || "";
}
