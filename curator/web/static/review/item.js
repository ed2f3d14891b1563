// The item on screen (review.html's item card): the relation, the template and its sources,
// another reviewer's proposal, the signals (back-translation, quality checks, probe agreement),
// the examples, your decision, the suggestions and the progress. Every text goes in as text
// (bidi.js), never as HTML.
import {clear, isolate, li, marked, setMessage, show} from "./bidi.js";
import {t, tn, tNodes} from "./i18n.js";
import {$, indexOf, label, own, root, say, state} from "./page.js";
import {hideAmend} from "./amend.js";
import {renderComments} from "./comments.js";

export function setProgress(p) {
  state.progress = p;
  $("progress").max = p.total || 1;
  $("progress").value = p.done;
  $("progress-text").textContent = p.remaining
    ? t("%(done)s of %(total)s reviewed · %(left)s", {done: p.done, total: p.total, left: p.time_left})
    : tn("%(num)s template reviewed — thank you! You can still revise it.",
         "All %(num)s templates reviewed — thank you! You can still revise any of them.", p.total);
}

// What an amendment changes (review/text_diff.py's segments, as web/diffs.py renders them on
// the pages): deleted text in <del>, inserted text in <ins>, each opened by a visually hidden
// label for screen readers that isolates itself (dir=auto) so it never sets the diff's direction.
function renderDiff(el, segments) {
  clear(el);
  segments.forEach((s) => {
    if (s.op === "equal") { el.append(marked(s.text)); return; }
    const change = document.createElement(s.op === "delete" ? "del" : "ins");
    const hidden = document.createElement("span");
    hidden.className = "visually-hidden";
    hidden.dir = "auto";
    hidden.textContent = (s.op === "delete" ? t("deleted:") : t("inserted:")) + " ";
    change.append(hidden, marked(s.text));
    el.append(change);
  });
}

// Messages about the previous item must not linger on the next one.
export function clearMessages() {
  say("");
  ["suggest-msg", "item-comment-msg", "relation-comment-msg", "amend-msg"].forEach((id) => {
    $(id).textContent = "";
    $(id).className = "validation";
  });
}

export function render() {
  const c = state.ctx;
  const inRelation = state.items.filter((i) => i.relation === c.relation.id);
  const k = inRelation.findIndex((i) => i.id === c.item.id) + 1;
  $("position").textContent = t("Template %(k)s of %(n)s in this relation · %(i)s of %(total)s overall",
                                {k, n: inRelation.length, i: indexOf(c.item.id) + 1, total: state.items.length});
  renderRelation(c.relation);
  show($("template"), c.template.text);
  renderProposal(c.proposal || null);
  $("systems").textContent = c.template.systems.map((s) => s.replace(/^pararel_/, "")).join(", ");
  $("votes").textContent = tn("(%(num)s vote)", "(%(num)s votes)", c.template.votes);
  renderSources(c.sources);
  renderSignals(c.signals);
  renderChecks(c.signals);
  renderProbe(c.probe);
  renderExamples(c.examples);
  renderDecision(c.decision);
  const suggestions = $("suggestions");
  clear(suggestions);
  c.suggestions.forEach((s) => suggestions.appendChild(li(s.text)));
  renderComments();
  hideAmend();
  $("item-card").dataset.item = c.item.id;
  announceItem(c, k, inRelation.length);
  history.replaceState(null, "", "#item-" + c.item.id);
}

function renderRelation(relation) {
  $("relation-title").textContent = relation.title || relation.id;
  markTitleLanguage(relation);
  $("relation-id").textContent = relation.id;
  document.querySelectorAll(".relation-name").forEach((el) => { el.textContent = relation.title || relation.id; el.dir = "auto"; });
  const english = $("english");
  clear(english);
  relation.english.forEach((p) => english.appendChild(li(p)));
  show($("english-first"), relation.english[0] || "");
}

// another reviewer's amendment or suggestion, here for a second look (never who made it)
function renderProposal(proposal) {
  $("proposal").hidden = !proposal;
  $("proposal-amends").hidden = !(proposal && proposal.amends);
  $("proposal-suggested").hidden = !(proposal && !proposal.amends);
  show($("proposal-original"), proposal && proposal.amends ? proposal.amends : "");
  const changes = proposal && proposal.amends ? proposal.diff || [] : [];
  $("proposal-change").hidden = !changes.length;
  renderDiff($("proposal-diff"), changes);
}

function renderSources(list) {
  const sources = $("sources");
  clear(sources);
  const seen = new Set();
  list.forEach((s) => {
    if (s.english && !seen.has("en:" + s.english)) {
      seen.add("en:" + s.english);
      const el = li("", "source-en");
      el.append(tNodes("Translates: %(english)s", {english: isolate(s.english, "ltr", "en")}));
      sources.appendChild(el);
    }
    s.repairs.forEach((r) => {
      const key = `${r.from}>${r.to}`;
      if (seen.has(key)) return;
      seen.add(key);
      const el = li("", "repair");
      el.append(t("Placeholder repaired:") + " ");
      const from = document.createElement("code"); from.append(marked(r.from)); from.dir = "auto";
      const to = document.createElement("code"); to.append(marked(r.to)); to.dir = "auto";
      el.append(from, " → ", to, ` (${r.rule}, ${s.system.replace(/^pararel_/, "")})`);
      sources.appendChild(el);
    });
  });
}

function renderExamples(list) {
  const examples = $("examples");
  clear(examples);
  list.forEach((e) => {
    const el = document.createElement("li");
    if (e.gender) {  // an annotated template: filled in with the forms for a man, for a woman
      const gender = document.createElement("span");
      gender.className = "example-gender";
      gender.dataset.gender = e.gender;
      gender.append(t(e.gender === "FEM" ? "a woman:" : "a man:") + " ");
      el.appendChild(gender);
    }
    e.parts.forEach((part) => {
      if (part.slot) {
        const mark = document.createElement(part.slot === "Y" ? "mark" : "strong");
        mark.append(marked(part.text));
        mark.title = part.slot === "X" ? t("subject") : t("object");
        el.appendChild(mark);
      } else {
        el.appendChild(marked(part.text));
      }
    });
    examples.appendChild(el);
  });
  if (!list.length) examples.appendChild(li(t("(no example tuples for this relation)")));
}

function renderDecision(d) {
  const badge = $("decision-badge");
  badge.hidden = !d;
  badge.className = "badge" + (d ? " " + d.decision : "");
  setMessage(badge, d ? (d.correction
    ? tNodes("%(decision)s: %(correction)s — you can change it", {decision: label(d.decision), correction: own(d.correction)})
    : d.reason ? tNodes("%(decision)s (why: %(reason)s) — you can change it", {decision: label(d.decision), reason: own(d.reason)})
    : t("%(decision)s — you can change it", {decision: label(d.decision)})) : "");
}

// Screen readers: the live region says the new template (and where it is) once per item shown,
// the template isolated in its own language and direction.
function announceItem(c, k, n) {
  const region = $("item-announce");
  if (!region || region.dataset.item === String(c.item.id)) return;
  region.dataset.item = String(c.item.id);
  setMessage(region, tNodes("Template %(k)s of %(n)s in this relation: %(template)s",
                            {k, n, template: isolate(c.template.text, root.dataset.dir, root.dataset.lang)}));
}

// Back-translation (SPEC §7): what the template says in English again; a low similarity is a warning.
function renderSignals(sig) {
  const el = $("back-translation");
  const shown = Boolean(sig && sig.similarity !== null && sig.similarity !== undefined);
  el.hidden = !shown;
  el.classList.toggle("low", Boolean(shown && sig.warn));
  clear(el);
  if (!shown) return;
  el.append(t("Back-translated:") + " ");
  const bt = document.createElement("q"); bt.lang = "en"; bt.dir = "ltr"; bt.textContent = sig.back_translation;
  el.append(bt, " " + t("— similarity to the English %(pct)s", {pct: Math.round(100 * sig.similarity) + "%"}));
  if (sig.warn) el.append(" " + t("(low: check the meaning)"));
}

// A relation title with no translation in the interface language is English: say so
// (web/check_text.py sends `title_lang`), so it is read and hyphenated as English.
function markTitleLanguage(relation) {
  const titled = [$("relation-title"), ...document.querySelectorAll(".relation-name")];
  titled.forEach((el) => {
    if (relation.title_lang && relation.title_lang !== document.documentElement.lang) el.lang = relation.title_lang;
    else el.removeAttribute("lang");
  });
}

// The quality checks that warn for this template (the registry in curator/quality/checks),
// each named with its description on hover.
function renderChecks(sig) {
  const el = $("checks");
  clear(el);
  const warnings = ((sig && sig.checks) || []).filter((c) => c.warn);
  el.hidden = warnings.length === 0;
  if (!warnings.length) return;
  el.append(t("Worth a look:") + " ");
  warnings.forEach((c, i) => {
    const span = document.createElement("span");
    span.className = "warn";
    span.title = c.description;
    span.textContent = `${c.name} (${c.display})`;
    el.append(...(i ? [" · ", span] : [span]));
    if (c.twin) {  // gender-pair (issue 39 §2): the other template and the merge, each an isolate
      const twin = document.createElement("span");
      twin.className = "gender-twin";
      twin.append(tNodes("Differs only in gendered forms from %(twin)s; merged: %(merged)s",
                         {twin: own(c.twin), merged: own(c.merged)}));
      el.append(" ", twin);
    }
  });
}

// Model disagreement (SPEC §7): how this template fared in the latest probe run, if it was there.
function renderProbe(p) {
  const el = $("probe-agreement");
  el.hidden = !p;
  el.classList.toggle("low", Boolean(p && p.low));
  if (!p) { el.textContent = ""; return; }
  const pct = (x) => Math.round(100 * x) + "%";
  setMessage(el, tNodes("In the latest probe run (%(model)s), this template's prediction agrees with the relation's " +
                        "other templates for %(pct)s of tuples (relation average %(mean)s).",
                        {model: isolate(p.model, "ltr"), pct: pct(p.agreement), mean: pct(p.relation_mean)}),
             p.low ? " " + t("That is far below the others: worth a careful look.") : "");
}
