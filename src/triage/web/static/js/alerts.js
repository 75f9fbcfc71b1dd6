// @ts-check
// Turn alerts (issue 20): an optional sound and an optional browser notification when the turn
// comes to this browser's seat. Both are off until the player turns them on; the choice is kept in
// localStorage, and the browser asks for the notification permission only when that box is ticked.
import { $, el } from "./dom.js";
import { state } from "./state.js";

const SOUND_KEY = "triage.alert.sound";
const NOTIFY_KEY = "triage.alert.notify";

/** Whether the turn was this seat's at the last draw, and the round of the last alert. */
let wasMine = false;
let alertedRound = 0;
/** The table of the last draw: arriving at a table (or reloading) alerts nothing. */
let drawnFor = /** @type {string | null} */ (null);

/**
 * @param {string} key
 * @returns {boolean}
 */
function isOn(key) {
  try { return localStorage.getItem(key) === "on"; } catch (e) { return false; }
}

/**
 * @param {string} key
 * @param {boolean} on
 */
function keep(key, on) {
  try { localStorage.setItem(key, on ? "on" : "off"); } catch (e) { /* private mode: for this page only */ }
}

/** A short two-note chime, made by the page (no sound file). */
function chime() {
  const Context = window.AudioContext || /** @type {any} */ (window).webkitAudioContext;
  if (!Context) return;
  const audio = new Context();
  [660, 880].forEach((pitch, index) => {
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = pitch;
    gain.gain.value = 0.08;
    tone.connect(gain).connect(audio.destination);
    tone.start(audio.currentTime + index * 0.15);
    tone.stop(audio.currentTime + index * 0.15 + 0.12);
  });
}

/** A browser notification, only while the page is not the one the player looks at. */
function notify() {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  if (document.visibilityState === "visible" && document.hasFocus()) return;
  new Notification("Triage: your turn", { body: `Table ${state.tableId}, round ${state.view?.round}`, tag: `triage-${state.tableId}` });
}

/** The two boxes, in the table's side column (only for a seat: spectators have no turn). */
function drawBoxes() {
  const box = $("#alerts");
  box.hidden = state.seat === null;
  if (box.hidden || box.childElementCount) return;
  box.appendChild(el("h2", "", "Turn alerts"));
  box.appendChild(checkBox("alert-sound", "Play a sound when it is your turn", SOUND_KEY, () => { if (isOn(SOUND_KEY)) chime(); }));
  box.appendChild(checkBox("alert-notify", "Show a notification when it is your turn", NOTIFY_KEY, askPermission));
}

/**
 * @param {string} id
 * @param {string} words
 * @param {string} key
 * @param {() => void} changed
 * @returns {HTMLElement}
 */
function checkBox(id, words, key, changed) {
  const label = el("label", "check");
  const input = el("input");
  Object.assign(input, { type: "checkbox", id, checked: isOn(key) });
  input.addEventListener("change", () => { keep(key, input.checked); changed(); });
  label.appendChild(input);
  label.appendChild(document.createTextNode(" " + words));
  return label;
}

/** Ticking "notification" asks the browser's permission (once); refused, the box unticks. */
async function askPermission() {
  const input = /** @type {HTMLInputElement} */ ($("#alert-notify"));
  if (!input.checked) return;
  if (!("Notification" in window)) { input.checked = false; keep(NOTIFY_KEY, false); return; }
  const answer = Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
  if (answer !== "granted") { input.checked = false; keep(NOTIFY_KEY, false); }
}

/**
 * At each draw: the boxes, and the alerts when the turn has just come to this seat: after another
 * seat's, or in a new round (the positions between may never have been drawn).
 */
export function drawAlerts() {
  drawBoxes();
  const view = state.view;
  if (!view) return;
  const mine = state.seat !== null && view.turn === state.seat && view.phase !== "over";
  if (drawnFor !== state.tableId) {
    drawnFor = state.tableId;
    wasMine = mine;
    alertedRound = view.round;
    return;
  }
  if (mine && (!wasMine || alertedRound !== view.round)) {
    alertedRound = view.round;
    if (isOn(SOUND_KEY)) chime();
    if (isOn(NOTIFY_KEY)) notify();
  }
  wasMine = mine;
}
