// The review screen's page and its shared state: the #review element's data (the API's address,
// the language and its direction, the reviewer), the decision kinds, the status line, and
// `state`, the one object every module of the screen reads and changes (modules share bindings,
// not variables: `state.ctx`, never a copy of it).
import {isolate} from "./bidi.js";
import {createDrafts} from "./drafts.js";
import {t} from "./i18n.js";

export const $ = (id) => document.getElementById(id);
export const root = $("review");
export const api = root.dataset.api;           // /api/v1/languages/<lang>
export const lang = root.dataset.lang;
export const rtl = root.dataset.dir === "rtl";
export const csrfMeta = document.querySelector('meta[name="csrf-token"]');

// The language's own text (template, correction, suggestion) as an isolate.
export const own = (text) => isolate(text, rtl ? "rtl" : "ltr", lang);

// {ACCEPT: "accept", AMEND: "amend", …}: the decision kinds, from core.enums (web/review.py decision_kinds)
export const KINDS = JSON.parse($("decision-kinds").textContent);

const LABELS = {
  [KINDS.ACCEPT]: "Accepted", [KINDS.AMEND]: "Amended", [KINDS.REJECT]: "Rejected", [KINDS.UNSURE]: "Marked unsure",
};
export const label = (kind) => t(LABELS[kind] || kind);

export const state = {
  items: [],       // the queue: {id, position, relation, template, decision, correction}
  ctx: null,       // the current item's context
  shownAt: 0,      // when the current item appeared, for time spent
  busy: false,
  intro: root.dataset.guidelinesSeen !== "1",  // the guidelines come before the first item
  progress: null,  // the last progress shown ({done, total, remaining, time_left})
  offline: false,  // the server cannot be reached (offline.js)
  amendStart: "",  // the text the amend field opened with: a draft only once it differs (amend.js)
  asking: false,   // the question about typed work a decision would leave behind is open (pending.js)
};

// Busy: a decision, an undo or a move is under way (another is ignored until it ends); the page
// says so on #review[data-busy] for whoever waits on it (the browser tests wait on this state).
export function setBusy(busy) {
  state.busy = busy;
  root.dataset.busy = busy ? "1" : "0";
}

export function indexOf(id) { return state.items.findIndex((i) => i.id === id); }

export function uuid() {
  if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
  return "r" + Date.now().toString(36) + Math.random().toString(36).slice(2, 12);
}

export function say(message, kind) {
  const el = $("status");
  el.textContent = message || "";
  el.className = "status" + (kind ? " " + kind : "");
}

// The session ended (401): say so plainly, with a link back here after signing in.
export function saySignedOut() {
  const el = $("status");
  el.textContent = t("Your session ended — sign in again; your place is kept.") + " ";
  el.className = "status error";
  const link = document.createElement("a");
  link.href = root.dataset.login + "?next=" + encodeURIComponent(location.pathname + location.hash);
  link.textContent = t("Sign in");
  link.id = "sign-in-again";
  el.appendChild(link);
}

// The relation heading, the status and the progress are at the top of the page.
export function toTop() { window.scrollTo(0, 0); }

// This reviewer's drafts in this language (drafts.js), kept for what is on screen.
export const drafts = createDrafts(root.dataset.user, lang, () => state.ctx);
