// Bidirectional text (issue 27) and invisible characters, for every script of the review screen:
// the ONE place a <bdi> is built. A template or a person's text placed inside a message is
// isolated in a <bdi> with its own language's direction, so an Arabic correction inside an
// English sentence (or a Latin template inside an Arabic one) reads in its own order, and the
// message itself keeps the interface's direction (UI_DIR). All text goes in as text nodes,
// never as HTML; invisible characters in it (core/text.py) are shown as markers such as ⟨LRM⟩
// (`marked`, as web/marks.py does on the other pages), so a reviewer sees them and can amend
// them away.
import {t} from "./i18n.js";

export const UI_DIR = document.documentElement.dir === "rtl" ? "rtl" : "ltr";

// {character: [short name, "U+200E LEFT-TO-RIGHT MARK"]} (web/marks.py invisible_names)
let NAMES = {};
try { NAMES = JSON.parse((document.getElementById("invisible-names") || {}).textContent || "{}"); } catch (err) { NAMES = {}; }

// An invisible character: a control or format character other than ZWNJ and ZWJ, which
// spell Persian, Urdu and Indic words (the rule of core/text.py).
const CONTROL_OR_FORMAT = /^[\p{Cc}\p{Cf}]$/u;
export const isInvisible = (ch) => CONTROL_OR_FORMAT.test(ch) && ch !== "\u200c" && ch !== "\u200d";

// [short name, full name] of an invisible character; the code point for one without a usual name.
export function describe(ch) {
  const point = "U+" + ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
  return NAMES[ch] || [point, point];
}

// `text` as nodes: its text, and a visible marker (named in its title and accessible name)
// in place of each invisible character.
export function marked(text) {
  const out = document.createDocumentFragment();
  let run = "";
  for (const ch of String(text)) {
    if (!isInvisible(ch)) { run += ch; continue; }
    if (run) { out.append(run); run = ""; }
    const [short, name] = describe(ch);
    const label = t("Invisible character: %(character)s", {character: name});
    const span = document.createElement("span");
    span.className = "invisible-char";
    span.setAttribute("role", "img");
    span.setAttribute("aria-label", label);
    span.title = label;
    span.textContent = "⟨" + short + "⟩";
    out.append(span);
  }
  if (run) out.append(run);
  return out;
}

// The one <bdi> builder. `text` isolated in direction `dir` ("auto" unless given; null leaves
// the element's own auto direction unset), in language `lang` (set when given, "" included:
// an unknown language), with class `className`; `markers` false puts every character in as
// stored (the context panels, the glossary), else invisible ones are shown as markers.
export function bdi(text, {dir = "auto", lang, className, markers = true} = {}) {
  const el = document.createElement("bdi");
  if (dir !== null) el.dir = dir || "auto";
  if (lang !== undefined && lang !== null) el.lang = lang;
  if (className) el.className = className;
  if (markers) el.append(marked(text));
  else if (text) el.textContent = text;
  return el;
}

// A message's parameter as an isolate: `dir` its direction, `language` its language if known.
export const isolate = (text, dir, language) => bdi(text, {dir, lang: language || undefined});

// Replace `el`'s content with a message (text or nodes), in the interface's direction.
export function setMessage(el, ...content) {
  while (el.firstChild) el.removeChild(el.firstChild);
  el.append(...content);
  el.dir = UI_DIR;
}

export function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }

// `el`'s content replaced by `text`, its invisible characters marked.
export function show(el, text) { clear(el); el.append(marked(text)); }

// A list item holding `text` (invisible characters marked).
export function li(text, className) {
  const el = document.createElement("li");
  el.append(marked(text));
  if (className) el.className = className;
  return el;
}
