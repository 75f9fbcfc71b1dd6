// @ts-check
// The Undo button of the action panel (issue 20): the seat takes back its last action of the
// turn, never past a reveal. The server says how many actions may be taken back and, when none,
// why (the reveal it names, or an empty turn); the page holds no rule of its own.
import { api, refusal } from "./api.js";
import { button, el, ruleLink } from "./dom.js";
import { draw } from "./render.js";
import { state, withNames } from "./state.js";

/**
 * The Undo button, at the end of the seat's actions: usable when the server allows an undo,
 * otherwise left focusable but marked unavailable, with the reason read out beside it.
 * @param {HTMLElement} panel
 */
export function drawUndo(panel) {
  const info = state.undo;
  if (state.seat === null || !info) return;
  const box = el("div", "undo");
  const can = info.steps > 0;
  const text = can ? `Undo last action (${info.steps} can be taken back)` : "Undo";
  const node = button(text, "act undo", "undo", () => { if (can) undo(); });
  node.setAttribute("aria-disabled", String(!can));
  box.appendChild(node);
  if (!can && info.reason) {
    const why = el("p", "hint undo-reason", `Undo is not possible: ${info.reason}. `);
    if (info.rule) why.appendChild(ruleLink(info.rule, "why"));
    why.id = "undo-reason";
    node.setAttribute("aria-describedby", why.id);
    box.appendChild(why);
  }
  if (state.error && state.error.where === "undo") {
    const error = el("p", "bad", `Refused: ${withNames(state.error.message)}`);
    error.setAttribute("role", "alert");
    box.appendChild(error);
  }
  panel.appendChild(box);
}

/** Take back the last action (with the action number seen: a retry is answered once). */
async function undo() {
  state.focusKey = "undo";
  try {
    await api("POST", `/api/tables/${state.tableId}/undo`, { expected: state.actions }, state.token);
    state.error = null;
    state.notice = "Your last action was taken back.";
    await positionAfterUndo();
  } catch (thrown) {
    const e = refusal(thrown);
    state.error = { where: "undo", code: e.code || "error", message: e.message, rule: e.rule };
  }
  draw();
}

/** The position after an undo (it has fewer actions than the one drawn, so it is taken as is). */
async function positionAfterUndo() {
  const [view, legal] = await Promise.all([
    api("GET", `/api/tables/${state.tableId}/view`, undefined, state.token),
    api("GET", `/api/tables/${state.tableId}/legal`, undefined, state.token),
  ]);
  if (legal.actions !== view.actions) return; // the table moved on: the WebSocket brings it
  Object.assign(state, { view, choices: legal.choices, forecast: legal.forecast, actions: view.actions, undo: view.undo || null });
  state.selected = null;
}
