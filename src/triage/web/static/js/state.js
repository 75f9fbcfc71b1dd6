// @ts-check
// What the page holds: the seat, the server's last message for it, and what the player picked.
// Everything about the game comes from the server (its view, choices and forecast): the page
// draws it and holds no game rule, so it can never show more than the seat knows (I1-I4).

/**
 * @typedef {Record<string, any>} View  a seat's view (scenario-format.md section 5)
 * @typedef {Record<string, any>} Choice  one bounded choice (triage.engine.choices)
 * @typedef {Record<string, any>} GameEvent  one event as the seat may see it
 * @typedef {{tokens: number, staff: number, congress: number}} Pay
 * @typedef {{owner: number, level: string, rounds: number | null, text: string, rule: string, quality_lost: number}} Deadline
 * @typedef {{card: string, text: string}} AtRisk
 * @typedef {{do: Record<string, any>, text: string}} Offer  an action on offer in words (triage.engine.offers)
 * @typedef {{patients: Record<string, Deadline>, choices: Record<string, any>[], pass: {dies: AtRisk[], may_die: AtRisk[]}, rescue: Record<string, string[]>, market: Record<string, {price: number, why: string | null}>, actions: Offer[], quick: Record<string, Offer>}} Forecast
 * @typedef {{where: string, code: string, message: string, rule?: string}} Refusal
 * @typedef {{seat: number, url: string}} Invite
 * @typedef {{step: number, steps: number, record: Record<string, any>, stepView: Record<string, any> | null, rounds: {round: number, step: number}[]}} Replay
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
 * @property {GameEvent[]} log
 * @property {Record<string, any> | null} summary
 * @property {Record<string, any> | null} final
 * @property {string | null} selected
 * @property {Record<string, number>} heal
 * @property {Record<string, any>} pay
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
 * @property {number | null} cleanupSeen  the round whose Cleanup summary the player put away
 * @property {{steps: number, reason: string | null} | null} undo  how far the seat may undo now (js/undo.js)
 */

/** @type {PageState} */
export const state = {
  tableId: null, seat: null, token: null, socket: null, retry: null,
  view: null, choices: [], forecast: null, actions: null, log: [], summary: null, final: null,
  selected: null, heal: {}, pay: {}, error: null, notice: null,
  undo: null, bots: [], levels: [], firstDrawn: false, replay: null, invites: [], focusKey: null, allOpen: false, retries: 0, cleanupSeen: null,
};

/**
 * A card kind in a player's words: the server's vocabulary (the view's ``kinds``).
 * @param {string} kind
 * @returns {string}
 */
export function kindLabel(kind) {
  const kinds = state.view ? state.view.kinds : null;
  return (kinds && kinds[kind] && kinds[kind].label) || kind;
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
 * "You", the player's name, "Player 1" or "Player 1 (greedy)".
 * @param {number} seat
 * @returns {string}
 */
export function seatName(seat) {
  if (seat === state.seat) return "You";
  const bot = botOf(seat);
  const seats = state.summary && state.summary.seats;
  const name = seats && seats[seat] ? seats[seat].name : null;
  return bot ? `Player ${seat} (${bot})` : name || `Player ${seat}`;
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
 * @returns {Record<string, any> | null}
 */
export function me() {
  return state.view && state.seat !== null ? state.view.players[state.seat] : null;
}
