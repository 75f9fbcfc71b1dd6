// @ts-check
// The status bar (round, phase, whose turn) and Pass, confirmed when patients will die tonight.
import { canPass } from "./choices.js";
import { $, el, plural } from "./dom.js";
import { isWaiting } from "./lobby.js";
import { seatName, state } from "./state.js";
import { act } from "./table.js";

export function drawBar() {
  const view = /** @type {Record<string, any>} */ (state.view);
  const bar = $("#bar");
  bar.innerHTML = "";
  bar.dataset.round = view.round;
  bar.dataset.phase = view.phase;
  const where = el("span", "where");
  where.appendChild(el("b", "round", `Round ${view.round} of ${view.config.rounds}`));
  where.appendChild(el("span", "phase", " · " + (view.phase === "over" ? "game over" : view.phase)));
  bar.appendChild(where);
  if (view.phase === "over") {
    bar.appendChild(el("span", "turn", "Game over"));
  } else if (isWaiting()) {
    bar.appendChild(el("span", "turn", "Waiting for players"));
  } else {
    const mine = view.turn === state.seat;
    bar.appendChild(el("span", "turn" + (mine ? " yours" : ""), mine ? "Your turn" : `${seatName(view.turn)} to play`));
  }
  if (canPass()) {
    const pass = el("button", "pass", "Pass");
    pass.type = "button";
    pass.dataset.key = "pass";
    pass.title = "End your Treatment for this round (rule T9); Cleanup follows when everyone has passed";
    pass.addEventListener("click", askPass);
    bar.appendChild(pass);
  }
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
