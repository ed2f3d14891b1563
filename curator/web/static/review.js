// The review screen: one template at a time, keyboard first, every decision saved at once.
// All text from the server is inserted as text nodes, never as HTML; invisible characters in
// it (core/text.py) are shown as markers such as ⟨LRM⟩ (`marked`, as web/marks.py does on the
// other pages), so a reviewer sees them and can amend them away. Every string shown
// here is translated: the page emits them in a JSON data block (#i18n, see curator/web/i18n.py
// JS_MESSAGES) and `t` looks them up and fills in %(name)s placeholders.
(function () {
  "use strict";
  const root = document.getElementById("review");
  if (!root) return;
  const api = root.dataset.api;           // /api/v1/languages/<lang>
  const lang = root.dataset.lang;
  const rtl = root.dataset.dir === "rtl";
  const csrfMeta = document.querySelector('meta[name="csrf-token"]');
  const $ = (id) => document.getElementById(id);

  let MESSAGES = {};
  try { MESSAGES = JSON.parse(($("i18n") || {}).textContent || "{}"); } catch (err) { MESSAGES = {}; }

  // The translation of `msg` (English as the key), with %(name)s filled from `params`.
  function t(msg, params) {
    const text = Object.prototype.hasOwnProperty.call(MESSAGES, msg) ? MESSAGES[msg] : msg;
    return text.replace(/%\((\w+)\)s/g, (whole, key) =>
      params && Object.prototype.hasOwnProperty.call(params, key) ? String(params[key]) : whole);
  }

  // Messages with a count (web/i18n.py js_plurals): {English singular: {CLDR category: form}},
  // the form chosen by the page language's plural rules (Arabic has six), %(num)s filled with n.
  let PLURALS = {};
  try { PLURALS = JSON.parse(($("i18n-plurals") || {}).textContent || "{}"); } catch (err) { PLURALS = {}; }
  const pluralRules = new Intl.PluralRules(document.documentElement.lang || "en");
  function tn(singular, plural, n, params) {
    const forms = Object.prototype.hasOwnProperty.call(PLURALS, singular) ? PLURALS[singular] : null;
    const form = forms ? (forms[pluralRules.select(n)] || forms.other) : (n === 1 ? singular : plural);
    return t(form, Object.assign({num: n}, params || {}));
  }
  window.curatorTn = tn;  // review_context.js says its counts with the same forms

  // {ACCEPT: "accept", AMEND: "amend", …}: the decision kinds, from core.enums (web/review.py decision_kinds)
  const KINDS = JSON.parse($("decision-kinds").textContent);

  // {character: [short name, "U+200E LEFT-TO-RIGHT MARK"]} (web/marks.py invisible_names)
  let NAMES = {};
  try { NAMES = JSON.parse(($("invisible-names") || {}).textContent || "{}"); } catch (err) { NAMES = {}; }

  // An invisible character: a control or format character other than ZWNJ and ZWJ, which
  // spell Persian, Urdu and Indic words (the rule of core/text.py).
  const CONTROL_OR_FORMAT = /^[\p{Cc}\p{Cf}]$/u;
  const isInvisible = (ch) => CONTROL_OR_FORMAT.test(ch) && ch !== "\u200c" && ch !== "\u200d";

  // [short name, full name] of an invisible character; the code point for one without a usual name.
  function describe(ch) {
    const point = "U+" + ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
    return NAMES[ch] || [point, point];
  }

  // `text` as nodes: its text, and a visible marker (named in its title and accessible name)
  // in place of each invisible character.
  function marked(text) {
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

  // Bidirectional text (issue 27): a template or a person's text placed inside a message is
  // isolated in a <bdi> with its own language's direction, so an Arabic correction inside an
  // English sentence (or a Latin template inside an Arabic one) reads in its own order, and the
  // message itself keeps the interface's direction (UI_DIR).
  const UI_DIR = document.documentElement.dir === "rtl" ? "rtl" : "ltr";
  function isolate(text, dir, language) {
    const el = document.createElement("bdi");
    el.dir = dir || "auto";
    if (language) el.lang = language;
    el.append(marked(text));
    return el;
  }
  // The language's own text (template, correction, suggestion) as an isolate.
  const own = (text) => isolate(text, rtl ? "rtl" : "ltr", lang);

  // t() as nodes: a parameter that is a Node (an isolate) is placed where its %(name)s is.
  function tNodes(msg, params) {
    const text = Object.prototype.hasOwnProperty.call(MESSAGES, msg) ? MESSAGES[msg] : msg;
    const out = document.createDocumentFragment();
    let last = 0;
    text.replace(/%\((\w+)\)s/g, (whole, key, offset) => {
      out.append(text.slice(last, offset));
      const value = params && Object.prototype.hasOwnProperty.call(params, key) ? params[key] : whole;
      out.append(value instanceof Node ? value : String(value));
      last = offset + whole.length;
      return whole;
    });
    out.append(text.slice(last));
    return out;
  }

  // Replace `el`'s content with a message (text or nodes), in the interface's direction.
  function setMessage(el, ...content) {
    while (el.firstChild) el.removeChild(el.firstChild);
    el.append(...content);
    el.dir = UI_DIR;
  }

  let items = [];      // the queue: {id, position, relation, template, decision, correction}
  let ctx = null;      // the current item's context
  let shownAt = 0;     // when the current item appeared, for time spent
  let busy = false;
  let intro = root.dataset.guidelinesSeen !== "1";  // the guidelines come before the first item
  let signedOut = false;
  let progress = null; // the last progress shown ({done, total, remaining, time_left})

  // ---- Drafts (issue 37): a comment, suggestion or correction typed and not saved yet is kept in
  // this browser (localStorage, per reviewer and language) under what it was typed about — the
  // template (a comment on it, a correction) or the relation (a comment on it, a suggestion) — and
  // comes back, with a visible note, when that template or relation is shown again. It goes once
  // saved, emptied or cancelled (Esc on a correction), when the reviewer signs out (signout.js), and
  // after a week untouched: each is stored with the time it was typed ({text, at}), and the review
  // screen drops this reviewer's older ones when it loads.
  const drafts = (() => {
    const prefix = `curator.draft.${root.dataset.user}.${lang}.`;
    const BY_RELATION = new Set(["relation-comment-text", "suggest-text"]);
    const MAX_AGE_MS = 7 * 24 * 3600 * 1000;
    const key = (field, c) => prefix + field + "." + (BY_RELATION.has(field) ? c.relation.id : c.item.id);
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
    (function expire() {
      const mine = `curator.draft.${root.dataset.user}.`;
      try {
        const keys = [];
        for (let i = 0; i < localStorage.length; i++) {
          const k = localStorage.key(i);
          if (k && k.startsWith(mine)) keys.push(k);
        }
        for (const k of keys) {
          const value = read(k);
          if (value && value.at === null) put(k, value.text);
          else if (value && Date.now() - value.at > MAX_AGE_MS) localStorage.removeItem(k);
        }
      } catch (err) { /* no storage: nothing kept, nothing to drop */ }
    })();
    const note = (field, shown) => { $(field + "-draft").hidden = !shown; };
    return {
      // what the field holds now, kept for the template or relation on screen
      keep(field, text) {
        if (!ctx) return;
        put(key(field, ctx), text);
        if (!text.trim()) note(field, false);
      },
      // the field as it was left on `c`'s template or relation, with the note when there is one
      // (the amend field is filled when it opens: showAmend)
      restore(field, c) {
        const text = get(key(field, c));
        if (field !== "amend-text") $(field).value = text;
        note(field, Boolean(text.trim()));
      },
      stored: (field, c) => get(key(field, c)),
      // saved (`text`: what was sent; the draft stays if the reviewer typed on meanwhile) or discarded
      forget(field, c, text) {
        const k = key(field, c);
        if (text === undefined || get(k) === text) put(k, "");
        if (ctx && key(field, ctx) === k) note(field, false);
      },
    };
  })();

  function uuid() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return "r" + Date.now().toString(36) + Math.random().toString(36).slice(2, 12);
  }

  function say(message, kind) {
    const el = $("status");
    el.textContent = message || "";
    el.className = "status" + (kind ? " " + kind : "");
  }

  // The session ended (401): say so plainly, with a link back here after signing in.
  function saysignedOut() {
    signedOut = true;
    const el = $("status");
    el.textContent = t("Your session ended — sign in again; your place is kept.") + " ";
    el.className = "status error";
    const link = document.createElement("a");
    link.href = root.dataset.login + "?next=" + encodeURIComponent(location.pathname + location.hash);
    link.textContent = t("Sign in");
    link.id = "sign-in-again";
    el.appendChild(link);
  }

  // A failed call's message: the server's words when it sent some, else `fallback`. A 401 and
  // a lost connection have already been said (and are not overwritten).
  function failure(r, fallback) {
    if (r.status === 401 || r.status === 0) return null;
    if (r.status >= 500) return t("Something went wrong on the server, so this was not saved. Please try again in a moment.");
    return r.data.error || fallback;
  }

  function fail(r, fallback) {
    const message = failure(r, fallback);
    if (message) say(message, "error");
  }

  // A new CSRF token (GET /api/v1/csrf) into the page's meta tag, if the browser is still signed
  // in as the account this page was opened for (else false: another account's session must not
  // receive this page's decisions).
  async function freshToken() {
    try {
      const response = await fetch("/api/v1/csrf", {headers: {Accept: "application/json"}, credentials: "same-origin"});
      const data = response.ok ? await response.json() : null;
      if (!data || String(data.user) !== root.dataset.user || !data.token) return false;
      csrfMeta.content = data.token;
      document.querySelectorAll('input[name="csrf_token"]').forEach((input) => { input.value = data.token; });
      return true;
    } catch (err) {
      return false;
    }
  }

  // `quick` (the outbox, see `flush`): a lost connection, or a proxy that cannot reach the app
  // (502, 504), answers status 0 at once instead of being retried here, and a request hanging
  // on a dead connection is given up after SEND_LIMIT_MS.
  async function call(method, path, body, quick) {
    const options = {method, headers: {"Accept": "application/json"}, credentials: "same-origin"};
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.headers["X-CSRFToken"] = csrfMeta.content;
      options.body = JSON.stringify(body);
    }
    // A dropped connection or a busy database (503) is retried with the same body (and
    // request id), so nothing is stored twice and nothing is lost.
    for (let attempt = 0; ; attempt++) {
      try {
        if (quick && window.AbortSignal && AbortSignal.timeout) options.signal = AbortSignal.timeout(SEND_LIMIT_MS);
        const response = await fetch(path.startsWith("/api/") ? path : api + path, options);
        if (quick && (response.status === 502 || response.status === 504)) throw new Error("the app is not reached");
        if (response.status === 503 && attempt < 8) {
          // the database is busy with another writer: wait as told, then send the very same
          // request (same request id), which the server stores at most once
          const wait = Math.min(10, Number(response.headers.get("Retry-After")) || 1);
          say(t("The server is busy; saving again in a moment…"), "warn");
          await new Promise((r) => setTimeout(r, wait * 1000));
          continue;
        }
        const data = await response.json().catch(() => ({}));
        // a CSRF refusal (400): the page's token expired (it lives hours, the page may stay open
        // longer) or the session was signed in or out anew. A fresh token for the same account:
        // the very same request again (same request id: stored once), so no decision is lost
        if (response.status === 400 && /CSRF/i.test(data.error || "") && !options.refreshed) {
          options.refreshed = true;
          if (await freshToken()) { options.headers["X-CSRFToken"] = csrfMeta.content; attempt--; continue; }
        }
        // 401: signed out; a CSRF refusal again (or for another account) means the session is gone too
        if (response.status === 401 || (response.status === 400 && /CSRF/i.test(data.error || ""))) {
          saysignedOut();
          return {ok: false, status: 401, data};
        }
        return {ok: response.ok, status: response.status, data};
      } catch (err) {
        if (quick) return {ok: false, status: 0, data: {}};
        if (attempt >= 4) {
          say(t("Cannot reach the server. Your last action was not saved; check the connection and try again."), "error");
          return {ok: false, status: 0, data: {}};
        }
        say(t("Connection trouble, retrying…"), "warn");
        await new Promise((r) => setTimeout(r, 500 * 2 ** attempt));
      }
    }
  }

  function indexOf(id) { return items.findIndex((i) => i.id === id); }

  function setProgress(p) {
    progress = p;
    $("progress").max = p.total || 1;
    $("progress").value = p.done;
    $("progress-text").textContent = p.remaining
      ? t("%(done)s of %(total)s reviewed · %(left)s", {done: p.done, total: p.total, left: p.time_left})
      : tn("%(num)s template reviewed — thank you! You can still revise it.",
           "All %(num)s templates reviewed — thank you! You can still revise any of them.", p.total);
  }

  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }

  function show(el, text) { clear(el); el.append(marked(text)); }

  // What an amendment changes (review/text_diff.py's segments, as web/diffs.py renders them on
  // the pages): deleted text in <del>, inserted text in <ins>, each opened by a visually hidden
  // label for screen readers that isolates itself (dir=auto) so it never sets the diff's direction.
  function renderDiff(el, segments) {
    clear(el);
    segments.forEach((s) => {
      if (s.op === "equal") { el.append(marked(s.text)); return; }
      const change = document.createElement(s.op === "delete" ? "del" : "ins");
      const label = document.createElement("span");
      label.className = "visually-hidden";
      label.dir = "auto";
      label.textContent = (s.op === "delete" ? t("deleted:") : t("inserted:")) + " ";
      change.append(label, marked(s.text));
      el.append(change);
    });
  }

  function li(text, className) {
    const el = document.createElement("li");
    el.append(marked(text));
    if (className) el.className = className;
    return el;
  }

  const LABELS = {
    [KINDS.ACCEPT]: "Accepted", [KINDS.AMEND]: "Amended", [KINDS.REJECT]: "Rejected", [KINDS.UNSURE]: "Marked unsure",
  };
  const label = (kind) => t(LABELS[kind] || kind);

  // Messages about the previous item must not linger on the next one.
  function clearMessages() {
    say("");
    ["suggest-msg", "item-comment-msg", "relation-comment-msg", "amend-msg"].forEach((id) => {
      $(id).textContent = "";
      $(id).className = "validation";
    });
  }

  function render() {
    const c = ctx;
    const inRelation = items.filter((i) => i.relation === c.relation.id);
    const k = inRelation.findIndex((i) => i.id === c.item.id) + 1;
    $("position").textContent = t("Template %(k)s of %(n)s in this relation · %(i)s of %(total)s overall",
                                  {k, n: inRelation.length, i: indexOf(c.item.id) + 1, total: items.length});
    $("relation-title").textContent = c.relation.title || c.relation.id;
    markTitleLanguage(c.relation);
    $("relation-id").textContent = c.relation.id;
    document.querySelectorAll(".relation-name").forEach((el) => { el.textContent = c.relation.title || c.relation.id; el.dir = "auto"; });
    const english = $("english");
    clear(english);
    c.relation.english.forEach((p) => english.appendChild(li(p)));
    show($("english-first"), c.relation.english[0] || "");
    show($("template"), c.template.text);
    // another reviewer's amendment or suggestion, here for a second look (never who made it)
    const proposal = c.proposal || null;
    $("proposal").hidden = !proposal;
    $("proposal-amends").hidden = !(proposal && proposal.amends);
    $("proposal-suggested").hidden = !(proposal && !proposal.amends);
    show($("proposal-original"), proposal && proposal.amends ? proposal.amends : "");
    const changes = proposal && proposal.amends ? proposal.diff || [] : [];
    $("proposal-change").hidden = !changes.length;
    renderDiff($("proposal-diff"), changes);
    $("systems").textContent = c.template.systems.map((s) => s.replace(/^pararel_/, "")).join(", ");
    $("votes").textContent = tn("(%(num)s vote)", "(%(num)s votes)", c.template.votes);

    const sources = $("sources");
    clear(sources);
    const seen = new Set();
    c.sources.forEach((s) => {
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

    renderSignals(c.signals);
    renderChecks(c.signals);
    renderProbe(c.probe);

    const examples = $("examples");
    clear(examples);
    c.examples.forEach((e) => {
      const el = document.createElement("li");
      if (e.gender) {  // an annotated template: filled in with the forms for a man, for a woman
        const label = document.createElement("span");
        label.className = "example-gender";
        label.dataset.gender = e.gender;
        label.append(t(e.gender === "FEM" ? "a woman:" : "a man:") + " ");
        el.appendChild(label);
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
    if (!c.examples.length) examples.appendChild(li(t("(no example tuples for this relation)")));

    const badge = $("decision-badge");
    const d = c.decision;
    badge.hidden = !d;
    badge.className = "badge" + (d ? " " + d.decision : "");
    setMessage(badge, d ? (d.correction
      ? tNodes("%(decision)s: %(correction)s — you can change it", {decision: label(d.decision), correction: own(d.correction)})
      : t("%(decision)s — you can change it", {decision: label(d.decision)})) : "");

    const suggestions = $("suggestions");
    clear(suggestions);
    c.suggestions.forEach((s) => suggestions.appendChild(li(s.text)));
    renderComments();
    hideAmend();
    $("item-card").dataset.item = c.item.id;
    announceItem(c, k, inRelation.length);
    history.replaceState(null, "", "#item-" + c.item.id);
  }

  // Screen readers: the live region says the new template (and where it is) once per item shown,
  // the template isolated in its own language and direction.
  function announceItem(c, k, n) {
    const region = $("item-announce");
    if (!region || region.dataset.item === String(c.item.id)) return;
    region.dataset.item = String(c.item.id);
    const root = $("review");
    setMessage(region, tNodes("Template %(k)s of %(n)s in this relation: %(template)s",
                              {k, n, template: isolate(c.template.text, root.dataset.dir, root.dataset.lang)}));
  }

  // Your threads on this template and on its relation (review/threads.py): your comment with
  // "Withdraw", the replies under it (each author and text isolated in its own direction), and a
  // reply box. Every text is inserted as text, never as HTML.
  function renderComments() {
    [["item-comments", ctx.comments.item], ["relation-comments", ctx.comments.relation]].forEach(([id, list]) => {
      const ul = $(id);
      clear(ul);
      list.forEach((c) => {
        const el = li("", "comment");
        el.dataset.thread = c.id;
        const text = document.createElement("span");
        text.dir = "auto";  // isolated in its own direction (a [dir] element is an isolate)
        text.textContent = c.text;
        if (c.mine === false) el.append(isolate(c.author), " ");
        el.append(text);
        if (c.mine !== false) {
          const button = document.createElement("button");
          button.type = "button";
          button.className = "link withdraw";
          button.textContent = t("Withdraw");
          button.addEventListener("click", () => withdrawComment(c.id));
          el.append(" ", button);
        }
        if (c.state === "resolved") {
          const tag = document.createElement("span");
          tag.className = "tag state-resolved";
          tag.textContent = t("resolved");
          el.append(" ", tag);
        }
        const shown = (c.replies || []).length;
        if ((c.reply_count || 0) > shown) {  // a thread comes with its latest replies only (review.threads)
          const earlier = document.createElement("p");
          earlier.className = "hint earlier-replies";
          earlier.textContent = t("The latest %(shown)s of %(count)s replies.", {shown, count: c.reply_count});
          el.append(earlier);
        }
        const replies = document.createElement("ol");
        replies.className = "thread-replies";
        (c.replies || []).forEach((r) => {
          const item = li("", "reply");
          item.dataset.reply = r.id;
          const author = document.createElement("strong");
          author.className = "reply-author";
          author.append(isolate(r.author));
          const body = document.createElement("span");
          body.dir = "auto";
          body.className = "reply-text";
          body.append(marked(r.text));
          item.append(author, " ", body);
          replies.appendChild(item);
        });
        el.append(replies, replyForm(c));
        ul.appendChild(el);
      });
    });
  }

  // The reply box under a thread: POST …/comments/<id>/replies with a request id (stored once).
  function replyForm(thread) {
    const form = document.createElement("form");
    form.className = "reply-form row";
    const input = document.createElement("textarea");
    input.rows = 1;
    input.maxLength = 2000;
    input.dir = "auto";
    input.className = "reply-text-input";
    input.setAttribute("aria-label", t("Reply"));
    const button = document.createElement("button");
    button.type = "submit";
    button.textContent = t("Reply");
    const out = document.createElement("p");
    out.className = "validation";
    out.setAttribute("aria-live", "polite");
    form.append(input, button, out);
    const requestId = uuid();  // one per box: sending the same reply again stores it once
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const shown = ctx;
      const r = await call("POST", `/comments/${thread.id}/replies`, {text: input.value, request_id: requestId});
      if (!r.ok) {
        const message = failure(r, t("Not saved."));
        if (message) { out.textContent = message; out.className = "validation invalid"; }
        return;
      }
      if (ctx !== shown) return;  // moved on meanwhile: stored, shown when the item is
      // the answer is the reply alone (and its thread's id), not the whole thread: add it under it
      ["item", "relation"].forEach((scope) => {
        ctx.comments[scope] = ctx.comments[scope].map((c) => {
          if (c.id !== r.data.thread || (c.replies || []).some((x) => x.id === r.data.reply.id)) return c;
          return Object.assign({}, c, {replies: (c.replies || []).concat([r.data.reply]), reply_count: (c.reply_count || 0) + 1});
        });
      });
      renderComments();
      say(t("Reply saved."), "ok");
    });
    return form;
  }

  // Back-translation (SPEC §7): what the template says in English again; a low similarity is a warning.
  function renderSignals(sig) {
    const el = $("back-translation");
    const show = Boolean(sig && sig.similarity !== null && sig.similarity !== undefined);
    el.hidden = !show;
    el.classList.toggle("low", Boolean(show && sig.warn));
    clear(el);
    if (!show) return;
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

  // Show item `id` at the top of the screen: messages about the previous item cleared, a new
  // relation announced.
  async function load(id) {
    const r = await loadContext(id);
    if (!r.ok) {
      if (isRetired(r)) return retired(id, r.data);
      if (r.status === 0 && offline) say(t("This template is not loaded yet, and the server cannot be reached."), "warn");
      else fail(r, t("Could not load the template."));
      return false;
    }
    const before = ctx ? ctx.relation.id : null;
    const changedItem = !ctx || ctx.item.id !== r.data.item.id;
    const changedRelation = !ctx || ctx.relation.id !== r.data.relation.id;
    // an item the queue does not list yet (a proposal added to it since the page loaded it)
    if (indexOf(r.data.item.id) < 0 && !offline) await refreshQueue();
    ctx = r.data;
    shownAt = performance.now();
    // Drafts belong to what they were typed about: a template's draft goes with the template,
    // a relation's drafts go with the relation. What was typed is kept in this browser (`drafts`)
    // and comes back, with a note, when its template or relation is shown again.
    const fields = [...(changedItem ? ["item-comment-text"] : []),
                    ...(changedRelation ? ["relation-comment-text", "suggest-text"] : [])];
    if (changedItem) clearMessages();
    fields.forEach((id) => {
      if (document.activeElement === $(id)) $(id).blur();
      drafts.restore(id, ctx);
    });
    if (changedItem) drafts.restore("amend-text", ctx);
    render();
    // The live region stays in the page (a region appearing from hidden is not announced):
    // only its text changes, empty when the relation did not change.
    const note = $("relation-note");
    if (before !== null && before !== ctx.relation.id) {
      setMessage(note, tNodes("New relation: %(title)s", {title: isolate(ctx.relation.title || ctx.relation.id, "auto")}));
    } else if (changedItem) {
      note.textContent = "";
    }
    toTop();
    prefetch();
    return true;
  }

  // The relation heading, the status and the progress are at the top of the page.
  function toTop() { window.scrollTo(0, 0); }

  // A second-look item whose proposal its author withdrew (or undid, or changed) meanwhile: the
  // server stored nothing on it and answered 409 with code "retired", the progress and the next
  // item (review/proposal_queue.py retire, web/api.py).
  const isRetired = (r) => r.status === 409 && r.data && r.data.code === "retired";

  // Out of the queue here too, and on to the next item the server named, with a note.
  async function retired(id, data) {
    const i = indexOf(id);
    if (i >= 0) items.splice(i, 1);
    contexts.delete(id);
    if (data.progress) setProgress(data.progress);
    const next = data.next && data.next !== id ? data.next : null;
    if (next !== null && await load(next)) {
      say(t("This proposal was withdrawn by its author; moved on to the next template."), "warn");
      return true;
    }
    if (next === null && items.length && (!ctx || ctx.item.id === id)) await load(items[0].id);
    say(t("This proposal was withdrawn by its author; nothing else is waiting for you."), "warn");
    return false;
  }

  async function refreshQueue() {
    const r = await call("GET", "/queue");
    if (!r.ok) { fail(r, t("Could not load your sample.")); return null; }
    items = r.data.items;
    setProgress(r.data.progress);
    return r.data;
  }

  async function decide(kind, correction) {
    if (!ctx || busy || intro) return;
    busy = true;
    try {
      const seconds = Math.round((performance.now() - shownAt) / 100) / 10;
      const body = {decision: kind, seconds, request_id: uuid()};
      if (kind === KINDS.AMEND) body.correction = correction;
      // kept in the browser before it is sent: sent now when nothing waits, else after the others
      const was = items[indexOf(ctx.item.id)] || {};
      const entry = {item: ctx.item.id, body, before: {decision: was.decision || null, correction: was.correction || null}};
      outbox.add(entry);
      if (offline || outbox.size() > 1) { if (!offline) flush(); await decidedOffline(entry); return; }
      // no answer within ANSWER_WAIT_MS (a dead connection, a hung server): the decision waits and
      // the reviewer goes on; the request runs on, and its answer, if it comes, stores the entry
      const result = await Promise.race([flush(), new Promise((r) => setTimeout(() => r("slow"), ANSWER_WAIT_MS))]);
      if (result === "slow") { goOffline(); await decidedOffline(entry); return; }
      const r = answers.get(body.request_id);
      answers.delete(body.request_id);
      refused = refused.filter((m) => m.id !== body.request_id);
      if (!r) {  // not stored yet: it waits (signed out: until the reviewer is back)
        if (result !== "signed-out") await decidedOffline(entry);
        return;
      }
      if (isRetired(r)) { await retired(entry.item, r.data); return; }
      if (!r.ok) {
        const message = failure(r, t("Not saved."));
        if (kind === KINDS.AMEND && message) {
          setMessage($("amend-msg"), message);
          $("amend-msg").className = "validation invalid";
          // the keys act as decisions again (the message may ask for A): E goes back to the text
          $("amend-text").blur();
        } else if (message) {
          say(message, "error");
        }
        return;
      }
      drafts.forget("amend-text", ctx);  // decided: a correction left unsaved is moot
      const done = items[indexOf(ctx.item.id)];
      done.decision = r.data.decision.decision;
      done.correction = r.data.decision.correction;
      setProgress(r.data.progress);
      if (r.data.next) {
        await load(r.data.next);
        say(t("%(decision)s. Saved.", {decision: label(kind)}), "ok");
      } else {
        ctx.decision = r.data.decision;
        render();
        toTop();
        say(t("All templates reviewed. Thank you!"), "ok");
      }
    } finally {
      busy = false;
    }
  }

  // ---- Offline: decisions wait in the browser (static/outbox.js) and go to the server in order
  // when it answers again; meanwhile the reviewer goes on with the templates already loaded.

  const SEND_LIMIT_MS = 40000;  // a request on a dead connection is given up (above the busy timeout)
  const ANSWER_WAIT_MS = 3000;  // a decision unanswered this long waits, and the reviewer goes on
  const GONE = new Set([404, 409, 422]);  // refusals that sending again cannot change; any other is retried
  const AHEAD = 10;             // templates loaded ahead of the current one, to go on with offline
  const outbox = new window.CuratorOutbox.Outbox(`curator.outbox.${root.dataset.user}.${lang}`);
  const reconnect = new window.CuratorOutbox.Reconnect(tryReconnect);
  const contexts = new Map();   // item id -> its context as last loaded
  const answers = new Map();    // request id -> the server's answer, for `decide`
  let refused = [];             // {id, message}: waiting decisions the server refused
  let offline = false;
  let stalled = false;          // offline, and no loaded template left to go on with
  let flushing = null;          // the running `flush`

  // An item's context: from the server, or while offline the one loaded before (with this
  // reviewer's decision as the page knows it, waiting ones included).
  async function loadContext(id) {
    if (!offline || !contexts.has(id)) {
      const r = await call("GET", `/items/${id}`, undefined, offline);
      if (r.ok) { contexts.set(id, r.data); return r; }
      if (r.status !== 0 || !contexts.has(id)) return r;
      goOffline();
    }
    const data = contexts.get(id);
    const known = items[indexOf(id)];
    if (known) data.decision = known.decision ? {decision: known.decision, correction: known.correction || null} : null;
    return {ok: true, status: 200, data};
  }

  // The next undecided templates after the current one, loaded in the background (one at a
  // time, only what is not loaded yet: about one request per decision once under way).
  let prefetching = false;
  async function prefetch() {
    if (prefetching || offline || !ctx) return;
    prefetching = true;
    try {
      const wanted = [];
      for (let i = indexOf(ctx.item.id) + 1; i < items.length && wanted.length < AHEAD; i++) {
        if (!items[i].decision) wanted.push(items[i].id);
      }
      for (const id of wanted) {
        if (offline) break;
        if (contexts.has(id)) continue;
        const r = await call("GET", `/items/${id}`, undefined, true);
        if (isRetired(r)) {  // its proposal withdrawn meanwhile: out of the queue here too
          if (indexOf(id) >= 0) items.splice(indexOf(id), 1);
          if (r.data.progress) setProgress(r.data.progress);
          continue;
        }
        if (!r.ok) break;
        if (!contexts.has(id)) contexts.set(id, r.data);
      }
      // the glossary and the context panels read theirs too, to show them offline (issue 37)
      const loaded = wanted.filter((id) => contexts.has(id)).map(String);  // nearest first
      root.dispatchEvent(new CustomEvent("curator:prefetched", {detail: {items: loaded}}));
      // how many of the next undecided templates could be shown offline (tests wait on it)
      root.dataset.ahead = String(wanted.filter((id) => contexts.has(id)).length);
    } finally {
      prefetching = false;
    }
  }

  // Send the waiting decisions, oldest first, one at a time, each with its request id. Resolves
  // to "sent" (none left), "unreachable" (no answer: they wait), "later" (busy or failing: they
  // wait) or "signed-out" (they wait for the reviewer to sign in and come back). A decision the
  // server refuses (422: an amendment it cannot take; 404: gone) cannot be stored by sending it
  // again: it leaves the list and the reviewer is told.
  function flush() {
    if (flushing) return flushing;
    flushing = (async () => {
      for (let entry = outbox.first(); entry; entry = outbox.first()) {
        outbox.update(entry.body.request_id, {tried: true});  // from now on the server may hold it
        const r = await call("POST", `/items/${entry.item}/decision`, entry.body, true);
        if (r.status === 0 || r.status >= 500) { goOffline(); return r.status === 0 ? "unreachable" : "later"; }
        if (r.status === 401) return "signed-out";
        // a proxy's 408, 413 or 429 (or any refusal but GONE's) may pass: sent again with the backoff
        if (!r.ok && !GONE.has(r.status)) { goOffline(); return "later"; }
        const now = outbox.find(entry.body.request_id) || entry;
        if (now.undo) {
          // undone after it was sent: stored now (or already), so undone there too — unless the
          // answer says it is undone already (an earlier /undo whose answer was lost)
          if (r.ok && !r.data.decision.retracted) {
            const u = await call("POST", "/undo", {}, true);
            if (u.status === 401) return "signed-out";
            if (!u.ok) { goOffline(); return u.status === 0 ? "unreachable" : "later"; }
          }
          outbox.remove(entry.body.request_id);
          showConnection();
          continue;
        }
        outbox.remove(entry.body.request_id);
        answers.set(entry.body.request_id, r);
        if (!r.ok) {
          refused.push({id: entry.body.request_id,
                        message: t("A decision made offline was not saved: %(error)s", {error: r.data.error || t("Not saved.")})});
        }
        showConnection();
      }
      return "sent";
    })().finally(() => { flushing = null; });
    return flushing;
  }

  function goOffline() {
    if (!offline) { offline = true; reconnect.start(); }
    showConnection();
  }

  // One attempt of `reconnect`: send what waits, then ask for the queue (progress and decisions
  // as stored). True when the server answered (or the session ended: then the page says so).
  async function tryReconnect() {
    const result = await flush();
    if (result === "signed-out") return true;
    if (result !== "sent") return false;
    const r = await call("GET", "/queue", undefined, true);
    if (r.status === 0 || r.status >= 500) return false;
    if (r.ok) await backOnline(r.data);
    return true;
  }

  async function backOnline(data) {
    offline = false;
    answers.clear();  // answers to decisions sent while offline: nobody waits for them
    items = data.items;
    setProgress(data.progress);
    showConnection();
    if (stalled && data.next) await load(data.next);
    stalled = false;
    showConnection();
    if (refused.length) sayRefused();
    else say(t("Back online — every decision is saved."), "ok");
    prefetch();
  }

  function sayRefused() {
    say(refused.map((m) => m.message).join(" "), "error");
    refused = [];
  }

  // "Offline — 3 decisions waiting" while the server cannot be reached; nothing otherwise.
  function showConnection() {
    const el = $("connection");
    const n = outbox.pending();
    const text = !offline ? "" : (n ? tn("Offline — %(num)s decision waiting", "Offline — %(num)s decisions waiting", n)
      : t("Offline — the server cannot be reached; trying again…")) +
      (stalled ? " " + t("No more templates are loaded: the next ones come when the connection is back.") : "");
    if (el.textContent !== text) el.textContent = text;
    el.hidden = !text;
  }

  function localProgress(delta) {
    if (!progress) return;
    setProgress(Object.assign({}, progress, {done: progress.done + delta, remaining: progress.remaining - delta}));
  }

  // The next undecided item after `id` in the queue (then from the start), or null.
  function nextUndecided(id) {
    const from = indexOf(id);
    for (let k = 1; k < items.length; k++) {
      const candidate = items[(from + k) % items.length];
      if (!candidate.decision) return candidate.id;
    }
    return null;
  }

  // A decision that waits: shown as made, and on to the next undecided template already loaded.
  async function decidedOffline(entry) {
    const known = items[indexOf(entry.item)];
    const kind = entry.body.decision;
    const correction = entry.body.correction || null;
    if (ctx && ctx.item.id === entry.item) drafts.forget("amend-text", ctx);  // decided (waiting): moot
    if (known) {
      if (!known.decision) localProgress(1);
      known.decision = kind;
      known.correction = correction;
    }
    if (ctx && ctx.item.id === entry.item) ctx.decision = {decision: kind, correction};
    const next = nextUndecided(entry.item);
    stalled = next !== null && !contexts.has(next);
    if (next !== null && !stalled) {
      await load(next);
    } else {
      render();
      toTop();
    }
    say(t("%(decision)s. Kept in this browser; it is sent when the connection is back.", {decision: label(kind)}), "warn");
    showConnection();
  }

  // Undo of a decision still waiting: one never sent leaves the list; one sent already (its
  // answer lost or not come yet) may be stored, so it is marked to be sent and then undone there.
  async function undoWaiting(entry) {
    if (entry.tried) {
      outbox.update(entry.body.request_id, {undo: true});
      if (!offline) flush();
    } else if (!outbox.remove(entry.body.request_id)) return;
    const known = items[indexOf(entry.item)];
    if (known) {
      if (known.decision && !entry.before.decision) localProgress(-1);
      known.decision = entry.before.decision;
      known.correction = entry.before.correction;
    }
    stalled = false;
    await load(entry.item);
    say(t("Undone: your decision (%(decision)s) on this template.", {decision: label(entry.body.decision)}), "ok");
    showConnection();
  }

  window.addEventListener("offline", goOffline);

  function showAmend() {
    if (!ctx || busy || intro) return;  // the next template is still loading
    $("amend-form").hidden = false;
    const input = $("amend-text");
    // A typed template may not hold invisible characters (the server refuses them), so the text
    // to edit comes without them — a line break or tab becomes a space — and the reviewer is
    // told which were taken out: saving the correction amends them away.
    const start = ctx.decision && ctx.decision.correction ? ctx.decision.correction : ctx.template.text;
    const draft = drafts.stored("amend-text", ctx);  // a correction typed earlier and not saved
    const text = draft || start;
    amendStart = start;
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
  let amendStart = "";  // the text the amend field opened with: a draft only once it differs

  // Esc or Cancel: the correction is given up, its draft too.
  function cancelAmend() {
    if (ctx) drafts.forget("amend-text", ctx);
    hideAmend();
  }

  function hideAmend() {
    if (document.activeElement === $("amend-text")) $("amend-text").blur();  // keys go back to the page
    $("amend-form").hidden = true;
    $("amend-msg").textContent = "";
  }

  function debounce(fn, ms) {
    let timer = 0;
    return (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), ms); };
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

  // The server's check of a typed template (POST /api/v1/validate); an amendment is checked as an
  // amendment of the item on screen (`amends`), so a line that cleans to the template itself is
  // said to be the same (review/validation.py same_as_template), never "valid". Offline nothing
  // was attempted: the field says it cannot be checked now, and nothing speaks of an unsaved action.
  const liveCheck = (input, out, amends) => debounce(async () => {
    const text = input.value;
    if (!text.trim()) { out.textContent = ""; return; }
    const body = {text, language: lang};
    if (amends && ctx) body.item = ctx.item.id;
    const r = await call("POST", "/api/v1/validate", body, true);
    if (input.value !== text) return;  // typed on meanwhile
    if (r.status === 0) {
      setMessage(out, t("Not checked: the server cannot be reached. It is checked when the connection is back."));
      out.className = "validation warn";
      return;
    }
    if (!r.ok) return;  // signed out (said already) or refused
    // The server's cleaned form is what will be stored: show it when it differs from the typed text.
    const stored = r.data.valid && r.data.cleaned !== text.trim()
      ? [" ", tNodes("— will be saved as “%(cleaned)s”", {cleaned: own(r.data.cleaned)})] : [];
    if (r.data.valid) setMessage(out, t("✓ valid template"), ...stored);
    else setMessage(out, r.data.message || "");
    if (r.data.syntax) out.append(...annotationHelp(r.data));
    out.className = "validation " + (r.data.valid ? "valid" : "invalid") + (r.data.same ? " same" : "");
    input.setAttribute("aria-invalid", r.data.valid ? "false" : "true");
  }, 150);

  async function undo() {
    if (busy || intro) return;
    busy = true;
    try {
      const waiting = outbox.lastKept();  // one in flight is `tried`: `undoWaiting` undoes it after it is stored
      if (waiting) { await undoWaiting(waiting); return; }
      if (offline) { say(t("Offline: only decisions still waiting can be undone."), "warn"); return; }
      const r = await call("POST", "/undo", {});
      if (!r.ok) { fail(r, t("Could not undo.")); return; }
      if (!r.data.undone) { say(t("Nothing to undo."), "warn"); return; }
      await refreshQueue();
      await load(r.data.undone.item_id);
      say(t("Undone: your decision (%(decision)s) on this template.", {decision: label(r.data.undone.decision)}), "ok");
    } finally {
      busy = false;
    }
  }

  function step(delta) {
    if (!ctx || busy || intro) return;
    const i = indexOf(ctx.item.id) + delta;
    if (i >= 0 && i < items.length) load(items[i].id);
  }

  async function suggest(event) {
    event.preventDefault();
    if (!ctx) return;
    const input = $("suggest-text");
    const shown = ctx;  // the relation the text was typed about, whatever is shown when the answer comes
    const text = input.value;
    const r = await call("POST", `/relations/${encodeURIComponent(shown.relation.id)}/suggestions`,
                         {text, request_id: uuid()});
    if (r.ok) drafts.forget("suggest-text", shown, text);  // saved: its draft goes, moved on or not
    if (ctx !== shown && ctx.relation.id !== shown.relation.id) return;  // moved on meanwhile
    const out = $("suggest-msg");
    if (!r.ok) {
      const message = failure(r, t("Not saved."));
      if (message) { out.textContent = message; out.className = "validation invalid"; }
      return;
    }
    out.textContent = r.data.created ? t("Suggestion saved. Thank you!") : t("You already suggested this one.");
    out.className = "validation valid";
    if (r.data.created) { ctx.suggestions.push(r.data.suggestion); $("suggestions").appendChild(li(r.data.suggestion.text)); }
    if (input.value === text) input.value = "";
    input.blur();
  }

  async function comment(event, scope) {
    event.preventDefault();
    if (!ctx) return;
    const input = $(`${scope}-comment-text`);
    const out = $(`${scope}-comment-msg`);
    // The ids are taken now: by the time the answer comes, another template may be shown.
    const shown = ctx;
    const itemId = shown.item.id;
    const relationId = shown.relation.id;
    const text = input.value;
    const path = scope === "item" ? `/items/${itemId}/comments`
      : `/relations/${encodeURIComponent(relationId)}/comments`;
    const r = await call("POST", path, {text, request_id: uuid()});
    const same = ctx === shown || (scope === "item" ? ctx.item.id === itemId : ctx.relation.id === relationId);
    if (r.ok) drafts.forget(`${scope}-comment-text`, shown, text);
    if (!same) return;  // moved on meanwhile: the comment is stored where it was typed, nothing shown here
    if (!r.ok) {
      const message = failure(r, t("Not saved."));
      if (message) { out.textContent = message; out.className = "validation invalid"; }
      return;
    }
    out.textContent = t("Comment saved. Thank you!");
    out.className = "validation valid";
    if (r.data.created && ctx === shown) ctx.comments[scope].push(Object.assign({mine: true, state: "open", replies: []}, r.data.comment));
    renderComments();
    if (input.value === text) input.value = "";
    input.blur();
  }

  async function withdrawComment(id) {
    const r = await call("POST", `/comments/${id}/withdraw`, {});
    if (!r.ok) { fail(r, t("Not saved.")); return; }
    ctx.comments.item = ctx.comments.item.filter((c) => c.id !== id);
    ctx.comments.relation = ctx.comments.relation.filter((c) => c.id !== id);
    renderComments();
    say(t("Comment withdrawn."), "ok");
  }

  const shortcutKey = window.CuratorKeys.shortcutKey;  // keys.js: one mapping for the whole screen

  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (window.CuratorKeys.typing()) {
      if (event.key === "Escape") {
        if (document.activeElement === $("amend-text")) cancelAmend();
        document.activeElement.blur();
        event.preventDefault();
      }
      return;
    }
    const key = shortcutKey(event);
    if (intro) {  // only the guidelines' own keys until "Start reviewing"
      if (key === "?" || key === "h") { event.preventDefault(); if (!event.repeat) toggleHelp(); }
      return;
    }
    if (event.key === "Escape" && !$("help").hidden) { event.preventDefault(); toggleHelp(); return; }
    const forward = rtl ? "arrowleft" : "arrowright";
    const back = rtl ? "arrowright" : "arrowleft";
    const actions = {
      a: () => decide(KINDS.ACCEPT), r: () => decide(KINDS.REJECT), n: () => decide(KINDS.UNSURE), e: showAmend, u: undo,
      j: () => step(1), k: () => step(-1), [forward]: () => step(1), [back]: () => step(-1),
      s: () => write("suggest-text"), c: () => write("item-comment-text"), "?": toggleHelp, h: toggleHelp,
    };
    // a held key repeats: only moving on may repeat, never a decision, undo or a toggle
    const repeats = ["j", "k", forward, back];
    if (actions[key]) { event.preventDefault(); if (!event.repeat || repeats.includes(key)) actions[key](); }
  }

  // C and S: the field gets the focus without the page jumping to it; it is under the template
  // (review.html), so at most a short scroll brings it above the decision bar and the template
  // stays in view.
  function write(id) {
    if (!ctx) return;
    $(id).focus({preventScroll: true});
    $(id).scrollIntoView({block: "nearest"});
  }

  function toggleHelp() {
    if (intro) return;  // the guidelines are on screen already
    const help = $("help");
    help.hidden = !help.hidden;
    $("help-toggle").setAttribute("aria-expanded", String(!help.hidden));
    if (!help.hidden) { toTop(); $("help-title").setAttribute("tabindex", "-1"); $("help-title").focus(); }
    else $("help-toggle").focus();
  }

  function showIntro(show) {
    intro = show;
    $("intro").hidden = !show;
    $("work").hidden = show;
    $("help-toggle").hidden = show;
  }

  async function startReviewing() {
    const r = await call("POST", "/guidelines/seen", {});
    if (!r.ok) { fail(r, t("Not saved.")); return; }
    showIntro(false);
    toTop();
    $("accept").focus({preventScroll: true});
  }

  // A press on the bar keeps the focus where it is (a field keeps its text and its place).
  $("actions").addEventListener("mousedown", (e) => { if (e.target.closest("button")) e.preventDefault(); });
  $("accept").addEventListener("click", () => decide(KINDS.ACCEPT));
  $("reject").addEventListener("click", () => decide(KINDS.REJECT));
  $("unsure").addEventListener("click", () => decide(KINDS.UNSURE));
  $("amend").addEventListener("click", showAmend);
  $("amend-cancel").addEventListener("click", cancelAmend);
  $("amend-form").addEventListener("submit", (e) => { e.preventDefault(); decide(KINDS.AMEND, $("amend-text").value); });
  $("amend-text").addEventListener("input", liveCheck($("amend-text"), $("amend-msg"), true));
  $("suggest-text").addEventListener("input", liveCheck($("suggest-text"), $("suggest-msg")));
  $("suggest-form").addEventListener("submit", suggest);
  $("item-comment-form").addEventListener("submit", (e) => comment(e, "item"));
  $("relation-comment-form").addEventListener("submit", (e) => comment(e, "relation"));
  // every keystroke in a field is kept as a draft of what is on screen (a correction only once it differs)
  ["item-comment-text", "relation-comment-text", "suggest-text", "amend-text"].forEach((id) => {
    $(id).addEventListener("input", () => {
      const text = $(id).value;
      drafts.keep(id, id === "amend-text" && text === amendStart ? "" : text);
    });
  });
  // Ctrl+Enter (⌘+Enter) saves a comment, whose field takes line breaks; Enter saves the one-line fields
  ["item", "relation"].forEach((scope) => {
    $(`${scope}-comment-text`).addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        $(`${scope}-comment-form`).requestSubmit();
      }
    });
  });
  $("undo").addEventListener("click", undo);
  $("prev").addEventListener("click", () => step(-1));
  $("next").addEventListener("click", () => step(1));
  $("help-toggle").addEventListener("click", toggleHelp);
  $("help-close").addEventListener("click", toggleHelp);
  $("start").addEventListener("click", startReviewing);
  document.addEventListener("keydown", onKey);
  // a link to #item-<id> on this page (or the address bar) opens that item
  window.addEventListener("hashchange", () => {
    const id = Number((location.hash.match(/^#item-(\d+)$/) || [])[1]);
    if (id && ctx && ctx.item.id !== id && items.some((i) => i.id === id) && !busy) load(id);
  });

  (async function start() {
    showIntro(intro);
    // decisions left waiting by an earlier visit (the server was away, or the session ended)
    if (outbox.size()) {
      const result = await flush();
      if (result === "unreachable" || result === "later") goOffline();
    }
    const data = await refreshQueue();
    if (!data) return;
    if (!items.length) { say(t("Your sample is empty."), "warn"); return; }
    const wanted = Number((location.hash.match(/^#item-(\d+)$/) || [])[1]);
    const id = items.some((i) => i.id === wanted) ? wanted : (data.next || items[0].id);
    await load(id);
    if (refused.length) sayRefused();
    root.dataset.ready = "1";
  })();
})();
