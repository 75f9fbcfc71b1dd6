// @ts-check
// What the page holds: the seat, the server's last message for it, and what the player picked.
// Everything about the game comes from the server (its view, choices and forecast): the page
// draws it and holds no game rule, so it can never show more than the seat knows (I1-I4).

/**
 * The server's shapes (generated from its OpenAPI schema, see types.js):
 * @typedef {import("./types.js").View} View  a seat's view (scenario-format.md section 5)
 * @typedef {import("./types.js").Choice} Choice  one bounded choice (triage.engine.choices)
 * @typedef {import("./types.js").WordedEvent} WordedEvent  one event as the seat may see it, with its words and phase heading
 * @typedef {import("./types.js").Payment} Pay
 * @typedef {import("./types.js").Deadline} Deadline
 * @typedef {import("./types.js").AtRisk} AtRisk
 * @typedef {import("./types.js").Offer} Offer  an action on offer in words (triage.engine.offers)
 * @typedef {import("./types.js").Forecast} Forecast
 * @typedef {import("./types.js").Action} Action
 * @typedef {import("./types.js").GameRecord} GameRecord
 * @typedef {import("./types.js").ReplayStep} ReplayStep
 * @typedef {import("./types.js").TableFacts} TableFacts
 * @typedef {import("./types.js").FinalSummary} FinalSummary
 * A choice of one type, with the fields that type always carries (triage.engine.choices):
 * @typedef {Choice & Required<Pick<Choice, "card" | "spaces">>} AdmitChoice
 * @typedef {Choice & Required<Pick<Choice, "patient" | "amount" | "budget" | "token">>} HealChoice
 * @typedef {Choice & Required<Pick<Choice, "patient" | "cost" | "budget" | "token">>} CostChoice
 * @typedef {Choice & Required<Pick<Choice, "remove" | "draw_all">>} HelicopterChoice
 * @typedef {Choice & Required<Pick<Choice, "item" | "price">>} BuyChoice
 * And the page's own:
 * @typedef {{where: string, code: string, message: string, rule?: string}} Refusal
 * @typedef {{seat: number, url: string}} Invite
 * @typedef {{step: number, steps: number, record: GameRecord, stepView: ReplayStep | null, rounds: {round: number, step: number}[]}} Replay
 */

/**
 * @typedef {object} PageState
 * @property {string | null} tableId
 * @property {number | null} seat
 * @property {string | null} token
 * @property {WebSocket | null} socket
 * @property {number | null} retry
 * @property {View | null} view
 * @property {Choice[]} choices
 * @property {Forecast | null} forecast  null until the server's message for this position brings it
 * @property {number | null} actions  the action number of the position drawn
 * @property {WordedEvent[]} log
 * @property {TableFacts | null} summary
 * @property {FinalSummary | null} final
 * @property {string | null} selected
 * @property {Record<string, number>} heal
 * @property {Record<string, Pay>} pay  the payment picked per action (its key: "heal:P12", "treat:P03"...)
 * @property {Record<string, boolean>} payOpen  which payment choosers the player opened
 * @property {{remove: string | null, draw: boolean} | null} heliForm  the Helicopter's form as filled in (T7)
 * @property {Refusal | null} error
 * @property {string | null} notice
 * @property {string[]} bots
 * @property {{name: string, label: string, description: string}[]} levels  the levels as players meet them (GET /api/levels), gentlest first
 * @property {boolean} firstDrawn
 * @property {Replay | null} replay
 * @property {Invite[]} invites
 * @property {string | null} focusKey
 * @property {boolean} allOpen
 * @property {number} retries  reconnections tried since the last message of the server
 * @property {{steps: number, reason: string | null, rule?: string | null} | null} undo  how far the seat may undo now (js/undo.js)
 * @property {{by: number, action: Action, events: WordedEvent[]} | null} acting  another seat's move on screen (js/pace.js)
 * @property {number | null} awaiting  the number of this seat's action whose position the WebSocket is to bring
 * @property {number} ownSeen  the number of this seat's latest action the WebSocket has brought (-1: none)
 * @property {boolean} sending  an action of this seat is on its way
 */

/** @type {PageState} */
export const state = {
  tableId: null, seat: null, token: null, socket: null, retry: null,
  view: null, choices: [], forecast: null, actions: null, log: [], summary: null, final: null,
  selected: null, heal: {}, pay: {}, payOpen: {}, heliForm: null, error: null, notice: null,
  undo: null, acting: null, awaiting: null, ownSeen: -1, sending: false, bots: [], levels: [], firstDrawn: false, replay: null, invites: [], focusKey: null, allOpen: false, retries: 0,
};

/**
 * A card kind in a player's words: the server's vocabulary (the view's ``kinds``).
 * @param {string} kind
 * @returns {string}
 */
export function kindLabel(kind) {
  return kindOf(kind)?.label || kind;
}

/**
 * What the view says of a card kind: its words, whether its healing need is printed (T3) and
 * whether it waits beside the board (A3).
 * @param {string | null} kind
 * @returns {import("./types.js").KindWords | null}
 */
export function kindOf(kind) {
  const kinds = state.view ? state.view.kinds : null;
  return (kind && kinds && kinds[kind]) || null;
}

/** @returns {string} the kind of the patients beside a board (A3), as the view names it */
export function besideKind() {
  const kinds = state.view ? state.view.kinds : {};
  return Object.keys(kinds).find((kind) => kinds[kind].beside) || "";
}

/**
 * A market item's label and help as the table's configuration declares them (rule T8).
 * @param {string} item
 * @returns {{label: string, help: string}}
 */
export function itemWords(item) {
  const market = state.view ? state.view.config.market : null;
  const entry = market && market[item];
  return { label: (entry && entry.label) || item, help: (entry && entry.help) || "" };
}

/**
 * The seat this browser holds at a table, if any.
 * @param {string} tableId
 * @returns {{seat: number, token: string, invites?: Invite[]} | null}
 */
export function savedSeat(tableId) {
  try { return JSON.parse(localStorage.getItem("triage.seat." + tableId) || "null"); } catch (e) { return null; }
}

/**
 * @param {string} tableId
 * @param {number} seat
 * @param {string} token
 * @param {Invite[]} [invites]
 */
export function saveSeat(tableId, seat, token, invites) {
  localStorage.setItem("triage.seat." + tableId, JSON.stringify({ seat, token, invites: invites || [], saved: Date.now() }));
}

/** @typedef {{tableId: string, seat: number, token: string, saved: number}} HeldSeat */

/**
 * Every seat this browser holds, the newest first.
 * @returns {HeldSeat[]}
 */
export function heldSeats() {
  /** @type {HeldSeat[]} */
  const found = [];
  for (let index = 0; index < localStorage.length; index++) {
    const key = localStorage.key(index);
    if (!key || !key.startsWith("triage.seat.")) continue;
    const tableId = key.slice("triage.seat.".length);
    const held = savedSeat(tableId);
    if (held && typeof held.seat === "number") found.push({ tableId, seat: held.seat, token: held.token, saved: Number(/** @type {any} */ (held).saved) || 0 });
  }
  return found.sort((a, b) => b.saved - a.saved || a.tableId.localeCompare(b.tableId));
}

/**
 * Forget the seat this browser held at a table (a table that no longer exists).
 * @param {string} tableId
 */
export function forgetSeat(tableId) {
  localStorage.removeItem("triage.seat." + tableId);
}

/** The last table opened in this browser: the rules page's way back to it. */
export const LAST_TABLE = "triage.last";

/**
 * The bot playing a seat, from the table's summary.
 * @param {number} seat
 * @returns {string | null}
 */
export function botOf(seat) {
  const seats = state.summary && state.summary.seats;
  return seats && seats[seat] ? seats[seat].bot : null;
}

/**
 * A bot level's name as the menu shows it ("Gentle"), from the server's levels (GET /api/levels);
 * a bot kept for balance testing keeps its own name.
 * @param {string} bot
 * @returns {string}
 */
export function levelLabel(bot) {
  const level = state.levels.find((known) => known.name === bot);
  return level ? level.label : bot;
}

/**
 * A seat's player by name, from a table's public seats: the name they chose, "Gentle bot" (a
 * number after it when two seats have the same level), or "Player 2" (seats count from 1 for
 * people). Never "seat 1" nor "player 0".
 * @param {import("./types.js").SeatFacts[] | null | undefined} seats
 * @param {number} seat
 * @returns {string}
 */
export function nameIn(seats, seat) {
  const info = seats && seats[seat];
  if (!info) return `Player ${seat + 1}`;
  if (!info.bot) return info.name || `Player ${seat + 1}`;
  const label = levelLabel(info.bot);
  const same = seats.filter((other) => other.bot && levelLabel(other.bot) === label);
  return same.length > 1 ? `${label} bot ${same.indexOf(info) + 1}` : `${label} bot`;
}

/**
 * "You", or the seat's player by name (see nameIn).
 * @param {number} seat
 * @returns {string}
 */
export function seatName(seat) {
  if (seat === state.seat) return "You";
  return nameIn(state.summary && state.summary.seats, seat);
}

/**
 * A server's text with "player N" (a seat number, as the engine's messages name seats) replaced
 * by that player's name.
 * @param {string} text
 * @returns {string}
 */
export function withNames(text) {
  return text.replace(/\b[Pp]layer (\d)\b/g, (_, seat) => (Number(seat) === state.seat ? "you" : seatName(Number(seat))));
}

/**
 * "You heal" / "Player 1 (greedy) heals".
 * @param {number} seat
 * @param {string} base
 * @param {string} [third]
 * @returns {string}
 */
export function says(seat, base, third) {
  return `${seatName(seat)} ${seat === state.seat ? base : third || base + "s"}`;
}

/**
 * The seat's own player in the view (null for a spectator).
 * @returns {import("./types.js").Board | null}
 */
export function me() {
  return state.view && state.seat !== null ? state.view.players[state.seat] : null;
}
