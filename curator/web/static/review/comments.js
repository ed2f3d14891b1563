// What the reviewer writes beside a decision: comments on the template and on its relation
// (review/threads.py: your threads with their replies, a reply box, Withdraw) and suggestions
// of another template for the relation. Each goes through the one outbox (offline.js `submit`) with
// a request id (stored once), in order with the decisions; while it waits it is shown where it was
// typed, marked as waiting, and its status is said under its own field; a refused one comes back
// into its field as a draft with the server's words.
import {clear, isolate, li, marked} from "./bidi.js";
import {t} from "./i18n.js";
import {$, drafts, say, state, uuid} from "./page.js";
import {handle, isDecision, outbox, showItemPending, submit} from "./offline.js";
import {call, fail, failure} from "./server.js";

const WAITING = () => t("Kept in this browser; it is sent when the connection is back.");

// The outbox's entries of `kind` that belong to what is on screen (waiting: shown as such).
function waiting(kind, test) { return outbox.entries().filter((e) => !isDecision(e) && e.kind === kind && test(e)); }

const onScreen = (entry) => Boolean(state.ctx) && (entry.scope === "item" ? state.ctx.item.id === entry.item
  : state.ctx.relation.id === entry.relation);

// A message under the field that made `entry` (when it is on screen).
function sayAt(entry, message, kind) {
  if (!onScreen(entry)) return;
  const out = entry.kind === "reply" ? document.querySelector(`[data-thread="${entry.thread}"] .reply-form .validation`)
    : $(entry.kind === "suggestion" ? "suggest-msg" : `${entry.scope}-comment-msg`);
  if (!out) return;
  out.textContent = message;
  out.className = "validation " + kind;
}

// the field a write's text was typed in (replies: their thread's box)
const fieldOf = (entry) => (entry.kind === "suggestion" ? "suggest-text" : `${entry.scope}-comment-text`);

// Your threads on this template and on its relation (review/threads.py): your comment with
// "Withdraw", the replies under it (each author and text isolated in its own direction), and a
// reply box. Every text is inserted as text, never as HTML.
export function renderComments() {
  [["item-comments", state.ctx.comments.item, "item"], ["relation-comments", state.ctx.comments.relation, "relation"]].forEach(([id, list, scope]) => {
    const ul = $(id);
    clear(ul);
    list.forEach((c) => ul.appendChild(thread(c)));
    waiting("comment", (e) => e.scope === scope && onScreen(e)).forEach((e) => ul.appendChild(waitingLine(e.body.text)));
  });
  renderWaitingSuggestions();
  showItemPending();
}

// a write not stored yet, where it will be: its text and "waiting to be sent"
function waitingLine(text) {
  const el = li("", "comment waiting");
  const span = document.createElement("span");
  span.dir = "auto";
  span.textContent = text;
  const tag = document.createElement("span");
  tag.className = "tag state-waiting";
  tag.textContent = t("waiting to be sent");
  el.append(span, " ", tag);
  return el;
}

function renderWaitingSuggestions() {
  const ul = $("suggestions");
  ul.querySelectorAll(".waiting").forEach((el) => el.remove());
  waiting("suggestion", onScreen).forEach((e) => ul.appendChild(waitingLine(e.body.text)));
}

function thread(c) {
  const el = li("", "comment");
  el.dataset.thread = c.id;
  const text = document.createElement("span");
  text.dir = "auto";  // isolated in its own direction (a [dir] element is an isolate)
  text.textContent = c.text;
  if (c.mine === false) el.append(isolate(c.author), " ");
  el.append(text);
  if (c.mine !== false) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "link withdraw";
    button.textContent = t("Withdraw");
    button.addEventListener("click", () => withdrawComment(c.id));
    el.append(" ", button);
  }
  if (c.state === "resolved") {
    const tag = document.createElement("span");
    tag.className = "tag state-resolved";
    tag.textContent = t("resolved");
    el.append(" ", tag);
  }
  const shown = (c.replies || []).length;
  if ((c.reply_count || 0) > shown) {  // a thread comes with its latest replies only (review.threads)
    const earlier = document.createElement("p");
    earlier.className = "hint earlier-replies";
    earlier.textContent = t("The latest %(shown)s of %(count)s replies.", {shown, count: c.reply_count});
    el.append(earlier);
  }
  const replies = document.createElement("ol");
  replies.className = "thread-replies";
  (c.replies || []).forEach((r) => {
    const item = li("", "reply");
    item.dataset.reply = r.id;
    const author = document.createElement("strong");
    author.className = "reply-author";
    author.append(isolate(r.author));
    const body = document.createElement("span");
    body.dir = "auto";
    body.className = "reply-text";
    body.append(marked(r.text));
    item.append(author, " ", body);
    replies.appendChild(item);
  });
  waiting("reply", (e) => e.thread === c.id).forEach((e) => replies.appendChild(waitingLine(e.body.text)));
  el.append(replies, replyForm(c));
  return el;
}

// Replies typed into a box while its thread is on screen (the threads are drawn again whenever a
// write is answered): their box comes back with the text and without the "kept from before" note.
// A new context (another template, or this one shown again) starts empty.
let typedOn = null;
const typedHere = new Set();
function typedSet() {
  if (typedOn !== state.ctx) { typedOn = state.ctx; typedHere.clear(); }
  return typedHere;
}

// The reply box under a thread: POST …/comments/<id>/replies with a request id (stored once).
// What is typed in it is kept as the thread's draft (drafts.js `reply`), so it comes back, with a
// note, after a reload or when the thread is shown again; it goes once the reply is in the outbox
// (which keeps it from there on), and a refused reply comes back as the draft.
function replyForm(thread) {
  const form = document.createElement("form");
  form.className = "reply-form row";
  const input = document.createElement("textarea");
  input.rows = 1;
  input.maxLength = 2000;
  input.dir = "auto";
  input.className = "reply-text-input";
  input.setAttribute("aria-label", t("Reply"));
  const button = document.createElement("button");
  button.type = "submit";
  button.textContent = t("Reply");
  const out = document.createElement("p");
  out.className = "validation";
  out.setAttribute("aria-live", "polite");
  const note = document.createElement("p");
  note.className = "draft-note";
  note.textContent = t("Unsaved reply, kept from before: it is sent when you press “Reply”.");
  input.value = drafts.reply.stored(thread.id);
  note.hidden = !input.value.trim() || typedSet().has(thread.id);
  input.addEventListener("input", () => {
    drafts.reply.keep(thread.id, input.value);
    typedSet().add(thread.id);
    if (!input.value.trim()) note.hidden = true;
  });
  form.append(input, button, out, note);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!input.value.trim()) return;
    const entry = {kind: "reply", scope: c_scope(thread), item: state.ctx.item.id, relation: state.ctx.relation.id,
                   thread: thread.id, path: `/comments/${thread.id}/replies`, body: {text: input.value, request_id: uuid()}};
    input.value = "";
    note.hidden = true;
    drafts.reply.forget(thread.id, entry.body.text);  // the outbox keeps it now
    const sending = submit(entry);
    renderComments();
    const result = await sending;
    if (result === "waiting") sayAt(entry, WAITING(), "warn");
  });
  return form;
}

// which scope a thread is on (for its replies' entries)
const c_scope = (thread) => (state.ctx.comments.item.some((c) => c.id === thread.id) ? "item" : "relation");

export async function suggest(event) {
  event.preventDefault();
  if (!state.ctx) return;
  const input = $("suggest-text");
  if (!input.value.trim()) { sayAt({kind: "suggestion", relation: state.ctx.relation.id}, t("Type a template first."), "invalid"); return; }
  const entry = {kind: "suggestion", item: state.ctx.item.id, relation: state.ctx.relation.id,
                 path: `/relations/${encodeURIComponent(state.ctx.relation.id)}/suggestions`,
                 body: {text: input.value, request_id: uuid()}};
  await send(entry, input);
}

export async function comment(event, scope) {
  event.preventDefault();
  if (!state.ctx) return;
  const input = $(`${scope}-comment-text`);
  if (!input.value.trim()) { sayAt({kind: "comment", scope, item: state.ctx.item.id, relation: state.ctx.relation.id}, t("Type a comment first."), "invalid"); return; }
  await send(commentEntry(scope, input.value), input);
}

// A comment on the item (or relation) on screen, as an outbox entry (queue.js sends the item's
// comment draft beside a decision this way).
export function commentEntry(scope, text) {
  const ctx = state.ctx;
  return {kind: "comment", scope, item: ctx.item.id, relation: ctx.relation.id,
          path: scope === "item" ? `/items/${ctx.item.id}/comments` : `/relations/${encodeURIComponent(ctx.relation.id)}/comments`,
          body: {text, request_id: uuid()}};
}

// The field's text into the outbox: the field empties (the text is shown as waiting where it will
// be, and its draft goes: the outbox keeps it now), and the status is said under the field.
async function send(entry, input) {
  const field = fieldOf(entry);
  input.value = "";
  drafts.forget(field, state.ctx);
  input.blur();
  const sending = submit(entry);  // in the outbox from here on (its first step is synchronous)
  renderComments();
  const result = await sending;
  if (result === "waiting") sayAt(entry, WAITING(), "warn");
}

// What a stored comment, suggestion or reply does on screen; a refused one goes back into its field.
function stored(entry, r) {
  if (onScreen(entry)) {
    const ctx = state.ctx;
    if (entry.kind === "comment" && r.data.created) {
      ctx.comments[entry.scope].push(Object.assign({mine: true, state: "open", replies: []}, r.data.comment));
    } else if (entry.kind === "suggestion" && r.data.created) {
      ctx.suggestions.push(r.data.suggestion);
      $("suggestions").appendChild(li(r.data.suggestion.text));
    } else if (entry.kind === "reply") {
      ["item", "relation"].forEach((scope) => {
        ctx.comments[scope] = ctx.comments[scope].map((c) => {
          if (c.id !== r.data.thread || (c.replies || []).some((x) => x.id === r.data.reply.id)) return c;
          return Object.assign({}, c, {replies: (c.replies || []).concat([r.data.reply]), reply_count: (c.reply_count || 0) + 1});
        });
      });
    }
    renderComments();
  }
  const message = entry.kind === "suggestion" ? (r.data.created ? t("Suggestion saved. Thank you!") : t("You already suggested this one."))
    : entry.kind === "reply" ? t("Reply saved.") : t("Comment saved. Thank you!");
  sayAt(entry, message, "valid");
  if (entry.kind === "reply" && onScreen(entry)) say(message, "ok");
}

function refused(entry, r) {
  if (entry.kind !== "reply") drafts.keepFor(fieldOf(entry), entry.item, entry.relation, entry.body.text);
  else {
    drafts.reply.keepFor(entry.thread, entry.body.text);  // its box shows it again, with the note
    if (drafts.reply.stored(entry.thread) === entry.body.text) typedSet().delete(entry.thread);
  }
  if (onScreen(entry)) renderComments();
  if (entry.kind === "reply" && onScreen(entry)) {
    const box = document.querySelector(`[data-thread="${entry.thread}"] .reply-text-input`);
    if (box && !box.value.trim()) box.value = entry.body.text;
  }
  const message = failure(r, t("Not saved.")) || t("Not saved.");
  sayAt(entry, message, "invalid");
}

["comment", "suggestion", "reply"].forEach((kind) => handle(kind, {stored, refused}));

async function withdrawComment(id) {
  const r = await call("POST", `/comments/${id}/withdraw`, {});
  if (!r.ok) { fail(r, t("Not saved.")); return; }
  state.ctx.comments.item = state.ctx.comments.item.filter((c) => c.id !== id);
  state.ctx.comments.relation = state.ctx.comments.relation.filter((c) => c.id !== id);
  renderComments();
  say(t("Comment withdrawn."), "ok");
}
