// @ts-check
// "While you were away" (issue 39, point 5): when a seat's player comes back to the table (the
// page opened again after moves were made, or the seat taken back from the stand-in bot), what
// happened meanwhile, read from the seat's own log: what the bot did for them, what the others
// did, who died. Then the current panel: the summary goes with the seat's first move after it,
// and the Cleanup summary gives way to it (never two accounts, never an old one).
//
// Where the player last looked is kept in this browser, per table and seat: the length of the log
// the page last drew for them while no stand-in played their seat.
import { $, el, plural } from "./dom.js";
import { levelLabel, state } from "./state.js";
import { standInOf, tableStandIn } from "./clocks.js";

/** The types of events that are a seat's own moves (the rest the game does by itself). */
export const MOVES = new Set(["admitted", "rejected", "diagnosed", "healed", "treated", "helicopter", "bought", "passed"]);
/** What a move brings about that a returning player wants to read (a cure, a removal). */
const OUTCOMES = new Set(["cured", "removed"]);
/** The others' moves listed at most (the log has the rest). */
const OTHERS_SHOWN = 8;

/** @type {{from: number, to: number, bot: string | null} | null} the span summed up, in the log */
let shown = null;

/** @returns {string | null} where this browser keeps the seat's last look at the table */
function seenKey() {
  return state.tableId && state.seat !== null ? `triage.seen.${state.tableId}.${state.seat}` : null;
}

/** @returns {number | null} the log's length when the player last looked (null: never here) */
function lastSeen() {
  const key = seenKey();
  if (!key) return null;
  try {
    const stored = localStorage.getItem(key);
    return stored === null ? null : Number(stored);
  } catch (e) { return null; } // private mode: no summary
}

/**
 * The player is back with the log `log`: sum up what was added since they last looked, if any
 * move was made meanwhile. `bot`: the level that played for them (null: none did).
 * @param {import("./state.js").WordedEvent[]} log
 * @param {string | null} bot
 */
export function noteReturn(log, bot) {
  shown = null;
  const from = lastSeen();
  if (from === null || from >= log.length) return;
  if (!log.slice(from).some((event) => MOVES.has(event.type))) return;
  shown = { from, to: log.length, bot };
}

/** Forget the summary (another table opens). */
export function forgetReturn() {
  shown = null;
}

/** @returns {boolean} whether the summary is on screen (the Cleanup summary then gives way) */
export function awayShown() {
  return shown !== null && !$("#while-away").hidden;
}

/** Keep where the player has looked: the log drawn, while no stand-in plays for them. */
function noteSeen() {
  const key = seenKey();
  if (!key || standInOf(/** @type {number} */ (state.seat))) return;
  try { localStorage.setItem(key, String(state.log.length)); } catch (e) { /* private mode */ }
}

/**
 * Whether the seat has moved since the summary was made (it then goes).
 * @param {number} since
 * @returns {boolean}
 */
function movedSince(since) {
  return state.log.slice(since).some((event) => MOVES.has(event.type) && event.player === state.seat);
}

/**
 * @param {string} title
 * @param {string[]} lines
 * @returns {HTMLElement}
 */
function listed(title, lines) {
  const part = el("div", "away-part");
  part.appendChild(el("p", "", title));
  const list = el("ul");
  for (const line of lines) list.appendChild(el("li", "", line));
  part.appendChild(list);
  return part;
}

export function drawAway() {
  if (!state.view) return; // before the first position: nothing seen yet
  const box = $("#while-away");
  box.innerHTML = "";
  const span = shown;
  box.hidden = !span || state.seat === null || movedSince(span.to);
  noteSeen();
  if (!span || box.hidden) return;
  const events = state.log.slice(span.from, span.to);
  const rounds = events.filter((event) => event.type === "round_started").map((event) => event.round);
  const heading = rounds.length ? `While you were away (${rounds.length > 1 ? `rounds ${rounds[0]} to ${rounds[rounds.length - 1]} began` : `round ${rounds[0]} began`})` : "While you were away";
  box.appendChild(Object.assign(el("h2", "", heading), { id: "away-title" }));
  const worth = (/** @type {import("./state.js").WordedEvent} */ event) => (MOVES.has(event.type) && event.type !== "passed") || OUTCOMES.has(event.type);
  const yours = events.filter((event) => event.player === state.seat && worth(event)).map((event) => event.text);
  const theirs = events.filter((event) => event.player !== state.seat && worth(event)).map((event) => event.text);
  const died = events.filter((event) => event.type === "died").map((event) => event.text);
  if (yours.length) {
    // Moves of this seat it did not make here: the stand-in's (the table's level, if it has one).
    const bot = span.bot || tableStandIn();
    const who = bot ? `The ${levelLabel(bot)} bot played for you` : "Played for your seat";
    box.appendChild(listed(`${who}: ${plural(yours.length, "move")}`, yours));
  }
  if (theirs.length) {
    const more = theirs.length > OTHERS_SHOWN ? ` (the last ${OTHERS_SHOWN}; the log has them all)` : "";
    box.appendChild(listed(`The others: ${plural(theirs.length, "move")}${more}`, theirs.slice(-OTHERS_SHOWN)));
  }
  if (died.length) box.appendChild(listed(`At Cleanup: ${plural(died.length, "death")}`, died));
  if (!yours.length && !theirs.length && !died.length) box.appendChild(el("p", "", "Only passes: nothing else changed."));
}
