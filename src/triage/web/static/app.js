// Triage in the browser: plain JavaScript, no build step.
// The page only ever draws what the server sends for this seat (its view, its choices and its
// filtered events); everything else it shows (deadlines, payments, the log) is worked out from
// that alone, so it can never show more than the seat knows (rules.md I1-I4).
"use strict";

const $ = (selector) => document.querySelector(selector);
const state = {
  tableId: null, seat: null, token: null, socket: null, retry: null,
  view: null, choices: [], actions: null, expectNumbers: false, log: [], summary: null,
  selected: null, heal: {}, pay: {}, error: null, notice: null, busy: false,
  bots: [], firstDrawn: false, replay: null, invites: [],
};

const RULES = "/static/rules.html";
const KIND_NAMES = { critical: "critical", severe: "severe", chronic: "chronic", non_severe: "non-severe", terminal: "terminal" };
const ITEM_NAMES = {
  diagnostics: "Diagnostics token", healing: "Healing token", congress: "Congress Doctor", helicopter: "Helicopter",
  staff: "Staff", clinical_trial: "Clinical Trial", outpatient_clinic: "Outpatient Clinic",
};
const ITEM_HELP = {
  diagnostics: "pays 1 unit of a diagnosis", healing: "places 1 healing or treats a terminal patient once",
  congress: "pays 1 unit of any cost, once", helicopter: "remove a patient and/or make everyone draw",
  staff: "pays 1 unit of any cost every round", clinical_trial: "one more hospital space", outpatient_clinic: "one more hospital space",
};
// Readable titles of the engine's refusal codes (scenario-format.md section 4).
const REFUSALS = {
  not_your_turn: "It is not your turn", wrong_phase: "Not now", unknown_patient: "That patient is not yours",
  no_such_space: "No such space", space_occupied: "That space is taken", space_available: "A space is still free",
  already_revealed: "Already diagnosed", not_revealed: "Diagnose it first", not_terminal: "Not a terminal patient",
  is_terminal: "A terminal patient is treated, not healed", already_treated: "Already treated this round",
  too_much_healing: "More healing than it needs", bad_payment: "The payment does not add up",
  cannot_afford: "Not enough to pay", no_helicopter: "No Helicopter left", empty_helicopter: "The Helicopter must do something",
  limit_reached: "Bought as many as allowed", game_over: "The game is over", invalid_action: "Not a valid action",
  stale_action: "The table moved on", storage_error: "Not stored, try again",
};

// ------------------------------------------------------------------ small helpers

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function plural(count, one, many) {
  return `${count} ${count === 1 ? one : many || one + "s"}`;
}

function ruleLink(rule, text) {
  const link = el("a", "rule", text || rule);
  link.href = `${RULES}#${rule}`;
  link.target = "_blank";
  link.rel = "noopener";
  link.title = /^[A-Z]\d+$/.test(rule) ? `Rule ${rule} in the rules` : "The rules page";
  return link;
}

function savedSeat(tableId) {
  try { return JSON.parse(localStorage.getItem("triage.seat." + tableId)); } catch (e) { return null; }
}
function saveSeat(tableId, seat, token, invites) {
  localStorage.setItem("triage.seat." + tableId, JSON.stringify({ seat, token, invites: invites || [] }));
}

function botOf(seat) {
  const seats = state.summary && state.summary.seats;
  return seats && seats[seat] ? seats[seat].bot : null;
}

function seatName(seat) {
  if (seat === state.seat) return "You";
  const bot = botOf(seat);
  return bot ? `Player ${seat} (${bot})` : `Player ${seat}`;
}

// "You heal" / "Player 1 (greedy) heals".
function says(seat, base, third) {
  return `${seatName(seat)} ${seat === state.seat ? base : third || base + "s"}`;
}

// ------------------------------------------------------------------ HTTP

async function api(method, path, body, token) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers["Authorization"] = "Bearer " + token;
  const options = { method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
  let response;
  try {
    response = await fetch(path, options);
  } catch (networkError) {
    // One retry: an action carries its expected number, so the server never applies it twice.
    response = await fetch(path, options);
  }
  const data = await response.json().catch(() => ({ code: "bad_response", message: response.statusText }));
  if (!response.ok) throw Object.assign(new Error(data.message || response.statusText), data, { status: response.status });
  return data;
}

function setStatus(text, isError) {
  const status = $("#status");
  status.textContent = text;
  status.className = isError ? "bad" : "";
}

// ------------------------------------------------------------------ home page

async function showHome() {
  $("#table").hidden = true;
  $("#home").hidden = false;
  closeSocket();
  state.tableId = null;
  setStatus("");
  try {
    const bots = await api("GET", "/api/bots");
    state.bots = bots.map((bot) => (typeof bot === "string" ? { name: bot, description: "" } : bot));
  } catch (e) { state.bots = [{ name: "random", description: "" }]; }
  drawBotLevels();
  drawSeatChoices();
  drawTableList();
}

function botNames() { return state.bots.map((bot) => bot.name); }

function defaultBot() {
  const names = botNames();
  for (const name of ["expert", "greedy", "random"]) if (names.includes(name)) return name;
  return names[0];
}

// Levels first (strongest first), then the other bots.
function orderedBots() {
  const order = ["expert", "expert-club", "expert-novice", "greedy", "random"];
  return state.bots.slice().sort((a, b) => {
    const ia = order.indexOf(a.name), ib = order.indexOf(b.name);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.name.localeCompare(b.name);
  });
}

function botOption(bot) {
  const option = el("option", "", bot.name + (bot.description ? ": " + bot.description : ""));
  option.value = bot.name;
  return option;
}

function drawBotLevels() {
  const select = $("#solo-bot");
  const chosen = select.value;
  select.innerHTML = "";
  for (const bot of orderedBots()) select.appendChild(botOption(bot));
  select.value = chosen && botNames().includes(chosen) ? chosen : defaultBot();
}

function drawSeatChoices() {
  const players = Number($("#players").value);
  const box = $("#seat-choices");
  box.innerHTML = "";
  for (let seat = 0; seat < players; seat++) {
    const label = el("label", "", `Seat ${seat} `);
    const select = el("select");
    select.dataset.seat = seat;
    const human = el("option", "", "human");
    human.value = "human";
    select.appendChild(human);
    for (const bot of orderedBots()) {
      const option = botOption(bot);
      option.textContent = "bot: " + option.textContent;
      select.appendChild(option);
    }
    select.value = seat === 0 ? "human" : defaultBot();
    label.appendChild(select);
    box.appendChild(label);
  }
}

function describeSeats(table) {
  return table.seats.map((s) => (s.bot ? "bot " + s.bot : s.taken ? "human" : "free seat")).join(", ");
}

async function drawTableList() {
  const list = $("#tables");
  list.innerHTML = "";
  let tables = [];
  try { tables = await api("GET", "/api/tables"); } catch (e) { setStatus(e.message, true); }
  if (!tables.length) list.appendChild(el("li", "hint", "No table yet."));
  for (const table of tables) {
    const item = el("li");
    const where = table.over ? `over, scores ${table.scores.join(" / ")}` : `round ${table.round}, ${table.phase}`;
    item.appendChild(el("span", "", `${table.table_id}: ${plural(table.players, "player")} (${describeSeats(table)}); ${where} `));
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
          const seat = await api("POST", `/api/tables/${table.table_id}/join`, {});
          saveSeat(table.table_id, seat.seat, seat.token);
        } catch (e) { setStatus(e.message, true); return; }
      }
      location.hash = "#/t/" + table.table_id;
    });
    item.appendChild(open);
    list.appendChild(item);
  }
}

async function createTable(players, bots, seed, isPublic) {
  const body = { players, bots };
  // This browser plays the first human seat; every other human seat gets an invitation link.
  const humans = bots.map((bot, seat) => (bot ? null : seat)).filter((seat) => seat !== null);
  if (humans.length > 1) body.creator_seats = [humans[0]];
  if (seed !== null) body.seed = seed;
  if (isPublic) body.public = true;
  try {
    const created = await api("POST", "/api/tables", body);
    if (created.seats.length) saveSeat(created.table_id, created.seats[0].seat, created.seats[0].token, created.invites);
    location.hash = "#/t/" + created.table_id;
  } catch (e) {
    setStatus(e.message, true);
  }
}

async function joinByInvite(tableId, code) {
  const held = savedSeat(tableId);
  if (held) {
    // This browser already holds a seat here: opening the link again must not take the friend's seat.
    location.replace("#/t/" + tableId);
    setStatus(`You already hold seat ${held.seat} at this table; the invitation is left for your friend.`);
    return;
  }
  try {
    const seat = await api("POST", `/api/tables/${tableId}/join`, { invite: code });
    saveSeat(tableId, seat.seat, seat.token);
  } catch (e) {
    if (!savedSeat(tableId)) setStatus(`${e.message} You can still watch.`, true);
  }
  location.replace("#/t/" + tableId);
}

// ------------------------------------------------------------------ table page: connection

function openTable(tableId) {
  $("#home").hidden = true;
  $("#table").hidden = false;
  Object.assign(state, {
    tableId, view: null, choices: [], actions: null, log: [], selected: null, heal: {}, pay: {},
    error: null, notice: null, summary: null, final: null, firstDrawn: false, replay: null,
  });
  const mine = savedSeat(tableId);
  state.seat = mine ? mine.seat : null;
  state.token = mine ? mine.token : null;
  state.invites = mine && mine.invites ? mine.invites : [];
  for (const id of ["#me", "#others", "#panel", "#deck", "#market", "#log"]) $(id).innerHTML = "";
  $("#bar").textContent = "Connecting...";
  $("#table-title").textContent = `Triage table ${tableId}`;
  $("#replay").hidden = true;
  $("#over").hidden = true;
  loadSummary();
  connect();
}

async function loadSummary() {
  try {
    state.summary = await api("GET", `/api/tables/${state.tableId}`);
    if (state.summary.over) state.final = await api("GET", `/api/tables/${state.tableId}/final`);
  } catch (e) { /* names without bot kinds, and counts from the log, until they come */ }
  if (state.view) draw();
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

// The legal actions come as grouped choices (new API) or as the full list (older servers).
function takeLegal(legal, choices, actions) {
  if (choices) {
    state.choices = choices;
    state.expectNumbers = true;
  } else if (legal && !Array.isArray(legal) && legal.choices) {
    state.choices = legal.choices;
    state.expectNumbers = true;
    if (legal.actions !== undefined) actions = legal.actions;
  } else {
    state.choices = choicesFromList(legal || []);
  }
  if (actions !== undefined && actions !== null) state.actions = actions;
}

function receive(message) {
  if (message.type === "error") {
    setStatus(message.message, true);
    return;
  }
  if (message.type === "hello") {
    state.log = message.log;
    setStatus(state.seat === null ? "Watching as a spectator" : "");
  } else if (message.type === "update") {
    state.log = state.log.concat(message.events);
    // An update older than the position already drawn (fetched after an action) only adds to the log.
    if (message.actions !== undefined && state.actions !== null && message.actions < state.actions) {
      drawLog();
      return;
    }
  }
  const wasOver = state.view && state.view.phase === "over";
  state.view = message.view;
  takeLegal(message.legal, message.choices, message.actions !== undefined ? message.actions : message.view.actions);
  if (state.view.phase === "over" && !wasOver) loadSummary();
  draw();
}

// The position after an action, by HTTP in case the WebSocket is slow or down. The view and the
// choices must be of the same position (a bot may move between the two requests) and not older
// than the one drawn; otherwise the WebSocket brings the position.
async function refresh() {
  for (let attempt = 0; attempt < 2; attempt++) {
    const [view, legal] = await Promise.all([
      api("GET", `/api/tables/${state.tableId}/view`, undefined, state.token),
      api("GET", `/api/tables/${state.tableId}/legal`, undefined, state.token),
    ]);
    const number = view.actions;
    if (number !== undefined && !Array.isArray(legal) && legal.actions !== number) continue;
    if (number !== undefined && state.actions !== null && number < state.actions) return;
    state.view = view;
    takeLegal(legal, null, number);
    return;
  }
}

// Take an action; `where` is the key of the control it came from, where a refusal is shown
// and where the focus stays.
// No lock against a second action while one is on its way: each carries the action number of
// the position it was chosen in, so a repeat is answered once and a stale one is refused (409).
async function act(action, where) {
  state.busy = true;
  state.focusKey = where;
  const body = state.expectNumbers && state.actions !== null ? { action, expected: state.actions } : action;
  try {
    await api("POST", `/api/tables/${state.tableId}/actions`, body, state.token);
    state.error = null;
    state.notice = null;
    await refresh();
    if (state.view.phase === "over") loadSummary();
  } catch (e) {
    if (e.code === "stale_action") {
      state.notice = "The table moved on before your action arrived: here is the new position.";
      await refresh().catch(() => {});
    } else {
      state.error = { where, code: e.code || "error", message: e.message, rule: e.rule };
    }
  } finally {
    state.busy = false;
  }
  draw();
}

// ------------------------------------------------------------------ choices

function me() { return state.view && state.seat !== null ? state.view.players[state.seat] : null; }

function budgetFor(token) {
  const player = me();
  if (!player) return { tokens: 0, staff: 0, congress: 0 };
  return { tokens: player[token], staff: player.staff_available, congress: player.congress };
}

// Older servers list every payment mix; group them into the bounded choices of INTERFACES 4.
function choicesFromList(legal) {
  const choices = [];
  const byKey = new Map();
  for (const action of legal) {
    const target = action.card || action.patient || action.item || "";
    const key = action.type + ":" + target;
    let choice = byKey.get(key);
    if (!choice) {
      choice = { type: action.type };
      if (action.card) choice.card = action.card;
      if (action.patient) choice.patient = action.patient;
      if (action.item) choice.item = action.item;
      byKey.set(key, choice);
      choices.push(choice);
    }
    if (action.type === "admit") (choice.spaces = choice.spaces || []).push(action.space);
    if (action.type === "diagnose" || action.type === "treat") {
      const pay = action.pay || {};
      choice.cost = (pay.tokens || 0) + (pay.staff || 0) + (pay.congress || 0);
      choice.token = action.type === "diagnose" ? "diagnostics" : "healing";
    }
    if (action.type === "heal") {
      choice.token = "healing";
      choice.amount = { min: 1, max: Math.max(action.amount, choice.amount ? choice.amount.max : 1) };
    }
    if (action.type === "helicopter") {
      choice.remove = choice.remove || [];
      if (!choice.remove.includes(action.remove)) choice.remove.push(action.remove);
      choice.draw_all = choice.draw_all || action.draw_all;
    }
    if (action.type === "buy") {
      const market = state.view && state.view.config.market[action.item];
      choice.price = market ? market.price : null;
    }
  }
  for (const choice of choices) {
    if (choice.token) choice.budget = budgetFor(choice.token);
    if (choice.type === "helicopter") choice.remove = choice.remove.map((id) => id || null).filter((id) => id !== null);
  }
  return choices;
}

// Every way to pay `cost` within `budget`, the T6 default first (tokens, then Staff, then Congress).
function payments(cost, budget) {
  const mixes = [];
  for (let congress = 0; congress <= Math.min(cost, budget.congress); congress++) {
    for (let staff = 0; staff <= Math.min(cost - congress, budget.staff); staff++) {
      const tokens = cost - staff - congress;
      if (tokens <= budget.tokens) mixes.push({ tokens, staff, congress });
    }
  }
  mixes.sort((a, b) => b.tokens - a.tokens || b.staff - a.staff);
  return mixes;
}

function payText(pay, token) {
  const parts = [];
  if (pay.tokens) parts.push(`${pay.tokens} ${token === "diagnostics" ? "Diagnostics" : "Healing"}`);
  if (pay.staff) parts.push(`${pay.staff} Staff`);
  if (pay.congress) parts.push(plural(pay.congress, "Congress Doctor"));
  return parts.length ? parts.join(" + ") : "nothing";
}

function targetOf(choice) {
  return choice.card || choice.patient || null;
}

// The choices on one selected thing: a patient or arrival ("card:ID"), the Helicopter, a market item.
function choicesOn(key) {
  if (!key) return [];
  if (key === "heli") return state.choices.filter((c) => c.type === "helicopter");
  if (key.startsWith("buy:")) return state.choices.filter((c) => c.type === "buy" && c.item === key.slice(4));
  const id = key.slice(5);
  return state.choices.filter((c) => targetOf(c) === id || (c.type === "helicopter" && (c.remove || []).includes(id)));
}

function canPass() { return state.choices.some((c) => c.type === "pass"); }

// ------------------------------------------------------------------ deadlines (C1-C3)

function arrivedThisRound(card) {
  return state.log.some((e) => e.type === "drawn" && e.card === card && e.round === state.view.round);
}

// What the seat can tell of a patient's fate, from the public position and what it knows.
// Returns {text, level: danger|maybe|safe, tonight: bool}.
function deadline(patient, terminal) {
  const view = state.view;
  const lastRound = view.round >= view.config.rounds;
  const next = lastRound ? "safe: the game ends first" : "dies at the next Cleanup";
  if (terminal) {
    if (patient.treated) return { text: "treated: safe tonight", level: "safe", rule: "C1" };
    // V3 "reward": once treated in this stay, it never gets Time again.
    const treatedBefore = patient.ever_treated !== undefined ? patient.ever_treated : !arrivedThisRound(patient.card);
    if (view.config.terminal_upkeep === "reward" && treatedBefore) {
      return { text: "safe: treated in an earlier round", level: "safe", rule: "V3" };
    }
    return { text: "dies at Cleanup tonight unless treated", level: "danger", tonight: true, rule: "C2" };
  }
  const kind = patient.kind;
  if (kind === "critical") return { text: "dies at Cleanup tonight", level: "danger", tonight: true, rule: "C2" };
  if (kind === "severe") {
    if (patient.time >= 1) return { text: "dies at Cleanup tonight", level: "danger", tonight: true, rule: "C2" };
    return { text: next, level: lastRound ? "safe" : "danger", rule: "C2" };
  }
  if (kind === "chronic") return { text: "safe: never dies (each Time adds 1 to its healing)", level: "safe", rule: "T3" };
  if (kind === "non_severe") return { text: "safe: never dies", level: "safe", rule: "C2" };
  if ((view.not_severe || []).includes(patient.card)) {
    return { text: "safe: not severe (survived a check)", level: "safe", rule: "I4" };
  }
  if (patient.time >= 1) return { text: "checked at Cleanup tonight: dies if severe", level: "maybe", maybeTonight: true, rule: "C3" };
  return { text: lastRound ? "safe: the game ends first" : "dies at the next Cleanup if severe", level: lastRound ? "safe" : "maybe", rule: "C3" };
}

function myPatients() {
  const player = me();
  if (!player) return [];
  const list = [];
  for (const slot of Object.values(player.hospital)) if (slot) list.push({ patient: slot, info: deadline(slot, false) });
  for (const patient of player.terminals) list.push({ patient, info: deadline(patient, true) });
  return list;
}

// ------------------------------------------------------------------ drawing: cards

function kindOf(card) {
  if (card.kind) return card.kind;
  if (card.front === "critical" || card.front === "terminal") return card.front;
  return null;
}

// Who knows this card's back besides what is printed: checks seen by others (C3, I2).
function knowers(cardId) {
  const view = state.view;
  const names = [];
  (view.knowledge || []).forEach((known, seat) => {
    if (known.full.includes(cardId)) names.push(seat === state.seat ? "you" : seatName(seat));
    else if (known.priority.includes(cardId)) names.push((seat === state.seat ? "you" : seatName(seat)) + " (priority only)");
  });
  return names;
}

function cardBody(node, card, options) {
  const kind = kindOf(card);
  if (kind) node.classList.add("k-" + kind);
  const top = el("span", "card-top");
  top.appendChild(el("span", "id", card.card));
  if (options.where) top.appendChild(el("span", "space", options.where));
  node.appendChild(top);
  const front = card.front === "standard" ? `standard · diagnosis ${card.diagnosis}` : card.front;
  node.appendChild(el("span", "front", front));
  if (kind && card.front === "standard") node.appendChild(el("span", "kind", KIND_NAMES[kind]));
  else if (!kind && !options.replay && (state.view.not_severe || []).includes(card.card)) node.appendChild(el("span", "kind ns", "not severe"));
  else if (!kind) node.appendChild(el("span", "kind unknown", "kind unknown"));
  if ("time" in card) {
    const time = el("span", "time", `Time ${card.time}`);
    time.title = "Time tokens: one more at each Cleanup (rule C1)";
    node.appendChild(time);
  }
  if ("placed" in card && kind !== "terminal") {
    let need = card.healing;
    if (kind === "chronic" && (need === undefined || need === null)) need = card.time;
    const text = need === undefined || need === null ? `healing ${card.placed} placed` : `healing ${card.placed} of ${need}`;
    const heal = el("span", "heal", text);
    heal.title = kind === "chronic" ? "A chronic patient needs as much healing as it has Time (rule T3)" : "Placed healing / healing it needs (rule T2)";
    node.appendChild(heal);
  }
  if ("treated" in card) node.appendChild(el("span", "heal", card.treated ? "treated this round" : "not treated this round"));
  if (card.credits !== undefined && card.vp !== undefined) {
    const reward = el("span", "reward", `${kind === "terminal" ? "each treatment: " : "reward "}${card.credits} Cr · ${card.vp} VP`);
    node.appendChild(reward);
  }
  if (options.deadline && state.view.phase !== "over") {
    const info = options.deadline;
    node.appendChild(el("span", "deadline d-" + info.level, info.text));
  }
  const who = options.replay ? [] : knowers(card.card).filter((name) => name !== "you");
  if (who.length && card.front === "standard" && !card.revealed) node.appendChild(el("span", "seen", "back seen by " + who.join(", ")));
}

function drawCard(card, options) {
  const key = "card:" + card.card;
  const actionable = options.mine && choicesOn(key).length > 0;
  const node = el(actionable ? "button" : "div", "card");
  node.dataset.card = card.card;
  if (actionable) node.classList.add("clickable");
  selectable(node, key, actionable);
  cardBody(node, card, options);
  return node;
}

function counter(name, value, help, rule) {
  const item = el("span", "counter");
  item.title = help + (rule ? ` (rule ${rule})` : "");
  item.appendChild(el("span", "counter-name", name));
  item.appendChild(el("b", "", String(value)));
  return item;
}

function counters(player) {
  const box = el("div", "tracks");
  box.appendChild(counter("Score", player.score, "VP + Quality of Care", "R4"));
  box.appendChild(counter("VP", player.vp, "Victory Points from cured and treated patients", "T4"));
  box.appendChild(counter("QoC", player.quality, "Quality of Care: −1 per rejection, −2 per death (−1 terminal)", "C4"));
  box.appendChild(counter("Credits", player.credits, "Spent at the market", "T8"));
  box.appendChild(counter("Treated", player.treated, "Patients cured: breaks ties", "R4"));
  box.appendChild(counter("Diagnostics", player.diagnostics, "Tokens paying diagnoses", "T6"));
  box.appendChild(counter("Healing", player.healing, "Tokens paying healing and treatment", "T6"));
  box.appendChild(counter("Staff", `${player.staff_available}/${player.staff}`, "Staff available / owned: each pays 1 unit per round", "T6"));
  box.appendChild(counter("Congress", player.congress, "Congress Doctors: each pays 1 unit once", "T6"));
  return box;
}

function helicopterButton(player) {
  const key = "heli";
  const can = choicesOn(key).length > 0;
  const node = el(can ? "button" : "span", "heli", `Helicopter × ${player.helicopters}`);
  node.title = "Spend a Helicopter: remove one of your patients, make everyone draw, or both (rule T7)";
  return selectable(node, key, can);
}

/** A board thing that can be selected (a button when there is something to do with it). */
function selectable(node, key, can) {
  if (can) {
    node.type = "button";
    node.dataset.key = key;
    node.setAttribute("aria-pressed", state.selected === key ? "true" : "false");
    node.addEventListener("click", () => select(state.selected === key ? null : key));
  }
  if (state.selected === key) node.classList.add("selected");
  return node;
}

function playerTitle(seat, player, level) {
  const title = el(level, "player-title");
  title.appendChild(document.createTextNode(seat === state.seat ? `Your hospital (player ${seat})` : seatName(seat)));
  if (state.view.turn === seat) title.appendChild(el("span", "badge turn-badge", seat === state.seat ? "your turn" : "deciding"));
  if (player.passed) title.appendChild(el("span", "badge", "passed"));
  return title;
}

function hospitalRows(box, player, mine) {
  if (player.pending.length) {
    box.appendChild(el("div", "row-label", "Arrived: admit or reject"));
    const row = el("div", "row pending");
    for (const id of player.pending) {
      const known = Object.assign({ card: id }, state.view.cards[id] || {});
      row.appendChild(drawCard(known, { mine, where: "arrived" }));
    }
    box.appendChild(row);
  }
  const row = el("div", "row spaces");
  // With an arrival selected, a free space is a place to put it (A4).
  const arrival = mine && state.selected && state.selected.startsWith("card:") ? state.selected.slice(5) : null;
  const admit = arrival ? state.choices.find((c) => c.type === "admit" && c.card === arrival) : null;
  for (const [space, slot] of Object.entries(player.hospital)) {
    if (slot) row.appendChild(drawCard(slot, { mine, where: "space " + space, deadline: deadline(slot, false) }));
    else if (admit && admit.spaces.includes(Number(space))) {
      const key = `space:${space}`;
      const button = el("button", "card empty target", `Admit ${arrival} to space ${space}`);
      button.type = "button";
      button.dataset.key = key;
      button.addEventListener("click", () => act({ type: "admit", card: arrival, space: Number(space) }, key));
      row.appendChild(button);
    } else row.appendChild(el("div", "card empty", "space " + space + " free"));
  }
  for (const patient of player.terminals) {
    const card = Object.assign({ kind: "terminal" }, patient);
    row.appendChild(drawCard(card, { mine, where: "beside", deadline: deadline(patient, true) }));
  }
  box.appendChild(row);
}

function drawMe() {
  const box = $("#me");
  box.innerHTML = "";
  const view = state.view;
  if (state.seat === null) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const player = view.players[state.seat];
  box.appendChild(playerTitle(state.seat, player, "h2"));
  const line = el("div", "me-line");
  line.appendChild(counters(player));
  line.appendChild(helicopterButton(player));
  box.appendChild(line);
  hospitalRows(box, player, true);
}

function drawOthers() {
  const box = $("#others");
  box.innerHTML = "";
  const view = state.view;
  view.players.forEach((player, seat) => {
    if (seat === state.seat) return;
    const section = el("section", "player other");
    section.setAttribute("aria-label", seatName(seat));
    section.appendChild(playerTitle(seat, player, "h2"));
    section.appendChild(counters(player));
    hospitalRows(section, player, false);
    box.appendChild(section);
  });
}

// ------------------------------------------------------------------ drawing: deck and market

function drawDeck() {
  const box = $("#deck");
  box.innerHTML = "";
  const view = state.view;
  const title = el("h2", "", `Deck: ${plural(view.deck_count, "card")}`);
  title.id = "deck-title";
  title.title = "The top card's front is public; other positions are known only where public events put a card (rule I3)";
  box.appendChild(title);
  const strip = el("ol", "strip");
  strip.setAttribute("aria-label", "Known deck positions, top first");
  const known = view.deck_known || [];
  let gap = 0;
  const flush = () => {
    if (gap) strip.appendChild(el("li", "gap", `${plural(gap, "unknown card")}`));
    gap = 0;
  };
  known.forEach((id, index) => {
    if (id === null && !(index === 0 && view.deck_top)) { gap += 1; return; }
    flush();
    const cardId = id || view.deck_top.card;
    const card = Object.assign({ card: cardId }, index === 0 && view.deck_top ? view.deck_top : view.cards[cardId] || {});
    const item = el("li", "mini");
    const kind = kindOf(card);
    if (kind) item.classList.add("k-" + kind);
    item.appendChild(el("span", "pos", index === 0 ? "top" : `#${index + 1}`));
    item.appendChild(el("span", "id", cardId));
    const front = card.front === "standard" ? `diag. ${card.diagnosis}` : card.front || "";
    item.appendChild(el("span", "", front + (kind && card.front === "standard" ? " · " + KIND_NAMES[kind] : "")));
    strip.appendChild(item);
  });
  flush();
  if (!known.length) strip.appendChild(el("li", "gap", "empty"));
  box.appendChild(strip);
  if ((view.discard || []).length) {
    // V1 "discard": a face-up pile, shuffled into a new deck when the deck runs out.
    box.appendChild(el("p", "hint discard", `Discard pile: ${plural(view.discard.length, "card")} (${view.discard.join(", ")})`));
  }
}

function drawMarket() {
  const box = $("#market");
  box.innerHTML = "";
  box.hidden = state.view.phase === "over";
  if (box.hidden) return;
  const player = me();
  const title = el("h2", "", player ? `Market: you have ${plural(player.credits, "Credit")}` : "Market");
  title.id = "market-title";
  title.title = "Spend Credits on items (rule T8)";
  box.appendChild(title);
  const list = el("div", "market-items");
  for (const [item, entry] of Object.entries(state.view.config.market)) {
    const key = "buy:" + item;
    const can = choicesOn(key).length > 0;
    const node = el(can ? "button" : "div", "item");
    node.title = `${ITEM_NAMES[item] || item}: ${ITEM_HELP[item] || ""} (rule T8)`;
    node.appendChild(el("span", "item-name", ITEM_NAMES[item] || item));
    const limit = entry.limit === null || entry.limit === undefined ? "" : ` · at most ${entry.limit}`;
    node.appendChild(el("span", "price", `${plural(entry.price, "Credit")}${limit}`));
    list.appendChild(selectable(node, key, can));
  }
  box.appendChild(list);
}

// ------------------------------------------------------------------ drawing: the action panel

function select(key) {
  state.selected = key;
  state.error = null;
  state.focusKey = key ? firstPanelKey(key) : null;
  draw();
  // On a phone the panel is under the hospital: bring its actions into view.
  const primary = $("#panel button.primary") || $("#panel");
  if (key && primary) primary.scrollIntoView({ block: "nearest" });
}

// The panel's first control for a selection: where the focus goes when a thing is picked.
function firstPanelKey(key) {
  const choices = choicesOn(key);
  if (!choices.length) return key;
  const first = choices[0];
  if (first.type === "admit") return `do:admit:${first.spaces[0]}`;
  return "do:" + first.type;
}

function actButton(text, key, action, primary, help) {
  const button = el("button", primary ? "primary act" : "act", text);
  button.type = "button";
  button.dataset.key = key;
  button.dataset.action = JSON.stringify(action);
  if (help) button.title = help;
  button.addEventListener("click", () => act(action, key));
  return button;
}

function payChooser(choice, cost, keyBase) {
  const budget = choice.budget || budgetFor(choice.token);
  const mixes = payments(cost, budget);
  const stateKey = keyBase;
  let chosen = state.pay[stateKey];
  if (!chosen || !mixes.some((m) => payText(m) === payText(chosen))) chosen = mixes[0];
  const holder = el("div", "pay");
  if (mixes.length > 1) {
    const details = el("details", "pay-other");
    if (state.pay[stateKey + ":open"]) details.open = true;
    details.addEventListener("toggle", () => { state.pay[stateKey + ":open"] = details.open; });
    const summary = el("summary", "", "Pay differently");
    summary.dataset.key = "pay:" + stateKey;
    details.appendChild(summary);
    const fieldset = el("fieldset");
    fieldset.appendChild(el("legend", "", "Payment"));
    mixes.forEach((mix, index) => {
      const label = el("label", "radio");
      const input = el("input");
      input.type = "radio";
      input.name = "pay-" + stateKey;
      input.dataset.key = `pay:${stateKey}:${index}`;
      input.checked = payText(mix) === payText(chosen);
      input.addEventListener("change", () => {
        state.pay[stateKey] = mix;
        state.focusKey = input.dataset.key;
        draw();
      });
      label.appendChild(input);
      label.appendChild(document.createTextNode(" " + payText(mix, choice.token)));
      fieldset.appendChild(label);
    });
    details.appendChild(fieldset);
    holder.appendChild(details);
  }
  return { holder, pay: chosen };
}

function healControls(panel, choice) {
  const id = choice.patient;
  const max = choice.amount.max, min = choice.amount.min || 1;
  let amount = state.heal[id] === undefined ? max : state.heal[id];
  const stepper = el("div", "stepper");
  const label = el("label", "", "Healing to place ");
  label.setAttribute("for", "heal-amount");
  const input = el("input");
  input.id = "heal-amount";
  input.type = "number";
  input.min = min;
  input.max = max;
  input.value = amount;
  input.dataset.key = "heal-amount";
  input.addEventListener("change", () => {
    const value = Number(input.value);
    state.heal[id] = Number.isFinite(value) ? Math.round(value) : max;
    state.focusKey = "heal-amount";
    draw();
  });
  const minus = el("button", "step", "−");
  minus.type = "button";
  minus.dataset.key = "heal-minus";
  minus.setAttribute("aria-label", "One less healing");
  minus.disabled = amount <= min;
  minus.addEventListener("click", () => { state.heal[id] = Math.max(min, amount - 1); state.focusKey = "heal-minus"; draw(); });
  const plus = el("button", "step", "+");
  plus.type = "button";
  plus.dataset.key = "heal-plus";
  plus.setAttribute("aria-label", "One more healing");
  plus.disabled = amount >= max;
  plus.addEventListener("click", () => { state.heal[id] = Math.min(max, amount + 1); state.focusKey = "heal-plus"; draw(); });
  stepper.appendChild(label);
  stepper.appendChild(minus);
  stepper.appendChild(input);
  stepper.appendChild(plus);
  stepper.appendChild(el("span", "hint", `1 to ${max}`));
  panel.appendChild(stepper);
  // An amount typed out of range is sent as it is: the server's refusal explains why (T2).
  const inRange = amount >= min && amount <= max;
  const { holder, pay } = inRange ? payChooser(choice, amount, "heal:" + id) : { holder: el("div"), pay: null };
  const action = { type: "heal", patient: id, amount };
  if (pay) action.pay = pay;
  const text = pay ? `Heal ${amount} — pay ${payText(pay, "healing")}` : `Heal ${amount}`;
  panel.appendChild(actButton(text, "do:heal", action, true, "Place healing on the patient; it is cured when placed healing reaches its need (rules T2, T4)"));
  panel.appendChild(holder);
}

function costControls(panel, choice, verb, help) {
  const id = choice.patient;
  const cost = choice.cost === undefined ? 1 : choice.cost;
  const { holder, pay } = payChooser(choice, cost, choice.type + ":" + id);
  const action = { type: choice.type, patient: id, pay };
  panel.appendChild(actButton(`${verb} — pay ${payText(pay, choice.token)}`, "do:" + choice.type, action, true, help));
  panel.appendChild(holder);
}

function helicopterControls(panel, choice, onlyRemove) {
  const key = "heli-form";
  const form = state.pay[key] || { remove: onlyRemove || null, draw: !onlyRemove && choice.draw_all };
  if (onlyRemove) {
    const action = { type: "helicopter", remove: onlyRemove, draw_all: false };
    panel.appendChild(actButton(`Helicopter: remove ${onlyRemove} (no QoC lost)`, "do:helicopter", action, false,
      "Spend a Helicopter; the patient goes under the deck (rule T7)"));
    return;
  }
  const fieldset = el("fieldset", "heli-form");
  fieldset.appendChild(el("legend", "", "Helicopter (rule T7)"));
  const label = el("label", "", "Remove ");
  const picker = el("select");
  picker.dataset.key = "heli-remove";
  const none = el("option", "", "nobody");
  none.value = "";
  picker.appendChild(none);
  for (const id of choice.remove || []) {
    const option = el("option", "", id);
    option.value = id;
    picker.appendChild(option);
  }
  picker.value = form.remove || "";
  picker.addEventListener("change", () => { state.pay[key] = Object.assign({}, form, { remove: picker.value || null }); state.focusKey = "heli-remove"; draw(); });
  label.appendChild(picker);
  fieldset.appendChild(label);
  const drawLabel = el("label", "check");
  const box = el("input");
  box.type = "checkbox";
  box.dataset.key = "heli-draw";
  box.checked = !!form.draw;
  box.disabled = !choice.draw_all;
  box.addEventListener("change", () => { state.pay[key] = Object.assign({}, form, { draw: box.checked }); state.focusKey = "heli-draw"; draw(); });
  drawLabel.appendChild(box);
  drawLabel.appendChild(document.createTextNode(" everyone draws one patient"));
  fieldset.appendChild(drawLabel);
  panel.appendChild(fieldset);
  const action = { type: "helicopter", remove: form.remove || null, draw_all: !!form.draw };
  // Neither part chosen is sent as it is: the refusal says what is missing (T7).
  panel.appendChild(actButton("Fly the Helicopter", "do:helicopter", action, true));
}

function describeSelection(key) {
  const view = state.view;
  if (key === "heli") return "Helicopter";
  if (key.startsWith("buy:")) {
    const item = key.slice(4);
    return `Market: ${ITEM_NAMES[item] || item}`;
  }
  const id = key.slice(5);
  const player = me();
  if (player.pending.includes(id)) return `${id} has arrived`;
  for (const [space, slot] of Object.entries(player.hospital)) if (slot && slot.card === id) return `${id} in space ${space}`;
  return `${id} beside the board`;
}

function drawErrorNear(panel, where) {
  const error = state.error;
  if (!error || (where && error.where && !error.where.startsWith(where) && where !== "panel")) return;
  const box = el("div", "refusal");
  box.setAttribute("role", "alert");
  box.appendChild(el("strong", "", (REFUSALS[error.code] || "Refused") + ": "));
  box.appendChild(document.createTextNode(error.message + " "));
  if (error.rule) box.appendChild(ruleLink(error.rule, "rule " + error.rule));
  panel.appendChild(box);
}

function drawPanel() {
  const panel = $("#panel");
  panel.innerHTML = "";
  const view = state.view;
  if (view.phase === "over") { panel.hidden = true; return; }
  panel.hidden = false;
  if (state.seat === null) {
    panel.appendChild(el("p", "hint", "You are watching: you see what every player knows, and no more."));
    return;
  }
  if (state.notice) panel.appendChild(el("p", "notice", state.notice));
  if (!state.choices.length) {
    panel.appendChild(el("p", "hint", `Waiting for ${seatName(view.turn)}...`));
    drawErrorNear(panel, "panel");
    return;
  }
  const key = state.selected;
  if (!key) {
    const hint = view.players[state.seat].pending.length
      ? "New patients have arrived: select one, then choose its space."
      : "Select one of your patients, the Helicopter or a market item to see what you can do.";
    panel.appendChild(el("p", "hint", hint));
    if (view.round === 1) {
      // A first game's one-paragraph guide; the rules page has the rest.
      const guide = el("p", "guide", "Each round: admit the new patients, diagnose them (Diagnostics), heal them (Healing) to cure them for Credits and VP, then Pass. At Cleanup untreated patients get Time; the label on each card says when it dies. ");
      guide.appendChild(ruleLink("cleanup", "How Cleanup works"));
      panel.appendChild(guide);
    }
  } else {
    const heading = el("h2", "", describeSelection(key));
    heading.id = "panel-title";
    panel.appendChild(heading);
    const close = el("button", "close", "Close");
    close.type = "button";
    close.dataset.key = "panel-close";
    close.title = "Close (Escape)";
    close.addEventListener("click", () => closePanel());
    panel.appendChild(close);
    const id = key.startsWith("card:") ? key.slice(5) : null;
    if (id) {
      const found = myPatients().find((entry) => entry.patient.card === id);
      if (found) panel.appendChild(el("p", "deadline d-" + found.info.level, found.info.text));
    }
    let primaryShown = false;
    for (const choice of choicesOn(key)) {
      if (choice.type === "admit") {
        for (const space of choice.spaces) {
          panel.appendChild(actButton(`Admit to space ${space}`, `do:admit:${space}`, { type: "admit", card: choice.card, space }, !primaryShown,
            "Admitted patients stay in their space (rules A4, A6)"));
          primaryShown = true;
        }
      } else if (choice.type === "reject") {
        panel.appendChild(actButton("Reject it (−1 QoC)", "do:reject", { type: "reject", card: choice.card }, !primaryShown,
          "Allowed only when no space is free; it goes on top of the deck (rule A5)"));
      } else if (choice.type === "heal") {
        healControls(panel, choice);
        primaryShown = true;
      } else if (choice.type === "diagnose") {
        costControls(panel, choice, "Diagnose", "Reveal its treatment side (rule T1)");
        primaryShown = true;
      } else if (choice.type === "treat") {
        costControls(panel, choice, "Treat", "Once a round: gain its reward and skip its Time tonight (rules T5, C1)");
        primaryShown = true;
      } else if (choice.type === "helicopter") {
        helicopterControls(panel, choice, id);
      } else if (choice.type === "buy") {
        const entry = view.config.market[choice.item];
        const price = choice.price !== undefined && choice.price !== null ? choice.price : entry.price;
        panel.appendChild(actButton(`Buy 1 ${ITEM_NAMES[choice.item] || choice.item} for ${plural(price, "Credit")}`, "do:buy",
          { type: "buy", item: choice.item }, true, ITEM_HELP[choice.item]));
      }
    }
  }
  drawErrorNear(panel, key ? "do:" : "panel");
  drawAllActions(panel);
}

function closePanel() {
  const key = state.selected;
  state.selected = null;
  state.error = null;
  state.focusKey = key;
  draw();
}

// The full legal list, one button per choice with its default: a secondary way to act.
function defaultAction(choice) {
  switch (choice.type) {
    case "admit": return [{ type: "admit", card: choice.card, space: choice.spaces[0] }, `Admit ${choice.card} to space ${choice.spaces[0]}`];
    case "reject": return [{ type: "reject", card: choice.card }, `Reject ${choice.card} (−1 QoC)`];
    case "heal": {
      const pay = payments(choice.amount.max, choice.budget || budgetFor("healing"))[0];
      return [{ type: "heal", patient: choice.patient, amount: choice.amount.max, pay }, `Heal ${choice.patient} by ${choice.amount.max} (${payText(pay, "healing")})`];
    }
    case "diagnose": case "treat": {
      const pay = payments(choice.cost === undefined ? 1 : choice.cost, choice.budget || budgetFor(choice.token))[0];
      const verb = choice.type === "diagnose" ? "Diagnose" : "Treat";
      return [{ type: choice.type, patient: choice.patient, pay }, `${verb} ${choice.patient} (${payText(pay, choice.token)})`];
    }
    case "helicopter": {
      const remove = choice.remove && choice.remove.length ? null : null;
      return [{ type: "helicopter", remove, draw_all: true }, "Helicopter: everyone draws"];
    }
    case "buy": return [{ type: "buy", item: choice.item }, `Buy ${ITEM_NAMES[choice.item] || choice.item}`];
    case "pass": return [{ type: "pass" }, "Pass (end your turn)"];
    default: return [choice, choice.type];
  }
}

function drawAllActions(panel) {
  const details = el("details", "all-actions");
  details.open = !!state.allOpen;
  details.addEventListener("toggle", () => { state.allOpen = details.open; });
  const summary = el("summary", "", `All legal actions (${state.choices.length})`);
  summary.dataset.key = "all-actions";
  details.appendChild(summary);
  const list = el("ul");
  state.choices.forEach((choice, index) => {
    const [action, text] = defaultAction(choice);
    if (choice.type === "helicopter" && !choice.draw_all) return;
    if (choice.type === "pass") return;
    const item = el("li");
    const button = actButton(text, `all:${index}`, action, false);
    button.classList.add("all");
    item.appendChild(button);
    list.appendChild(item);
  });
  details.appendChild(list);
  panel.appendChild(details);
}

// ------------------------------------------------------------------ the status bar and Pass

function drawBar() {
  const view = state.view;
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

function askPass() {
  const deaths = myPatients().filter((entry) => entry.info.tonight);
  const maybe = myPatients().filter((entry) => entry.info.maybeTonight);
  if (!deaths.length && !maybe.length) { act({ type: "pass" }, "pass"); return; }
  const body = $("#confirm-body");
  body.innerHTML = "";
  if (deaths.length) {
    body.appendChild(el("p", "", `${plural(deaths.length, "patient")} of yours will die at this Cleanup:`));
    const list = el("ul", "dying");
    for (const { patient } of deaths) {
      const kind = patient.kind ? KIND_NAMES[patient.kind] : patient.front;
      list.appendChild(el("li", "", `${patient.card} (${kind}, Time ${patient.time}): −${kind === "terminal" ? 1 : 2} QoC`));
    }
    body.appendChild(list);
  }
  if (maybe.length) {
    body.appendChild(el("p", "", "Checked tonight, dies if severe:"));
    const list = el("ul", "maybe");
    for (const { patient } of maybe) list.appendChild(el("li", "", `${patient.card} (unrevealed, Time ${patient.time})`));
    body.appendChild(list);
  }
  const dialog = $("#confirm-pass");
  dialog.showModal();
  $("#confirm-cancel").focus();
}

// ------------------------------------------------------------------ game over

// Who won, and what broke the tie (R4: score, then the treated track, then Credits).
function outcome() {
  const players = state.view.players;
  if (players.length === 1) return { solo: true };
  const order = players.map((p, seat) => ({ seat, p })).sort((a, b) =>
    b.p.score - a.p.score || b.p.treated - a.p.treated || b.p.credits - a.p.credits);
  const [first, second] = order;
  let tie = null;
  if (first.p.score === second.p.score) {
    if (first.p.treated !== second.p.treated) tie = "treated";
    else if (first.p.credits !== second.p.credits) tie = "credits";
    else tie = "tie";
  }
  return { tie: state.final ? state.final.tie_break : tie };
}

// The solo tier (R4 solo): from the server's summary, else from the configuration's tiers
// (a list of {name, score}); none on a loss.
function soloTier(score) {
  if (state.final) return state.final.solo_tier;
  const solo = state.view.config.solo;
  if (!solo || !solo.tiers || state.view.winner === null) return null;
  const tiers = solo.tiers.map((t) => [t.name, t.score]).sort((a, b) => b[1] - a[1]);
  const found = tiers.find(([, minimum]) => score >= minimum);
  return found ? found[0] : null;
}

function tierText() {
  const solo = state.view.config.solo;
  if (!solo || !solo.tiers || !solo.tiers.length) return "";
  return solo.tiers.map((t) => `${t.name} from ${t.score}`).join(", ");
}

function overHeadline() {
  const view = state.view;
  if (view.players.length === 1) {
    const player = view.players[0];
    const won = view.winner === 0;
    const tier = soloTier(player.score);
    return `${won ? "Your hospital held" : "Quality of Care fell to 0: a loss"}: score ${player.score}` + (tier ? `, ${tier} tier` : "");
  }
  if (view.winner === null || view.winner === undefined) return "Game over: a full tie";
  return view.winner === state.seat ? "Game over: you win!" : `Game over: ${seatName(view.winner)} wins`;
}

// Cured, dead and rejected patients per seat, by kind: from the server when it sends them,
// else from this seat's log ("kind unknown" where the seat never saw the back).
function tallies() {
  if (state.final) return state.final.players;
  const rows = state.view.players.map(() => ({ cured: {}, dead: {}, rejected: {} }));
  const what = { cured: "cured", died: "dead", rejected: "rejected" };
  for (const event of state.log) {
    if (!(event.type in what) || event.player === undefined) continue;
    const card = state.view.cards[event.card] || {};
    let kind = card.kind || (card.front === "critical" || card.front === "terminal" ? card.front : null);
    if (!kind && event.type === "died") kind = "severe"; // I2: a standard patient that dies was severe
    kind = kind || "kind unknown";
    const bucket = rows[event.player][what[event.type]];
    bucket[kind] = (bucket[kind] || 0) + 1;
  }
  return rows;
}

function countText(counts) {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  if (!total) return "0";
  const parts = Object.entries(counts).map(([kind, count]) => `${count} ${KIND_NAMES[kind] || kind}`);
  return `${total} (${parts.join(", ")})`;
}

const COLUMNS = ["Player", "Score", "VP", "QoC", "Treated", "Credits", "Cured", "Dead", "Rejected"];

function drawOver() {
  const box = $("#over");
  const view = state.view;
  if (view.phase !== "over") { box.hidden = true; return; }
  box.hidden = false;
  box.innerHTML = "";
  const title = el("h2", "", overHeadline());
  title.id = "over-title";
  box.appendChild(title);
  const { tie } = outcome();
  const ties = {
    treated: "Scores tied: the treated-patient track decided (rule R4).",
    credits: "Scores and treated tracks tied: Credits decided (rule R4).",
    tie: "A full tie: same score, treated track and Credits (rule R4).",
  };
  if (tie) box.appendChild(el("p", "tie", ties[tie]));
  else if (view.players.length === 1 && tierText()) box.appendChild(el("p", "tie", `Solo tiers: ${tierText()}.`));
  else if (view.players.length > 1) box.appendChild(el("p", "tie", "Decided on score (VP + QoC); no tie-break needed."));
  const table = el("table", "final");
  const head = el("tr");
  for (const name of COLUMNS) {
    const th = el("th", "", name);
    th.scope = "col";
    head.appendChild(th);
  }
  const thead = el("thead");
  thead.appendChild(head);
  table.appendChild(thead);
  const body = el("tbody");
  const counts = tallies();
  view.players.forEach((player, seat) => {
    const row = el("tr");
    if (seat === view.winner) row.classList.add("winner");
    const name = el("th", "", seatName(seat) + (seat === view.winner && view.players.length > 1 ? " (winner)" : ""));
    name.scope = "row";
    row.appendChild(name);
    const tally = counts[seat] || { cured: {}, dead: {}, rejected: {} };
    const values = [player.score, player.vp, player.quality, player.treated, player.credits,
      countText(tally.cured), countText(tally.dead), countText(tally.rejected)];
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
  box.appendChild(scroller);
  const buttons = el("div", "over-buttons");
  const replay = el("button", "primary", "Replay the game");
  replay.type = "button";
  replay.dataset.key = "replay";
  replay.addEventListener("click", () => startReplay());
  buttons.appendChild(replay);
  const again = el("button", "", "New game, same seats");
  again.type = "button";
  again.dataset.key = "again";
  again.addEventListener("click", () => {
    const seats = (state.summary && state.summary.seats) || view.players.map((_, seat) => ({ bot: seat === state.seat ? null : "random" }));
    createTable(view.players.length, seats.map((s) => s.bot || null), null, false);
  });
  buttons.appendChild(again);
  const lobby = el("a", "button", "Back to the lobby");
  lobby.href = "#/";
  buttons.appendChild(lobby);
  box.appendChild(buttons);
}

// ------------------------------------------------------------------ replay

async function startReplay() {
  // The replay is drawn (also by redraws meanwhile) only once its record is here.
  let record;
  try {
    record = await api("GET", `/api/tables/${state.tableId}/record`, undefined, state.token);
  } catch (e) { setStatus(e.message, true); return; }
  let first = null;
  try { first = await api("GET", `/api/tables/${state.tableId}/replay?step=0`, undefined, state.token); } catch (e) { /* the action list only */ }
  state.replay = { step: 0, steps: record.actions.length, record, stepView: first };
  drawReplay();
  const box = $("#replay");
  box.scrollIntoView({ block: "start" });
  const next = box.querySelector("[data-key='replay-next']");
  if (next) next.focus();
}

async function replayGo(step) {
  const replay = state.replay;
  replay.step = Math.max(0, Math.min(replay.steps, step));
  try {
    const answer = await api("GET", `/api/tables/${state.tableId}/replay?step=${replay.step}`, undefined, state.token);
    replay.stepView = answer;
  } catch (e) {
    replay.stepView = null; // a server without the step route: the action list only
  }
  drawReplay();
}

function actionText(action, by) {
  const who = seatName(by);
  const v = (base, third) => says(by, base, third);
  switch (action.type) {
    case "admit": return `${v("admit")} ${action.card} to space ${action.space}`;
    case "reject": return `${v("reject")} ${action.card}`;
    case "diagnose": return `${v("diagnose")} ${action.patient}`;
    case "heal": return `${v("heal")} ${action.patient} by ${action.amount}`;
    case "treat": return `${v("treat")} ${action.patient}`;
    case "helicopter": return `${v("fly", "flies")} a Helicopter` + (action.remove ? `, removing ${action.remove}` : "") + (action.draw_all ? ", everyone draws" : "");
    case "buy": return `${v("buy")} a ${ITEM_NAMES[action.item] || action.item}`;
    case "pass": return `${v("pass", "passes")}`;
    default: return `${who}: ${action.type}`;
  }
}

function drawReplay() {
  const box = $("#replay");
  const replay = state.replay;
  box.hidden = !replay;
  box.innerHTML = "";
  if (!replay) return;
  const title = el("h2", "", `Replay: step ${replay.step} of ${replay.steps}`);
  title.id = "replay-title";
  box.appendChild(title);
  const controls = el("div", "replay-controls");
  const button = (text, key, step) => {
    const node = el("button", "", text);
    node.type = "button";
    node.dataset.key = key;
    node.disabled = step < 0 || step > replay.steps || step === replay.step;
    node.addEventListener("click", async () => { state.focusKey = key; await replayGo(step); restoreFocus(); });
    controls.appendChild(node);
  };
  button("« Start", "replay-start", 0);
  button("◀ Back", "replay-back", replay.step - 1);
  button("Next ▶", "replay-next", replay.step + 1);
  button("End »", "replay-end", replay.steps);
  const close = el("button", "", "Close replay");
  close.type = "button";
  close.addEventListener("click", () => { state.replay = null; drawReplay(); const r = $("[data-key='replay']"); if (r) r.focus(); });
  controls.appendChild(close);
  box.appendChild(controls);
  const entry = replay.step > 0 ? replay.record.actions[replay.step - 1] : null;
  box.appendChild(el("p", "replay-action", entry ? `Action ${replay.step}: ${actionText(entry.do, entry.by)}` : "The deal, before the first action"));
  const stepView = replay.stepView && (replay.stepView.state || replay.stepView.view);
  if (stepView) {
    const summary = el("p", "hint", `Round ${stepView.round}, ${stepView.phase}; deck ${plural(stepView.deck ? stepView.deck.length : stepView.deck_count, "card")}`);
    box.appendChild(summary);
    const events = (replay.stepView.events || []).map((event) => eventText(event));
    if (events.length) {
      const list = el("ul", "replay-events");
      for (const text of events) list.appendChild(el("li", "", text));
      box.appendChild(list);
    }
    stepView.players.forEach((player, seat) => {
      const section = el("div", "replay-player");
      section.appendChild(el("h3", "", `${seatName(seat)}: score ${player.score} (VP ${player.vp} + QoC ${player.quality}), Credits ${player.credits}`));
      const row = el("div", "row spaces");
      const add = (card, where) => {
        const node = el("div", "card");
        cardBody(node, card, { where, replay: true });
        row.appendChild(node);
      };
      for (const [space, slot] of Object.entries(player.hospital)) {
        if (!slot) row.appendChild(el("div", "card empty", "space " + space + " free"));
        else add(slot, "space " + space);
      }
      for (const patient of player.terminals) add(Object.assign({ kind: "terminal" }, patient), "beside");
      section.appendChild(row);
      if (player.pending.length) section.appendChild(el("p", "hint", "Arrived, not yet admitted: " + player.pending.join(", ")));
      box.appendChild(section);
    });
  } else {
    const list = el("ol", "replay-list");
    const from = Math.max(0, replay.step - 3), to = Math.min(replay.steps, replay.step + 3);
    for (let index = from; index < to; index++) {
      const action = replay.record.actions[index];
      const item = el("li", index === replay.step - 1 ? "current" : "", actionText(action.do, action.by));
      item.value = index + 1;
      list.appendChild(item);
    }
    box.appendChild(list);
  }
}

// ------------------------------------------------------------------ the log

const PHASE_OF = {
  income: "Income and arrival", drawn: null, admitted: null, rejected: null,
  diagnosed: "Treatment", healed: "Treatment", cured: "Treatment", treated: "Treatment", helicopter: "Treatment",
  removed: "Treatment", bought: "Treatment", passed: "Treatment",
  time_added: "Cleanup", checked: "Cleanup", died: "Cleanup", game_over: "End of the game",
};

function kindWord(event) {
  return event.kind ? ` (${KIND_NAMES[event.kind] || event.kind})` : "";
}

// "Your" / "Player 1 (greedy)'s", before a card id.
function whose(seat) {
  return seat === state.seat ? "Your" : `${seatName(seat)}'s`;
}

function eventText(event) {
  const p = event.player;
  const card = event.card || "";
  switch (event.type) {
    case "income": return `${says(p, "receive")} ${event.diagnostics} Diagnostics and ${event.healing} Healing`;
    case "drawn": return `${says(p, "draw")} ${card} (${event.front}${event.front === "standard" ? ", diagnosis " + event.diagnosis : ""})`;
    case "admitted": return `${says(p, "admit")} ${card} ${event.space ? "to space " + event.space : "beside the board"}`;
    case "rejected": return `${says(p, "reject")} ${card}: −${event.quality_lost} QoC`;
    case "diagnosed": return `${says(p, "diagnose")} ${card}${kindWord(event)}`;
    case "healed": return `${says(p, "place")} ${event.amount} healing on ${card}`;
    case "cured": return `${card} is cured: ${seatName(p)} ${p === state.seat ? "gain" : "gains"} ${plural(event.credits, "Credit")} and ${event.vp} VP`;
    case "treated": return `${says(p, "treat")} terminal ${card}`;
    case "time_added": return `${whose(p)} ${card} has ${event.time} Time now`;
    case "checked": {
      const saw = (event.seen_by || []).map((seat) => (seat === state.seat ? "you" : seatName(seat))).join(", ");
      return `${whose(p)} ${card} is checked` + (saw ? `: seen by ${saw}` : "") + kindWord(event);
    }
    case "died": return `${whose(p)} ${card} dies: −${event.quality_lost} QoC`;
    case "removed": return `${says(p, "remove")} ${card} by Helicopter`;
    case "helicopter": return `${says(p, "fly", "flies")} a Helicopter`;
    case "bought": return `${says(p, "buy")} a ${ITEM_NAMES[event.item] || event.item}` + (event.price !== undefined ? ` for ${plural(event.price, "Credit")}` : "");
    case "passed": return says(p, "pass", "passes");
    case "round_started": return `Round ${event.round} begins`;
    case "deck_empty": return "The deck is empty";
    case "game_over": return "Game over: scores " + (event.scores || []).join(" / ");
    default: return event.type;
  }
}

function drawLog() {
  const box = $("#log");
  box.innerHTML = "";
  let round = null, phase = null, list = null, section = null;
  const rounds = [];
  for (const event of state.log) {
    if (event.type === "round_started") {
      section = el("section", "log-round");
      section.appendChild(el("h3", "", `Round ${event.round}` + (event.first_player !== undefined ? ` · ${seatName(event.first_player)} ${event.first_player === state.seat ? "start" : "starts"}` : "")));
      rounds.push(section);
      round = event.round;
      phase = null;
      continue;
    }
    if (!section) { section = el("section", "log-round"); section.appendChild(el("h3", "", "Start")); rounds.push(section); }
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
  for (const section of rounds.reverse()) box.appendChild(section); // newest round first
  box.dataset.round = round === null ? "" : String(round);
}

// ------------------------------------------------------------------ invitations

function drawInvites() {
  const box = $("#invites");
  box.innerHTML = "";
  const open = state.invites.filter((invite) => {
    const seats = state.summary && state.summary.seats;
    return !(seats && seats[invite.seat] && seats[invite.seat].taken);
  });
  if (!open.length || state.view.phase === "over") { box.hidden = true; return; }
  box.hidden = false;
  box.appendChild(el("h2", "", "Invite your friends"));
  for (const invite of open) {
    const url = new URL(invite.url, location.href).href;
    const row = el("p", "invite");
    const label = el("label", "", `Seat ${invite.seat}: `);
    const input = el("input");
    input.readOnly = true;
    input.value = url;
    input.size = 40;
    label.appendChild(input);
    row.appendChild(label);
    const copy = el("button", "", "Copy");
    copy.type = "button";
    copy.addEventListener("click", () => { input.select(); navigator.clipboard && navigator.clipboard.writeText(url); setStatus("Link copied"); });
    row.appendChild(copy);
    box.appendChild(row);
  }
}

// ------------------------------------------------------------------ drawing it all, keeping the focus

function restoreFocus() {
  const key = state.focusKey;
  state.focusKey = null;
  if (!key) return;
  const candidates = [key];
  if (key.startsWith("do:") || key.startsWith("heal-") || key.startsWith("pay:") || key.startsWith("all:") || key === "panel-close") {
    candidates.push(state.selected && firstPanelKey(state.selected), state.selected);
  }
  if (key === "panel-close" || key.startsWith("card:") || key === "heli" || key.startsWith("buy:")) candidates.push(key);
  const fallback = document.querySelector("#me button.card:not(.target)");
  candidates.push(fallback && fallback.dataset.key, "pass", "heli");
  for (const candidate of candidates) {
    if (!candidate) continue;
    const node = document.querySelector(`[data-key="${candidate}"]`);
    if (node && !node.disabled) { node.focus(); return; }
  }
  $("#bar").focus();
}

function draw() {
  const view = state.view;
  if (!view) return;
  const active = document.activeElement;
  if (!state.focusKey && active && active.dataset && active.dataset.key && $("#table").contains(active)) state.focusKey = active.dataset.key;
  if (state.selected && !choicesOn(state.selected).length) state.selected = null;
  // On arrival at a table the focus starts on the first thing to act on (or the status bar).
  if (!state.firstDrawn && !state.focusKey) state.focusKey = "first";
  drawBar();
  drawOver();
  drawMe();
  drawPanel();
  drawInvites();
  drawOthers();
  drawDeck();
  drawMarket();
  drawLog();
  if (state.replay) drawReplay();
  document.body.classList.toggle("is-over", view.phase === "over");
  restoreFocus();
  if (!state.firstDrawn) {
    state.firstDrawn = true;
    performance.mark("triage-first-render");
  }
}

// ------------------------------------------------------------------ routing and keys

function route() {
  const join = location.hash.match(/^#\/join\/([A-Za-z0-9_-]+)\/([A-Za-z0-9_-]+)$/);
  if (join) { joinByInvite(join[1], join[2]); return; }
  const match = location.hash.match(/^#\/t\/([A-Za-z0-9_-]+)$/);
  if (match) openTable(match[1]);
  else showHome();
}

document.addEventListener("DOMContentLoaded", () => {
  $("#solo").addEventListener("click", () => createTable(2, [null, $("#solo-bot").value || defaultBot()], null, false));
  $("#alone").addEventListener("click", () => createTable(1, [null], null, false));
  $("#players").addEventListener("change", drawSeatChoices);
  $("#new-table").addEventListener("submit", (submit) => {
    submit.preventDefault();
    const bots = [...document.querySelectorAll("#seat-choices select")].map((s) => (s.value === "human" ? null : s.value));
    const seedText = $("#seed").value.trim();
    createTable(bots.length, bots, seedText === "" ? null : Number(seedText), $("#public").checked);
  });
  $("#confirm-cancel").addEventListener("click", () => { $("#confirm-pass").close(); const p = $("[data-key='pass']"); if (p) p.focus(); });
  $("#confirm-ok").addEventListener("click", () => { $("#confirm-pass").close(); act({ type: "pass" }, "pass"); });
  $("#bar").tabIndex = -1;
  document.addEventListener("keydown", (key) => {
    if (key.key === "Escape" && state.selected && !$("#confirm-pass").open) closePanel();
  });
  window.addEventListener("hashchange", route);
  route();
});
