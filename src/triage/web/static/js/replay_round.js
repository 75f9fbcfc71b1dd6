// @ts-check
// The replay by round: stepping a whole round back or forward (the server names the step each
// round starts at), and the step's own deck and holdings, so a step never shows the final ones.
import { el, plural } from "./dom.js";
import { itemWords } from "./state.js";

/**
 * @typedef {{round: number, step: number}} RoundStart
 */

/**
 * The step the round before (or the round after) the shown step starts at; null when none.
 * Back from inside a round goes to that round's start first.
 * @param {RoundStart[]} rounds
 * @param {number} step
 * @param {number} direction  -1 or +1
 * @returns {RoundStart | null}
 */
export function roundStep(rounds, step, direction) {
  if (direction > 0) return rounds.find((start) => start.step > step) || null;
  const earlier = rounds.filter((start) => start.step < step);
  return earlier.length ? earlier[earlier.length - 1] : null;
}

/**
 * The labels and steps of "◀◀ Round N" and "Round N ▶▶" (step -1: no such round).
 * @param {RoundStart[]} rounds
 * @param {number} step
 * @returns {{back: [string, number], next: [string, number]}}
 */
export function roundTargets(rounds, step) {
  const back = roundStep(rounds, step, -1);
  const next = roundStep(rounds, step, 1);
  return {
    back: back ? [`◀◀ Round ${back.round}`, back.step] : ["◀◀ Round", -1],
    next: next ? [`Round ${next.round} ▶▶`, next.step] : ["Round ▶▶", -1],
  };
}

/**
 * The step's deck (top first, every card public once the game is over) and discard pile.
 * @param {import("./types.js").State} position  the all-seeing state at the step
 * @returns {HTMLElement}
 */
export function stepDeck(position) {
  const box = el("div", "replay-deck");
  box.appendChild(el("h3", "", `Deck at this step: ${plural(position.deck.length, "card")}, discard ${position.discard.length}`));
  const strip = el("ol", "strip");
  strip.setAttribute("aria-label", "The deck at this step, top first");
  for (const id of position.deck.slice(0, 12)) strip.appendChild(el("li", "mini", id));
  if (position.deck.length > 12) strip.appendChild(el("li", "gap", `${plural(position.deck.length - 12, "more card")}`));
  if (!position.deck.length) strip.appendChild(el("li", "gap", "empty"));
  box.appendChild(strip);
  return box;
}

/**
 * A player's holdings at the step: tokens, Staff, Congress Doctors and what the market sold them.
 * @param {import("./types.js").Board} player
 * @returns {HTMLElement}
 */
export function stepHoldings(player) {
  const parts = [
    `Diagnostics ${player.diagnostics}`, `Healing ${player.healing}`, `Staff ${player.staff_available}/${player.staff}`,
    `Congress Doctors ${player.congress}`, `Helicopters ${player.helicopters}`,
    ...Object.entries(player.items || {}).map(([item, count]) => `${itemWords(item).label} ${count}`),
  ];
  return el("p", "hint replay-holdings", "At this step: " + parts.join(" · "));
}
