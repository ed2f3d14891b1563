// Drafts (issue 37): a comment, suggestion or correction typed and not saved yet is kept in
// this browser (localStorage, per reviewer and language) under what it was typed about — the
// template (a comment on it, a correction), the relation (a comment on it, a suggestion) or the
// thread (a reply: `reply`) — and comes back, with a visible note, when that template, relation
// or thread is shown again. It goes once
// saved, emptied or cancelled (Esc on a correction), when the reviewer signs out (signout.js:
// `removeDrafts`), and after a week untouched: each is stored with the time it was typed
// ({text, at}), and the review screen drops this reviewer's older ones when it loads.
// No imports: signout.js, on every page, loads this module alone.

const MAX_AGE_MS = 7 * 24 * 3600 * 1000;
const BY_RELATION = new Set(["relation-comment-text", "suggest-text"]);
// the review screen's fields that keep a draft: the item's (correction, reason, comment), the
// relation's (comment, suggestion); a reply box keeps one by its thread ("reply.<thread id>": `reply`)
export const FIELDS = ["amend-text", "reason-text", "item-comment-text", "relation-comment-text", "suggest-text"];

// Every draft of a reviewer starts with this (every language): "curator.draft.<user id>.".
export const draftPrefix = (user) => `curator.draft.${user}.`;

// The stored keys starting with `prefix` (none without storage).
function keysStartingWith(prefix) {
  const keys = [];
  for (let i = 0; i < localStorage.length; i++) {
    const k = localStorage.key(i);
    if (k && k.startsWith(prefix)) keys.push(k);
  }
  return keys;
}

// Every draft under `prefix` removed (sign-out); never the offline outbox.
export function removeDrafts(prefix) {
  try {
    keysStartingWith(prefix).forEach((k) => localStorage.removeItem(k));
  } catch (err) { /* no storage: no drafts were kept */ }
}

// a stored draft: {text, at}; a bare string (kept before drafts had a time) has no time (null)
function read(k) {
  let raw = null;
  try { raw = localStorage.getItem(k); } catch (err) { return null; }
  if (!raw) return null;
  try {
    const value = JSON.parse(raw);
    if (value && typeof value.text === "string" && typeof value.at === "number") return value;
  } catch (err) { /* a bare string */ }
  return {text: raw, at: null};
}
const get = (k) => { const value = read(k); return value ? value.text : ""; };
function put(k, text) {
  try {
    if (text.trim()) localStorage.setItem(k, JSON.stringify({text, at: Date.now()}));
    else localStorage.removeItem(k);
  } catch (err) { /* storage full or switched off: the field still holds the text */ }
}

// this reviewer's drafts (every language) untouched for a week go; one without a time gets now
function expire(user) {
  try {
    for (const k of keysStartingWith(draftPrefix(user))) {
      const value = read(k);
      if (value && value.at === null) put(k, value.text);
      else if (value && Date.now() - value.at > MAX_AGE_MS) localStorage.removeItem(k);
    }
  } catch (err) { /* no storage: nothing kept, nothing to drop */ }
}

// The drafts of `user` in `lang`; `current()` is the context on screen (null before the first).
export function createDrafts(user, lang, current) {
  const prefix = draftPrefix(user) + lang + ".";
  const keyFor = (field, item, relation) => prefix + field + "." + (BY_RELATION.has(field) ? relation : item);
  const key = (field, c) => keyFor(field, c.item.id, c.relation.id);
  const replyKey = (thread) => prefix + "reply." + thread;
  const note = (field, shown) => { const el = document.getElementById(field + "-draft"); if (el) el.hidden = !shown; };
  expire(user);
  return {
    // what the field holds now, kept for the template or relation on screen
    keep(field, text) {
      const ctx = current();
      if (!ctx) return;
      put(key(field, ctx), text);
      if (!text.trim()) note(field, false);
    },
    // the field as it was left on `c`'s template or relation, with the note when there is one
    // (the amend field is filled when it opens: amend.js showAmend)
    restore(field, c) {
      const text = get(key(field, c));
      if (field !== "amend-text") document.getElementById(field).value = text;
      note(field, Boolean(text.trim()));
    },
    stored: (field, c) => get(key(field, c)),
    // a text that could not be stored (refused, or its item no longer on screen) kept as the draft
    // of item `item` (or relation `relation`), unless a newer draft is there: typed work is never dropped
    keepFor(field, item, relation, text) {
      const k = keyFor(field, item, relation);
      // a draft typed since stays first; the text given back is added after it (a correction
      // typed since replaces the one given back: two templates in one field make none)
      const since = get(k);
      const kept = !since.trim() ? text : field !== "amend-text" && !since.includes(text) ? since + " " + text : since;
      put(k, kept);
      const ctx = current();
      if (ctx && key(field, ctx) === k) {
        const input = document.getElementById(field);
        if (input && field !== "amend-text" && !input.value.includes(text)) input.value = input.value.trim() ? input.value + " " + text : text;
        note(field, true);
      }
    },
    // saved (`text`: what was sent; the draft stays if the reviewer typed on meanwhile) or discarded
    forget(field, c, text) {
      const k = key(field, c);
      if (text === undefined || get(k) === text) put(k, "");
      const ctx = current();
      if (ctx && key(field, ctx) === k) note(field, false);
    },
    // A reply box's draft, kept by its thread (the id of the comment that opened it), whichever
    // template shows the thread; the box and its note are comments.js's.
    reply: {
      keep: (thread, text) => put(replyKey(thread), text),
      stored: (thread) => get(replyKey(thread)),
      // a refused reply's text, unless a newer draft is there
      keepFor(thread, text) { if (!get(replyKey(thread)).trim()) put(replyKey(thread), text); },
      // sent (`text`: what was sent; a draft typed on meanwhile stays)
      forget(thread, text) { if (get(replyKey(thread)) === text) put(replyKey(thread), ""); },
    },
  };
}
