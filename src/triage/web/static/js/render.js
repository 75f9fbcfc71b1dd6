// @ts-check
// Drawing the whole table page from the state, keeping the keyboard focus where it was.
import { drawBar } from "./bar.js";
import { drawDeck, drawMarket, drawMe, drawOthers } from "./board.js";
import { choicesOn } from "./choices.js";
import { $, button, el } from "./dom.js";
import { markHint } from "./hint.js";
import { drawLobby, playerName } from "./lobby.js";
import { drawLog } from "./log.js";
import { drawOver } from "./over.js";
import { drawPanel, firstPanelKey } from "./panel.js";
import { drawReplay } from "./replay.js";
import { setStatus } from "./api.js";
import { drawSignals } from "./signals.js";
import { drawAway } from "./away.js";
import { drawAlerts } from "./alerts.js";
import { drawClocks } from "./clocks.js";
import { drawPaceSetting, drawTicker } from "./pace.js";
import { drawChat } from "./chat.js";
import { state } from "./state.js";

/** The invitation links of the seats still free, for the table's creator to send. */
function drawInvites() {
  const box = $("#invites");
  box.innerHTML = "";
  const seats = state.summary && state.summary.seats;
  const open = state.invites.filter((invite) => !(seats && seats[invite.seat] && seats[invite.seat].taken));
  box.hidden = !open.length || state.view?.phase === "over";
  if (box.hidden) return;
  box.appendChild(el("h2", "", "Invite your friends"));
  for (const invite of open) {
    const url = new URL(invite.url, location.href).href;
    const row = el("p", "invite");
    const label = el("label", "", `Invitation for ${playerName(invite.seat)}: `);
    const input = el("input");
    Object.assign(input, { readOnly: true, value: url, size: 40 });
    label.appendChild(input);
    row.appendChild(label);
    row.appendChild(button("Copy", "", null, () => {
      input.select();
      if (navigator.clipboard) navigator.clipboard.writeText(url);
      setStatus("Link copied");
    }));
    box.appendChild(row);
  }
}

/** Put the focus back on the control of `state.focusKey`, or the nearest thing still there. */
export function restoreFocus() {
  const key = state.focusKey;
  state.focusKey = null;
  if (!key) return;
  /** @type {(string | null | undefined)[]} */
  const candidates = [key];
  if (key.startsWith("do:") || key.startsWith("heal-") || key.startsWith("pay:") || key.startsWith("all:") || key === "panel-close") {
    candidates.push(state.selected && firstPanelKey(state.selected), state.selected);
  }
  const fallback = /** @type {HTMLElement | null} */ (document.querySelector("#me button.card:not(.target)"));
  candidates.push(fallback && fallback.dataset.key, "pass", "heli");
  for (const candidate of candidates) {
    if (!candidate) continue;
    const node = /** @type {HTMLButtonElement | null} */ (document.querySelector(`[data-key="${candidate}"]`));
    if (node && !node.disabled) { node.focus(); return; }
  }
  $("#bar").focus();
}

export function draw() {
  const view = state.view;
  if (!view) return;
  const active = /** @type {HTMLElement | null} */ (document.activeElement);
  if (!state.focusKey && active && active.dataset && active.dataset.key && $("#table").contains(active)) state.focusKey = active.dataset.key;
  if (state.selected && !choicesOn(state.selected).length) state.selected = null;
  // On arrival at a table the focus starts on the first thing to act on (or the status bar).
  if (!state.firstDrawn && !state.focusKey) state.focusKey = "first";
  drawBar();
  drawOver();
  drawLobby();
  drawMe();
  drawPanel();
  drawInvites();
  drawOthers();
  drawDeck();
  drawMarket();
  drawLog();
  drawAway();
  drawSignals();
  drawClocks();
  drawAlerts();
  drawTicker();
  drawPaceSetting();
  drawChat();
  if (state.replay) drawReplay();
  markHint();
  document.body.classList.toggle("is-over", view.phase === "over");
  document.body.classList.toggle("watching", state.seat === null);
  restoreFocus();
  if (!state.firstDrawn) {
    state.firstDrawn = true;
    performance.mark("triage-first-render");
  }
}

/**
 * Keep the page's measures of what stays in view: the top of the table (--top: where the side
 * column sticks, what a scrolled-to card clears) and, on a phone, the action sheet at the bottom
 * (--sheet: the room the board leaves under it, so its last row can scroll above the sheet).
 */
function watchMeasures() {
  const root = document.documentElement.style;
  const top = /** @type {HTMLElement} */ (document.querySelector(".table-top"));
  const panel = $("#panel");
  const measure = () => {
    root.setProperty("--top", `${top.offsetHeight}px`);
    const sheet = getComputedStyle(panel).position === "fixed" && !panel.hidden ? panel.offsetHeight : 0;
    root.setProperty("--sheet", `${sheet}px`);
  };
  new ResizeObserver(measure).observe(top);
  new ResizeObserver(measure).observe(panel);
  window.addEventListener("resize", measure);
}

watchMeasures();
