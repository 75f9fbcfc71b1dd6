// Triage in the browser: plain JavaScript, no build step.
// The page only ever draws what the server sends for this seat (its view, legal actions and
// filtered events); it knows nothing else of the game.
"use strict";

const $ = (selector) => document.querySelector(selector);
const state = { tableId: null, seat: null, token: null, socket: null, view: null, legal: [], log: [],
                selected: null, bots: ["random"], retry: null };

// ------------------------------------------------------------------ storage of seat tokens

function savedSeat(tableId) {
  try { return JSON.parse(localStorage.getItem("triage.seat." + tableId)); } catch (e) { return null; }
}
function saveSeat(tableId, seat, token) {
  localStorage.setItem("triage.seat." + tableId, JSON.stringify({ seat, token }));
}

// ------------------------------------------------------------------ HTTP

async function api(method, path, body, token) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers["Authorization"] = "Bearer " + token;
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await response.json().catch(() => ({ code: "bad_response", message: response.statusText }));
  if (!response.ok) throw Object.assign(new Error(data.message || response.statusText), data);
  return data;
}

function setStatus(text, isError) {
  const status = $("#status");
  status.textContent = text;
  status.className = isError ? "error" : "";
}

// ------------------------------------------------------------------ home page

async function showHome() {
  $("#table").hidden = true;
  $("#home").hidden = false;
  closeSocket();
  state.tableId = null;
  setStatus("");
  try { state.bots = await api("GET", "/api/bots"); } catch (e) { /* keep the default */ }
  drawSeatChoices();
  drawTableList();
}

function defaultBot() {
  return state.bots.includes("greedy") ? "greedy" : state.bots[0];
}

function drawSeatChoices() {
  const players = Number($("#players").value);
  const box = $("#seat-choices");
  box.innerHTML = "";
  for (let seat = 0; seat < players; seat++) {
    const label = document.createElement("label");
    label.textContent = `Seat ${seat} `;
    const select = document.createElement("select");
    select.dataset.seat = seat;
    const options = ["human"].concat(state.bots);
    for (const name of options) {
      const option = document.createElement("option");
      option.value = name;
      option.textContent = name === "human" ? "human" : "bot: " + name;
      select.appendChild(option);
    }
    select.value = seat === 0 ? "human" : defaultBot();
    label.appendChild(select);
    box.appendChild(label);
  }
}

async function drawTableList() {
  const list = $("#tables");
  list.innerHTML = "";
  let tables = [];
  try { tables = await api("GET", "/api/tables"); } catch (e) { setStatus(e.message, true); }
  if (!tables.length) list.innerHTML = "<li class='hint'>No table yet.</li>";
  for (const table of tables) {
    const item = document.createElement("li");
    const seats = table.seats.map((s) => s.bot ? "bot " + s.bot : (s.taken ? "human" : "free")).join(", ");
    const where = table.over ? `over, scores ${table.scores.join("/")}` : `round ${table.round}, ${table.phase}`;
    item.textContent = `${table.table_id}: ${table.players} players (${seats}); ${where} `;
    if (table.seed_chosen && !table.over) {
      // Whoever chose the seed can deal the same game at home and know every card (K1).
      const warn = document.createElement("span");
      warn.className = "practice";
      warn.textContent = "practice deal: its creator chose the seed and can know every card ";
      item.appendChild(warn);
    }
    const mine = savedSeat(table.table_id);
    const open = document.createElement("button");
    if (mine) open.textContent = "Continue";
    else if (table.seats.some((s) => s.human && !s.taken) && !table.over) open.textContent = "Join";
    else open.textContent = "Watch";
    open.addEventListener("click", async () => {
      if (open.textContent === "Join") {
        try {
          const seat = await api("POST", `/api/tables/${table.table_id}/join`);
          saveSeat(table.table_id, seat.seat, seat.token);
        } catch (e) { setStatus(e.message, true); return; }
      }
      location.hash = "#/t/" + table.table_id;
    });
    item.appendChild(open);
    list.appendChild(item);
  }
}

async function createTable(players, bots, seed) {
  const body = { players, bots };
  if (seed !== null) body.seed = seed;
  try {
    const created = await api("POST", "/api/tables", body);
    if (created.seats.length) saveSeat(created.table_id, created.seats[0].seat, created.seats[0].token);
    location.hash = "#/t/" + created.table_id;
  } catch (e) {
    setStatus(e.message, true);
  }
}

// ------------------------------------------------------------------ table page

function openTable(tableId) {
  $("#home").hidden = true;
  $("#table").hidden = false;
  state.tableId = tableId;
  const mine = savedSeat(tableId);
  state.seat = mine ? mine.seat : null;
  state.token = mine ? mine.token : null;
  state.view = null;
  state.legal = [];
  state.log = [];
  state.selected = null;
  $("#board").innerHTML = "";
  $("#actions").innerHTML = "";
  $("#summary").textContent = "Connecting...";
  connect();
}

function closeSocket() {
  if (state.retry) { clearTimeout(state.retry); state.retry = null; }
  if (state.socket) { state.socket.onclose = null; state.socket.close(); state.socket = null; }
}

function connect() {
  closeSocket();
  const tableId = state.tableId;
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const socket = new WebSocket(`${scheme}${location.host}/api/tables/${tableId}/ws`);
  state.socket = socket;
  socket.onopen = () => socket.send(JSON.stringify(state.token ? { token: state.token } : { spectate: true }));
  socket.onmessage = (message) => receive(JSON.parse(message.data));
  socket.onclose = () => {
    if (state.tableId !== tableId) return;
    setStatus("Connection lost; reconnecting...", true);
    state.retry = setTimeout(connect, 1000);
  };
}

function receive(message) {
  if (message.type === "error") {
    setStatus(message.message, true);
    return;
  }
  if (message.type === "hello") {
    state.log = message.log;
    setStatus(state.seat === null ? "Watching as a spectator" : `You are player ${state.seat}`);
  } else if (message.type === "update") {
    state.log = state.log.concat(message.events);
  }
  state.view = message.view;
  state.legal = message.legal;
  draw();
}

async function act(action) {
  try {
    await api("POST", `/api/tables/${state.tableId}/actions`, action, state.token);
    setStatus(`You are player ${state.seat}`);
    // The WebSocket brings the new position; fetch it too in case the socket is down.
    const [view, legal] = await Promise.all([
      api("GET", `/api/tables/${state.tableId}/view`, undefined, state.token),
      api("GET", `/api/tables/${state.tableId}/legal`, undefined, state.token),
    ]);
    state.view = view;
    state.legal = legal;
    draw();
  } catch (e) {
    setStatus(`${e.code || "error"}: ${e.message}`, true);
  }
}

// ------------------------------------------------------------------ drawing

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const KIND_NAMES = { critical: "Critical", severe: "Severe", chronic: "Chronic", non_severe: "Non-severe", terminal: "Terminal" };

function targetOf(action) {
  return action.card || action.patient || action.remove || null;
}

function drawCard(card, where) {
  const node = el("div", "card");
  node.dataset.card = card.card;
  const kind = card.kind || (card.front === "critical" ? "critical" : card.front === "terminal" ? "terminal" : null);
  if (kind) node.classList.add("k-" + kind);
  if (where) node.appendChild(el("span", "space", where));
  node.appendChild(el("span", "id", card.card));
  node.appendChild(el("span", "front", card.front + (card.front === "standard" ? ` · diagnosis ${card.diagnosis}` : "")));
  if ("time" in card) node.appendChild(el("span", "time", `Time ${card.time}`));
  if ("placed" in card) {
    const need = card.healing !== undefined && card.healing !== null ? card.healing : "?";
    node.appendChild(el("span", "heal", `healing ${card.placed}/${need}`));
  }
  if ("treated" in card) node.appendChild(el("span", "heal", card.treated ? "treated this round" : "not treated"));
  const back = el("div", "back");
  if ("credits" in card && "vp" in card) {
    back.appendChild(el("div", "kind", KIND_NAMES[kind] || kind || "?"));
    if (kind !== "terminal" && card.priority !== undefined) back.appendChild(el("div", "", `priority ${card.priority}`));
    back.appendChild(el("div", "", `reward ${card.credits} cr · ${card.vp} VP`));
  } else if (kind) {
    back.appendChild(el("div", "kind", KIND_NAMES[kind] || kind));
    back.appendChild(el("div", "unknown", "reward unknown"));
  } else {
    back.classList.add("unknown");
    back.textContent = "treatment side unknown";
  }
  if (card.revealed === false && card.front === "standard") back.appendChild(el("div", "unknown", "unrevealed"));
  node.appendChild(back);
  const mine = state.legal.filter((action) => targetOf(action) === card.card);
  if (mine.length) {
    node.classList.add("clickable");
    node.title = "Click for the actions on " + card.card;
    if (state.selected === card.card) node.classList.add("selected");
    node.addEventListener("click", () => {
      state.selected = state.selected === card.card ? null : card.card;
      draw();
    });
  }
  return node;
}

function drawPlayer(view, seat) {
  const player = view.players[seat];
  const box = el("div", "player");
  box.dataset.seat = seat;
  if (seat === state.seat) box.classList.add("me");
  if (view.turn === seat) box.classList.add("deciding");
  const title = seat === state.seat ? `You (player ${seat})` : `Player ${seat}`;
  box.appendChild(el("h3", "", title + (player.passed ? " · passed" : "")));
  const tracks = el("div", "tracks");
  const entries = [
    ["QoC", player.quality], ["VP", player.vp], ["score", player.score], ["credits", player.credits],
    ["treated", player.treated], ["diagnostics", player.diagnostics], ["healing", player.healing],
    ["staff", `${player.staff_available}/${player.staff}`], ["congress", player.congress],
    ["helicopters", player.helicopters],
  ];
  for (const [name, value] of entries) {
    const item = el("span", "", name + " ");
    item.appendChild(el("b", "", String(value)));
    tracks.appendChild(item);
  }
  box.appendChild(tracks);
  if (player.pending.length) {
    const row = el("div", "row");
    row.appendChild(el("div", "row-label", "Arrived, waiting for admission"));
    for (const id of player.pending) row.appendChild(drawCard(Object.assign({ card: id }, view.cards[id] || {}), "new"));
    box.appendChild(row);
  }
  const row = el("div", "row");
  row.appendChild(el("div", "row-label", "Hospital"));
  for (const [space, slot] of Object.entries(player.hospital)) {
    row.appendChild(slot ? drawCard(slot, "space " + space) : el("div", "card empty", "space " + space));
  }
  for (const patient of player.terminals) row.appendChild(drawCard(Object.assign({ kind: "terminal" }, patient), "beside"));
  box.appendChild(row);
  return box;
}

function payText(pay) {
  if (!pay) return "";
  const parts = [];
  if (pay.tokens) parts.push(`${pay.tokens} token${pay.tokens > 1 ? "s" : ""}`);
  if (pay.staff) parts.push(`${pay.staff} staff`);
  if (pay.congress) parts.push(`${pay.congress} congress`);
  return parts.length ? " · pay " + parts.join(" + ") : " · free";
}

function actionText(action) {
  const market = (state.view && state.view.config && state.view.config.market) || {};
  switch (action.type) {
    case "admit": return `Admit ${action.card} to space ${action.space}`;
    case "reject": return `Reject ${action.card} (−1 QoC)`;
    case "diagnose": return `Diagnose ${action.patient}${payText(action.pay)}`;
    case "heal": return `Heal ${action.patient} by ${action.amount}${payText(action.pay)}`;
    case "treat": return `Treat ${action.patient}${payText(action.pay)}`;
    case "helicopter": {
      const parts = [];
      if (action.remove) parts.push("remove " + action.remove);
      if (action.draw_all) parts.push("everyone draws");
      return "Helicopter: " + parts.join(" and ");
    }
    case "buy": {
      const item = market[action.item];
      return `Buy ${action.item.replace("_", " ")}` + (item ? ` (${item.price} credits)` : "");
    }
    case "pass": return "Pass (end my treatment)";
    default: return JSON.stringify(action);
  }
}

function actionGroup(action) {
  if (action.type === "admit" || action.type === "reject") return "Admission";
  if (action.type === "buy") return "Market";
  if (action.type === "helicopter") return "Helicopter";
  if (action.type === "pass") return "Turn";
  return "Patient " + targetOf(action);
}

function drawActions() {
  const box = $("#actions");
  box.innerHTML = "";
  const view = state.view;
  if (state.seat === null) { box.appendChild(el("p", "hint", "You are watching. Seats are taken from the home page.")); return; }
  if (!state.legal.length) {
    const text = view.phase === "over" ? "The game is over." : `Waiting for player ${view.turn}...`;
    box.appendChild(el("p", "hint", text));
    return;
  }
  box.appendChild(el("h2", "", "Your decision" + (state.selected ? ` · ${state.selected}` : "")));
  const shown = state.selected ? state.legal.filter((a) => targetOf(a) === state.selected || a.type === "pass") : state.legal;
  const groups = new Map();
  for (const action of shown) {
    const name = actionGroup(action);
    if (!groups.has(name)) groups.set(name, []);
    groups.get(name).push(action);
  }
  for (const [name, actions] of groups) {
    const group = el("div", "group");
    group.appendChild(el("h3", "", name));
    for (const action of actions) {
      const button = el("button", "act " + action.type, actionText(action));
      button.dataset.action = JSON.stringify(action);
      button.dataset.type = action.type;
      button.addEventListener("click", () => { state.selected = null; act(action); });
      group.appendChild(button);
    }
    box.appendChild(group);
  }
  if (state.selected) {
    const all = el("button", "", "Show all actions");
    all.addEventListener("click", () => { state.selected = null; draw(); });
    box.appendChild(all);
  }
}

function drawSummary() {
  const view = state.view;
  const box = $("#summary");
  box.innerHTML = "";
  box.dataset.round = view.round;
  box.dataset.phase = view.phase;
  box.appendChild(el("span", "", `Table ${state.tableId}`));
  box.appendChild(el("span", "round", `Round ${view.round} of ${view.config.rounds}`));
  box.appendChild(el("span", "phase", `Phase: ${view.phase}`));
  if (view.phase === "over") {
    const scores = view.players.map((p, seat) => `player ${seat}: ${p.score}`).join(", ");
    const winner = view.winner === null ? "no winner" : view.winner === state.seat ? "you win!" : `player ${view.winner} wins`;
    box.appendChild(el("span", "turn", `Game over: ${scores}; ${winner}`));
  } else {
    const mine = view.turn === state.seat;
    box.appendChild(el("span", "turn" + (mine ? " yours" : ""), mine ? "Your decision" : `Player ${view.turn} to decide`));
  }
  const deck = el("span", "", `Deck ${view.deck_count}`);
  box.appendChild(deck);
  if (view.deck_top) {
    const top = view.deck_top;
    // The front names the kind of a critical or terminal card; say it once (K2).
    const extra = top.kind && top.kind !== top.front ? ", " + top.kind : "";
    const difficulty = top.front === "standard" ? ` diagnosis ${top.diagnosis}` : "";
    box.appendChild(el("span", "", `top: ${top.card} (${top.front}${difficulty}${extra})`));
  }
}

function eventText(event) {
  const who = "player" in event ? (event.player === state.seat ? "you" : `player ${event.player}`) : "";
  const card = event.card || "";
  switch (event.type) {
    case "round_started": return `— Round ${event.round} (first player ${event.first_player})`;
    case "income": return `${who}: +${event.diagnostics} diagnostics, +${event.healing} healing`;
    case "drawn": return `${who} draw${who === "you" ? "" : "s"} ${card} (${event.front})`;
    case "admitted": return `${who} admit${who === "you" ? "" : "s"} ${card} ${event.space ? "to space " + event.space : "beside the board"}`;
    case "rejected": return `${who} reject${who === "you" ? "" : "s"} ${card} (−${event.quality_lost} QoC)`;
    case "diagnosed": return `${who} diagnose${who === "you" ? "" : "s"} ${card}` + (event.kind ? `: ${KIND_NAMES[event.kind] || event.kind}` : "");
    case "healed": return `${who} heal${who === "you" ? "" : "s"} ${card} by ${event.amount}`;
    case "cured": return `${card} cured: ${who} gain${who === "you" ? "" : "s"} ${event.credits} credits, ${event.vp} VP`;
    case "treated": return `${who} treat${who === "you" ? "" : "s"} terminal ${card}`;
    case "time_added": return `${card} (${who}) now has ${event.time} Time`;
    case "checked": return `${card} (${who}) is checked` + (event.kind ? `: ${KIND_NAMES[event.kind] || event.kind}` : "");
    case "died": return `${card} (${who}) dies: −${event.quality_lost} QoC`;
    case "removed": return `${who} remove${who === "you" ? "" : "s"} ${card} by Helicopter`;
    case "helicopter": return `${who} fl${who === "you" ? "y" : "ies"} a Helicopter`;
    case "bought": return `${who} bu${who === "you" ? "y" : "ys"} ${String(event.item).replace("_", " ")}`;
    case "passed": return `${who} pass${who === "you" ? "" : "es"}`;
    case "deck_empty": return `${who}: the deck is empty`;
    case "game_over": return "Game over";
    default: return event.type + " " + JSON.stringify(event);
  }
}

function drawLog() {
  const list = $("#log");
  list.innerHTML = "";
  for (const event of state.log) {
    const item = el("li", event.player === state.seat ? "mine" : "", eventText(event));
    item.dataset.type = event.type;
    list.appendChild(item);
  }
  list.scrollTop = list.scrollHeight;
}

function draw() {
  const view = state.view;
  if (!view) return;
  if (state.selected && !state.legal.some((a) => targetOf(a) === state.selected)) state.selected = null;
  drawSummary();
  drawActions();
  const board = $("#board");
  board.innerHTML = "";
  const seats = view.players.map((_, seat) => seat);
  if (state.seat !== null) seats.sort((a, b) => (a === state.seat ? -1 : b === state.seat ? 1 : a - b));
  for (const seat of seats) board.appendChild(drawPlayer(view, seat));
  drawLog();
}

// ------------------------------------------------------------------ routing

function route() {
  const match = location.hash.match(/^#\/t\/([A-Za-z0-9_-]+)$/);
  if (match) openTable(match[1]);
  else showHome();
}

document.addEventListener("DOMContentLoaded", () => {
  $("#solo").addEventListener("click", () => createTable(2, [null, defaultBot()], null));
  $("#players").addEventListener("change", drawSeatChoices);
  $("#new-table").addEventListener("submit", (submit) => {
    submit.preventDefault();
    const bots = [...document.querySelectorAll("#seat-choices select")].map((s) => (s.value === "human" ? null : s.value));
    const seedText = $("#seed").value.trim();
    createTable(bots.length, bots, seedText === "" ? null : Number(seedText));
  });
  window.addEventListener("hashchange", route);
  route();
});
