// Amend (E): the template (or your earlier correction, or a draft of one) in the amend field to
// edit, its invisible characters taken out and named; Esc or Cancel gives the correction up.
import {describe, isInvisible} from "./bidi.js";
import {t} from "./i18n.js";
import {$, drafts, state} from "./page.js";

export function showAmend() {
  const ctx = state.ctx;
  if (!ctx || state.busy || state.intro) return;  // the next template is still loading
  $("amend-form").hidden = false;
  const input = $("amend-text");
  delete input.dataset.sameAs;  // what the server said of another text (livecheck.js)
  // A typed template may not hold invisible characters (the server refuses them), so the text
  // to edit comes without them — a line break or tab becomes a space — and the reviewer is
  // told which were taken out: saving the correction amends them away.
  const start = ctx.decision && ctx.decision.correction ? ctx.decision.correction : ctx.template.text;
  const draft = drafts.stored("amend-text", ctx);  // a correction typed earlier and not saved
  const text = draft || start;
  state.amendStart = start;
  const found = [...new Set([...text].filter(isInvisible))];
  input.value = [...text].map((ch) => (isInvisible(ch) ? (/[\t\n\v\f\r\x85]/.test(ch) ? " " : "") : ch)).join("");
  $("amend-msg").textContent = found.length
    ? t("Invisible characters were taken out of the text to edit: %(characters)s. Saving the correction leaves them out.",
        {characters: found.map((ch) => describe(ch)[1]).join(", ")})
    : "";
  $("amend-msg").className = "validation";
  input.removeAttribute("aria-invalid");
  input.focus();
  input.setSelectionRange(input.value.length, input.value.length);
  $("amend-text-draft").hidden = true;  // the draft is in the field now
  if (draft) input.dispatchEvent(new Event("input"));  // checked as typed
}

// Esc or Cancel: the correction is given up, its draft too.
export function cancelAmend() {
  if (state.ctx) drafts.forget("amend-text", state.ctx);
  hideAmend();
}

export function hideAmend() {
  if (document.activeElement === $("amend-text")) $("amend-text").blur();  // keys go back to the page
  $("amend-form").hidden = true;
  $("amend-msg").textContent = "";
}
