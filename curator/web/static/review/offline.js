// The one outbox of the review screen: every write — a decision, a comment, a suggestion, a reply —
// waits in the browser (outbox.js) and goes to the server in order, each with its request id
// (`flush`); offline, the reviewer goes on with the templates already loaded (queue.js prefetch),
// and the page says "Offline — 3 decisions waiting". An entry is {kind, item, relation, path,
// body, …}: `kind` "decision" (the default: entries kept by an earlier version of the page) or
// "comment", "suggestion", "reply", "undo" (of a stored decision); what its answer shows is its
// kind's handler's (`handle`).
import {t, tn} from "./i18n.js";
import {$, drafts, indexOf, label, lang, root, say, state, toTop} from "./page.js";
import {render, setProgress} from "./item.js";
import {Outbox, Reconnect} from "./outbox.js";
import {contexts, load, prefetch, sayDecided} from "./queue.js";
import {call} from "./server.js";

const GONE = new Set([404, 409, 422]);  // refusals that sending again cannot change; any other is retried
export const outbox = new Outbox(`curator.outbox.${root.dataset.user}.${lang}`);
const reconnect = new Reconnect(tryReconnect);
export const answers = new Map();  // request id -> the server's answer, for queue.js `decide`
let refused = [];                  // {id, message}: waiting decisions the server refused
let stalled = false;               // offline, and no loaded template left to go on with
let flushing = null;               // the running `flush`
const handlers = {};               // kind -> {stored(entry, answer), refused(entry, answer)}: comments.js
const ANSWER_WAIT_MS = 3000;       // a write unanswered this long waits, and the reviewer goes on

export const isDecision = (entry) => !entry.kind || entry.kind === "decision";
const pathOf = (entry) => entry.path || `/items/${entry.item}/decision`;

// What the page does when a write of `kind` is stored or refused (comments.js: the comment list,
// the message under its field, the text back in its field when refused).
export function handle(kind, handler) { handlers[kind] = handler; }

// A decision answered while `decide` waited for it: its refusal is said there, not here.
export function dropRefused(requestId) { refused = refused.filter((m) => m.id !== requestId); }

// Send the waiting decisions, oldest first, one at a time, each with its request id. Resolves
// to "sent" (none left), "unreachable" (no answer: they wait), "later" (busy or failing: they
// wait) or "signed-out" (they wait for the reviewer to sign in and come back). A decision the
// server refuses (422: an amendment it cannot take; 404: gone) cannot be stored by sending it
// again: it leaves the list and the reviewer is told.
export function flush() {
  if (flushing) return flushing;
  flushing = (async () => {
    for (let entry = outbox.first(); entry; entry = outbox.first()) {
      const result = await send(entry);
      if (result) return result;
    }
    return "sent";
  })().finally(() => { flushing = null; });
  return flushing;
}

// One waiting decision to the server: null once it left the list, else why `flush` stops.
async function send(entry) {
  outbox.update(entry.body.request_id, {tried: true});  // from now on the server may hold it
  const r = await call("POST", pathOf(entry), entry.body, true);
  if (r.status === 0 || r.status >= 500) { goOffline(); return r.status === 0 ? "unreachable" : "later"; }
  if (r.status === 401) return "signed-out";
  // a proxy's 408, 413 or 429 (or any refusal but GONE's) may pass: sent again with the backoff
  if (!r.ok && !GONE.has(r.status)) { goOffline(); return "later"; }
  const now = outbox.find(entry.body.request_id) || entry;
  if (now.undo) {
    // undone after it was sent: stored now (or already), so undone there too — unless the
    // answer says it is undone already (an earlier /undo whose answer was lost)
    if (r.ok && !r.data.decision.retracted) {
      // its own request id: an undo sent again after a lost answer undoes nothing more
      const u = await call("POST", "/undo", {request_id: `${entry.body.request_id}-undo`}, true);
      if (u.status === 401) return "signed-out";
      if (!u.ok) { goOffline(); return u.status === 0 ? "unreachable" : "later"; }
    }
    outbox.remove(entry.body.request_id);
    showConnection();
    return null;
  }
  outbox.remove(entry.body.request_id);
  if (!isDecision(entry)) {
    const handler = handlers[entry.kind];
    if (handler) await (r.ok ? handler.stored : handler.refused)(entry, r);
    showConnection();
    return null;
  }
  answers.set(entry.body.request_id, r);
  if (!r.ok) {
    refused.push({id: entry.body.request_id,
                  message: t("A decision made offline was not saved: %(error)s", {error: r.data.error || t("Not saved.")})});
    // what was typed with it comes back as a draft on its item
    if (entry.body.reason) drafts.keepFor("reason-text", entry.item, entry.relation, entry.body.reason);
    if (entry.body.correction) drafts.keepFor("amend-text", entry.item, entry.relation, entry.body.correction);
  }
  showConnection();
  return null;
}

// A write that is not a decision (a comment, a suggestion, a reply): kept in the outbox, then sent
// after whatever waits before it. "stored" or "refused" once its handler has shown the answer, or
// "waiting": offline, or no answer within ANSWER_WAIT_MS (it is sent when the server answers).
export async function submit(entry) {
  outbox.add(entry);
  showConnection();
  if (state.offline) return "waiting";
  const result = await Promise.race([flush(), new Promise((r) => setTimeout(() => r("slow"), ANSWER_WAIT_MS))]);
  if (result === "slow") goOffline();
  if (outbox.find(entry.body.request_id)) return "waiting";
  return "done";
}

export function goOffline() {
  if (!state.offline) { state.offline = true; reconnect.start(); }
  showConnection();
}

// One attempt of `reconnect`: send what waits, then ask for the queue (progress and decisions
// as stored). True when the server answered (or the session ended: then the page says so).
async function tryReconnect() {
  const result = await flush();
  if (result === "signed-out") return true;
  if (result !== "sent") return false;
  const r = await call("GET", "/queue", undefined, true);
  if (r.status === 0 || r.status >= 500) return false;
  if (r.ok) await backOnline(r.data);
  return true;
}

async function backOnline(data) {
  state.offline = false;
  answers.clear();  // answers to decisions sent while offline: nobody waits for them
  state.items = data.items;
  setProgress(data.progress);
  showConnection();
  if (stalled && data.next) await load(data.next);
  stalled = false;
  showConnection();
  if (refused.length) sayRefused();
  else say(t("Back online — every decision is saved."), "ok");
  prefetch();
}

// The waiting decisions the server refused, said once.
export function sayRefused() {
  if (!refused.length) return;
  say(refused.map((m) => m.message).join(" "), "error");
  refused = [];
}

// "Offline — 3 decisions waiting" while the server cannot be reached; nothing otherwise. The item
// card says what of its own work waits (#item-pending).
export function showConnection() {
  const el = $("connection");
  const n = outbox.pending();
  const others = outbox.entries().filter((e) => !isDecision(e) && e.kind !== "undo").length;
  const text = !state.offline ? "" : (n ? tn("Offline — %(num)s decision waiting", "Offline — %(num)s decisions waiting", n)
    : t("Offline — the server cannot be reached; trying again…")) +
    (others ? " " + tn("%(num)s comment or suggestion waiting.", "%(num)s comments or suggestions waiting.", others) : "") +
    (stalled ? " " + t("No more templates are loaded: the next ones come when the connection is back.") : "");
  if (el.textContent !== text) el.textContent = text;
  el.hidden = !text;
  showItemPending();
}

// What of the item on screen waits in this browser, in its own card (in view, until stored).
export function showItemPending() {
  const el = $("item-pending");
  const ctx = state.ctx;
  const mine = ctx ? outbox.entries().filter((e) => !e.undo && (e.item === ctx.item.id
    || (e.kind === "suggestion" || e.scope === "relation") && e.relation === ctx.relation.id)) : [];
  const text = mine.length ? tn("%(num)s change on this template is kept in this browser and waits to be sent.",
                                "%(num)s changes on this template are kept in this browser and wait to be sent.", mine.length) : "";
  if (el.textContent !== text) el.textContent = text;
  el.hidden = !text;
}

function localProgress(delta) {
  const progress = state.progress;
  if (!progress) return;
  setProgress(Object.assign({}, progress, {done: progress.done + delta, remaining: progress.remaining - delta}));
}

// The next undecided item after `id` in the queue (then from the start), or null.
function nextUndecided(id) {
  const from = indexOf(id);
  for (let k = 1; k < state.items.length; k++) {
    const candidate = state.items[(from + k) % state.items.length];
    if (!candidate.decision) return candidate.id;
  }
  return null;
}

// A decision that waits: shown as made, and on to the next undecided template already loaded.
export async function decidedOffline(entry) {
  const known = state.items[indexOf(entry.item)];
  const kind = entry.body.decision;
  const correction = entry.body.correction || null;
  const onScreen = state.ctx && state.ctx.item.id === entry.item;
  if (onScreen) drafts.forget("amend-text", state.ctx);  // decided (waiting): moot
  if (known) {
    if (!known.decision) localProgress(1);
    known.decision = kind;
    known.correction = correction;
  }
  if (onScreen) state.ctx.decision = {decision: kind, correction};
  const next = nextUndecided(entry.item);
  stalled = next !== null && !contexts.has(next);
  if (next !== null && !stalled) {
    await load(next);
  } else {
    render();
    toTop();
  }
  sayDecided(t("%(decision)s. Kept in this browser; it is sent when the connection is back.", {decision: label(kind)}), "warn");
  showConnection();
}

// Undo of a decision still waiting: one never sent leaves the list; one sent already (its
// answer lost or not come yet) may be stored, so it is marked to be sent and then undone there.
export async function undoWaiting(entry) {
  if (entry.tried) {
    outbox.update(entry.body.request_id, {undo: true});
    if (!state.offline) flush();
  } else if (!outbox.remove(entry.body.request_id)) return;
  // what was typed with it is not lost: the reason and the correction come back as its drafts
  if (entry.body.reason) drafts.keepFor("reason-text", entry.item, entry.relation, entry.body.reason);
  if (entry.body.correction) drafts.keepFor("amend-text", entry.item, entry.relation, entry.body.correction);
  const known = state.items[indexOf(entry.item)];
  if (known) {
    if (known.decision && !entry.before.decision) localProgress(-1);
    known.decision = entry.before.decision;
    known.correction = entry.before.correction;
  }
  stalled = false;
  await load(entry.item);
  sayDecided(t("Undone: your decision (%(decision)s) on this template.", {decision: label(entry.body.decision)}), "ok");
  showConnection();
}

window.addEventListener("offline", goOffline);
