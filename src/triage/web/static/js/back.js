// @ts-check
// The rules page's way back: to the table last opened in this browser, else to the home page.
import { LAST_TABLE, savedSeat } from "./state.js";

function pointBack() {
  const link = /** @type {HTMLAnchorElement | null} */ (document.querySelector("#back-link"));
  if (!link) return;
  let tableId = null;
  try { tableId = localStorage.getItem(LAST_TABLE); } catch (e) { /* storage off: home it is */ }
  if (!tableId || !/^[A-Za-z0-9_-]+$/.test(tableId)) {
    link.textContent = "Back to the home page";
    return;
  }
  link.href = "/#/t/" + tableId;
  link.textContent = savedSeat(tableId) ? "Back to your game" : `Back to table ${tableId}`;
}

pointBack();
