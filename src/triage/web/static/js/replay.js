// @ts-check
// The replay of a finished game, step by step (the whole record is public once it is over).
import { api, refusal, setStatus } from "./api.js";
import { drawBar } from "./bar.js";
import { cardBody } from "./board.js";
import { $, button, el, plural } from "./dom.js";
import { replayChat } from "./chat.js";
import { restoreFocus } from "./render.js";
import { roundTargets, stepDeck, stepHoldings } from "./replay_round.js";
import { besideKind, itemWords, says, seatName, state } from "./state.js";

/**
 * @typedef {import("./state.js").Action} Action
 * @typedef {import("./types.js").Board} Board
 */

/** @returns {string} the replay's query naming this page's seat, whose player reads "You" in the events' words */
function seatQuery() {
  return state.seat === null ? "" : `&seat=${state.seat}`;
}

export async function startReplay() {
  // The replay is drawn (also by redraws meanwhile) only once its record is here.
  let record, first;
  try {
    record = await api("GET", `/api/tables/${state.tableId}/record`, undefined, state.token);
    first = await api("GET", `/api/tables/${state.tableId}/replay?step=0${seatQuery()}`, undefined, state.token);
  } catch (e) { setStatus(refusal(e).message, true); return; }
  state.replay = { step: 0, steps: record.actions.length, record, stepView: first, rounds: first.rounds || [] };
  drawReplay();
  const box = $("#replay");
  box.scrollIntoView({ block: "start" });
  const next = /** @type {HTMLElement | null} */ (box.querySelector("[data-key='replay-next']"));
  if (next) next.focus();
}

/** @param {number} step */
async function replayGo(step) {
  const replay = /** @type {import("./state.js").Replay} */ (state.replay);
  replay.step = Math.max(0, Math.min(replay.steps, step));
  try {
    replay.stepView = await api("GET", `/api/tables/${state.tableId}/replay?step=${replay.step}${seatQuery()}`, undefined, state.token);
    replay.rounds = replay.stepView ? replay.stepView.rounds || replay.rounds : replay.rounds;
  } catch (e) { setStatus(refusal(e).message, true); }
  drawReplay();
}

/**
 * An action of the record in words.
 * @param {Action} action
 * @param {number} by
 * @returns {string}
 */
function actionText(action, by) {
  /** @type {(base: string, third?: string) => string} */
  const v = (base, third) => says(by, base, third);
  switch (action.type) {
    case "admit": return `${v("admit")} ${action.card} to space ${action.space}`;
    case "reject": return `${v("reject")} ${action.card}`;
    case "diagnose": return `${v("diagnose")} ${action.patient}`;
    case "heal": return `${v("heal")} ${action.patient} by ${action.amount}`;
    case "treat": return `${v("treat")} ${action.patient}`;
    case "helicopter": return `${v("fly", "flies")} a Helicopter` + (action.remove ? `, removing ${action.remove}` : "") + (action.draw_all ? ", everyone draws" : "");
    case "buy": return `${v("buy")} a ${itemWords(action.item || "").label}`;
    case "pass": return `${v("pass", "passes")}`;
    default: return `${seatName(by)}: ${action.type}`;
  }
}

/**
 * One player's board at the replay's step.
 * @param {Board} player
 * @param {number} seat
 * @returns {HTMLElement}
 */
function replayPlayer(player, seat) {
  const section = el("div", "replay-player");
  section.appendChild(el("h3", "", `${seatName(seat)}: score ${player.score} (VP ${player.vp} + QoC ${player.quality}), Credits ${player.credits}`));
  const row = el("div", "row spaces");
  /** @type {(card: import("./types.js").CardShown | import("./types.js").TerminalShown, where: string) => void} */
  const add = (card, where) => {
    const node = el("div", "card");
    cardBody(node, card, { where, replay: true });
    row.appendChild(node);
  };
  for (const [space, slot] of Object.entries(player.hospital)) {
    if (!slot) row.appendChild(el("div", "card empty", "space " + space + " free"));
    else add(slot, "space " + space);
  }
  for (const patient of player.terminals) add({ kind: besideKind(), ...patient }, "beside");
  section.appendChild(stepHoldings(player));
  section.appendChild(row);
  if (player.pending.length) section.appendChild(el("p", "hint", "Arrived, not yet admitted: " + player.pending.join(", ")));
  return section;
}

/** @returns {HTMLElement} the step buttons and closing the replay */
function replayControls() {
  const replay = /** @type {import("./state.js").Replay} */ (state.replay);
  const controls = el("div", "replay-controls");
  /** @type {(text: string, key: string, step: number) => HTMLButtonElement} */
  const stepTo = (text, key, step) => {
    const node = button(text, "", key, async () => { state.focusKey = key; await replayGo(step); restoreFocus(); });
    node.disabled = step < 0 || step > replay.steps || step === replay.step;
    controls.appendChild(node);
    return node;
  };
  // A whole round at a time (the server names each round's first step), or one action.
  const rounds = roundTargets(replay.rounds, replay.step);
  stepTo("« Start", "replay-start", 0);
  stepTo(rounds.back[0], "replay-round-back", rounds.back[1]).title = "Back to the start of a round";
  stepTo("◀ Back", "replay-back", replay.step - 1);
  stepTo("Next ▶", "replay-next", replay.step + 1);
  stepTo(rounds.next[0], "replay-round-next", rounds.next[1]).title = "On to the start of the next round";
  stepTo("End »", "replay-end", replay.steps);
  controls.appendChild(button("Close replay", "", null, () => {
    state.replay = null;
    drawReplay();
    const again = /** @type {HTMLElement | null} */ (document.querySelector("[data-key='replay']"));
    if (again) again.focus();
  }));
  return controls;
}

export function drawReplay() {
  const box = $("#replay");
  const replay = state.replay;
  if (state.view) drawBar(); // the bar's header follows the replay's step
  box.hidden = !replay;
  box.innerHTML = "";
  if (!replay) return;
  box.appendChild(Object.assign(el("h2", "", `Replay: step ${replay.step} of ${replay.steps}`), { id: "replay-title" }));
  box.appendChild(replayControls());
  const entry = replay.step > 0 ? replay.record.actions[replay.step - 1] : null;
  box.appendChild(el("p", "replay-action", entry ? `Action ${replay.step}: ${actionText(entry.do, entry.by)}` : "The deal, before the first action"));
  if (!replay.stepView) return;
  const position = replay.stepView.state;
  box.appendChild(el("p", "hint", `Round ${position.round}, ${position.phase}; deck ${plural(position.deck.length, "card")}`));
  box.appendChild(stepDeck(position));
  const events = replay.stepView.events.map((event) => event.text);
  if (events.length) {
    const list = el("ul", "replay-events");
    for (const text of events) list.appendChild(el("li", "", text));
    box.appendChild(list);
  }
  const said = replayChat(replay.record, replay.step); // the chat among the moves, by when it was said
  if (said) box.appendChild(said);
  position.players.forEach((player, seat) => box.appendChild(replayPlayer(player, seat)));
}
