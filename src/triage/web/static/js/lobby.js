// @ts-check
// A table's life around the game: the waiting room (who is here, the host's "start with bots"),
// players' names, the invitation page (its refusals explained, with a way to watch) and the
// rematch. Names are the players' own text: always written with textContent, never as HTML.
import { api, refusal, setStatus } from "./api.js";
import { $, button, el, plural } from "./dom.js";
import { botOption, defaultBot, orderedBots } from "./home.js";
import { levelLabel, nameIn, savedSeat, saveSeat, state } from "./state.js";
import { PACE_WORDS } from "./pace.js";
import { openTable } from "./table.js";

/** Where this browser keeps the player's name between tables. */
const NAME_KEY = "triage.name";

/** @returns {string} the name this browser last used ("" if none) */
export function savedName() {
  try { return localStorage.getItem(NAME_KEY) || ""; } catch (e) { return ""; }
}

/**
 * The name typed in `input`, kept for the next table; null when left empty (the server then
 * says "Player N").
 * @param {string} selector
 * @returns {string | null}
 */
export function typedName(selector) {
  const name = /** @type {HTMLInputElement} */ ($(selector)).value.trim();
  try { localStorage.setItem(NAME_KEY, name); } catch (e) { /* private mode: typed again next time */ }
  return name || null;
}

/** Fill the name fields of the page with the name this browser last used. */
export function fillNames() {
  for (const input of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll("input.player-name"))) {
    if (!input.value) input.value = savedName();
  }
}

/**
 * Take the table's public seats and waiting room from a `hello` or `lobby` message.
 * @param {import("./types.js").LobbyMessage | import("./types.js").TableMessage} message
 */
export function takeLobby(message) {
  if (!message.seats) return;
  const facts = state.summary || {};
  // Before the table's facts have loaded, the waiting room's alone (the rest follows with them).
  state.summary = /** @type {import("./state.js").TableFacts} */ ({ ...facts, seats: message.seats, waiting: message.waiting, host: message.host, rematch: message.rematch });
}

/** @returns {boolean} whether the table waits for its players (nobody plays yet) */
export function isWaiting() {
  return Boolean(state.summary && state.summary.waiting && state.view && state.view.phase !== "over");
}

/**
 * A seat's player in words: their name, else "Player N".
 * @param {number} seat
 * @returns {string}
 */
export function playerName(seat) {
  return nameIn(state.summary && state.summary.seats, seat);
}

/**
 * One seat of the waiting room, in words.
 * @param {import("./types.js").SeatFacts} seat
 * @returns {string}
 */
function seatLine(seat) {
  const who = seat.seat === state.seat ? `You (${playerName(seat.seat)})` : seat.taken || seat.bot ? playerName(seat.seat) : seat.name || "A free seat";
  const host = state.summary && state.summary.host === seat.seat ? ", host" : "";
  const here = seat.bot ? "plays when the game starts" : seat.taken ? "here" : seat.name ? "not here yet" : "waiting for a player";
  return `${who}${host}: ${here}`;
}

/** Whether the bot levels were asked for already. */
let botsAsked = false;

/** The waiting room: who is here, and the host's choice to start with bots. */
export function drawLobby() {
  const box = $("#lobby");
  box.innerHTML = "";
  const waiting = isWaiting();
  box.hidden = !waiting;
  document.body.classList.toggle("waiting-room", waiting);
  if (!waiting) return;
  const seats = (state.summary && state.summary.seats) || [];
  const free = seats.filter((seat) => seat.human && !seat.taken).length;
  box.appendChild(Object.assign(el("h2", "", "Waiting room"), { id: "lobby-title" }));
  box.appendChild(el("p", "", `The game starts when every player is here: ${free === 1 ? "1 seat is" : `${free} seats are`} still free.`));
  const list = el("ul", "lobby-seats");
  for (const seat of seats) list.appendChild(el("li", seat.taken ? "taken" : "free", seatLine(seat)));
  box.appendChild(list);
  if (state.seat !== null && state.summary && state.summary.host === state.seat) drawHostChoice(box);
  else box.appendChild(el("p", "hint", "The host may also fill the free seats with bots and start at once."));
  if (lobbyCheck === null) lobbyCheck = window.setTimeout(checkLobby, LOBBY_CHECK_MS);
}

/** Milliseconds between two looks at the table's seats while it waits. */
const LOBBY_CHECK_MS = 5000;
/** @type {number | null} */
let lobbyCheck = null;

/**
 * While the table waits, look at its seats now and then: a seat taken through another server
 * process sends this socket no message. Once the game starts, the table is opened afresh (its
 * choices come with the new hello).
 */
async function checkLobby() {
  lobbyCheck = null;
  const tableId = state.tableId;
  if (!tableId || !isWaiting()) return;
  try {
    const facts = await api("GET", `/api/tables/${tableId}`);
    if (state.tableId !== tableId) return;
    if (!facts.waiting) { openTable(tableId); return; }
    takeLobby(facts);
  } catch (e) { /* the socket's own reconnection says when the server is away */ }
  drawLobby();
}

/**
 * The host's "start with bots": a level for every free seat, then the game starts.
 * @param {HTMLElement} box
 */
function drawHostChoice(box) {
  const row = el("p", "host-choice");
  const label = el("label", "", "Or fill the free seats with a bot: ");
  const select = el("select");
  select.id = "lobby-bot";
  if (!state.bots.length && !botsAsked) {
    botsAsked = true;  // once per page: a table opened straight from its address
    Promise.all([api("GET", "/api/bots"), api("GET", "/api/levels")])
      .then(([bots, levels]) => { state.bots = bots; state.levels = levels; if (state.view) drawLobby(); })
      .catch(() => {});
  }
  const levels = state.bots.length ? orderedBots() : ["random"];
  for (const name of levels) select.appendChild(botOption(name));
  select.value = defaultBot() || levels[0];
  label.appendChild(select);
  row.appendChild(label);
  row.appendChild(button("Start with bots", "primary", "start-bots", async () => {
    try {
      await api("POST", `/api/tables/${state.tableId}/bots`, { bot: select.value }, state.token);
    } catch (thrown) {
      setStatus(refusal(thrown).message, true);
    }
  }));
  box.appendChild(row);
}

/**
 * Ask for the rematch (or take this seat of the one offered) and go to it.
 * @returns {Promise<void>}
 */
async function takeRematch() {
  try {
    const seat = await api("POST", `/api/tables/${state.tableId}/rematch`, undefined, state.token);
    saveSeat(seat.table_id, seat.seat, seat.token);
    location.hash = "#/t/" + seat.table_id;
  } catch (thrown) {
    setStatus(refusal(thrown).message, true);
  }
}

/**
 * The game-over screen's rematch: "Rematch" (the same seats for the same people), "Join the
 * rematch" once a player offered it, "Watch the rematch" for spectators and for a seat already
 * taken there from this browser.
 * @param {HTMLElement} buttons
 */
export function drawRematch(buttons) {
  const offered = state.summary && state.summary.rematch;
  const mine = offered ? savedSeat(offered) : null;
  if (state.seat === null || mine) {
    if (!offered) return;
    const link = el("a", "button", mine ? "Go to the rematch" : "Watch the rematch");
    link.href = "#/t/" + offered;
    buttons.appendChild(link);
    return;
  }
  if (offered) buttons.parentElement?.insertBefore(el("p", "rematch-offer", "A rematch is offered: the same seats for the same players."), buttons);
  buttons.appendChild(button(offered ? "Join the rematch" : "Rematch", offered ? "primary" : "", "rematch", takeRematch));
}

/**
 * An invitation link: the invitation page, with the player's name and "Take the seat".
 * @param {string} tableId
 * @param {string} code
 */
export function showInvitation(tableId, code) {
  for (const id of ["#home", "#table", "#missing"]) $(id).hidden = true;
  $("#invited").hidden = false;
  document.title = "An invitation - Triage";
  setStatus("");
  $("#invited-text").textContent = `You are invited to play at table ${tableId}. Choose the name the other players will see.`;
  describeInvitation(tableId);
  $("#invited-problem").hidden = true;
  $("#invited-form").hidden = false;
  fillNames();
  const form = /** @type {HTMLFormElement} */ ($("#invited-form"));
  form.onsubmit = (submit) => {
    submit.preventDefault();
    takeInvitation(tableId, code);
  };
  $("#invited-watch").onclick = () => { location.replace("#/t/" + tableId); };
}

/**
 * "5 minutes", "1 minute 30 seconds", "15 seconds".
 * @param {number} seconds
 * @returns {string}
 */
export function duration(seconds) {
  const parts = [];
  if (seconds >= 3600) parts.push(plural(Math.floor(seconds / 3600), "hour"));
  if (seconds % 3600 >= 60) parts.push(plural(Math.floor((seconds % 3600) / 60), "minute"));
  if (seconds % 60) parts.push(plural(seconds % 60, "second"));
  return parts.join(" ") || "no time";
}

/**
 * The invitation in words, from the table's public facts and time rules: who invites you, who
 * plays, the clock and what happens to a player who is away.
 * @param {string} tableId
 */
async function describeInvitation(tableId) {
  let facts, live;
  try {
    if (!state.levels.length) state.levels = await api("GET", "/api/levels");
    [facts, live] = await Promise.all([api("GET", `/api/tables/${tableId}`), api("GET", `/api/tables/${tableId}/live`)]);
  } catch (e) { return; } // the form says what is wrong when the seat is taken
  /** @type {import("./types.js").SeatFacts[]} */
  const seats = facts.seats;
  const host = facts.host !== null && facts.host !== undefined ? nameIn(seats, facts.host) : null;
  const free = seats.filter((seat) => seat.human && !seat.taken).length;
  const playing = seats.filter((seat) => seat.bot || seat.taken).map((seat) => nameIn(seats, seat.seat));
  playing.push(free > 1 ? `you and ${plural(free - 1, "more player")} to come` : "you");
  const parts = [`${host || "A player"} invites you to play Triage: a game for ${plural(seats.length, "player")} (${playing.join(", ")}).`];
  const clock = live.clock;
  if (clock) parts.push(`Clock: ${duration(clock.bank)} each, ${clock.increment ? `${duration(clock.increment)} more each round` : "nothing added each round"}.`);
  else parts.push("No clock.");
  if (live.stand_in && (clock || live.away_seconds)) {
    const when = [clock ? "out of time" : "", live.away_seconds ? `away for ${duration(live.away_seconds)}` : ""].filter(Boolean).join(" or ");
    parts.push(`A ${levelLabel(live.stand_in)} bot plays for a player ${when}, until they come back.`);
  }
  // The table's own settings, chosen by its creator: the pace of others' moves and the spectators' chat.
  /** @type {import("./types.js").TableSettings} */
  const settings = facts.settings;
  parts.push(`Others' moves are shown at a ${PACE_WORDS[settings.pace]} pace (each browser may choose its own).`);
  parts.push(settings.spectator_chat === "read" ? "Spectators may read the chat; only players write." : "The chat is for the players alone.");
  parts.push("Choose the name the other players will see.");
  if (!$("#invited").hidden) $("#invited-text").textContent = parts.join(" ");
}

/** What each refusal of an invitation means for the visitor. @type {Record<string, string>} */
const INVITE_PROBLEMS = {
  invite_used: "This invitation was used already: its seat is taken.",
  bad_invite: "This invitation is not one of this table: the link may be cut short or mistyped.",
  invite_expired: "This invitation has expired: the game is over.",
  unknown_table: "There is no such table: the link may be mistyped, or the table was removed.",
};

/**
 * @param {string} tableId
 * @param {string} code
 */
async function takeInvitation(tableId, code) {
  try {
    const seat = await api("POST", `/api/tables/${tableId}/join`, { invite: code, name: typedName("#invited-name") });
    saveSeat(tableId, seat.seat, seat.token);
    $("#invited").hidden = true;
    location.replace("#/t/" + tableId);
  } catch (thrown) {
    const e = refusal(thrown);
    const problem = $("#invited-problem");
    problem.hidden = false;
    if (e.code === "invalid_name") {
      problem.textContent = `That name cannot be used: ${e.message}.`;
      /** @type {HTMLInputElement} */ ($("#invited-name")).focus();
      return;
    }
    const known = INVITE_PROBLEMS[e.code || ""];
    problem.textContent = known ? `${known} (${e.message}.) You can still watch the game.` : `${e.message} You can still watch the game.`;
    $("#invited-form").hidden = true;
    $("#invited-watch").hidden = e.code === "unknown_table";
    $("#invited-watch").focus();
  }
}
