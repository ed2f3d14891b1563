// The review screen's calls to the JSON API (docs/review-api.md): the CSRF token renewed when it
// expired, a busy database (503) or a dropped connection retried with the very same request
// (same request id: stored at most once), a 401 said plainly.
import {t} from "./i18n.js";
import {api, csrfMeta, root, say, saySignedOut} from "./page.js";

export const SEND_LIMIT_MS = 40000;  // a request on a dead connection is given up (above the busy timeout)

// A failed call's message: the server's words when it sent some, else `fallback`. A 401 and
// a lost connection have already been said (and are not overwritten).
export function failure(r, fallback) {
  if (r.status === 401 || r.status === 0) return null;
  if (r.status >= 500) return t("Something went wrong on the server, so this was not saved. Please try again in a moment.");
  return r.data.error || fallback;
}

export function fail(r, fallback) {
  const message = failure(r, fallback);
  if (message) say(message, "error");
}

// A new CSRF token (GET /api/v1/csrf) into the page's meta tag, if the browser is still signed
// in as the account this page was opened for (else false: another account's session must not
// receive this page's decisions).
async function freshToken() {
  try {
    const response = await fetch("/api/v1/csrf", {headers: {Accept: "application/json"}, credentials: "same-origin"});
    const data = response.ok ? await response.json() : null;
    if (!data || String(data.user) !== root.dataset.user || !data.token) return false;
    csrfMeta.content = data.token;
    document.querySelectorAll('input[name="csrf_token"]').forEach((input) => { input.value = data.token; });
    return true;
  } catch (err) {
    return false;
  }
}

const isCsrf = (response, data) => response.status === 400 && /CSRF/i.test(data.error || "");
const pause = (ms) => new Promise((r) => setTimeout(r, ms));

// `quick` (the outbox, see offline.js `flush`): a lost connection, or a proxy that cannot reach
// the app (502, 504), answers status 0 at once instead of being retried here, and a request
// hanging on a dead connection is given up after SEND_LIMIT_MS.
export async function call(method, path, body, quick) {
  const options = {method, headers: {"Accept": "application/json"}, credentials: "same-origin"};
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.headers["X-CSRFToken"] = csrfMeta.content;
    options.body = JSON.stringify(body);
  }
  // A dropped connection or a busy database (503) is retried with the same body (and
  // request id), so nothing is stored twice and nothing is lost.
  for (let attempt = 0; ; attempt++) {
    try {
      if (quick && window.AbortSignal && AbortSignal.timeout) options.signal = AbortSignal.timeout(SEND_LIMIT_MS);
      const response = await fetch(path.startsWith("/api/") ? path : api + path, options);
      if (quick && (response.status === 502 || response.status === 504)) throw new Error("the app is not reached");
      if (response.status === 503 && attempt < 8) {
        // the database is busy with another writer: wait as told, then send the very same
        // request (same request id), which the server stores at most once
        const wait = Math.min(10, Number(response.headers.get("Retry-After")) || 1);
        say(t("The server is busy; saving again in a moment…"), "warn");
        await pause(wait * 1000);
        continue;
      }
      const data = await response.json().catch(() => ({}));
      // a CSRF refusal (400): the page's token expired (it lives hours, the page may stay open
      // longer) or the session was signed in or out anew. A fresh token for the same account:
      // the very same request again (same request id: stored once), so no decision is lost
      if (isCsrf(response, data) && !options.refreshed) {
        options.refreshed = true;
        if (await freshToken()) { options.headers["X-CSRFToken"] = csrfMeta.content; attempt--; continue; }
      }
      // 401: signed out; a CSRF refusal again (or for another account) means the session is gone too
      if (response.status === 401 || isCsrf(response, data)) {
        saySignedOut();
        return {ok: false, status: 401, data};
      }
      return {ok: response.ok, status: response.status, data};
    } catch (err) {
      if (quick) return {ok: false, status: 0, data: {}};
      if (attempt >= 4) {
        say(t("Cannot reach the server. Your last action was not saved; check the connection and try again."), "error");
        return {ok: false, status: 0, data: {}};
      }
      say(t("Connection trouble, retrying…"), "warn");
      await pause(500 * 2 ** attempt);
    }
  }
}
