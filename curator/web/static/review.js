// The review screen: one template at a time, keyboard first, every decision saved at once.
// All text from the server is inserted with textContent, never as HTML.
(function () {
  "use strict";
  const root = document.getElementById("review");
  if (!root) return;
  const api = root.dataset.api;           // /api/v1/languages/<lang>
  const lang = root.dataset.lang;
  const rtl = root.dataset.dir === "rtl";
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const $ = (id) => document.getElementById(id);

  let items = [];      // the queue: {id, position, relation, template, decision, correction}
  let ctx = null;      // the current item's context
  let shownAt = 0;     // when the current item appeared, for time spent
  let busy = false;

  function uuid() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return "r" + Date.now().toString(36) + Math.random().toString(36).slice(2, 12);
  }

  function say(message, kind) {
    const el = $("status");
    el.textContent = message || "";
    el.className = "status" + (kind ? " " + kind : "");
  }

  async function call(method, path, body) {
    const options = {method, headers: {"Accept": "application/json"}, credentials: "same-origin"};
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.headers["X-CSRFToken"] = csrf;
      options.body = JSON.stringify(body);
    }
    // A dropped connection or a busy database (503) is retried with the same body (and
    // request id), so nothing is stored twice and nothing is lost.
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await fetch(path.startsWith("/api/") ? path : api + path, options);
        if (response.status === 503 && attempt < 8) {
          // the database is busy with another writer: wait as told, then send the very same
          // request (same request id), which the server stores at most once
          const wait = Math.min(10, Number(response.headers.get("Retry-After")) || 1);
          say("The server is busy; saving again in a moment…", "warn");
          await new Promise((r) => setTimeout(r, wait * 1000));
          continue;
        }
        const data = await response.json().catch(() => ({}));
        if (response.status === 401) {
          say("Your session has ended: sign in again in another tab, then retry. Nothing typed here is lost.", "error");
        }
        return {ok: response.ok, status: response.status, data};
      } catch (err) {
        if (attempt >= 4) {
          say("Cannot reach the server. Your last action was not saved; check the connection and try again.", "error");
          return {ok: false, status: 0, data: {}};
        }
        say("Connection trouble, retrying…", "warn");
        await new Promise((r) => setTimeout(r, 500 * 2 ** attempt));
      }
    }
  }

  function indexOf(id) { return items.findIndex((i) => i.id === id); }

  function setProgress(p) {
    $("progress").max = p.total || 1;
    $("progress").value = p.done;
    const minutes = Math.max(1, Math.round(p.estimate_seconds / 60));
    $("progress-text").textContent = p.remaining
      ? `${p.done} of ${p.total} reviewed · about ${minutes} min left`
      : `All ${p.total} reviewed — thank you! You can still revise any of them.`;
  }

  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }

  function li(text, className) {
    const el = document.createElement("li");
    el.textContent = text;
    if (className) el.className = className;
    return el;
  }

  const LABELS = {accept: "Accepted", amend: "Amended", reject: "Rejected"};

  function render() {
    const c = ctx;
    const inRelation = items.filter((i) => i.relation === c.relation.id);
    const k = inRelation.findIndex((i) => i.id === c.item.id) + 1;
    $("position").textContent = `Template ${k} of ${inRelation.length} in ${c.relation.id} · ${indexOf(c.item.id) + 1} of ${items.length} overall`;
    $("relation-id").textContent = c.relation.id;
    $("relation-lemma").textContent = c.relation.lemma ? `“${c.relation.lemma}”` : "";
    document.querySelectorAll(".relation-name").forEach((el) => { el.textContent = c.relation.id; });
    const english = $("english");
    clear(english);
    c.relation.english.forEach((p) => english.appendChild(li(p)));
    $("template").textContent = c.template.text;
    $("systems").textContent = c.template.systems.map((s) => s.replace(/^pararel_/, "")).join(", ");
    $("votes").textContent = `(${c.template.votes} votes)`;

    const sources = $("sources");
    clear(sources);
    const seen = new Set();
    c.sources.forEach((s) => {
      if (s.english && !seen.has("en:" + s.english)) {
        seen.add("en:" + s.english);
        sources.appendChild(li(`Translates: ${s.english}`, "source-en"));
      }
      s.repairs.forEach((r) => {
        const key = `${r.from}>${r.to}`;
        if (seen.has(key)) return;
        seen.add(key);
        const el = li("", "repair");
        el.append("Placeholder repaired: ");
        const from = document.createElement("code"); from.textContent = r.from; from.dir = "auto";
        const to = document.createElement("code"); to.textContent = r.to;
        el.append(from, " → ", to, ` (${r.rule}, ${s.system.replace(/^pararel_/, "")})`);
        sources.appendChild(el);
      });
    });

    renderSignals(c.signals);
    renderChecks(c.signals);
    renderProbe(c.probe);

    const examples = $("examples");
    clear(examples);
    c.examples.forEach((e) => {
      const el = document.createElement("li");
      e.parts.forEach((part) => {
        if (part.slot) {
          const mark = document.createElement(part.slot === "Y" ? "mark" : "strong");
          mark.textContent = part.text;
          mark.title = part.slot === "X" ? "subject" : "object";
          el.appendChild(mark);
        } else {
          el.appendChild(document.createTextNode(part.text));
        }
      });
      examples.appendChild(el);
    });
    if (!c.examples.length) examples.appendChild(li("(no example tuples for this relation)"));

    const badge = $("decision-badge");
    const d = c.decision;
    badge.hidden = !d;
    badge.className = "badge" + (d ? " " + d.decision : "");
    badge.textContent = d ? `${LABELS[d.decision]}${d.correction ? ": " + d.correction : ""} — you can change it` : "";

    const suggestions = $("suggestions");
    clear(suggestions);
    c.suggestions.forEach((s) => suggestions.appendChild(li(s.text)));
    hideAmend();
    $("item-card").dataset.item = c.item.id;
    history.replaceState(null, "", "#item-" + c.item.id);
  }

  // Back-translation (SPEC §7): what the template says in English again; a low similarity is a warning.
  function renderSignals(sig) {
    const el = $("back-translation");
    const show = Boolean(sig && sig.similarity !== null && sig.similarity !== undefined);
    el.hidden = !show;
    el.classList.toggle("low", Boolean(show && sig.warn));
    clear(el);
    if (!show) return;
    el.append("Back-translated: ");
    const bt = document.createElement("q"); bt.lang = "en"; bt.textContent = sig.back_translation;
    el.append(bt, ` — similarity to the English ${Math.round(100 * sig.similarity)}%`);
    if (sig.warn) el.append(" (low: check the meaning)");
  }

  // The quality checks that warn for this template (the registry in curator/quality/checks),
  // each named with its description on hover.
  function renderChecks(sig) {
    const el = $("checks");
    clear(el);
    const warnings = ((sig && sig.checks) || []).filter((c) => c.warn);
    el.hidden = warnings.length === 0;
    if (!warnings.length) return;
    el.append("Worth a look: ");
    warnings.forEach((c, i) => {
      const span = document.createElement("span");
      span.className = "warn";
      span.title = c.description;
      span.textContent = `${c.name} (${c.display})`;
      el.append(...(i ? [" · ", span] : [span]));
    });
  }

  // Model disagreement (SPEC §7): how this template fared in the latest probe run, if it was there.
  function renderProbe(p) {
    const el = $("probe-agreement");
    el.hidden = !p;
    el.classList.toggle("low", Boolean(p && p.low));
    if (!p) { el.textContent = ""; return; }
    const pct = (x) => Math.round(100 * x);
    el.textContent = `In the latest probe run (${p.model}), this template's prediction agrees with the relation's ` +
      `other templates for ${pct(p.agreement)}% of tuples (relation average ${pct(p.relation_mean)}%).` +
      (p.low ? " That is far below the others: worth a careful look." : "");
  }

  async function load(id) {
    const r = await call("GET", `/items/${id}`);
    if (!r.ok) { say(r.data.error || "Could not load the template.", "error"); return; }
    ctx = r.data;
    shownAt = performance.now();
    render();
  }

  async function refreshQueue() {
    const r = await call("GET", "/queue");
    if (!r.ok) { say(r.data.error || "Could not load your sample.", "error"); return null; }
    items = r.data.items;
    setProgress(r.data.progress);
    return r.data;
  }

  async function decide(kind, correction) {
    if (!ctx || busy) return;
    busy = true;
    try {
      const seconds = Math.round((performance.now() - shownAt) / 100) / 10;
      const body = {decision: kind, seconds, request_id: uuid()};
      if (kind === "amend") body.correction = correction;
      const r = await call("POST", `/items/${ctx.item.id}/decision`, body);
      if (!r.ok) {
        if (kind === "amend") {
          $("amend-msg").textContent = r.data.error || "Not saved.";
          $("amend-msg").className = "validation invalid";
          $("amend-text").focus();
        } else {
          say(r.data.error || "Not saved.", "error");
        }
        return;
      }
      const done = items[indexOf(ctx.item.id)];
      done.decision = r.data.decision.decision;
      done.correction = r.data.decision.correction;
      setProgress(r.data.progress);
      say(`${LABELS[kind]}. Saved.`, "ok");
      if (r.data.next) await load(r.data.next);
      else { ctx.decision = r.data.decision; render(); say("All templates reviewed. Thank you!", "ok"); }
    } finally {
      busy = false;
    }
  }

  function showAmend() {
    if (!ctx || busy) return;  // the next template is still loading
    $("amend-form").hidden = false;
    const input = $("amend-text");
    input.value = ctx.decision && ctx.decision.correction ? ctx.decision.correction : ctx.template.text;
    $("amend-msg").textContent = "";
    input.focus();
    input.setSelectionRange(input.value.length, input.value.length);
  }

  function hideAmend() {
    if (document.activeElement === $("amend-text")) $("amend-text").blur();  // keys go back to the page
    $("amend-form").hidden = true;
    $("amend-msg").textContent = "";
  }

  function debounce(fn, ms) {
    let t = 0;
    return (...args) => { clearTimeout(t); t = setTimeout(() => fn(...args), ms); };
  }

  const liveCheck = (input, out) => debounce(async () => {
    const text = input.value;
    if (!text.trim()) { out.textContent = ""; return; }
    const r = await call("POST", "/api/v1/validate", {text, language: lang});
    if (input.value !== text) return;  // typed on meanwhile
    // The server's cleaned form is what will be stored: show it when it differs from the typed text.
    const stored = r.data.valid && r.data.cleaned !== text.trim() ? ` — will be saved as “${r.data.cleaned}”` : "";
    out.textContent = r.data.valid ? "✓ valid template" + stored : (r.data.message || "");
    out.className = "validation " + (r.data.valid ? "valid" : "invalid");
    input.setAttribute("aria-invalid", r.data.valid ? "false" : "true");
  }, 150);

  async function undo() {
    if (busy) return;
    busy = true;
    try {
      const r = await call("POST", "/undo", {});
      if (!r.ok) { say(r.data.error || "Could not undo.", "error"); return; }
      if (!r.data.undone) { say("Nothing to undo.", "warn"); return; }
      await refreshQueue();
      await load(r.data.undone.item_id);
      say(`Undone: your ${r.data.undone.decision} of this template.`, "ok");
    } finally {
      busy = false;
    }
  }

  function step(delta) {
    if (!ctx || busy) return;
    const i = indexOf(ctx.item.id) + delta;
    if (i >= 0 && i < items.length) load(items[i].id);
  }

  async function suggest(event) {
    event.preventDefault();
    const input = $("suggest-text");
    const r = await call("POST", `/relations/${encodeURIComponent(ctx.relation.id)}/suggestions`,
                         {text: input.value, request_id: uuid()});
    const out = $("suggest-msg");
    if (!r.ok) { out.textContent = r.data.error || "Not saved."; out.className = "validation invalid"; return; }
    out.textContent = r.data.created ? "Suggestion saved. Thank you!" : "You already suggested this one.";
    out.className = "validation valid";
    if (r.data.created) { ctx.suggestions.push(r.data.suggestion); $("suggestions").appendChild(li(r.data.suggestion.text)); }
    input.value = "";
    input.blur();
  }

  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const typing = ["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement.tagName);
    if (typing) {
      if (event.key === "Escape") {
        if (document.activeElement === $("amend-text")) hideAmend();
        document.activeElement.blur();
        event.preventDefault();
      }
      return;
    }
    const key = event.key.toLowerCase();
    const forward = rtl ? "arrowleft" : "arrowright";
    const back = rtl ? "arrowright" : "arrowleft";
    const actions = {
      a: () => decide("accept"), r: () => decide("reject"), e: showAmend, u: undo,
      j: () => step(1), k: () => step(-1), [forward]: () => step(1), [back]: () => step(-1),
      s: () => $("suggest-text").focus(), "?": toggleHelp,
    };
    if (actions[key]) { event.preventDefault(); actions[key](); }
  }

  function toggleHelp() {
    const help = $("help");
    help.hidden = !help.hidden;
    $("help-toggle").setAttribute("aria-expanded", String(!help.hidden));
  }

  $("accept").addEventListener("click", () => decide("accept"));
  $("reject").addEventListener("click", () => decide("reject"));
  $("amend").addEventListener("click", showAmend);
  $("amend-cancel").addEventListener("click", hideAmend);
  $("amend-form").addEventListener("submit", (e) => { e.preventDefault(); decide("amend", $("amend-text").value); });
  $("amend-text").addEventListener("input", liveCheck($("amend-text"), $("amend-msg")));
  $("suggest-text").addEventListener("input", liveCheck($("suggest-text"), $("suggest-msg")));
  $("suggest-form").addEventListener("submit", suggest);
  $("undo").addEventListener("click", undo);
  $("prev").addEventListener("click", () => step(-1));
  $("next").addEventListener("click", () => step(1));
  $("help-toggle").addEventListener("click", toggleHelp);
  document.addEventListener("keydown", onKey);

  (async function start() {
    const data = await refreshQueue();
    if (!data) return;
    if (!items.length) { say("Your sample is empty.", "warn"); return; }
    const wanted = Number((location.hash.match(/^#item-(\d+)$/) || [])[1]);
    const id = items.some((i) => i.id === wanted) ? wanted : (data.next || items[0].id);
    await load(id);
    root.dataset.ready = "1";
  })();
})();
