// @ts-check
// The game-over screen: who won and why, the final table, replay and a new game. The figures
// come from the server's final summary (triage.engine.summary).
import { $, button, el, ruleLink } from "./dom.js";
import { drawRematch } from "./lobby.js";
import { startReplay } from "./replay.js";
import { kindLabel, seatName, state } from "./state.js";

/**
 * @typedef {import("./state.js").View} View
 */

const COLUMNS = ["Player", "Score", "VP", "QoC", "Treated", "Credits", "Cured", "Dead", "Rejected"];

/** @returns {string} the configuration's solo tiers, in words */
function tierText() {
  const solo = state.view?.config.solo;
  if (!solo || !solo.tiers || !solo.tiers.length) return "";
  return solo.tiers.map((/** @type {{name: string, score: number}} */ t) => `${t.name} from ${t.score}`).join(", ");
}

/** @returns {string} */
function overHeadline() {
  const view = /** @type {View} */ (state.view);
  if (view.players.length === 1) {
    const player = view.players[0];
    const tier = state.final && state.final.solo_tier;
    return `${view.winner === 0 ? "Your hospital held" : "Quality of Care fell to 0: a loss"}: score ${player.score}` + (tier ? `, ${tier} tier` : "");
  }
  if (view.winner === null || view.winner === undefined) return "Game over: a full tie";
  return view.winner === state.seat ? "Game over: you win!" : `Game over: ${seatName(view.winner)} wins`;
}

/** @returns {string} what decided the game (R4), from the final summary */
function decidedBy() {
  const view = /** @type {View} */ (state.view);
  if (view.players.length === 1) return tierText() ? `Solo tiers: ${tierText()}.` : "";
  if (!state.final) return "";
  return state.final.decided_by || "";
}

/**
 * "3 (2 critical, 1 severe)".
 * @param {Record<string, number> | undefined} counts
 * @returns {string}
 */
function countText(counts) {
  if (!counts) return "";
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  if (!total) return "0";
  const parts = Object.entries(counts).map(([kind, count]) => `${count} ${kindLabel(kind)}`);
  return `${total} (${parts.join(", ")})`;
}

/** @returns {HTMLElement} the final table, one row per seat */
function finalTable() {
  const view = /** @type {View} */ (state.view);
  const table = el("table", "final");
  const head = el("tr");
  for (const name of COLUMNS) head.appendChild(Object.assign(el("th", "", name), { scope: "col" }));
  table.appendChild(el("thead")).appendChild(head);
  const body = el("tbody");
  view.players.forEach((player, seat) => {
    const row = el("tr");
    if (seat === view.winner) row.classList.add("winner");
    const name = seatName(seat) + (seat === view.winner && view.players.length > 1 ? " (winner)" : "");
    row.appendChild(Object.assign(el("th", "", name), { scope: "row" }));
    const tally = state.final ? state.final.players[seat] : undefined;
    const values = [player.score, player.vp, player.quality, player.treated, player.credits,
      countText(tally?.cured), countText(tally?.dead), countText(tally?.rejected)];
    values.forEach((value, index) => {
      const cell = el("td", "", String(value));
      cell.dataset.label = COLUMNS[index + 1];
      row.appendChild(cell);
    });
    body.appendChild(row);
  });
  table.appendChild(body);
  const scroller = el("div", "table-scroll");
  scroller.setAttribute("tabindex", "0");
  scroller.setAttribute("role", "region");
  scroller.setAttribute("aria-label", "Final scores");
  scroller.appendChild(table);
  return scroller;
}

export function drawOver() {
  const box = $("#over");
  const view = /** @type {View} */ (state.view);
  box.hidden = view.phase !== "over";
  if (box.hidden) return;
  box.innerHTML = "";
  box.appendChild(Object.assign(el("h2", "", overHeadline()), { id: "over-title" }));
  const decided = decidedBy();
  if (decided) {
    const line = el("p", "tie", decided + " ");
    line.appendChild(ruleLink("R4", "how a game is won"));
    box.appendChild(line);
  }
  box.appendChild(finalTable());
  const buttons = el("div", "over-buttons");
  buttons.appendChild(button("Replay the game", "primary", "replay", () => startReplay()));
  const lobby = el("a", "button", "Back to the lobby");
  lobby.href = "#/";
  buttons.appendChild(lobby);
  box.appendChild(buttons);
  drawRematch(buttons);
}
