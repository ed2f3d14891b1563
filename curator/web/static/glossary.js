// The glossary on the review screen: the terms of the item's English pattern, each with the
// language's preferred translation and note, and that translation highlighted in the template
// and its examples. Kept apart from review.js: it watches the item card (review.js sets
// data-item after drawing an item) and asks the glossary endpoint (docs/review-api.md).
// Everything is put in as text nodes: no user text is ever parsed as HTML.
import {bdi} from "./review/bidi.js";

const root = document.getElementById("review");
const card = document.getElementById("item-card");
const box = document.getElementById("glossary");
const cache = new Map();  // item id -> its terms

// A term, translation or note as stored (no markers), isolated in its own language and direction.
const term = (text, lang, dir) => bdi(text, {lang, dir, markers: false});

// Wrap each occurrence of `words` (the template's own spellings) in the text of `container`,
// leaving the subject and object of an example (strong, mark) alone.
function highlight(container, words, titles) {
  if (!words.length) return;
  const walker = document.createTreeWalker(container, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => node.parentElement.closest("strong, mark, .glossary-term") ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
  });
  const nodes = [];
  while (walker.nextNode()) nodes.push(walker.currentNode);
  nodes.forEach((node) => {
    let rest = node;
    for (;;) {
      let best = null;
      words.forEach((w) => {
        const at = rest.data.indexOf(w);
        if (at >= 0 && (best === null || at < best.at || (at === best.at && w.length > best.word.length))) best = {at, word: w};
      });
      if (best === null) break;
      const hit = rest.splitText(best.at);
      rest = hit.splitText(best.word.length);
      const span = document.createElement("span");
      span.className = "glossary-term";
      span.title = titles.get(best.word) || "";
      hit.replaceWith(span);
      span.appendChild(hit);
    }
  });
}

function draw(terms) {
  box.replaceChildren();
  box.hidden = !terms.length;
  if (!terms.length) return;
  const label = document.createElement("span");
  label.className = "glossary-label";
  label.textContent = box.dataset.label + " ";
  box.appendChild(label);
  const titles = new Map();
  const words = [];
  // term → translation, pointing the way the line reads: ← on a right-to-left page
  const arrow = getComputedStyle(box).direction === "rtl" ? " ← " : " → ";
  terms.forEach((t, i) => {
    if (i) box.append(" · ");
    const entry = document.createElement("span");
    entry.className = "glossary-entry" + (t.found.length ? "" : " absent");
    entry.append(term(t.term, "en", "ltr"), arrow, term(t.translation, root.dataset.lang, root.dataset.dir));
    if (t.note) entry.append(" (", term(t.note, "", "auto"), ")");
    if (!t.found.length) {
      const missing = document.createElement("small");
      missing.textContent = " " + box.dataset.missing;
      entry.appendChild(missing);
    }
    box.appendChild(entry);
    t.found.forEach((w) => { if (w && !titles.has(w)) { titles.set(w, t.term + arrow + t.translation); words.push(w); } });
  });
  highlight(document.getElementById("template"), words, titles);
  highlight(document.getElementById("examples"), words, titles);
}

// An item's terms from the server into the cache; null when it cannot be reached (offline).
async function read(id) {
  try {
    const response = await fetch(root.dataset.api + "/items/" + id + "/glossary", {credentials: "same-origin", headers: {Accept: "application/json"}});
    const terms = response.ok ? (await response.json()).terms || [] : [];
    cache.set(id, terms);
    box.dataset.known = [...cache.keys()].join(" ");  // the items whose terms are known (tests wait on it)
    return terms;
  } catch (e) {
    return null;  // offline: tried again when the item is drawn next
  }
}

// Offline and never read: said plainly, and nothing of the template shown before stays.
function unavailable() {
  box.replaceChildren();
  const label = document.createElement("span");
  label.className = "glossary-label";
  label.textContent = box.dataset.label + " ";
  box.append(label, box.dataset.offline);
  box.hidden = false;
}

async function update() {
  const id = card.dataset.item;
  if (!id) return;
  if (!cache.has(id)) { box.replaceChildren(); box.hidden = true; }  // the last template's terms go at once
  const terms = cache.has(id) ? cache.get(id) : await read(id);
  if (card.dataset.item !== id) return;  // moved on meanwhile
  if (terms === null) unavailable();
  else draw(terms);
}

if (root && card && box) {
  new MutationObserver(update).observe(card, {attributes: true, attributeFilter: ["data-item"]});
  // a template loaded ahead by review.js (to go on with offline): its terms are read too
  root.addEventListener("curator:prefetched", (event) => {
    event.detail.items.filter((id) => !cache.has(id)).forEach(read);
  });
  update();
}
