// @ts-check
// The board: hospitals and their cards, the deck, the market.
import { choicesOn, deadlineClass, deadlineOf } from "./choices.js";
import { $, button, el, plural } from "./dom.js";
import { actedOn } from "./pace.js";
import { select } from "./panel.js";
import { isWaiting, playerName } from "./lobby.js";
import { besideKind, itemWords, kindLabel, kindOf, me, seatName, state } from "./state.js";
import { act } from "./table.js";

/**
 * @typedef {import("./state.js").View} View
 * @typedef {import("./types.js").Board} Board
 * @typedef {import("./state.js").Action} Action
 */

/**
 * @typedef {import("./types.js").CardShown & Partial<import("./types.js").TerminalShown>} Card  a card as the view shows it
 * @typedef {{where?: string, mine?: boolean, deadline?: import("./state.js").Deadline | null, replay?: boolean}} CardOptions
 */

/**
 * Who knows this card's back besides what is printed: checks seen by others (C3, I2).
 * @param {string} cardId
 * @returns {string[]}
 */
function knowers(cardId) {
  /** @type {string[]} */
  const names = [];
  (state.view?.knowledge || []).forEach((/** @type {Record<string, string[]>} */ known, /** @type {number} */ seat) => {
    const name = seat === state.seat ? "you" : seatName(seat);
    if (known.full.includes(cardId)) names.push(name);
    else if (known.priority.includes(cardId)) names.push(name + " (priority only)");
  });
  return names;
}

/**
 * A card's face: id, front, kind, Time, healing, reward, deadline and who has seen its back.
 * @param {HTMLElement} node
 * @param {Card} card
 * @param {CardOptions} options
 */
export function cardBody(node, card, options) {
  const kind = card.kind || null;
  if (kind) node.classList.add("k-" + kind);
  const top = el("span", "card-top");
  top.appendChild(el("span", "id", card.card));
  if (options.where) top.appendChild(el("span", "space", options.where));
  node.appendChild(top);
  node.appendChild(el("span", "front", card.front === "standard" ? `standard · diagnosis ${card.diagnosis}` : card.front || ""));
  if (kind && card.front === "standard") node.appendChild(el("span", "kind", kindLabel(kind)));
  else if (!kind && !options.replay && (state.view?.not_severe || []).includes(card.card || "")) node.appendChild(el("span", "kind ns", "not severe"));
  else if (!kind) node.appendChild(el("span", "kind unknown", "kind unknown"));
  if ("time" in card) {
    const tonight = !!options.deadline && options.deadline.level !== "safe" && options.deadline.rounds === 0;
    const time = el("span", "time" + (tonight ? " tonight" : ""), `Time ${card.time}`);
    time.title = "Time tokens: one more at each Cleanup";
    node.appendChild(time);
  }
  const beside = !!kindOf(kind)?.beside;
  if ("placed" in card && !beside) {
    const need = card.healing;
    const heal = el("span", "heal", need === undefined || need === null ? `healing ${card.placed} placed` : `healing ${card.placed} of ${need}`);
    heal.title = kind && kindOf(kind)?.printed_healing === false ? `A ${kindLabel(kind)} patient needs as much healing as it has Time` : "Placed healing / healing it needs";
    node.appendChild(heal);
  }
  if ("treated" in card) node.appendChild(el("span", "heal", card.treated ? "treated this round" : "not treated this round"));
  if (card.credits !== undefined && card.vp !== undefined) {
    node.appendChild(el("span", "reward", `${beside ? "each treatment: " : "reward "}${card.credits} Cr · ${card.vp} VP`));
  }
  if (options.deadline) node.appendChild(el("span", deadlineClass(options.deadline), options.deadline.text));
  const who = options.replay || !card.card ? [] : knowers(card.card).filter((name) => name !== "you");
  if (who.length && card.front === "standard" && !card.revealed) node.appendChild(el("span", "seen", "back seen by " + who.join(", ")));
}

/**
 * A card of a hospital: a button when the seat can do something with it.
 * @param {Card} card
 * @param {CardOptions} options
 * @returns {HTMLElement}
 */
function drawCard(card, options) {
  const key = "card:" + card.card;
  const actionable = !!options.mine && choicesOn(key).length > 0;
  const quick = options.mine && state.forecast && card.card ? state.forecast.quick[card.card] : null;
  const node = el(actionable ? "button" : "div", "card");
  node.dataset.card = card.card;
  if (actionable) node.classList.add("clickable");
  if (state.acting && actedOn(state.acting.action) === card.card) node.classList.add("acting");
  cardBody(node, card, options);
  if (quick && options.where === "arrived") {
    // A4: an arrival goes to the first free space in one tap (undone with Undo); a free space
    // tapped takes it there instead.
    node.dataset.key = "quick:" + card.card;
    node.dataset.action = JSON.stringify(quick.do);
    node.appendChild(el("span", "tap", `Tap: ${quick.text.toLowerCase()}`));
    node.addEventListener("click", () => act(quick.do, "quick:" + card.card));
    if (node instanceof HTMLButtonElement) node.type = "button";
    return node;
  }
  selectable(node, key, actionable);
  if (!quick) return node;
  // The patient's one-tap action (the forecast's), beside its card: the rest is in the panel.
  const slot = el("div", "slot");
  slot.appendChild(node);
  const tap = button(quick.text, "quick", "quick:" + card.card, () => act(quick.do, "quick:" + card.card));
  tap.dataset.action = JSON.stringify(quick.do);
  tap.setAttribute("aria-label", `${card.card}: ${quick.text}`);
  slot.appendChild(tap);
  return slot;
}

/**
 * @param {string} name
 * @param {string | number} value
 * @param {string} help
 * @returns {HTMLElement}
 */
function counter(name, value, help) {
  const item = el("span", "counter");
  item.title = help;
  item.appendChild(el("span", "counter-name", name));
  item.appendChild(el("b", "", String(value)));
  return item;
}

/**
 * @param {Board} player
 * @returns {HTMLElement}
 */
function counters(player) {
  const box = el("div", "tracks");
  box.appendChild(counter("Score", player.score, "VP + Quality of Care"));
  box.appendChild(counter("VP", player.vp, "Victory Points from cured and treated patients"));
  box.appendChild(counter("QoC", player.quality, "Quality of Care: −1 per rejection, −2 per death (−1 terminal)"));
  box.appendChild(counter("Credits", player.credits, "Spent at the market"));
  box.appendChild(counter("Treated", player.treated, "Patients cured: breaks ties"));
  box.appendChild(counter("Diagnostics", player.diagnostics, "Tokens paying diagnoses"));
  box.appendChild(counter("Healing", player.healing, "Tokens paying healing and treatment"));
  box.appendChild(counter("Staff", `${player.staff_available}/${player.staff}`, "Staff available / owned: each pays 1 unit per round"));
  box.appendChild(counter("Congress", player.congress, "Congress Doctors: each pays 1 unit once"));
  return box;
}

/**
 * @param {Board} player
 * @returns {HTMLElement}
 */
function helicopterButton(player) {
  const can = choicesOn("heli").length > 0;
  const node = el(can ? "button" : "span", "heli", `Helicopter × ${player.helicopters}`);
  node.title = "Spend a Helicopter: remove one of your patients, make everyone draw, or both";
  return selectable(node, "heli", can);
}

/**
 * A board thing that can be selected (a button when there is something to do with it).
 * @param {HTMLElement} node
 * @param {string} key
 * @param {boolean} can
 * @returns {HTMLElement}
 */
function selectable(node, key, can) {
  if (can) {
    if (node instanceof HTMLButtonElement) node.type = "button";
    node.dataset.key = key;
    node.setAttribute("aria-pressed", state.selected === key ? "true" : "false");
    node.addEventListener("click", () => select(state.selected === key ? null : key));
  }
  if (state.selected === key) node.classList.add("selected");
  return node;
}

/**
 * @param {number} seat
 * @param {Board} player
 * @returns {HTMLElement}
 */
function playerTitle(seat, player) {
  const title = el("h2", "player-title");
  title.dataset.seat = String(seat); // where clocks.js puts the seat's presence and clock
  title.appendChild(document.createTextNode(seat === state.seat ? `Your hospital (${playerName(seat)})` : seatName(seat)));
  if (state.view?.turn === seat && !isWaiting()) title.appendChild(el("span", "badge turn-badge", seat === state.seat ? "your turn" : "deciding"));
  if (player.passed) title.appendChild(el("span", "badge", "passed"));
  return title;
}

/**
 * The arrivals, then the spaces (a free one a place to admit the selected arrival, A4), then
 * the terminal patients beside the board.
 * @param {HTMLElement} box
 * @param {Board} player
 * @param {boolean} mine
 */
function hospitalRows(box, player, mine) {
  const view = /** @type {View} */ (state.view);
  // The arrival a free space takes: the one selected, else the first that may be admitted (A4).
  const selected = mine && state.selected && state.selected.startsWith("card:") ? state.selected.slice(5) : null;
  const admissions = mine ? state.choices.filter((c) => c.type === "admit") : [];
  const admit = admissions.find((c) => c.card === selected) || admissions[0] || null;
  if (player.pending.length) {
    const rejectOnly = mine && !admissions.length && state.choices.some((c) => c.type === "reject");
    const label = !mine ? "Arrived" : admit ? "Arrived: tap one to admit it to the first free space, or tap a free space" : rejectOnly ? "Arrived, and no space is free: select one to reject it" : "Arrived";
    box.appendChild(el("div", "row-label", label));
    const row = el("div", "row pending");
    for (const id of player.pending) row.appendChild(drawCard({ card: id, ...(view.cards[id] || {}) }, { mine, where: "arrived" }));
    box.appendChild(row);
  }
  const row = el("div", "row spaces");
  for (const [space, slot] of Object.entries(player.hospital)) {
    if (slot) row.appendChild(drawCard(slot, { mine, where: "space " + space, deadline: deadlineOf(slot.card || "") }));
    else if (admit && (admit.spaces || []).includes(Number(space))) {
      const key = `space:${space}`;
      /** @type {Action} */
      const action = { type: "admit", card: admit.card, space: Number(space) };
      const target = el("button", "card empty target", `Admit ${admit.card} to space ${space}`);
      target.type = "button";
      target.dataset.key = key;
      target.dataset.action = JSON.stringify(action);
      target.addEventListener("click", () => act(action, key));
      row.appendChild(target);
    } else row.appendChild(el("div", "card empty", "space " + space + " free"));
  }
  for (const patient of player.terminals) {
    row.appendChild(drawCard({ kind: besideKind(), ...patient }, { mine, where: "beside", deadline: deadlineOf(patient.card) }));
  }
  box.appendChild(row);
}

export function drawMe() {
  const box = $("#me");
  box.innerHTML = "";
  const player = me();
  box.hidden = player === null;
  if (player === null || state.seat === null) return;
  box.appendChild(playerTitle(state.seat, player));
  const line = el("div", "me-line");
  line.appendChild(counters(player));
  line.appendChild(helicopterButton(player));
  box.appendChild(line);
  hospitalRows(box, player, true);
}

export function drawOthers() {
  const box = $("#others");
  box.innerHTML = "";
  (state.view?.players || []).forEach((player, seat) => {
    if (seat === state.seat) return;
    const section = el("section", "player other");
    section.setAttribute("aria-label", seatName(seat));
    section.appendChild(playerTitle(seat, player));
    section.appendChild(counters(player));
    hospitalRows(section, player, false);
    box.appendChild(section);
  });
}

/** The deck: its size, the top card's front, the positions public events fixed (I3). */
export function drawDeck() {
  const box = $("#deck");
  box.innerHTML = "";
  const view = /** @type {View} */ (state.view);
  // After the game (and so beside a replay, whose steps show their own deck) the panel says it is the end's.
  const when = view.phase === "over" ? "Deck at the end of the game" : "Deck";
  const title = el("h2", "", `${when}: ${plural(view.deck_count, "card")}`);
  title.id = "deck-title";
  title.title = "The top card's front is public; other positions are known only where public events put a card";
  box.appendChild(title);
  const strip = el("ol", "strip");
  strip.setAttribute("aria-label", "Known deck positions, top first");
  const known = view.deck_known;
  let gap = 0;
  const flush = () => {
    if (gap) strip.appendChild(el("li", "gap", `${plural(gap, "unknown card")}`));
    gap = 0;
  };
  known.forEach((/** @type {string | null} */ id, /** @type {number} */ index) => {
    const top = index === 0 && view.deck_top;
    if (id === null && !top) { gap += 1; return; }
    flush();
    const card = top && view.deck_top ? view.deck_top : { card: id || "", ...(view.cards[id || ""] || {}) };
    const item = el("li", "mini");
    if (card.kind) item.classList.add("k-" + card.kind);
    item.appendChild(el("span", "pos", index === 0 ? "top" : `#${index + 1}`));
    item.appendChild(el("span", "id", card.card));
    const front = card.front === "standard" ? `diag. ${card.diagnosis}` : card.front || "";
    item.appendChild(el("span", "", front + (card.kind && card.front === "standard" ? " · " + kindLabel(card.kind) : "")));
    strip.appendChild(item);
  });
  flush();
  if (!known.length) strip.appendChild(el("li", "gap", "empty"));
  box.appendChild(strip);
  if (view.discard.length) {
    // V1 "discard": a face-up pile, shuffled into a new deck when the deck runs out.
    box.appendChild(el("p", "hint discard", `Discard pile: ${plural(view.discard.length, "card")} (${view.discard.join(", ")})`));
  }
}

export function drawMarket() {
  const box = $("#market");
  box.innerHTML = "";
  const view = /** @type {View} */ (state.view);
  box.hidden = view.phase === "over";
  if (box.hidden) return;
  const player = me();
  const title = el("h2", "", player ? `Market: you have ${plural(player.credits, "Credit")}` : "Market");
  title.id = "market-title";
  title.title = "Spend Credits on items";
  box.appendChild(title);
  const list = el("div", "market-items");
  const offers = state.forecast ? state.forecast.market : null;
  for (const [item, entry] of Object.entries(view.config.market)) {
    const key = "buy:" + item;
    const can = choicesOn(key).length > 0;
// The seat's own market: an item it cannot buy now is a button marked unavailable, with why.
    const why = offers && offers[item] ? offers[item].why : null;
    const node = el(can || why ? "button" : "div", "item");
    const words = itemWords(item);
    node.title = `${words.label}: ${words.help}`;
    node.appendChild(el("span", "item-name", words.label));
    const limit = entry.limit === null || entry.limit === undefined ? "" : ` · at most ${entry.limit}`;
    node.appendChild(el("span", "price", `${plural(entry.price, "Credit")}${limit}`));
    if (!can && why) {
      if (node instanceof HTMLButtonElement) node.type = "button";
      node.setAttribute("aria-disabled", "true");
      node.classList.add("unavailable");
      node.appendChild(el("span", "why", why));
    }
    list.appendChild(selectable(node, key, can));
  }
  box.appendChild(list);
}
