// @ts-check
// Reading the server's choices and forecast: what can be done with a thing, what it will do,
// how it can be paid. The engine works all of it out (triage.engine.choices and .forecast).
import { plural } from "./dom.js";
import { state } from "./state.js";

/**
 * @typedef {import("./types.js").ChoiceEffect} ChoiceEffect
 * @typedef {import("./types.js").HealAmount} HealAmount
 */

/**
 * @typedef {import("./state.js").Choice} Choice
 * @typedef {import("./state.js").Deadline} Deadline
 * @typedef {import("./state.js").Pay} Pay
 */

/**
 * The patient or arrival a choice acts on.
 * @param {Choice} choice
 * @returns {string | null}
 */
function targetOf(choice) {
  return choice.card || choice.patient || null;
}

/**
 * The choices on one selected thing: a patient or arrival ("card:ID"), the Helicopter ("heli"),
 * a market item ("buy:ITEM").
 * @param {string | null} key
 * @returns {Choice[]}
 */
export function choicesOn(key) {
  if (!key) return [];
  if (key === "heli") return state.choices.filter((c) => c.type === "helicopter");
  if (key.startsWith("buy:")) return state.choices.filter((c) => c.type === "buy" && c.item === key.slice(4));
  const id = key.slice(5);
  return state.choices.filter((c) => targetOf(c) === id || (c.type === "helicopter" && (c.remove || []).includes(id)));
}

/** @returns {boolean} */
export function canPass() {
  return state.choices.some((c) => c.type === "pass");
}

/**
 * A visible patient's deadline as the seat knows it (none for a spectator, or until the forecast
 * of this position has come).
 * @param {string} card
 * @returns {Deadline | null}
 */
export function deadlineOf(card) {
  return (state.forecast && state.forecast.patients[card]) || null;
}

/**
 * A deadline's classes: its level, and whether its danger is tonight (red) or later (amber), so
 * tonight's deaths stand apart from the ones a round or more away.
 * @param {Deadline} found
 * @returns {string}
 */
export function deadlineClass(found) {
  if (found.level === "safe") return "deadline d-safe";
  return `deadline d-${found.level} ` + (found.rounds === 0 ? "tonight" : "later");
}

/**
 * The forecast's entry for one of the choices: its effect, its rule and its payments.
 * @param {Choice} choice
 * @returns {ChoiceEffect | null}
 */
export function effectOf(choice) {
  const index = state.choices.indexOf(choice);
  const found = state.forecast && index >= 0 ? state.forecast.choices[index] : null;
  return found && found.type === choice.type ? found : null;
}

/**
 * What a heal of `amount` will do and how it can be paid (null for an amount not on offer).
 * @param {Choice} choice
 * @param {number} amount
 * @returns {HealAmount | null}
 */
export function healEffect(choice, amount) {
  const found = effectOf(choice);
  return found ? (found.amounts || []).find((a) => a.amount === amount) || null : null;
}

/**
 * "2 Healing + 1 Staff": a payment in words (the forecast lists the mixes; the page words them).
 * @param {Pay} pay
 * @param {string} [token]
 * @returns {string}
 */
export function payText(pay, token) {
  const parts = [];
  if (pay.tokens) parts.push(`${pay.tokens} ${token === "diagnostics" ? "Diagnostics" : "Healing"}`);
  if (pay.staff) parts.push(`${pay.staff} Staff`);
  if (pay.congress) parts.push(plural(pay.congress, "Congress Doctor"));
  return parts.length ? parts.join(" + ") : "nothing";
}

/**
 * What paying the `index`-th mix of a forecast entry would take from another patient tonight.
 * @param {ChoiceEffect | HealAmount | null} entry
 * @param {number} index
 * @returns {string | null}
 */
export function warningOf(entry, index) {
  const found = entry ? (entry.warnings || []).find((pair) => pair[0] === index) : null;
  return found ? found[1] : null;
}
