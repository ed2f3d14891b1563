// The queue: the reviewer's sample in order, the item shown (load), a decision on it (decide),
// undo and moving along (step), and the templates loaded ahead to go on with offline
// (prefetch). What waits while the server is away is offline.js's.
import {isolate, setMessage} from "./bidi.js";
import {t, tNodes} from "./i18n.js";
import {$, KINDS, drafts, indexOf, label, root, say, setBusy, state, toTop, uuid} from "./page.js";
import {clearMessages, render, setProgress} from "./item.js";
import {answers, decidedOffline, dropRefused, flush, goOffline, outbox, submit, undoWaiting} from "./offline.js";
import {commentEntry} from "./comments.js";
import {settle, settled} from "./pending.js";
import {call, fail, failure} from "./server.js";

const ANSWER_WAIT_MS = 3000;  // a decision unanswered this long waits, and the reviewer goes on
const MAX_SECONDS = 86400;   // the longest time on a template the API takes (web/api.py DAY)
const AHEAD = 10;             // templates loaded ahead of the current one, to go on with offline
export const contexts = new Map();  // item id -> its context as last loaded

// An item's context: from the server, or while offline the one loaded before (with this
// reviewer's decision as the page knows it, waiting ones included).
async function loadContext(id) {
  if (!state.offline || !contexts.has(id)) {
    const r = await call("GET", `/items/${id}`, undefined, state.offline);
    if (r.ok) { contexts.set(id, r.data); return r; }
    if (r.status !== 0 || !contexts.has(id)) return r;
    goOffline();
  }
  const data = contexts.get(id);
  const known = state.items[indexOf(id)];
  if (known) data.decision = known.decision ? {decision: known.decision, correction: known.correction || null} : null;
  return {ok: true, status: 200, data};
}

// Show item `id` at the top of the screen: messages about the previous item cleared, a new
// relation announced.
export async function load(id) {
  const r = await loadContext(id);
  if (!r.ok) {
    if (isRetired(r)) return retired(id, r.data);
    if (r.status === 0 && state.offline) say(t("This template is not loaded yet, and the server cannot be reached."), "warn");
    else fail(r, t("Could not load the template."));
    return false;
  }
  const before = state.ctx ? state.ctx.relation.id : null;
  const changedItem = !state.ctx || state.ctx.item.id !== r.data.item.id;
  const changedRelation = !state.ctx || state.ctx.relation.id !== r.data.relation.id;
  // an item the queue does not list yet (a proposal added to it since the page loaded it)
  if (indexOf(r.data.item.id) < 0 && !state.offline) await refreshQueue();
  state.ctx = r.data;
  state.shownAt = performance.now();
  // Drafts belong to what they were typed about: a template's draft goes with the template,
  // a relation's drafts go with the relation. What was typed is kept in this browser (`drafts`)
  // and comes back, with a note, when its template or relation is shown again.
  const fields = [...(changedItem ? ["item-comment-text", "reason-text"] : []),
                  ...(changedRelation ? ["relation-comment-text", "suggest-text"] : [])];
  if (changedItem) clearMessages();
  fields.forEach((field) => {
    if (document.activeElement === $(field)) $(field).blur();
    drafts.restore(field, state.ctx);
  });
  if (changedItem) drafts.restore("amend-text", state.ctx);
  render();
  // The live region stays in the page (a region appearing from hidden is not announced):
  // only its text changes, empty when the relation did not change.
  const note = $("relation-note");
  if (before !== null && before !== state.ctx.relation.id) {
    const relation = state.ctx.relation;
    setMessage(note, tNodes("New relation: %(title)s", {title: isolate(relation.title || relation.id, "auto")}));
  } else if (changedItem) {
    note.textContent = "";
  }
  toTop();
  prefetch();
  return true;
}

// A second-look item whose proposal its author withdrew (or undid, or changed) meanwhile: the
// server stored nothing on it and answered 409 with code "retired", the progress and the next
// item (review/proposal_queue.py retire, web/api.py).
const isRetired = (r) => r.status === 409 && r.data && r.data.code === "retired";

// Out of the queue here too, and on to the next item the server named, with a note.
async function retired(id, data) {
  const i = indexOf(id);
  if (i >= 0) state.items.splice(i, 1);
  contexts.delete(id);
  if (data.progress) setProgress(data.progress);
  const next = data.next && data.next !== id ? data.next : null;
  if (next !== null && await load(next)) {
    say(t("This proposal was withdrawn by its author; moved on to the next template."), "warn");
    return true;
  }
  if (next === null && state.items.length && (!state.ctx || state.ctx.item.id === id)) await load(state.items[0].id);
  say(t("This proposal was withdrawn by its author; nothing else is waiting for you."), "warn");
  return false;
}

export async function refreshQueue() {
  const r = await call("GET", "/queue");
  if (!r.ok) { fail(r, t("Could not load your sample.")); return null; }
  state.items = r.data.items;
  setProgress(r.data.progress);
  return r.data;
}

// A decision on the item on screen: its drafts settled first (pending.js: saved with it, sent beside
// it, or the volunteer asked), then into the outbox and sent.
export async function decide(kind, correction) {
  if (!state.ctx || state.busy || state.intro || state.asking) return;
  setBusy(true);
  try {
    const ctx = state.ctx;
    const planned = await settle(kind, correction);
    if (!planned || state.ctx !== ctx) return;  // went back: nothing stored, the drafts where they were
    kind = planned.kind;
    // at most a day, as the API takes it: a tab left open over a weekend still decides (the server
    // keeps at most an hour of it)
    const seconds = Math.min(MAX_SECONDS, Math.max(0, Math.round((performance.now() - state.shownAt) / 100) / 10));
    const body = {decision: kind, seconds, request_id: uuid()};
    if (kind === KINDS.AMEND) body.correction = planned.correction;
    if (planned.reason) body.reason = planned.reason;
    // kept in the browser before it is sent: sent now when nothing waits, else after the others
    const was = state.items[indexOf(ctx.item.id)] || {};
    const entry = {kind: "decision", item: ctx.item.id, relation: ctx.relation.id, body,
                   before: {decision: was.decision || null, correction: was.correction || null}};
    outbox.add(entry);
    // the comment typed on the template goes beside it, after it, through the same outbox
    planned.comments.forEach((text) => outbox.add(commentEntry("item", text)));
    settled(ctx);
    lastDecided = {item: ctx.item.id, kind, comments: planned.comments.length};
    if (state.offline || outbox.size() > 1 + planned.comments.length) {
      if (!state.offline) flush();
      await decidedOffline(entry);
      return;
    }
    // no answer within ANSWER_WAIT_MS (a dead connection, a hung server): the decision waits and
    // the reviewer goes on; the request runs on, and its answer, if it comes, stores the entry
    const result = await Promise.race([flush(), new Promise((r) => setTimeout(() => r("slow"), ANSWER_WAIT_MS))]);
    if (result === "slow") { goOffline(); await decidedOffline(entry); return; }
    const r = answers.get(body.request_id);
    answers.delete(body.request_id);
    dropRefused(body.request_id);
    if (!r) {  // not stored yet: it waits (signed out: until the reviewer is back)
      if (result !== "signed-out") await decidedOffline(entry);
      return;
    }
    if (isRetired(r)) { await retired(entry.item, r.data); return; }
    if (!r.ok) { refusedDecision(kind, r, body); return; }
    await stored(kind, r.data, planned.comments.length);
  } finally {
    setBusy(false);
  }
}
let lastDecided = null;  // the last decision made on this page: what the bar's status speaks of

// What the last decision did, in the fixed bar with Undo beside it (in reach of the thumb), and at
// the top (the status line, for screen readers and wide screens).
export function sayDecided(message, kind) {
  say(message, kind);
  const bar = $("bar-status");
  $("bar-status-text").textContent = message;
  bar.className = "bar-status " + (kind || "");
  bar.hidden = !message;
}

// The server refused a decision: an amendment's message under the field, any other at the top.
function refusedDecision(kind, r, body) {
  lastDecided = null;  // nothing new stored: Undo is about the decision before
  const message = failure(r, t("Not saved."));
  // a reason sent with it comes back into its field (the correction is still in the amend field)
  if (body.reason && !$("reason-text").value.trim()) { $("reason-text").value = body.reason; drafts.keep("reason-text", body.reason); }
  if (kind === KINDS.AMEND && body.correction) drafts.keep("amend-text", body.correction);
  if (kind === KINDS.AMEND && message) {
    setMessage($("amend-msg"), message);
    $("amend-msg").className = "validation invalid";
    // the keys act as decisions again (the message may ask for A): E goes back to the text
    $("amend-text").blur();
  } else if (message) {
    say(message, "error");
  }
}

// The server stored the decision (its answer `data`): on to the next template, or done.
async function stored(kind, data, comments) {
  const done = state.items[indexOf(state.ctx.item.id)];
  done.decision = data.decision.decision;
  done.correction = data.decision.correction;
  setProgress(data.progress);
  const saved = t("%(decision)s. Saved.", {decision: label(kind)}) + (comments ? " " + t("Your comment was sent with it.") : "");
  if (data.next) {
    await load(data.next);
    sayDecided(saved, "ok");
  } else {
    state.ctx.decision = data.decision;
    render();
    toTop();
    sayDecided(saved + " " + t("All templates reviewed. Thank you!"), "ok");
  }
}

// The next undecided templates after the current one, loaded in the background (one at a
// time, only what is not loaded yet: about one request per decision once under way).
let prefetching = false;
export async function prefetch() {
  if (prefetching || state.offline || !state.ctx) return;
  prefetching = true;
  try {
    const wanted = [];
    for (let i = indexOf(state.ctx.item.id) + 1; i < state.items.length && wanted.length < AHEAD; i++) {
      if (!state.items[i].decision) wanted.push(state.items[i].id);
    }
    await loadAhead(wanted);
    // the glossary and the context panels read theirs too, to show them offline (issue 37)
    const loaded = wanted.filter((id) => contexts.has(id)).map(String);  // nearest first
    root.dispatchEvent(new CustomEvent("curator:prefetched", {detail: {items: loaded}}));
    // how many of the next undecided templates could be shown offline (tests wait on it)
    root.dataset.ahead = String(wanted.filter((id) => contexts.has(id)).length);
  } finally {
    prefetching = false;
  }
}

async function loadAhead(wanted) {
  for (const id of wanted) {
    if (state.offline) break;
    if (contexts.has(id)) continue;
    const r = await call("GET", `/items/${id}`, undefined, true);
    if (isRetired(r)) {  // its proposal withdrawn meanwhile: out of the queue here too
      if (indexOf(id) >= 0) state.items.splice(indexOf(id), 1);
      if (r.data.progress) setProgress(r.data.progress);
      continue;
    }
    if (!r.ok) break;
    if (!contexts.has(id)) contexts.set(id, r.data);
  }
}

// Undo the last decision: one still waiting in the outbox is taken back there (`undoWaiting`); a
// stored one is undone through the outbox too, with its request id, so an undo whose answer was
// lost is sent again and undoes nothing more (web/api.py undo).
export async function undo() {
  if (state.busy || state.intro || state.asking) return;
  setBusy(true);
  try {
    const waiting = outbox.lastKept();  // one in flight is `tried`: `undoWaiting` undoes it after it is stored
    if (waiting) { lastDecided = null; await undoWaiting(waiting); return; }
    if (state.offline) { say(t("Offline: only decisions still waiting can be undone."), "warn"); return; }
    // the template last decided on this page: a decision that repeated its standing one stored
    // nothing new, and Undo is about that template, not the one decided before it
    const body = {request_id: uuid()};
    if (lastDecided) body.item = lastDecided.item;
    lastDecided = null;
    const result = await submit({kind: "undo", path: "/undo", body});
    if (result === "waiting") sayDecided(t("Undo is kept in this browser; it is sent when the connection is back."), "warn");
  } finally {
    setBusy(false);
  }
}

// What an undo sent through the outbox shows once the server answered (registered in review.js).
export const undoAnswer = {
  async stored(entry, r) {
    if (!state.ctx) return;  // sent while the page starts: the queue is read next anyway
    if (!r.data.undone) { say(t("Nothing to undo."), "warn"); return; }
    await refreshQueue();
    await load(r.data.undone.item_id);
    sayDecided(t("Undone: your decision (%(decision)s) on this template.", {decision: label(r.data.undone.decision)}), "ok");
  },
  refused(entry, r) { fail(r, t("Could not undo.")); },
};

export function step(delta) {
  if (!state.ctx || state.busy || state.intro || state.asking) return;
  const i = indexOf(state.ctx.item.id) + delta;
  if (i < 0 || i >= state.items.length) return;
  setBusy(true);
  load(state.items[i].id).finally(() => setBusy(false));
}
