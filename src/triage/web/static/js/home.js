// @ts-check
// The home page: quick games, a new table, the list of tables, invitations.
import { api, refusal, setStatus } from "./api.js";
import { $, button, el, plural } from "./dom.js";
import { forgetSeat, heldSeats, nameIn, savedSeat, saveSeat, state } from "./state.js";
import { fillNames, showInvitation, typedName } from "./lobby.js";
import { closeSocket } from "./table.js";

/**
 * @typedef {import("./state.js").TableFacts} TableFacts
 * @typedef {import("./types.js").ListedTable} ListedTable
 */

export async function showHome() {
  $("#table").hidden = true;
  $("#missing").hidden = true;
  $("#invited").hidden = true;
  $("#home").hidden = false;
  fillNames();
  document.title = "Triage";
  closeSocket();
  state.tableId = null;
  setStatus("");
  try { state.bots = await api("GET", "/api/bots"); } catch (e) { state.bots = ["random"]; }
  // The levels' friendly names and lines come from the server (triage.bots.PLAYER_LEVELS), as in the terminal game.
  try { state.levels = await api("GET", "/api/levels"); } catch (e) { state.levels = []; }
  drawBotLevels();
  drawSeatChoices();
  drawMyGames();
  drawTableList();
}

/** How many of this browser's games the home page lists (the newest). */
const MY_GAMES_SHOWN = 12;

/**
 * Where a table this browser plays at stands, for its seat, in words.
 * @param {TableFacts} table  the table's public facts
 * @param {number} seat
 * @returns {{text: string, yours: boolean}}
 */
function standing(table, seat) {
  if (table.over) {
    const scores = (table.scores || []).join(" / ");
    const won = table.winner === seat ? "you won" : table.winner === null ? "a tie" : `${nameIn(table.seats, table.winner)} won`;
    return { text: table.players === 1 ? `over, score ${scores}` : `over: ${won} (${scores})`, yours: false };
  }
  const free = table.seats.filter((s) => s.human && !s.taken).length;
  if (free) return { text: `waiting for ${plural(free, "player")} to join`, yours: false };
  if (table.turn === seat) return { text: `your turn, round ${table.round}`, yours: true };
  if (table.turn === null) return { text: `round ${table.round}, ${table.phase}`, yours: false };
  return { text: `round ${table.round}, ${nameIn(table.seats, table.turn)} to play`, yours: false };
}

/**
 * One of this browser's games: a link to it and where it stands.
 * @param {import("./state.js").HeldSeat} held
 * @returns {Promise<HTMLLIElement>}
 */
async function myGameItem(held) {
  const item = el("li");
  const link = el("a", "", `Table ${held.tableId}`);
  link.href = "#/t/" + held.tableId;
  item.appendChild(link);
  item.appendChild(document.createTextNode(": "));
  try {
    const table = await api("GET", `/api/tables/${held.tableId}`);
    const where = standing(table, held.seat);
    item.appendChild(el("span", where.yours ? "badge turn-badge" : "", where.text));
    item.dataset.state = where.yours ? "turn" : table.over ? "over" : "playing";
  } catch (thrown) {
    const e = refusal(thrown);
    if (e.status !== 404) {
      item.appendChild(el("span", "hint", e.message));
      return item;
    }
    item.dataset.state = "gone";
    item.appendChild(el("span", "hint", "table not found "));
    item.appendChild(button("Forget it", "small", null, () => { forgetSeat(held.tableId); drawMyGames(); }));
  }
  return item;
}

/** This browser's seats (kept in localStorage), newest first, each with where it stands. */
async function drawMyGames() {
  const held = heldSeats().slice(0, MY_GAMES_SHOWN);
  const box = $("#my-games-box");
  box.hidden = !held.length;
  const items = await Promise.all(held.map(myGameItem));
  const list = $("#my-games");
  list.innerHTML = "";
  for (const item of items) list.appendChild(item);
}

/** @returns {string} the gentlest bot on offer: the default opponent */
export function defaultBot() {
  for (const { name } of state.levels) if (state.bots.includes(name)) return name;
  return state.bots[0];
}

/** @returns {string[]} the levels (gentlest first), then the other bots */
export function orderedBots() {
  const order = state.levels.map((level) => level.name);
  return state.bots.slice().sort((a, b) => {
    const ia = order.indexOf(a), ib = order.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
  });
}

/**
 * A bot's menu entry: its friendly name and how it plays, or its own name for the others.
 * @param {string} name
 * @param {string} [prefix]
 * @returns {HTMLOptionElement}
 */
export function botOption(name, prefix) {
  const level = state.levels.find((known) => known.name === name);
  const text = level ? `${level.label}: ${level.description}` : name === "human" ? name : `${name} (for balance testing)`;
  const option = el("option", "", (prefix || "") + text);
  option.value = name;
  return option;
}

function drawBotLevels() {
  const select = /** @type {HTMLSelectElement} */ ($("#solo-bot"));
  const chosen = select.value;
  select.innerHTML = "";
  for (const name of orderedBots()) select.appendChild(botOption(name));
  select.value = chosen && state.bots.includes(chosen) ? chosen : defaultBot();
  // The stand-in for an absent player (clocks.js): the same levels, by the same names.
  const standIn = /** @type {HTMLSelectElement | null} */ (document.querySelector("#stand-in-level"));
  if (standIn && state.levels.length) {
    const kept = standIn.value;
    standIn.innerHTML = "";
    for (const level of state.levels) standIn.appendChild(botOption(level.name));
    standIn.value = state.levels.some((level) => level.name === kept) ? kept : defaultBot();
  }
}

export function drawSeatChoices() {
  const players = Number(/** @type {HTMLSelectElement} */ ($("#players")).value);
  const box = $("#seat-choices");
  box.innerHTML = "";
  for (let seat = 0; seat < players; seat++) {
    const label = el("label", "", `Player ${seat + 1} `);
    const select = el("select");
    select.dataset.seat = String(seat);
    select.appendChild(botOption("human"));
    for (const name of orderedBots()) select.appendChild(botOption(name, "bot: "));
    select.value = seat === 0 ? "human" : defaultBot();
    label.appendChild(select);
    box.appendChild(label);
  }
}

/**
 * @param {ListedTable} table
 * @returns {string}
 */
function describeSeats(table) {
  return table.seats.map((s) => (s.bot || s.taken ? nameIn(table.seats, s.seat) : "a free seat")).join(", ");
}

async function drawTableList() {
  const list = $("#tables");
  list.innerHTML = "";
  /** @type {ListedTable[]} */
  let tables = [];
  try { tables = await api("GET", "/api/tables"); } catch (e) { setStatus(refusal(e).message, true); }
  if (!tables.length) list.appendChild(el("li", "hint", "No table yet."));
  for (const table of tables) list.appendChild(tableItem(table));
}

/**
 * One table of the lobby, with the button to continue, join or watch it.
 * @param {ListedTable} table
 * @returns {HTMLLIElement}
 */
function tableItem(table) {
  const item = el("li");
  const where = table.over ? `over, scores ${(table.scores || []).join(" / ")}` : `round ${table.round}, ${table.phase}`;
  item.appendChild(el("span", "", `${table.table_id}: ${plural(table.players, "player")} (${describeSeats(table)}); ${where} `));
  // The creator's settings, before joining: how others' moves are shown, and who reads the chat.
  const chat = table.settings.spectator_chat === "read" ? "spectators read the chat" : "the chat is for the players alone";
  item.appendChild(el("span", "table-settings", `${table.settings.pace} pace, ${chat} `));
  if (table.seed_chosen && !table.over) {
    // Whoever chose the seed can deal the same game at home and know every card (K1).
    item.appendChild(el("span", "practice", "practice deal: its creator chose the seed and can know every card "));
  }
  const mine = savedSeat(table.table_id);
  const canJoin = table.seats.some((s) => s.human && !s.taken) && !table.over;
  const open = el("button", "", mine ? "Continue" : canJoin ? "Join" : "Watch");
  open.addEventListener("click", async () => {
    if (!mine && canJoin) {
      try {
        const name = typedName("#player-name");
        const seat = await api("POST", `/api/tables/${table.table_id}/join`, name ? { name } : {});
        saveSeat(table.table_id, seat.seat, seat.token);
      } catch (e) { setStatus(refusal(e).message, true); return; }
    }
    location.hash = "#/t/" + table.table_id;
  });
  item.appendChild(open);
  return item;
}

/**
 * Create a table; this browser plays its first human seat.
 * @param {number} players
 * @param {(string | null)[]} bots  one per seat, null for a human
 * @param {number | null} seed
 * @param {boolean} isPublic
 * @param {Partial<import("./types.js").TableRequest>} [extra]  more of the request (clocks.js: clock, away_seconds, stand_in)
 */
export async function createTable(players, bots, seed, isPublic, extra) {
  /** @type {Partial<import("./types.js").TableRequest>} */
  const body = { players, bots, ...(extra || {}) };
  const name = typedName("#player-name");
  if (name && bots.some((bot) => bot === null)) body.name = name;
  // Every other human seat gets an invitation link.
  const humans = bots.map((bot, seat) => (bot ? null : seat)).filter((seat) => seat !== null);
  if (humans.length > 1) body.creator_seats = [humans[0]];
  if (seed !== null) body.seed = seed;
  if (isPublic) body.public = true;
  try {
    const created = await api("POST", "/api/tables", body);
    if (created.seats.length) saveSeat(created.table_id, created.seats[0].seat, created.seats[0].token, created.invites);
    location.hash = "#/t/" + created.table_id;
  } catch (e) {
    setStatus(refusal(e).message, true);
  }
}

/**
 * Take the seat of an invitation link, unless this browser already holds one at the table.
 * @param {string} tableId
 * @param {string} code
 */
export async function joinByInvite(tableId, code) {
  const held = savedSeat(tableId);
  if (held) {
    // Opening the link again must not take the friend's seat.
    location.replace("#/t/" + tableId);
    setStatus("You already have a seat at this table; the invitation is left for your friend.");
    return;
  }
  closeSocket();
  state.tableId = null;
  showInvitation(tableId, code);
}
