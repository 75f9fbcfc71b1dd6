// @ts-check
// Presence and clocks (issue 20): by each hospital's title, whether its player is online or away,
// its time bank (the running one counted down here between two messages of the server, and
// highlighted), and "played by a bot while away" while a stand-in bot plays for it. A seat a
// bot stands in for gets a button to take it back. Everything here is public: the server sends
// the same `live` message to every seat and spectator.
import { api, refusal, setStatus } from "./api.js";
import { $, button, el } from "./dom.js";
import { state } from "./state.js";

/**
 * @typedef {{seat: number, status: string, stand_in: string | null, stand_in_reason: string | null}} SeatPresence
 * @typedef {{bank: number, increment: number, remaining: number[], running: number | null}} Clock
 * @typedef {{presence: SeatPresence[], clock: Clock | null, away_seconds: number | null, stand_in: string | null}} Live
 */

/** @type {{live: Live | null, at: number, timer: number | null, heard: (before: string | null) => unknown}} */
const held = { live: null, at: 0, timer: null, heard: () => {} };

/**
 * The level of the bot standing in for `seat` now (null: none).
 * @param {number} seat
 * @returns {string | null}
 */
export function standInOf(seat) {
  return held.live?.presence[seat]?.stand_in || null;
}

/** @returns {string | null} the level that stands in for an absent player at this table */
export function tableStandIn() {
  return held.live?.stand_in || null;
}

/**
 * Set what else a `live` message does, given the level that stood in for this browser's seat
 * before it (js/away.js sums up what a stand-in did once the seat is back; set by table.js,
 * above this module).
 * @param {(before: string | null) => unknown} heard
 */
export function onLive(heard) {
  held.heard = heard;
}

/** The words of each presence status. */
/** @type {Record<string, string>} */
const STATUS_WORDS = { online: "online", away: "away", bot: "bot", open: "seat free" };

/**
 * "4:05" / "1:02:03": a clock's seconds left, whole seconds rounded up while it runs.
 * @param {number} seconds
 * @returns {string}
 */
export function clockText(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const secs = String(whole % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${secs}` : `${minutes}:${secs}`;
}

/**
 * Seconds left on `seat`'s clock now: the running one counts down from the message's figure.
 * @param {Clock} clock
 * @param {number} seat
 * @returns {number}
 */
function secondsLeft(clock, seat) {
  const left = clock.remaining[seat];
  const standIn = held.live?.presence[seat]?.stand_in;
  if (clock.running !== seat || standIn) return left;
  return left - (performance.now() - held.at) / 1000;
}

/**
 * A `live` message of the server: presence and clocks as of now.
 * @param {Live} live
 */
export function takeLive(live) {
  const before = state.seat !== null ? standInOf(state.seat) : null;
  held.live = live;
  held.at = performance.now();
  if (held.timer === null) held.timer = window.setInterval(tick, 1000);
  drawClocks();
  held.heard(before);
}

/** Forget the last table's presence and clocks (another table opens). */
export function forgetLive() {
  held.live = null;
  if (held.timer !== null) { clearInterval(held.timer); held.timer = null; }
}

/** Once a second: the running clock's figure, without redrawing anything else. */
function tick() {
  const clock = held.live?.clock;
  if (!clock || clock.running === null) return;
  const node = document.querySelector(`.seat-live[data-seat="${clock.running}"] .clock`);
  if (node) node.textContent = clockText(secondsLeft(clock, clock.running));
}

/**
 * The presence, clock and stand-in of one seat, as a line to put by its hospital's title.
 * @param {Live} live
 * @param {number} seat
 * @returns {HTMLElement}
 */
function seatLine(live, seat) {
  const line = el("span", "seat-live");
  line.dataset.seat = String(seat);
  const presence = live.presence[seat];
  if (presence.status !== "bot") line.appendChild(el("span", `presence ${presence.status}`, STATUS_WORDS[presence.status] || presence.status));
  const clock = live.clock;
  if (clock && presence.status !== "bot" && presence.status !== "open") {
    const running = clock.running === seat && !presence.stand_in;
    const node = el("span", running ? "clock running" : "clock", clockText(secondsLeft(clock, seat)));
    node.title = running ? "Time bank: running" : "Time bank";
    line.appendChild(el("span", "sr-only", "time left: "));
    line.appendChild(node);
  }
  if (presence.stand_in) {
    const why = presence.stand_in_reason === "time" ? "out of time" : "away";
    line.appendChild(el("span", "badge stand-in", `played by a bot while ${why}`));
  }
  return line;
}

/** By each hospital's title (drawn by board.js), its seat's presence, clock and stand-in. */
export function drawClocks() {
  const live = held.live;
  drawBackBox(live);
  if (!live) return;
  for (const title of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("h2.player-title[data-seat]"))) {
    const seat = Number(title.dataset.seat);
    if (!live.presence[seat]) continue;
    const old = title.querySelector(".seat-live");
    const line = seatLine(live, seat);
    if (old) old.replaceWith(line);
    else title.appendChild(line);
  }
}

/**
 * While a bot plays for this browser's seat: what happened and a button to take the seat back.
 * @param {Live | null} live
 */
function drawBackBox(live) {
  const box = $("#stand-in");
  const mine = live && state.seat !== null ? live.presence[state.seat] : null;
  box.hidden = !mine || !mine.stand_in || state.view?.phase === "over";
  const why = mine?.stand_in_reason === "time" ? "Your time ran out" : "You were away";
  // Kept as it is while it says the same: a button redrawn at each of the bot's moves would be
  // replaced under the player's pointer, and the click taking the seat back lost.
  if (!box.hidden && box.dataset.why === why && box.childElementCount) return;
  box.innerHTML = "";
  box.dataset.why = box.hidden ? "" : why;
  if (box.hidden) return;
  box.appendChild(el("p", "", `${why}: a bot plays for you until you take your seat back.`));
  box.appendChild(button("Take my seat back", "primary", "back", takeSeatBack));
}

async function takeSeatBack() {
  try {
    takeLive(await api("POST", `/api/tables/${state.tableId}/back`, undefined, state.token));
    setStatus("Your seat is yours again.");
  } catch (thrown) {
    setStatus(`Refused: ${refusal(thrown).message}`, true);
  }
}

/**
 * The new-table form's clock and stand-in choices, as the request's fields (none: no clock).
 * @returns {Partial<import("./types.js").TableRequest>}
 */
export function timeSettings() {
  const value = (/** @type {string} */ id) => /** @type {HTMLSelectElement} */ ($(id)).value;
  /** @type {Partial<import("./types.js").TableRequest>} */
  const settings = {};
  if (value("#clock")) {
    const [bank, increment] = value("#clock").split("/").map(Number);
    settings.clock = { bank, increment };
  }
  if (value("#away")) settings.away_seconds = Number(value("#away"));
  if (settings.clock || settings.away_seconds) settings.stand_in = value("#stand-in-level");
  return settings;
}
