// @ts-check
// The log: the seat's events, newest round first, by phase.
import { $, el, plural } from "./dom.js";
import { itemWords, kindLabel, says, seatName, state } from "./state.js";

/** @typedef {import("./state.js").GameEvent} GameEvent */

/** @type {Record<string, string | null>} */
const PHASE_OF = {
  income: "Income and arrival", drawn: null, admitted: null, rejected: null,
  diagnosed: "Treatment", healed: "Treatment", cured: "Treatment", treated: "Treatment", helicopter: "Treatment",
  removed: "Treatment", bought: "Treatment", passed: "Treatment",
  time_added: "Cleanup", checked: "Cleanup", died: "Cleanup", game_over: "End of the game",
};

/**
 * " (severe)" where the event tells the kind.
 * @param {GameEvent} event
 * @returns {string}
 */
function kindWord(event) {
  return event.kind ? ` (${kindLabel(event.kind)})` : "";
}

/**
 * "Your" / "Player 1 (greedy)'s", before a card id.
 * @param {number} seat
 * @returns {string}
 */
function whose(seat) {
  return seat === state.seat ? "Your" : `${seatName(seat)}'s`;
}

/**
 * One event in words.
 * @param {GameEvent} event
 * @returns {string}
 */
export function eventText(event) {
  // Each type of event carries its own fields (scenario-format.md section 6).
  const e = /** @type {Required<GameEvent>} */ (event);
  const p = e.player;
  const card = e.card || "";
  switch (e.type) {
    case "income": return `${says(p, "receive")} ${e.diagnostics} Diagnostics and ${e.healing} Healing`;
    case "drawn": return `${says(p, "draw")} ${card} (${e.front}${e.front === "standard" ? ", diagnosis " + e.diagnosis : ""})`;
    case "admitted": return `${says(p, "admit")} ${card} ${e.space ? "to space " + e.space : "beside the board"}`;
    case "rejected": return `${says(p, "reject")} ${card}: −${e.quality_lost} QoC`;
    case "diagnosed": return `${says(p, "diagnose")} ${card}${kindWord(event)}`;
    case "healed": return `${says(p, "place")} ${e.amount} healing on ${card}`;
    case "cured": return `${card} is cured: ${seatName(p)} ${p === state.seat ? "gain" : "gains"} ${plural(e.credits, "Credit")} and ${e.vp} VP`;
    case "treated": return `${says(p, "treat")} terminal ${card}`;
    case "time_added": return `${whose(p)} ${card} has ${e.time} Time now`;
    case "checked": {
      const saw = (e.seen_by || []).map((/** @type {number} */ seat) => (seat === state.seat ? "you" : seatName(seat))).join(", ");
      return `${whose(p)} ${card} is checked` + (saw ? `: seen by ${saw}` : "") + kindWord(event);
    }
    case "died": return `${whose(p)} ${card} dies: −${e.quality_lost} QoC`;
    case "removed": return `${says(p, "remove")} ${card} by Helicopter`;
    case "helicopter": return `${says(p, "fly", "flies")} a Helicopter`;
    case "bought": return `${says(p, "buy")} a ${itemWords(e.item).label}` + (e.price !== undefined ? ` for ${plural(e.price, "Credit")}` : "");
    case "passed": return says(p, "pass", "passes");
    case "round_started": return `Round ${e.round} begins`;
    case "deck_empty": return "The deck is empty";
    case "game_over": return "Game over: scores " + (e.scores || []).join(" / ");
    default: return e.type;
  }
}

/**
 * A round's section of the log, headed by its number and its first player.
 * @param {GameEvent | null} event  its round_started event (null: before the first)
 * @returns {HTMLElement}
 */
function roundSection(event) {
  const section = el("section", "log-round");
  let title = "Start";
  if (event) {
    const first = event.first_player;
    title = `Round ${event.round}` + (first !== undefined ? ` · ${seatName(first)} ${first === state.seat ? "start" : "starts"}` : "");
  }
  section.appendChild(el("h3", "", title));
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
    /** @type {string} */
    const next = PHASE_OF[event.type] || phase || "Income and arrival";
    if (next !== phase || !list) {
      phase = next;
      section.appendChild(el("h4", "", phase));
      list = el("ul");
      section.appendChild(list);
    }
    const item = el("li", event.player === state.seat ? "mine" : "", eventText(event));
    item.dataset.type = event.type;
    list.appendChild(item);
  }
  for (const part of rounds.reverse()) box.appendChild(part); // newest round first
  box.dataset.round = round === null ? "" : String(round);
}
