// @ts-check
// The log: the seat's events, newest round first, by phase. Each event comes with its words for
// this seat and its phase heading (the server's, triage.engine.text): the page words nothing.
import { $, el } from "./dom.js";
import { state } from "./state.js";

/** @typedef {import("./state.js").WordedEvent} WordedEvent */

/**
 * A round's section of the log, headed by its round_started event's words (its number and its
 * first player).
 * @param {WordedEvent | null} event  its round_started event (null: before the first)
 * @returns {HTMLElement}
 */
function roundSection(event) {
  const section = el("section", "log-round");
  section.appendChild(el("h3", "", event ? event.text : "Start"));
  return section;
}

export function drawLog() {
  const box = $("#log");
  box.innerHTML = "";
  /** @type {number | null} */
  let round = null;
  /** @type {string | null} */
  let phase = null;
  /** @type {HTMLElement | null} */
  let list = null;
  /** @type {HTMLElement | null} */
  let section = null;
  /** @type {HTMLElement[]} */
  const rounds = [];
  for (const event of state.log) {
    if (event.type === "round_started" || !section) {
      section = roundSection(event.type === "round_started" ? event : null);
      rounds.push(section);
      phase = null;
      if (event.type === "round_started") { round = event.round ?? round; continue; }
    }
    if (event.phase !== phase || !list) {
      phase = event.phase;
      section.appendChild(el("h4", "", phase));
      list = el("ul");
      section.appendChild(list);
    }
    const item = el("li", event.player === state.seat ? "mine" : "", event.text);
    item.dataset.type = event.type;
    list.appendChild(item);
  }
  for (const part of rounds.reverse()) box.appendChild(part); // newest round first
  box.dataset.round = round === null ? "" : String(round);
}
