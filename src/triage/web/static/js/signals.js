// @ts-check
// Turn signals: "(Your turn)" in the tab's title, a spoken status when the turn comes to this
// seat or the game ends, and a summary of the last Cleanup (who died, who was checked, the Time
// added), read from the seat's own events.
import { $, el, plural } from "./dom.js";
import { isWaiting } from "./lobby.js";
import { MOVES, awayShown } from "./away.js";
import { state } from "./state.js";

/**
 * @typedef {import("./state.js").View} View
 */

/** The last thing said in the live region, so a redraw never repeats it. */
let lastSaid = "";

/** What the tab's title and the live region say of whose turn it is. */
function turnWords() {
  const view = /** @type {View} */ (state.view);
  if (view.phase === "over") return "Game over";
  if (isWaiting()) return "Waiting for players";
  if (state.seat !== null && view.turn === state.seat) return `Your turn, round ${view.round}, ${view.phase}`;
  return "";
}

function drawTitle() {
  const mine = state.seat !== null && state.view?.turn === state.seat && state.view?.phase !== "over" && !isWaiting();
  document.title = `${mine ? "(Your turn) " : ""}Triage table ${state.tableId}`;
}

function speak() {
  const words = turnWords();
  if (words === lastSaid) return;
  lastSaid = words;
  if (words) $("#turn-live").textContent = words;
}

/**
 * The events of the last Cleanup in the log, with its round (none before the first).
 * @returns {{round: number, events: import("./state.js").WordedEvent[]} | null}
 */
function lastCleanup() {
  /** @type {import("./state.js").WordedEvent[]} */
  let events = [];
  let round = 0;
  let current = 0;
  for (const event of state.log) {
    if (event.type === "round_started") { current = event.round ?? current; continue; }
    if (event.type === "time_added" || event.type === "checked" || event.type === "died") {
      if (current !== round) { events = []; round = current; }
      events.push(event);
    }
  }
  return events.length ? { round, events } : null;
}

/**
 * Whether this seat has made a move since the round began (the Cleanup summary then goes).
 * @returns {boolean}
 */
function movedThisRound() {
  for (let index = state.log.length - 1; index >= 0; index--) {
    const event = state.log[index];
    if (event.type === "round_started") return false;
    if (MOVES.has(event.type) && event.player === state.seat) return true;
  }
  return false;
}

/**
 * Last night's Cleanup in a few lines: shown in the round after it, until the seat's first move
 * of that round (nothing to put away: no tap, and never a Cleanup of an older round).
 */
function drawCleanup() {
  const box = $("#cleanup");
  box.innerHTML = "";
  const found = lastCleanup();
  const view = /** @type {View} */ (state.view);
  box.hidden = !found || found.round !== view.round - 1 || view.phase === "over" || movedThisRound() || awayShown();
  if (!found || box.hidden) return;
  box.appendChild(Object.assign(el("h2", "", `Last night's Cleanup (round ${found.round})`), { id: "cleanup-title" }));
  const died = found.events.filter((e) => e.type === "died");
  const checked = found.events.filter((e) => e.type === "checked");
  const timed = found.events.filter((e) => e.type === "time_added");
  const list = el("ul");
  list.appendChild(el("li", died.length ? "dying" : "", died.length ? `${plural(died.length, "death")}:` : "Nobody died."));
  for (const event of died) list.appendChild(el("li", "died", event.text));
  for (const event of checked) list.appendChild(el("li", "", event.text));
  list.appendChild(el("li", "", `Time added to ${plural(timed.length, "patient")}.`));
  box.appendChild(list);
}

export function drawSignals() {
  drawTitle();
  speak();
  drawCleanup();
}
