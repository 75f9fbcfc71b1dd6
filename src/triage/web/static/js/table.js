// @ts-check
// A table's connection: the WebSocket that brings each position (view, choices and forecast),
// and the actions sent by HTTP.
import { api, refusal, setStatus } from "./api.js";
import { $, plural } from "./dom.js";
import { drawLog } from "./log.js";
import { takeLobby } from "./lobby.js";
import { draw } from "./render.js";
import { forgetLive, onLive, standInOf, takeLive } from "./clocks.js";
import { drawAway, forgetReturn, noteReturn } from "./away.js";
import { forgetSteps, overtaken, paceDrawsWith, pending, takeUpdate } from "./pace.js";
import { forgetChat, takeChatFeed, takeChatLine } from "./chat.js";
import { LAST_TABLE, savedSeat, state } from "./state.js";

/**
 * Open a table's page: as the seat this browser holds there, else as a spectator.
 * @param {string} tableId
 */
export function openTable(tableId) {
  $("#home").hidden = true;
  $("#missing").hidden = true;
  $("#invited").hidden = true;
  $("#table").hidden = false;
  try { localStorage.setItem(LAST_TABLE, tableId); } catch (e) { /* private mode: no way back from the rules */ }
  Object.assign(state, {
    tableId, view: null, choices: [], forecast: null, actions: null, log: [], selected: null, heal: {}, pay: {}, payOpen: {}, heliForm: null,
    error: null, notice: null, summary: null, final: null, firstDrawn: false, replay: null, retries: 0,
    awaiting: null, ownSeen: -1, sending: false,
  });
  forgetSteps();
  forgetReturn();
  const mine = savedSeat(tableId);
  state.seat = mine ? mine.seat : null;
  forgetChat();
  state.token = mine ? mine.token : null;
  state.invites = mine && mine.invites ? mine.invites : [];
  forgetLive();
  for (const id of ["#me", "#others", "#panel", "#deck", "#market", "#log"]) $(id).innerHTML = "";
  $("#bar").textContent = "Connecting...";
  $("#table-title").textContent = `Triage table ${tableId}`;
  $("#replay").hidden = true;
  $("#over").hidden = true;
  loadSummary().then(() => { if (state.view) draw(); });
  connect();
}

/** The table's public facts (seat names, bots) and, once it is over, its final summary. */
export async function loadSummary() {
  const tableId = state.tableId;
  try {
    // The bot levels' names as the menu shows them ("Gentle"), for naming bot seats.
    if (!state.levels.length) state.levels = await api("GET", "/api/levels");
    state.summary = await api("GET", `/api/tables/${tableId}`);
    if (state.summary && state.summary.over) state.final = await api("GET", `/api/tables/${tableId}/final`);
  } catch (thrown) {
    // Names without bot kinds until they come; but a table that does not exist is said at once.
    if (refusal(thrown).status === 404 && state.tableId === tableId) showMissing();
  }
}

// The seat is its player's again after a stand-in bot played it: what the bot did, then the table.
// Any other news of presence may name the stand-in's level for the summary already on screen.
onLive((before) => {
  if (before && state.seat !== null && !standInOf(state.seat)) {
    noteReturn(state.log, before);
    draw();
  } else drawAway();
});

// A move shown in its turn may end the game: the final summary comes before it is drawn.
paceDrawsWith(async () => {
  if (state.view && state.view.phase === "over" && !state.final) await loadSummary();
  draw();
});

/** "Table not found": the table page gives way, and nothing tries to reconnect. */
function showMissing() {
  closeSocket();
  const tableId = state.tableId;
  state.tableId = null;
  $("#table").hidden = true;
  $("#missing").hidden = false;
  $("#missing-text").textContent = `There is no table ${tableId}. The address may be mistyped, or the table was removed.`;
  setStatus("");
  document.title = "Table not found - Triage";
}

export function closeSocket() {
  if (state.retry) { clearTimeout(state.retry); state.retry = null; }
  if (state.socket) { state.socket.onclose = null; state.socket.close(); state.socket = null; }
}

function connect() {
  closeSocket();
  const tableId = state.tableId;
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const socket = new WebSocket(`${scheme}${location.host}/api/tables/${tableId}/ws`);
  state.socket = socket;
  // "live": presence and clocks come too (clocks.js).
  socket.onopen = () => socket.send(JSON.stringify(state.token ? { token: state.token, live: true } : { spectate: true, live: true }));
  socket.onmessage = (message) => receive(JSON.parse(message.data));
  socket.onclose = (closed) => {
    if (state.tableId !== tableId) return;
    if (closed.code === 4404) { showMissing(); return; }
    if (closed.code === 4401 || closed.code === 4403) {
      setStatus(`The server refused this seat: ${closed.reason || "its key is not valid"}. Open the table from the home page.`, true);
      return;
    }
    // Waits grow to 15 s while the server is away; the status says so in words.
    const wait = Math.min(15, 2 ** state.retries);
    state.retries += 1;
    setStatus(`The connection to the server was lost; trying again in ${plural(wait, "second")}...`, true);
    state.retry = window.setTimeout(connect, wait * 1000);
  };
}

/**
 * A message of the WebSocket: `hello` (the position and the log so far) or `update` (one action).
 * @param {import("./types.js").TableMessage | import("./types.js").LobbyMessage | import("./types.js").LiveMessage | import("./types.js").ChatMessage | import("./types.js").SocketError} message
 */
async function receive(message) {
  if (message.type === "error") {
    setStatus(message.message, true);
    return;
  }
  if (message.type === "lobby") {
    takeLobby(message);
    draw();
    return;
  }
  if (message.type === "live") {
    takeLive(message.live);
    return;
  }
  if (message.type === "chat") {
    takeChatLine(message.line); // never a move: the board is not drawn again
    return;
  }
  const wasOver = state.view && state.view.phase === "over";
  if (message.type === "hello") {
    // The present at once: a (re)connection never replays what it missed one move at a time.
    forgetSteps();
    takeLobby(message);
    state.retries = 0;
    noteReturn(message.log || [], null); // what happened since this player last looked (js/away.js)
    state.log = message.log || [];
    state.awaiting = null;
    markBusy();
    state.ownSeen = -1; // a hello (a reconnection, an undo) starts the count again
    setStatus(state.seat === null ? "Watching as a spectator" : "");
    Object.assign(state, { view: message.view, choices: message.choices, forecast: message.forecast || null, actions: message.actions });
    state.undo = message.undo || null; // how far the seat may undo (js/undo.js)
    takeChatFeed(message.chat);
  } else if (message.type === "update") {
    const update = /** @type {import("./pace.js").Update} */ (message); // an update names its action (number, by, action, events)
    if (update.by === state.seat) state.ownSeen = Math.max(state.ownSeen, update.number);
    if (update.by === state.seat && state.awaiting !== null && update.number >= state.awaiting) {
      state.awaiting = null;
      markBusy();
    }
    // An update older than the position already drawn (fetched by HTTP) only adds to the log.
    if (state.actions !== null && message.actions <= state.actions && !pending()) {
      state.log = state.log.concat(update.events);
      drawLog();
      return;
    }
    if (!takeUpdate(update)) { draw(); return; } // shown in its turn (js/pace.js)
  }
  if (state.view && state.view.phase === "over" && !wasOver) await loadSummary();
  draw();
}

/**
 * The position after an action, by HTTP in case the WebSocket is slow or down. The view and the
 * choices must be of the same position (a bot may move between the two requests) and newer than
 * the one drawn; its forecast comes with the WebSocket's message for that position.
 */
async function refresh() {
  for (let attempt = 0; attempt < 2; attempt++) {
    const [view, legal] = await Promise.all([
      api("GET", `/api/tables/${state.tableId}/view`, undefined, state.token),
      api("GET", `/api/tables/${state.tableId}/legal`, undefined, state.token),
    ]);
    if (legal.actions !== view.actions) continue;
    if (state.actions !== null && view.actions <= state.actions) return;
    overtaken();
    Object.assign(state, { view, choices: legal.choices, forecast: legal.forecast, actions: view.actions });
    state.undo = view.undo || null; // how far the seat may undo (js/undo.js)
    return;
  }
}

/**
 * Take an action; `where` is the key of the control it came from, where a refusal is shown and
 * where the focus stays. The position after it comes by the WebSocket (then the others' moves,
 * one by one: js/pace.js), or by HTTP when the socket is down or its message late. One action at
 * a time: a click while one is on its way (or before its position came) is not sent; each carries
 * the action number of its position, so a repeat is answered once and a stale one refused (409).
 * @param {import("./state.js").Action} action
 * @param {string} where
 */
export async function act(action, where) {
  if (state.sending || state.awaiting !== null) return;
  state.focusKey = where;
  state.sending = true;
  markBusy();
  try {
    const answer = await api("POST", `/api/tables/${state.tableId}/actions`, { action, expected: state.actions }, state.token);
    state.error = null;
    state.notice = null;
    await positionAfter(answer.number);
    if (state.view && state.view.phase === "over" && !state.final) await loadSummary();
  } catch (thrown) {
    const e = refusal(thrown);
    if (e.code === "stale_action") {
      state.notice = "The table moved on before your action arrived: here is the new position.";
      await refresh().catch(() => {});
    } else {
      state.error = { where, code: e.code || "error", message: e.message, rule: e.rule };
    }
  } finally {
    state.sending = false;
    markBusy();
  }
  draw();
}

/**
 * The page says while an action of the seat is on its way (`data-busy` on the body: a progress
 * cursor, and what a test waits for): a tap then is not sent (one action at a time).
 */
function markBusy() {
  document.body.toggleAttribute("data-busy", state.sending || state.awaiting !== null);
}

/** Milliseconds the page waits for the WebSocket's message of its own action before asking by HTTP. */
const OWN_MESSAGE_MS = 3000;

/**
 * After the seat's action number `number`: its position, by the WebSocket when it is open (it
 * may have come already), else by HTTP at once; by HTTP too if the socket's message is late.
 * @param {number} number
 */
async function positionAfter(number) {
  // Its message may have come before the HTTP answer (the server sends both): then nothing waits.
  if ((state.actions !== null && state.actions > number) || state.ownSeen >= number) return;
  if (!state.socket || state.socket.readyState !== WebSocket.OPEN) { await refresh(); return; }
  state.awaiting = number;
  window.setTimeout(async () => {
    if (state.awaiting !== number) return;
    state.awaiting = null;
    markBusy();
    await refresh().catch(() => {});
    draw();
  }, OWN_MESSAGE_MS);
}
