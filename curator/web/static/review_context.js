// The review screen's context panels (templates/_review_context.html; the API's
// GET …/items/<id>/context and /me/context-languages, curator/review/context.py): machine
// translations of the template's English pattern, the relation in the languages the reviewer
// chose, and a translation memory. Kept apart from review.js: it follows the item review.js
// shows through #item-card's data-item, and starts an amendment through review.js's own
// Amend button. Keys map as review.js's do (keys.js): M, O, T open a panel, 1–9 amend
// from that machine translation. A line the same as the template (`same`: equal once cleaned,
// a final period or a space apart) offers no amendment, which could only be refused: no button,
// no digit, the digits numbering the other lines (the server's `key`, curator/review/context.py).
// Text from the server goes in as text nodes only.
import {bdi} from "./review/bidi.js";
import {tn} from "./review/i18n.js";
import {shortcutKey, typing} from "./review/keys.js";

const root = document.getElementById("review");
const box = document.getElementById("context");
const $ = (id) => document.getElementById(id);
const api = root.dataset.api;  // /api/v1/languages/<lang>
const lang = root.dataset.lang;
const csrfMeta = document.querySelector('meta[name="csrf-token"]');  // review.js may renew it
let T = {};
try { T = JSON.parse($("context-i18n").textContent); } catch (err) { T = {}; }
const say = (key) => (T[key] === undefined ? key : T[key]);

const PANELS = {mt: "ctx-mt", langs: "ctx-langs", memory: "ctx-memory"};
const KEYS = {m: "mt", o: "langs", t: "memory"};
let itemId = null;    // the item the panels are about
let data = null;      // its context, once loaded
let loading = null;   // the request in flight, for itemId
let open = null;      // the open panel, kept open from item to item

function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }
function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  if (className) node.className = className;
  return node;
}

// A template as stored (every character, no markers), isolated in its own direction.
const stored = (text) => bdi(text, {dir: null, className: "ctx-text", markers: false});

async function get(path) {
  const r = await fetch(path, {credentials: "same-origin", headers: {Accept: "application/json"}});
  if (!r.ok) throw new Error(String(r.status));
  return r.json();
}

// Each item's context as read, kept for the page's life: offline, a template seen (or loaded
// ahead, below) shows its own lines, never the ones of the template shown before.
const cache = new Map();
const read = (id) => get(`${api}/items/${id}/context`).then((d) => {
  cache.set(id, d);
  box.dataset.cached = [...cache.keys()].join(" ");  // the items known (tests wait on it)
  return d;
});

// The context of the item on screen, read once per item.
function ensure() {
  const id = $("item-card").dataset.item;
  if (!id) return Promise.resolve(null);
  if (id === itemId && (data || loading)) return data ? Promise.resolve(data) : loading;
  itemId = id;
  data = null;
  if (cache.has(id)) {
    data = cache.get(id);
    render();
    return Promise.resolve(data);
  }
  loading = read(id).then((d) => {
    if (itemId !== id) return null;  // moved on meanwhile
    data = d;
    loading = null;
    render();
    return d;
  }).catch((err) => {
    loading = null;
    if (itemId === id) failed(err);
    return null;
  });
  return loading;
}

// Nothing of the template shown before stays: the panels are emptied as soon as another is shown.
function blank() {
  box.dataset.ready = "0";
  $("ctx-mt-english").textContent = "";
  [$("ctx-mt-lines"), $("ctx-langs-list"), $("ctx-memory-list")].forEach(clear);
  $("ctx-memory-count").textContent = "";
}

// Not loaded: offline (the request never reached the server) it says so plainly.
function failed(err) {
  const offline = !navigator.onLine || err instanceof TypeError;
  blank();
  Object.values(PANELS).forEach((p) => {
    const target = p === "ctx-langs" ? $("ctx-langs-list") : $(p).querySelector(".context-list");
    target.appendChild(el(target.tagName === "DIV" ? "p" : "li", say(offline ? "offline" : "failed"), "validation invalid ctx-failed"));
  });
  box.dataset.ready = offline ? "offline" : "failed";
}

function render() {
  renderMachine();
  renderLanguages();
  renderMemory();
  box.dataset.ready = "1";
}

function renderMachine() {
  const list = $("ctx-mt-lines");
  clear(list);
  $("ctx-mt-english").textContent = data.machine.length ? data.machine[0].english : "";
  if (!data.machine.length) { list.appendChild(el("li", say("no_machine"), "hint")); return; }
  data.machine.forEach((m) => {
    const row = el("li");
    row.dataset.n = m.n;
    if (m.key) {
      row.dataset.key = m.key;
      row.append(el("kbd", String(m.key)), " ");
    }
    const text = stored(m.text);
    const system = el("span", m.system.replace(/^pararel_/, ""), "tag");
    row.append(text, " ", system);
    if (m.same) row.append(" ", el("span", say("same"), "tag state-standing"));
    if (!m.valid) row.append(" ", el("span", say("invalid"), "tag state-retracted"));
    // an invalid line is offered: its text is a start, the live check says what to correct
    if (!m.same) {
      const button = el("button", say("amend_from"), "link ctx-amend");
      button.type = "button";
      if (m.key) button.setAttribute("aria-keyshortcuts", String(m.key));
      button.addEventListener("click", () => amendFrom((line) => line.n === m.n));
      row.append(" ", button);
    }
    list.appendChild(row);
  });
}

function status(s) { return el("span", say(s), "tag ctx-" + s); }

function renderLanguages() {
  const list = $("ctx-langs-list");
  clear(list);
  if (!data.languages.length) { list.appendChild(el("p", say("pick"), "hint")); return; }
  data.languages.forEach((l) => {
    const group = el("div", null, "ctx-language");
    group.appendChild(el("h4", l.name));
    const ul = el("ul", null, "context-list");
    ul.lang = l.code;
    ul.dir = l.dir;
    if (!l.templates.length) ul.appendChild(el("li", say("none_accepted"), "hint"));
    l.templates.forEach((t) => {
      const row = el("li");
      row.append(stored(t.text), " ", status(t.status));
      ul.appendChild(row);
    });
    group.appendChild(ul);
    list.appendChild(group);
  });
}

function renderMemory() {
  const list = $("ctx-memory-list");
  clear(list);
  $("ctx-memory-count").textContent = data.memory.length ? tn("%(num)s similar template of another relation",
    "%(num)s similar templates of other relations", data.memory.length) : say("no_memory");
  // the similarity of the English patterns, in the page's digits ("85 %", "٨٥٪")
  const percent = new Intl.NumberFormat(document.documentElement.lang || undefined, {style: "percent"});
  data.memory.forEach((m) => {
    const row = el("li");
    const pct = el("span", percent.format(m.similarity / 100), "ctx-similarity badge");
    pct.dataset.similarity = String(m.similarity);
    pct.title = say("similarity");
    const text = stored(m.text);
    const english = bdi(m.english, {lang: "en", dir: "ltr", markers: false});
    const rel = el("span", m.title, "tag");
    if (m.title_lang) rel.lang = m.title_lang;  // "en" only where no translated title exists
    const from = el("span", null, "hint ctx-english");
    from.append(say("in_english"), " ", english);
    row.append(pct, " ", text, " ", rel, " ", status(m.status), " ", from);
    list.appendChild(row);
  });
}

function toggle(name) {
  const opening = open !== name;
  open = opening ? name : null;
  Object.entries(PANELS).forEach(([key, id]) => {
    $(id).hidden = key !== open;
    $(id + "-toggle").setAttribute("aria-expanded", String(key === open));
  });
  if (!opening) return;
  ensure();
  readAhead();
  if (name === "langs") loadChoices();
  // into view if it is not (on a phone, above the action bar: scroll-margin in curator.css);
  // the buttons above it stay where they are
  $(PANELS[name]).scrollIntoView({block: "nearest"});
}

// Amend, starting from the machine translation `which` picks: review.js's Amend (it opens and
// focuses the field), then that line's text in the field, checked live like typed text. Never
// from a line the same as the template.
async function amendFrom(which) {
  const d = await ensure();
  const line = d && d.machine.find((m) => !m.same && which(m));
  if (!line) return;
  $("amend").click();
  const input = $("amend-text");
  if ($("amend-form").hidden) return;  // review.js was busy (the next item loading)
  input.value = line.text;
  input.setSelectionRange(input.value.length, input.value.length);
  input.dispatchEvent(new Event("input", {bubbles: true}));
}

let choices = null;
async function loadChoices() {
  if (choices) return;
  try { choices = await get("/api/v1/me/context-languages"); } catch (err) { return; }
  const options = $("ctx-langs-options");
  clear(options);
  const chosen = choices.chosen.filter((c) => c !== lang);
  const rest = choices.available.filter((l) => l.code !== lang && !chosen.includes(l.code));
  const byCode = Object.fromEntries(choices.available.map((l) => [l.code, l]));
  [...chosen.map((c) => byCode[c] || {code: c, name: c}), ...rest].forEach((l) => {
    const label = el("label", null, "plain");
    const box = el("input");
    box.type = "checkbox";
    box.value = l.code;
    box.checked = chosen.includes(l.code);
    label.append(box, " ", l.name, " ", el("small", l.code));
    options.appendChild(label);
  });
}

$("ctx-langs-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const codes = [...$("ctx-langs-options").querySelectorAll("input:checked")].map((b) => b.value);
  const r = await fetch("/api/v1/me/context-languages", {
    method: "POST", credentials: "same-origin",
    headers: {"Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfMeta.content},
    body: JSON.stringify({languages: codes}),
  });
  const msg = $("ctx-langs-msg");
  if (!r.ok) { msg.textContent = ((await r.json().catch(() => ({}))).error) || say("failed"); return; }
  msg.textContent = say("saved");
  itemId = null;  // read the panels again with the new languages
  cache.clear();
  await ensure();
});

Object.entries(PANELS).forEach(([key, id]) => $(id + "-toggle").addEventListener("click", () => toggle(key)));

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
  if (typing()) return;
  if ($("work").hidden || !$("help").hidden) return;  // the guidelines are on screen
  const key = shortcutKey(event);
  if (KEYS[key]) { event.preventDefault(); if (!event.repeat) toggle(KEYS[key]); return; }
  // a number starts an amendment, never replaces one in progress (the focus may have left it)
  if (/^[1-9]$/.test(key) && $("amend-form").hidden) { event.preventDefault(); if (!event.repeat) amendFrom((m) => m.key === Number(key)); }
});

// review.js sets data-item on #item-card whenever it shows another item
new MutationObserver(() => {
  if ($("item-card").dataset.item === itemId) return;
  data = null;
  blank();
  if (open) ensure();
}).observe($("item-card"), {attributes: true, attributeFilter: ["data-item"]});

// review.js loaded a template ahead (to go on with offline): while a panel is open its context
// is read too, so it can be shown offline.
let ahead = [];  // the templates review.js loaded ahead, nearest first
let readingAhead = false;
async function readAhead() {  // one at a time, while a panel is open
  if (readingAhead) return;
  readingAhead = true;
  try {
    for (const id of [...ahead]) {
      if (!open) break;
      if (cache.has(id)) continue;
      try { await read(id); } catch (err) { break; }  // offline: later
    }
  } finally {
    readingAhead = false;
  }
}
root.addEventListener("curator:prefetched", (event) => {
  ahead = event.detail.items;
  if (open) readAhead();
});
