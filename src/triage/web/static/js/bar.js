// @ts-check
// The top of the table, always in view: the status bar (round, phase, whose turn, Pass, and
// "Skip to my turn" while bots' moves are being shown), the compact scoreboard, and the line
// saying the move on screen (js/pace.js). During a replay the bar follows the replay's step.
import { canPass } from "./choices.js";
import { $, button, el, plural } from "./dom.js";
import { isWaiting } from "./lobby.js";
import { pending, skipToNow } from "./pace.js";
import { nameIn, seatName, state } from "./state.js";
import { act } from "./table.js";

/** @returns {{round: number, phase: string, rounds: number, step: string}} what the bar shows */
function shownPosition() {
  const view = /** @type {View} */ (state.view);
  const replay = state.replay;
  const position = replay && replay.stepView ? replay.stepView.state : null;
  if (replay && position) {
    return { round: position.round, phase: position.phase, rounds: view.config.rounds, step: `Replay: step ${replay.step} of ${replay.steps}` };
  }
  return { round: view.round, phase: view.phase, rounds: view.config.rounds, step: "" };
}

/**
 * @typedef {import("./state.js").View} View
 */

export function drawBar() {
  const view = /** @type {View} */ (state.view);
  const bar = $("#bar");
  bar.innerHTML = "";
  const shown = shownPosition();
  bar.dataset.round = String(shown.round);
  bar.dataset.phase = shown.phase;
  const where = el("span", "where");
  where.appendChild(el("b", "round", `Round ${shown.round} of ${shown.rounds}`));
  where.appendChild(el("span", "phase", " · " + (shown.phase === "over" ? "game over" : shown.phase)));
  bar.appendChild(where);
  if (shown.step) {
    bar.appendChild(el("span", "turn", shown.step));
  } else if (view.phase === "over") {
    bar.appendChild(el("span", "turn", "Game over"));
  } else if (isWaiting()) {
    bar.appendChild(el("span", "turn", "Waiting for players"));
  } else {
    const mine = view.turn === state.seat;
    bar.appendChild(el("span", "turn" + (mine ? " yours" : ""), mine ? "Your turn" : view.turn === null ? "Between turns" : `${seatName(view.turn)} to play`));
  }
  const waiting = pending();
  if (waiting && !shown.step) {
    const skip = button(state.seat === null ? "Skip to now" : "Skip to my turn", "skip", "skip", skipToNow);
    skip.title = `${plural(waiting, "more move")} to show; show the table as it is now`;
    bar.appendChild(skip);
  } else if (canPass() && !shown.step) {
    const pass = el("button", "pass", "Pass");
    pass.type = "button";
    pass.dataset.key = "pass";
    pass.title = "End your Treatment for this round; Cleanup follows when everyone has passed";
    pass.addEventListener("click", askPass);
    bar.appendChild(pass);
  }
  drawScores();
}

/**
 * What the scoreboard shows: the table now, or during a replay the replayed step's position.
 * @returns {{players: import("./types.js").Board[], turn: number | null, phase: string, caption: string}}
 */
function shownScores() {
  const view = /** @type {View} */ (state.view);
  const replay = state.replay;
  const position = replay && replay.stepView ? replay.stepView.state : null;
  if (replay && position) return { players: position.players, turn: position.turn, phase: position.phase, caption: `Scores at step ${replay.step}` };
  return { players: view.players, turn: view.turn, phase: view.phase, caption: "Scores" };
}

/** The compact scoreboard: score, VP, QoC and Credits of every player, the one to play marked. */
function drawScores() {
  const box = $("#scores");
  box.innerHTML = "";
  const shown = shownScores();
  const table = el("table", "scoreboard");
  table.dataset.caption = shown.caption;
  table.appendChild(Object.assign(el("caption", "sr-only"), { textContent: shown.caption }));
  const head = el("tr");
  for (const title of ["Player", "Score", "VP", "QoC", "Credits"]) head.appendChild(Object.assign(el("th", "", title), { scope: "col" }));
  table.appendChild(el("thead")).appendChild(head);
  const body = el("tbody");
  shown.players.forEach((player, seat) => {
    const row = el("tr", seat === state.seat ? "mine" : "");
    if (shown.turn === seat && shown.phase !== "over") row.classList.add("to-play");
    const name = el("th", "", seat === state.seat ? `You (${nameIn(state.summary?.seats, seat)})` : seatName(seat));
    name.scope = "row";
    row.appendChild(name);
    for (const value of [player.score, player.vp, player.quality, player.credits]) row.appendChild(el("td", "", String(value)));
    body.appendChild(row);
  });
  table.appendChild(body);
  box.appendChild(table);
}

/**
 * A list of patients for the Pass confirmation.
 * @param {HTMLElement} body
 * @param {string} title
 * @param {string} className
 * @param {import("./state.js").AtRisk[]} patients
 */
function atRisk(body, title, className, patients) {
  if (!patients.length) return;
  body.appendChild(el("p", "", title));
  const list = el("ul", className);
  for (const patient of patients) {
    const item = el("li", "", patient.text);
    // What could still save it, from the forecast: the dialog's "Keep playing" has a purpose.
    const ways = state.forecast && state.forecast.rescue ? state.forecast.rescue[patient.card] || [] : [];
    if (ways.length) {
      const saves = el("ul", "saves");
      for (const way of ways) saves.appendChild(el("li", "", way));
      item.appendChild(saves);
    }
    list.appendChild(item);
  }
  body.appendChild(list);
}

/** Pass at once, or first name the patients that will (or may) die at this Cleanup. */
export function askPass() {
  const { dies, may_die: maybe } = state.forecast ? state.forecast.pass : { dies: [], may_die: [] };
  if (!dies.length && !maybe.length) { act({ type: "pass" }, "pass"); return; }
  const body = $("#confirm-body");
  body.innerHTML = "";
  atRisk(body, `${plural(dies.length, "patient")} of yours will die at this Cleanup:`, "dying", dies);
  atRisk(body, "Checked tonight, dies if severe:", "maybe", maybe);
  /** @type {HTMLDialogElement} */ ($("#confirm-pass")).showModal();
  $("#confirm-cancel").focus();
}
