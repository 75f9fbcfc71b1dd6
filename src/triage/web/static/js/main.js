// @ts-check
// Triage in the browser: native ES modules, no build step. The page draws what the server sends
// for this seat (its view, its choices, their forecast and its filtered events) and holds no
// game rule: deadlines, effects, payments and the legal list all come from the engine.
import { $ } from "./dom.js";
import { createTable, defaultBot, drawSeatChoices, joinByInvite, showHome } from "./home.js";
import { closePanel } from "./panel.js";
import { state } from "./state.js";
import { act, openTable } from "./table.js";
import { timeSettings } from "./clocks.js";

function route() {
  const join = location.hash.match(/^#\/join\/([A-Za-z0-9_-]+)\/([A-Za-z0-9_-]+)$/);
  if (join) { joinByInvite(join[1], join[2]); return; }
  $("#invited").hidden = true;
  const match = location.hash.match(/^#\/t\/([A-Za-z0-9_-]+)$/);
  if (match) openTable(match[1]);
  else showHome();
}

/**
 * The table's settings chosen in the form: the pace of others' moves and the spectators' chat.
 * @returns {Partial<import("./types.js").TableRequest>}
 */
function tableSettings() {
  const pace = /** @type {import("./types.js").TableSettings["pace"]} */ (valueOf("#table-pace"));
  const spectators = /** @type {import("./types.js").TableSettings["spectator_chat"]} */ (valueOf("#spectator-chat"));
  return { pace, spectator_chat: spectators };
}

/** @param {string} selector @returns {string} */
function valueOf(selector) {
  return /** @type {HTMLInputElement | HTMLSelectElement} */ ($(selector)).value;
}

function start() {
  $("#solo").addEventListener("click", () => createTable(2, [null, valueOf("#solo-bot") || defaultBot()], null, false));
  $("#alone").addEventListener("click", () => createTable(1, [null], null, false));
  $("#players").addEventListener("change", drawSeatChoices);
  $("#new-table").addEventListener("submit", (submit) => {
    submit.preventDefault();
    const selects = /** @type {HTMLSelectElement[]} */ ([...document.querySelectorAll("#seat-choices select")]);
    const bots = selects.map((s) => (s.value === "human" ? null : s.value));
    const seedText = valueOf("#seed").trim();
    const settings = { ...timeSettings(), ...tableSettings() };
    createTable(bots.length, bots, seedText === "" ? null : Number(seedText), /** @type {HTMLInputElement} */ ($("#public")).checked, settings);
  });
  const confirm = /** @type {HTMLDialogElement} */ ($("#confirm-pass"));
  $("#confirm-cancel").addEventListener("click", () => {
    confirm.close();
    const pass = /** @type {HTMLElement | null} */ (document.querySelector("[data-key='pass']"));
    if (pass) pass.focus();
  });
  $("#confirm-ok").addEventListener("click", () => { confirm.close(); act({ type: "pass" }, "pass"); });
  $("#bar").tabIndex = -1;
  document.addEventListener("keydown", (key) => {
    if (key.key === "Escape" && state.selected && !confirm.open) closePanel();
  });
  window.addEventListener("hashchange", route);
  route();
}

// A module runs after the document is parsed, before DOMContentLoaded.
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
