// @ts-check
// The server's HTTP API and the status line.
import { $ } from "./dom.js";

/**
 * One call of the JSON API; a refusal is thrown with the server's code, message and rule.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @param {string | null} [token]
 * @returns {Promise<any>}
 */
export async function api(method, path, body, token) {
  /** @type {Record<string, string>} */
  const headers = { "Content-Type": "application/json" };
  if (token) headers["Authorization"] = "Bearer " + token;
  const options = { method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
  let response;
  try {
    response = await fetch(path, options);
  } catch (networkError) {
    // One retry: an action carries its expected number, so the server never applies it twice.
    response = await fetch(path, options).catch(() => {
      throw Object.assign(new Error(SERVER_DOWN), { code: "server_down" });
    });
  }
  const failed = response;
  const data = await response.json().catch(() => ({ code: "bad_response", message: troubleText(failed.status) }));
  if (!response.ok) throw Object.assign(new Error(data.message || response.statusText), data, { status: response.status });
  return data;
}

/** What a request that never reached the server says. */
export const SERVER_DOWN = "The server cannot be reached. Check your connection; nothing was lost, try again in a moment.";

/**
 * A server's answer that is not its JSON (a proxy's error page, a restart), in words.
 * @param {number} status
 * @returns {string}
 */
function troubleText(status) {
  if (status >= 500) return `The server is having trouble (error ${status}); try again in a moment.`;
  return `The server gave an answer the page cannot read (error ${status}).`;
}

/**
 * @param {string} text
 * @param {boolean} [isError]
 */
export function setStatus(text, isError) {
  const status = $("#status");
  status.textContent = text;
  status.className = isError ? "bad" : "";
}

/** @typedef {Error & {code?: string, rule?: string, status?: number}} ApiError */

/**
 * What was thrown, as the API's refusal (code, message and rule when the server sent them).
 * @param {unknown} thrown
 * @returns {ApiError}
 */
export function refusal(thrown) {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}
