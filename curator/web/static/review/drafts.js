// Drafts (issue 37): a comment, suggestion or correction typed and not saved yet is kept in
// this browser (localStorage, per reviewer and language) under what it was typed about — the
// template (a comment on it, a correction) or the relation (a comment on it, a suggestion) — and
// comes back, with a visible note, when that template or relation is shown again. It goes once
// saved, emptied or cancelled (Esc on a correction), when the reviewer signs out (signout.js:
// `removeDrafts`), and after a week untouched: each is stored with the time it was typed
// ({text, at}), and the review screen drops this reviewer's older ones when it loads.
// No imports: signout.js, on every page, loads this module alone.

const MAX_AGE_MS = 7 * 24 * 3600 * 1000;
const BY_RELATION = new Set(["relation-comment-text", "suggest-text"]);

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
  const key = (field, c) => prefix + field + "." + (BY_RELATION.has(field) ? c.relation.id : c.item.id);
  const note = (field, shown) => { document.getElementById(field + "-draft").hidden = !shown; };
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
    // saved (`text`: what was sent; the draft stays if the reviewer typed on meanwhile) or discarded
    forget(field, c, text) {
      const k = key(field, c);
      if (text === undefined || get(k) === text) put(k, "");
      const ctx = current();
      if (ctx && key(field, ctx) === k) note(field, false);
    },
  };
}
