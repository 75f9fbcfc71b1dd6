// @ts-check
// The action panel: what can be done with the selected thing, what each action will do (the
// server's forecast), how to pay for it, and the full list of legal actions.
import { choicesOn, deadlineClass, deadlineOf, effectOf, healEffect, payText, warningOf } from "./choices.js";
import { $, button, el, plural, ruleLink } from "./dom.js";
import { draw } from "./render.js";
import { isWaiting } from "./lobby.js";
import { itemWords, me, seatName, state, withNames } from "./state.js";
import { act } from "./table.js";
import { askPass } from "./bar.js";
import { drawHint } from "./hint.js";
import { drawUndo } from "./undo.js";

/**
 * @typedef {import("./state.js").Action} Action
 * @typedef {import("./state.js").View} View
 * @typedef {import("./types.js").Board} Board
 * @typedef {import("./types.js").ChoiceEffect} ChoiceEffect
 * @typedef {import("./types.js").HealAmount} HealAmount
 */

/**
 * @typedef {import("./state.js").Choice} Choice
 * @typedef {import("./state.js").AdmitChoice} AdmitChoice
 * @typedef {import("./state.js").HealChoice} HealChoice
 * @typedef {import("./state.js").CostChoice} CostChoice
 * @typedef {import("./state.js").HelicopterChoice} HelicopterChoice
 * @typedef {import("./state.js").BuyChoice} BuyChoice
 * @typedef {import("./state.js").Pay} Pay
 */

/** Titles of what went wrong on the way, not refusals of the rules (the page's own codes, api.js). */
/** @type {Record<string, string>} */
const NOT_REFUSED = { server_down: "Not sent", bad_response: "Server trouble", stale_action: "The table moved on" };

/**
 * Select a thing of the board (null: none) and bring its actions into view.
 * @param {string | null} key
 */
export function select(key) {
  state.selected = key;
  state.error = null;
  state.focusKey = key ? firstPanelKey(key) : null;
  draw();
  // On a phone the panel is under the hospital: bring its actions into view.
  const primary = document.querySelector("#panel button.primary") || $("#panel");
  if (key && primary) primary.scrollIntoView({ block: "nearest" });
}

/**
 * The panel's first control for a selection: where the focus goes when a thing is picked.
 * @param {string} key
 * @returns {string}
 */
export function firstPanelKey(key) {
  const choices = choicesOn(key);
  if (!choices.length) return key;
  const first = choices[0];
  if (first.type === "admit") return `do:admit:${/** @type {AdmitChoice} */ (first).spaces[0]}`;
  return "do:" + first.type;
}

/**
 * @param {string} text
 * @param {string} key
 * @param {Action} action
 * @param {boolean} primary
 * @param {string} [help]
 * @returns {HTMLButtonElement}
 */
function actButton(text, key, action, primary, help) {
  const node = button(text, primary ? "primary act" : "act", key, () => act(action, key));
  node.dataset.action = JSON.stringify(action);
  if (help) node.title = help;
  return node;
}

/**
 * What an action will do, as the server's forecast says, with its rule.
 * @param {HTMLElement} panel
 * @param {string | null | undefined} text
 * @param {string | null} [rule]
 */
function effectLine(panel, text, rule) {
  if (!text) return;
  const line = el("p", "hint effect", text + " ");
  if (rule) line.appendChild(ruleLink(rule, "rule " + rule));
  panel.appendChild(line);
}

/**
 * The payment of an action: the chosen mix (the default one unless another was picked) and,
 * when there are several, the others one step away; each mix in the forecast's words, with what
 * it would take from another patient tonight (its warning).
 * @param {ChoiceEffect | HealAmount | null} entry  the forecast's entry, with `pays` and `warnings`
 * @param {string} stateKey
 * @param {string} token
 * @returns {{holder: HTMLElement, pay: Pay | null, words: string, warning: string | null}}
 */
function payChooser(entry, stateKey, token) {
  /** @type {Pay[]} */
  const mixes = (entry && entry.pays) || [];
  const holder = el("div", "pay");
  const same = (/** @type {Pay} */ a, /** @type {Pay} */ b) => a.tokens === b.tokens && a.staff === b.staff && a.congress === b.congress;
  let index = mixes.findIndex((mix) => state.pay[stateKey] && same(mix, state.pay[stateKey]));
  if (index < 0) index = 0;
  const result = {
    holder, pay: mixes.length ? mixes[index] : null,
    words: mixes.length ? payText(mixes[index], token) : "", warning: warningOf(entry, index),
  };
  if (mixes.length < 2 || !entry) return result;
  const details = el("details", "pay-other");
  if (state.payOpen[stateKey]) details.open = true;
  details.addEventListener("toggle", () => { state.payOpen[stateKey] = details.open; });
  const summary = el("summary", "", "Pay differently");
  summary.dataset.key = "pay:" + stateKey;
  details.appendChild(summary);
  const fieldset = el("fieldset");
  fieldset.appendChild(el("legend", "", "Payment"));
  mixes.forEach((mix, at) => {
    const label = el("label", "radio");
    const input = el("input");
    input.type = "radio";
    input.name = "pay-" + stateKey;
    input.dataset.key = `pay:${stateKey}:${at}`;
    input.checked = at === index;
    input.addEventListener("change", () => {
      state.pay[stateKey] = mix;
      state.focusKey = input.dataset.key || null;
      draw();
    });
    label.appendChild(input);
    const warned = warningOf(entry, at);
    label.appendChild(document.createTextNode(" " + payText(mix, token) + (warned ? ` (${warned})` : "")));
    fieldset.appendChild(label);
  });
  details.appendChild(fieldset);
  holder.appendChild(details);
  return result;
}

/**
 * What a payment would take from another patient tonight, under its button (the forecast's words).
 * @param {HTMLElement} panel
 * @param {string | null | undefined} warning
 */
function warningLine(panel, warning) {
  if (warning) panel.appendChild(el("p", "warn", `Careful: ${warning}.`));
}

/**
 * A −/+ button of the healing stepper.
 * @param {string} text
 * @param {string} key
 * @param {string} label
 * @param {boolean} disabled
 * @param {() => void} onClick
 * @returns {HTMLButtonElement}
 */
function stepButton(text, key, label, disabled, onClick) {
  const node = button(text, "step", key, () => { onClick(); state.focusKey = key; draw(); });
  node.setAttribute("aria-label", label);
  node.disabled = disabled;
  return node;
}

/**
 * The amount the stepper shows: the one picked, held within what the engine offers now (the
 * seat's holdings may have fallen since it was picked), else the smallest that cures, else the most.
 * @param {HealChoice} choice
 * @returns {number}
 */
export function healAmount(choice) {
  const { min, max } = choice.amount;
  const picked = state.heal[choice.patient];
  if (picked !== undefined) return Math.min(max, Math.max(min, picked));
  const cures = (effectOf(choice)?.amounts || []).filter((a) => a.outcome === "cures");
  return cures.length ? Math.min(...cures.map((a) => a.amount)) : max;
}

/**
 * Heal: an amount stepper within the engine's range, the heal button with its payment, what that
 * amount will do, and what its payment would take from another patient.
 * @param {HTMLElement} panel
 * @param {HealChoice} choice
 */
function healControls(panel, choice) {
  const id = choice.patient;
  const { min, max } = choice.amount;
  const amount = healAmount(choice);
  const stepper = el("div", "stepper");
  const label = el("label", "", "Healing to place ");
  label.setAttribute("for", "heal-amount");
  const input = el("input");
  Object.assign(input, { id: "heal-amount", type: "number", min: String(min), max: String(max), value: String(amount) });
  input.dataset.key = "heal-amount";
  input.addEventListener("change", () => {
    const value = Number(input.value);
    state.heal[id] = Number.isFinite(value) ? Math.min(max, Math.max(min, Math.round(value))) : amount;
    // Typed, then the Heal button pressed: no redraw under the pointer, so that one click heals.
    if (healPressed) return;
    state.focusKey = "heal-amount";
    draw();
  });
  stepper.appendChild(label);
  stepper.appendChild(stepButton("−", "heal-minus", "One less healing", amount <= min, () => { state.heal[id] = Math.max(min, amount - 1); }));
  stepper.appendChild(input);
  stepper.appendChild(stepButton("+", "heal-plus", "One more healing", amount >= max, () => { state.heal[id] = Math.min(max, amount + 1); }));
  stepper.appendChild(el("span", "hint", `${min} to ${max}`));
  panel.appendChild(stepper);
  const entry = healEffect(choice, amount);
  const paid = payChooser(entry, "heal:" + id, "healing");
  /** @type {Action} */
  const action = { type: "heal", patient: id, amount };
  if (paid.pay) action.pay = paid.pay;
  // A heal that leaves it to die tonight is never the primary button, and says so (C2).
  const lost = !!entry && entry.outcome === "dies_tonight";
  const verb = lost ? `Heal ${amount} anyway (still dies tonight)` : `Heal ${amount}`;
  const text = paid.pay ? `${verb} — pay ${paid.words}` : verb;
  const heal = button(text, lost || paid.warning ? "act" : "primary act", "do:heal", () => {
    healPressed = false;
    act(healAction(choice, healAmount(choice), paid.pay), "do:heal");
  });
  heal.dataset.action = JSON.stringify(action);
  heal.title = "Place healing on the patient; it is cured when placed healing reaches its need";
  heal.addEventListener("pointerdown", () => { healPressed = true; });
  panel.appendChild(heal);
  effectLine(panel, entry && entry.effect, entry && entry.rule);
  warningLine(panel, paid.warning);
  panel.appendChild(paid.holder);
}

/** The Heal button is being pressed: an amount typed just before is taken, not redrawn. */
let healPressed = false;

/**
 * The heal of `amount`, paid with `pay` when it pays that amount, else with the engine's
 * default for it (an amount typed just before the click has not been drawn yet).
 * @param {HealChoice} choice
 * @param {number} amount
 * @param {Pay | null} pay
 * @returns {Action}
 */
function healAction(choice, amount, pay) {
  /** @type {Action} */
  const action = { type: "heal", patient: choice.patient, amount };
  const paid = pay ? (pay.tokens ?? 0) + (pay.staff ?? 0) + (pay.congress ?? 0) : null;
  const chosen = paid === amount ? pay : healEffect(choice, amount)?.default_pay;
  if (chosen) action.pay = chosen;
  return action;
}

/**
 * Whether no heal on offer saves this patient from tonight's Cleanup (the forecast's outcomes).
 * @param {HealChoice} choice
 * @returns {boolean}
 */
function healCannotSave(choice) {
  const entry = effectOf(choice);
  const amounts = (entry && entry.amounts) || [];
  return amounts.length > 0 && amounts.every((a) => a.outcome === "dies_tonight");
}

/**
 * What could still save a patient at risk tonight, as the forecast names it.
 * @param {HTMLElement} panel
 * @param {string} id
 * @param {boolean} healLost  no heal on offer saves it
 */
function drawRescue(panel, id, healLost) {
  const lines = state.forecast && state.forecast.rescue ? state.forecast.rescue[id] : null;
  if (!lines || !lines.length) return;
  const box = el("div", "rescue");
  const title = healLost ? "No heal you can pay saves it tonight. What could:" : "What could save it tonight:";
  box.appendChild(el("p", "rescue-title", title));
  const list = el("ul");
  for (const line of lines) list.appendChild(el("li", "", line));
  box.appendChild(list);
  panel.appendChild(box);
}

/**
 * Diagnose or treat: one button with its payment, and what it will do.
 * @param {HTMLElement} panel
 * @param {CostChoice} choice
 * @param {string} verb
 * @param {string} help
 */
function costControls(panel, choice, verb, help) {
  const entry = effectOf(choice);
  const paid = payChooser(entry, choice.type + ":" + choice.patient, choice.token);
  /** @type {Action} */
  const action = { type: choice.type, patient: choice.patient };
  if (paid.pay) action.pay = paid.pay;
  panel.appendChild(actButton(paid.pay ? `${verb} — pay ${paid.words}` : verb, "do:" + choice.type, action, !paid.warning, help));
  effectLine(panel, entry && entry.effect, entry && entry.rule);
  warningLine(panel, paid.warning);
  panel.appendChild(paid.holder);
}

/**
 * The Helicopter (T7): from a patient, its removal alone; from the Helicopter, a form.
 * @param {HTMLElement} panel
 * @param {HelicopterChoice} choice
 * @param {string | null} onlyRemove
 * @param {boolean} [rescueFirst]  the removal is the one way offered to save it: the primary button
 */
function helicopterControls(panel, choice, onlyRemove, rescueFirst = false) {
  const entry = effectOf(choice);
  const removes = (entry && entry.remove) || {};
  if (onlyRemove) {
    const action = { type: "helicopter", remove: onlyRemove, draw_all: false };
    panel.appendChild(actButton(`Helicopter: remove ${onlyRemove}`, "do:helicopter", action, rescueFirst,
      "Spend a Helicopter; the patient goes under the deck"));
    effectLine(panel, removes[onlyRemove], entry && entry.rule);
    return;
  }
  const form = state.heliForm || { remove: null, draw: choice.draw_all };
  const fieldset = el("fieldset", "heli-form");
  fieldset.appendChild(el("legend", "", "Helicopter"));
  const label = el("label", "", "Remove ");
  const picker = el("select");
  picker.dataset.key = "heli-remove";
  const none = el("option", "", "nobody");
  none.value = "";
  picker.appendChild(none);
  for (const id of choice.remove) {
    const option = el("option", "", id);
    option.value = id;
    picker.appendChild(option);
  }
  picker.value = form.remove || "";
  picker.addEventListener("change", () => { state.heliForm = { ...form, remove: picker.value || null }; state.focusKey = "heli-remove"; draw(); });
  label.appendChild(picker);
  fieldset.appendChild(label);
  const drawLabel = el("label", "check");
  const box = el("input");
  box.type = "checkbox";
  box.dataset.key = "heli-draw";
  box.checked = !!form.draw;
  box.disabled = !choice.draw_all;
  box.addEventListener("change", () => { state.heliForm = { ...form, draw: box.checked }; state.focusKey = "heli-draw"; draw(); });
  drawLabel.appendChild(box);
  drawLabel.appendChild(document.createTextNode(" everyone draws one patient"));
  fieldset.appendChild(drawLabel);
  panel.appendChild(fieldset);
  // Neither part chosen is sent as it is: the refusal says what is missing (T7).
  panel.appendChild(actButton("Fly the Helicopter", "do:helicopter", { type: "helicopter", remove: form.remove || null, draw_all: !!form.draw }, true));
  if (form.remove) effectLine(panel, removes[form.remove], entry && entry.rule);
  if (form.draw && entry) effectLine(panel, entry.draw_all, entry.rule);
}

/**
 * The panel's heading for a selection.
 * @param {string} key
 * @returns {string}
 */
function describeSelection(key) {
  if (key === "heli") return "Helicopter";
  if (key.startsWith("buy:")) return `Market: ${itemWords(key.slice(4)).label}`;
  const id = key.slice(5);
  const player = /** @type {Board} */ (me());
  if (player.pending.includes(id)) return `${id} has arrived`;
  for (const [space, slot] of Object.entries(player.hospital)) if (slot && slot.card === id) return `${id} in space ${space}`;
  return `${id} beside the board`;
}

/**
 * The last refusal, next to the control it came from.
 * @param {HTMLElement} panel
 * @param {string} where
 */
function drawErrorNear(panel, where) {
  const error = state.error;
  if (!error || (error.where && !error.where.startsWith(where) && where !== "panel")) return;
  const box = el("div", "refusal");
  box.setAttribute("role", "alert");
  box.appendChild(el("strong", "", (NOT_REFUSED[error.code] || "Refused") + ": "));
  box.appendChild(document.createTextNode(withNames(error.message) + " "));
  if (error.rule) box.appendChild(ruleLink(error.rule, "rule " + error.rule));
  panel.appendChild(box);
}

/** @param {HTMLElement} panel */
function drawHints(panel) {
  const view = /** @type {View} */ (state.view);
  const admits = state.choices.some((c) => c.type === "admit");
  const hint = !me()?.pending.length
    ? "Select one of your patients, the Helicopter or a market item to see what you can do."
    : admits ? "New patients have arrived: tap one to admit it to the first free space, or tap the free space you want."
      : "New patients have arrived and no space is free: select one to reject it.";
  panel.appendChild(el("p", "hint", hint));
  if (view.round === 1) {
    // A first game's one-paragraph guide; the rules page has the rest.
    const guide = el("p", "guide", "Each round: admit the new patients, diagnose them (Diagnostics), heal them (Healing) to cure them for Credits and VP, then Pass. At Cleanup untreated patients get Time; the label on each card says when it dies. ");
    guide.appendChild(ruleLink("cleanup", "How Cleanup works"));
    panel.appendChild(guide);
  }
}

/**
 * The controls of every choice on the selected thing.
 * @param {HTMLElement} panel
 * @param {string} key
 */
function drawSelection(panel, key) {
  panel.appendChild(Object.assign(el("h2", "", describeSelection(key)), { id: "panel-title" }));
  const close = button("Close", "close", "panel-close", () => closePanel());
  close.title = "Close (Escape)";
  panel.appendChild(close);
  const id = key.startsWith("card:") ? key.slice(5) : null;
  const found = id ? deadlineOf(id) : null;
  if (found) panel.appendChild(el("p", deadlineClass(found), found.text));
  const choices = choicesOn(key);
  const heal = choices.find((c) => c.type === "heal");
  const healLost = !!heal && healCannotSave(/** @type {HealChoice} */ (heal));
  for (const choice of choices) {
    if (choice.type === "admit") {
      /** @type {AdmitChoice} */ (choice).spaces.forEach((/** @type {number} */ space, /** @type {number} */ index) => {
        panel.appendChild(actButton(`Admit to space ${space}`, `do:admit:${space}`, { type: "admit", card: choice.card, space }, index === 0,
          "Admitted patients stay in their space"));
      });
      effectLine(panel, effectOf(choice)?.effect, effectOf(choice)?.rule);
    } else if (choice.type === "reject") {
      panel.appendChild(actButton("Reject it", "do:reject", { type: "reject", card: choice.card }, true,
        "Allowed only when no space is free; it goes on top of the deck"));
      effectLine(panel, effectOf(choice)?.effect, effectOf(choice)?.rule);
    } else if (choice.type === "heal") healControls(panel, /** @type {HealChoice} */ (choice));
    else if (choice.type === "diagnose") costControls(panel, /** @type {CostChoice} */ (choice), "Diagnose", "Reveal its treatment side");
    else if (choice.type === "treat") costControls(panel, /** @type {CostChoice} */ (choice), "Treat", "Once a round: gain its reward and skip its Time tonight");
    else if (choice.type === "helicopter") helicopterControls(panel, /** @type {HelicopterChoice} */ (choice), id, healLost);
    else if (choice.type === "buy") {
      const buy = /** @type {BuyChoice} */ (choice);
      panel.appendChild(actButton(`Buy 1 ${itemWords(buy.item).label} for ${plural(buy.price, "Credit")}`, "do:buy",
        { type: "buy", item: buy.item }, true, itemWords(buy.item).help));
    }
  }
  if (id) drawRescue(panel, id, healLost);
}

export function drawPanel() {
  const panel = $("#panel");
  panel.innerHTML = "";
  const view = /** @type {View} */ (state.view);
  panel.hidden = view.phase === "over" || isWaiting();
  if (panel.hidden) return;
  if (state.seat === null) {
    panel.appendChild(el("p", "hint", "You are watching: you see what every player knows, and no more."));
    return;
  }
  if (state.notice) panel.appendChild(el("p", "notice", state.notice));
  if (!state.choices.length) {
    panel.appendChild(el("p", "hint", `Waiting for ${view.turn === null ? "the table" : seatName(view.turn)}...`));
    drawErrorNear(panel, "panel");
    return;
  }
  // The selected thing's actions first (on a phone the panel is a sheet at the bottom of the
  // screen: its primary action always in view), "Suggest a move" after them.
  if (state.selected) {
    drawSelection(panel, state.selected);
    drawHint(panel);
  } else {
    drawHint(panel);
    drawHints(panel);
  }
  drawErrorNear(panel, state.selected ? "do:" : "panel");
  drawUndo(panel);
  drawAllActions(panel);
}

export function closePanel() {
  const key = state.selected;
  state.selected = null;
  state.error = null;
  state.focusKey = key;
  draw();
}

/**
 * The full legal list, one button per action with its default payment, as the server lists and
 * words them (a secondary way to act); the count is the number of buttons. Pass asks first, as
 * the bar's button does.
 * @param {HTMLElement} panel
 */
function drawAllActions(panel) {
  const details = el("details", "all-actions");
  details.open = state.allOpen;
  details.addEventListener("toggle", () => { state.allOpen = details.open; });
  const list = el("ul");
  const listed = state.forecast ? state.forecast.actions : [];
  listed.forEach((offer, count) => {
    const item = el("li");
    const node = offer.do.type === "pass"
      ? button(offer.text, "act all", `all:${count}`, askPass)
      : actButton(offer.text, `all:${count}`, offer.do, false);
    node.classList.add("all");
    item.appendChild(node);
    list.appendChild(item);
  });
  const summary = el("summary", "", `All legal actions (${listed.length}), each with its default payment`);
  summary.dataset.key = "all-actions";
  details.appendChild(summary);
  details.appendChild(list);
  panel.appendChild(details);
}
