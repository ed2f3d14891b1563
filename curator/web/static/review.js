// The review screen: one template at a time, keyboard first, every decision saved at once.
// The entry module (review.html loads it with <script type="module">, no build step): the keys,
// the buttons and the start; the work is in review/ (docs/architecture.md, "The browser code"):
// queue.js (the sample, load, decide, undo), pending.js (the item's typed work and what a decision
// does with it), offline.js (the one outbox of every write, and reconnecting), item.js
// (the item card), comments.js, amend.js, livecheck.js, drafts.js, server.js (the JSON API),
// page.js (the page's data and shared state), i18n.js (`t`, `tn`: every string shown is
// translated, from the page's #i18n JSON block, curator/web/i18n.py JS_MESSAGES), bidi.js (the
// one <bdi> builder) and keys.js (one key mapping for the whole screen).
import {cancelAmend, showAmend} from "./review/amend.js";
import {comment, suggest} from "./review/comments.js";
import {shortcutKey, typing} from "./review/keys.js";
import {liveCheck} from "./review/livecheck.js";
import {t} from "./review/i18n.js";
import {flush, goOffline, handle, outbox, sayRefused} from "./review/offline.js";
import {$, KINDS, drafts, rtl, say, state, toTop} from "./review/page.js";
import {decide, load, refreshQueue, step, undo, undoAnswer} from "./review/queue.js";
import {call, fail} from "./review/server.js";

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (state.asking) return;  // the question about typed work is open: its own buttons and Esc only
  if (typing()) {
    if (event.key === "Escape") {
      if (document.activeElement === $("amend-text")) cancelAmend();
      document.activeElement.blur();
      event.preventDefault();
    }
    return;
  }
  const key = shortcutKey(event);
  if (state.intro) {  // only the guidelines' own keys until "Start reviewing"
    if (key === "?" || key === "h") { event.preventDefault(); if (!event.repeat) toggleHelp(); }
    return;
  }
  if (event.key === "Escape" && !$("help").hidden) { event.preventDefault(); toggleHelp(); return; }
  const forward = rtl ? "arrowleft" : "arrowright";
  const back = rtl ? "arrowright" : "arrowleft";
  const actions = {
    a: () => decide(KINDS.ACCEPT), r: () => decide(KINDS.REJECT), n: () => decide(KINDS.UNSURE), e: showAmend, u: undo,
    j: () => step(1), k: () => step(-1), [forward]: () => step(1), [back]: () => step(-1),
    s: () => write("suggest-text"), c: () => write("item-comment-text"), "?": toggleHelp, h: toggleHelp,
  };
  // a held key repeats: only moving on may repeat, never a decision, undo or a toggle
  const repeats = ["j", "k", forward, back];
  if (actions[key]) { event.preventDefault(); if (!event.repeat || repeats.includes(key)) actions[key](); }
}

// C and S: the field gets the focus without the page jumping to it; it is under the template
// (review.html), so at most a short scroll brings it above the decision bar and the template
// stays in view.
function write(id) {
  if (!state.ctx) return;
  $(id).focus({preventScroll: true});
  $(id).scrollIntoView({block: "nearest"});
}

function toggleHelp() {
  if (state.intro) return;  // the guidelines are on screen already
  const help = $("help");
  help.hidden = !help.hidden;
  $("help-toggle").setAttribute("aria-expanded", String(!help.hidden));
  if (!help.hidden) { toTop(); $("help-title").setAttribute("tabindex", "-1"); $("help-title").focus(); }
  else $("help-toggle").focus();
}

function showIntro(show) {
  state.intro = show;
  $("intro").hidden = !show;
  $("work").hidden = show;
  $("help-toggle").hidden = show;
}

async function startReviewing() {
  const r = await call("POST", "/guidelines/seen", {});
  if (!r.ok) { fail(r, t("Not saved.")); return; }
  showIntro(false);
  toTop();
  $("accept").focus({preventScroll: true});
}

// A press on the bar keeps the focus where it is (a field keeps its text and its place).
$("actions").addEventListener("mousedown", (e) => { if (e.target.closest("button")) e.preventDefault(); });
// One gesture decides at most one item: a press that began before this item was shown, and, on a
// template other than the one the last tap decided, a tap or click less than REPEAT_MS after that
// one (a finger tapping twice, a double click: longer than the systems' double-click time) are
// taken as a repeat of that tap. The page's own clock decides, not the event's `detail` (the
// browser counts a double tap by its own timing and place, whatever the page showed between). A
// tap on the same template (after going back from the question about typed work, say) is a tap of
// its own.
const REPEAT_MS = 600;
let lastTap = {at: -Infinity, item: null};
let pressedAt = -Infinity;
$("actions").addEventListener("pointerdown", () => { pressedAt = performance.now(); });
function decisionButton(kind) {
  return (event) => {
    if (!state.ctx) return;
    const now = performance.now();
    const item = state.ctx.item.id;
    const pointer = event.detail > 0;  // a click from a pointer (a key on a focused button: 0)
    // a key on a focused button (Enter held down, pressed twice) repeats like a finger does
    const repeat = lastTap.item !== item && now - lastTap.at < REPEAT_MS;
    if ((pointer && pressedAt < state.shownAt) || repeat) return;
    lastTap = {at: now, item};
    decide(kind);
  };
}
$("accept").addEventListener("click", decisionButton(KINDS.ACCEPT));
$("reject").addEventListener("click", decisionButton(KINDS.REJECT));
$("unsure").addEventListener("click", decisionButton(KINDS.UNSURE));
$("bar-undo").addEventListener("click", undo);
$("amend").addEventListener("click", showAmend);
$("amend-cancel").addEventListener("click", cancelAmend);
// the live check of a field stops when its form is sent (livecheck.js): what the sending says stays
const checkAmend = liveCheck($("amend-text"), $("amend-msg"), true);
const checkSuggestion = liveCheck($("suggest-text"), $("suggest-msg"));
$("amend-form").addEventListener("submit", (e) => {
  e.preventDefault();
  checkAmend.cancel();
  decide(KINDS.AMEND, $("amend-text").value);
});
$("amend-text").addEventListener("input", checkAmend);
$("suggest-text").addEventListener("input", checkSuggestion);
$("suggest-form").addEventListener("submit", (e) => { checkSuggestion.cancel(); suggest(e); });
$("item-comment-form").addEventListener("submit", (e) => comment(e, "item"));
$("relation-comment-form").addEventListener("submit", (e) => comment(e, "relation"));
// every keystroke in a field is kept as a draft of what is on screen (a correction only once it differs)
["item-comment-text", "relation-comment-text", "suggest-text", "amend-text", "reason-text"].forEach((id) => {
  $(id).addEventListener("input", () => {
    const text = $(id).value;
    drafts.keep(id, id === "amend-text" && text === state.amendStart ? "" : text);
  });
});
// Ctrl+Enter (⌘+Enter) saves a comment, whose field takes line breaks; Enter saves the one-line fields
["item", "relation"].forEach((scope) => {
  $(`${scope}-comment-text`).addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      $(`${scope}-comment-form`).requestSubmit();
    }
  });
});
handle("undo", undoAnswer);
$("undo").addEventListener("click", undo);
$("prev").addEventListener("click", () => step(-1));
$("next").addEventListener("click", () => step(1));
$("help-toggle").addEventListener("click", toggleHelp);
$("help-close").addEventListener("click", toggleHelp);
$("start").addEventListener("click", startReviewing);
document.addEventListener("keydown", onKey);
// a link to #item-<id> on this page (or the address bar) opens that item
window.addEventListener("hashchange", () => {
  const id = Number((location.hash.match(/^#item-(\d+)$/) || [])[1]);
  if (id && state.ctx && state.ctx.item.id !== id && state.items.some((i) => i.id === id) && !state.busy) load(id);
});

(async function start() {
  showIntro(state.intro);
  // decisions left waiting by an earlier visit (the server was away, or the session ended)
  if (outbox.size()) {
    const result = await flush();
    if (result === "unreachable" || result === "later") goOffline();
  }
  const data = await refreshQueue();
  if (!data) return;
  if (!state.items.length) { say(t("Your sample is empty."), "warn"); return; }
  const wanted = Number((location.hash.match(/^#item-(\d+)$/) || [])[1]);
  const id = state.items.some((i) => i.id === wanted) ? wanted : (data.next || state.items[0].id);
  await load(id);
  sayRefused();
  // Undo in reach of the thumb from the start when there is a decision to undo (not only after one
  // made on this page)
  if (data.progress && data.progress.done > 0 && $("bar-status").hidden) $("bar-status").hidden = false;
  $("review").dataset.ready = "1";
})();
