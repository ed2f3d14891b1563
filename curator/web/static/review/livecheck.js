// The live check of a typed template (the amend and suggestion fields): the server's check
// (POST /api/v1/validate), as typed, a moment after the last keystroke.
import {setMessage} from "./bidi.js";
import {t, tNodes} from "./i18n.js";
import {lang, own, state} from "./page.js";
import {call} from "./server.js";

function debounce(fn, ms) {
  let timer = 0;
  const later = (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), ms); };
  later.cancel = () => clearTimeout(timer);
  return later;
}

// An annotated template's live check (review/annotations.py): the supported syntax, in the
// server's words, and the template as filled in for a man and for a woman, each an isolate.
function annotationHelp(data) {
  const help = document.createElement("span");
  help.className = "syntax-help";
  help.append(data.syntax);
  const nodes = [" ", help];
  (data.genders || []).forEach((g) => {
    const line = document.createElement("span");
    line.className = "gender-form";
    line.dataset.gender = g.gender;
    line.append(g.label + ": ", own(g.text));
    nodes.push(" ", line);
  });
  return nodes;
}

// The server's answer about `text` into `out` (and `input`'s aria-invalid).
function showCheck(input, out, text, data) {
  // The server's cleaned form is what will be stored: show it when it differs from the typed text.
  const stored = data.valid && data.cleaned !== text.trim()
    ? [" ", tNodes("— will be saved as “%(cleaned)s”", {cleaned: own(data.cleaned)})] : [];
  if (data.valid) setMessage(out, t("✓ valid template"), ...stored);
  else setMessage(out, data.message || "");
  if (data.syntax) out.append(...annotationHelp(data));
  out.className = "validation " + (data.valid ? "valid" : "invalid") + (data.same ? " same" : "");
  input.setAttribute("aria-invalid", data.valid ? "false" : "true");
  // the text the server found to be the template itself (pending.js: nothing to lose by accepting)
  if (data.same) input.dataset.sameAs = text;
  else delete input.dataset.sameAs;
}

// The server's check of a typed template (POST /api/v1/validate); an amendment is checked as an
// amendment of the item on screen (`amends`), so a line that cleans to the template itself is
// said to be the same (review/validation.py same_as_template), never "valid". Offline nothing
// was attempted: the field says it cannot be checked now, and nothing speaks of an unsaved action.
// The field's form calls `cancel()` when it is sent: a check still waiting for its moment, or on its
// way, is dropped, so it cannot replace what the sending says ("Suggestion saved", a refusal) with
// the emptied field's nothing or a stale "valid" (a quick reviewer sends within the 150 ms).
export function liveCheck(input, out, amends) {
  let latest = 0;  // the number of the latest check; an answer to an earlier or cancelled one is dropped
  const check = debounce(async () => {
    const asked = ++latest;
    const text = input.value;
    if (!text.trim()) { out.textContent = ""; return; }
    const body = {text, language: lang};
    if (amends && state.ctx) body.item = state.ctx.item.id;
    const r = await call("POST", "/api/v1/validate", body, true);
    if (asked !== latest || input.value !== text) return;  // cancelled, or typed on meanwhile
    showAnswer(input, out, text, r);
  }, 150);
  const onInput = () => check();
  onInput.cancel = () => { check.cancel(); latest++; };
  return onInput;
}

// The answer to a check into `out`: the check itself, or that it could not be made now.
function showAnswer(input, out, text, r) {
  if (r.status === 0) {
    setMessage(out, t("Not checked: the server cannot be reached. It is checked when the connection is back."));
    out.className = "validation warn";
    return;
  }
  if (!r.ok) return;  // signed out (said already) or refused
  showCheck(input, out, text, r.data);
}
