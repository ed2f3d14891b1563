// What the reviewer writes beside a decision: comments on the template and on its relation
// (review/threads.py: your threads with their replies, a reply box, Withdraw) and suggestions
// of another template for the relation. Each is sent with a request id (stored once); the answer
// is shown only if its template or relation is still on screen.
import {clear, isolate, li, marked} from "./bidi.js";
import {t} from "./i18n.js";
import {$, drafts, say, state, uuid} from "./page.js";
import {call, fail, failure} from "./server.js";

// A refusal's message under the field (a 401 or a lost connection is said at the top already).
function refusedHere(out, r) {
  const message = failure(r, t("Not saved."));
  if (message) { out.textContent = message; out.className = "validation invalid"; }
}

// Your threads on this template and on its relation (review/threads.py): your comment with
// "Withdraw", the replies under it (each author and text isolated in its own direction), and a
// reply box. Every text is inserted as text, never as HTML.
export function renderComments() {
  [["item-comments", state.ctx.comments.item], ["relation-comments", state.ctx.comments.relation]].forEach(([id, list]) => {
    const ul = $(id);
    clear(ul);
    list.forEach((c) => ul.appendChild(thread(c)));
  });
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
  el.append(replies, replyForm(c));
  return el;
}

// The reply box under a thread: POST …/comments/<id>/replies with a request id (stored once).
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
  form.append(input, button, out);
  const requestId = uuid();  // one per box: sending the same reply again stores it once
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const shown = state.ctx;
    const r = await call("POST", `/comments/${thread.id}/replies`, {text: input.value, request_id: requestId});
    if (!r.ok) { refusedHere(out, r); return; }
    if (state.ctx !== shown) return;  // moved on meanwhile: stored, shown when the item is
    // the answer is the reply alone (and its thread's id), not the whole thread: add it under it
    ["item", "relation"].forEach((scope) => {
      state.ctx.comments[scope] = state.ctx.comments[scope].map((c) => {
        if (c.id !== r.data.thread || (c.replies || []).some((x) => x.id === r.data.reply.id)) return c;
        return Object.assign({}, c, {replies: (c.replies || []).concat([r.data.reply]), reply_count: (c.reply_count || 0) + 1});
      });
    });
    renderComments();
    say(t("Reply saved."), "ok");
  });
  return form;
}

export async function suggest(event) {
  event.preventDefault();
  if (!state.ctx) return;
  const input = $("suggest-text");
  const shown = state.ctx;  // the relation the text was typed about, whatever is shown when the answer comes
  const text = input.value;
  const r = await call("POST", `/relations/${encodeURIComponent(shown.relation.id)}/suggestions`,
                       {text, request_id: uuid()});
  if (r.ok) drafts.forget("suggest-text", shown, text);  // saved: its draft goes, moved on or not
  if (state.ctx !== shown && state.ctx.relation.id !== shown.relation.id) return;  // moved on meanwhile
  const out = $("suggest-msg");
  if (!r.ok) { refusedHere(out, r); return; }
  out.textContent = r.data.created ? t("Suggestion saved. Thank you!") : t("You already suggested this one.");
  out.className = "validation valid";
  if (r.data.created) { state.ctx.suggestions.push(r.data.suggestion); $("suggestions").appendChild(li(r.data.suggestion.text)); }
  if (input.value === text) input.value = "";
  input.blur();
}

export async function comment(event, scope) {
  event.preventDefault();
  if (!state.ctx) return;
  const input = $(`${scope}-comment-text`);
  const out = $(`${scope}-comment-msg`);
  // The ids are taken now: by the time the answer comes, another template may be shown.
  const shown = state.ctx;
  const itemId = shown.item.id;
  const relationId = shown.relation.id;
  const text = input.value;
  const path = scope === "item" ? `/items/${itemId}/comments`
    : `/relations/${encodeURIComponent(relationId)}/comments`;
  const r = await call("POST", path, {text, request_id: uuid()});
  const ctx = state.ctx;
  const same = ctx === shown || (scope === "item" ? ctx.item.id === itemId : ctx.relation.id === relationId);
  if (r.ok) drafts.forget(`${scope}-comment-text`, shown, text);
  if (!same) return;  // moved on meanwhile: the comment is stored where it was typed, nothing shown here
  if (!r.ok) { refusedHere(out, r); return; }
  out.textContent = t("Comment saved. Thank you!");
  out.className = "validation valid";
  if (r.data.created && ctx === shown) ctx.comments[scope].push(Object.assign({mine: true, state: "open", replies: []}, r.data.comment));
  renderComments();
  if (input.value === text) input.value = "";
  input.blur();
}

async function withdrawComment(id) {
  const r = await call("POST", `/comments/${id}/withdraw`, {});
  if (!r.ok) { fail(r, t("Not saved.")); return; }
  state.ctx.comments.item = state.ctx.comments.item.filter((c) => c.id !== id);
  state.ctx.comments.relation = state.ctx.comments.relation.filter((c) => c.id !== id);
  renderComments();
  say(t("Comment withdrawn."), "ok");
}
