// An item's pending work (docs/review-app.md, "Pending work"): what the volunteer has typed for the
// template on screen and not stored yet, and the one rule that says what an action does with it.
// Every control reads the item's drafts from here and every decision goes through `settle`, so a
// typed correction never becomes an "accept", a reason never goes nowhere, a comment never stays
// behind unseen.
//
// The item's drafts: the correction (the amend field, once it differs from the text it opened
// with, or a draft of it kept from before), the reason (Reject and Unsure keep it) and the comment
// on the template. The relation's drafts (its comment, a suggestion) stay with the relation.
//
// Transitions, named as in the docs' picture:
//   typed      a field changed: the draft is kept in this browser (drafts.js) — survives a reload
//   decided    a decision whose item's drafts all belong to it: the correction goes with Amend, the
//              reason with Reject or Unsure, the comment is sent beside it (one outbox, in order)
//   asked      a decision that would leave a draft behind (a correction with Accept, Reject or Unsure;
//              a reason with Accept or Amend): one question, in the volunteer's language —
//     kept       … the draft is saved the way it can be (the correction as Amend; a reason that the
//                decision does not keep goes as a comment)
//     discarded  … the decision as chosen, the draft dropped because the volunteer said so
//     back       … nothing stored, the drafts where they were
//   left       next, previous, a jump, a reload: nothing is decided; the drafts stay on their item
//              and come back, with a note, when it is shown again
//   queued → sent → stored | refused   every write in the outbox (outbox.js, offline.js); a refused
//              comment or suggestion comes back into its field as a draft, with the server's words
import {t} from "./i18n.js";
import {$, KINDS, drafts, own, state} from "./page.js";

// What the volunteer has typed for the item on screen and not stored: {correction, reason, comment}
// (empty strings where nothing is). A correction counts once it differs from the amend field's
// starting text and the server has not found it to be the template itself; with the form closed,
// a correction draft kept from before counts.
export function work() {
  const ctx = state.ctx;
  if (!ctx) return {correction: "", reason: "", comment: ""};
  const open = !$("amend-form").hidden;
  const typed = $("amend-text").value;
  // a text the server's check found to be the template itself (but for a final period, say) is no
  // correction: accepting loses nothing (the field says "accept instead")
  const same = typed === $("amend-text").dataset.sameAs;
  const correction = open ? (typed.trim() && typed !== state.amendStart && !same ? typed : "") : drafts.stored("amend-text", ctx);
  return {correction: correction.trim() ? correction : "", reason: $("reason-text").value.trim(),
          comment: $("item-comment-text").value.trim()};
}

// What deciding `kind` (with `correction` for Amend) does with `drafts` ({correction, reason,
// comment}): {kind, correction, reason, comments, conflicts} — `conflicts` names the drafts the
// decision cannot keep ("correction", "reason"): then the volunteer is asked (`ask`).
export function plan(kind, correction, drafted) {
  const out = {kind, correction: kind === KINDS.AMEND ? correction : null, reason: null,
               comments: drafted.comment ? [drafted.comment] : [], conflicts: []};
  if (kind !== KINDS.AMEND && drafted.correction) out.conflicts.push("correction");
  if (kind === KINDS.REJECT || kind === KINDS.UNSURE) out.reason = drafted.reason || null;
  else if (drafted.reason) out.conflicts.push("reason");
  return out;
}

// The answer to "keep" and "discard" for a plan with conflicts.
export function resolve(planned, drafted, choice) {
  if (choice === "discard") return Object.assign({}, planned, {conflicts: [], dropped: planned.conflicts});
  const out = Object.assign({}, planned, {conflicts: [], dropped: []});
  if (planned.conflicts.includes("correction")) {
    out.kind = KINDS.AMEND;
    out.correction = drafted.correction;
    out.reason = null;
  }
  // a reason the (new) decision does not keep is sent as a comment on the template
  if (drafted.reason && out.kind !== KINDS.REJECT && out.kind !== KINDS.UNSURE) out.comments = [drafted.reason, ...out.comments];
  return out;
}

const VERB = () => ({[KINDS.ACCEPT]: t("Accept"), [KINDS.AMEND]: t("Amend"), [KINDS.REJECT]: t("Reject"), [KINDS.UNSURE]: t("Unsure")});

// One question (the #settle dialog): resolves to "keep", "discard" or "back" (Esc, or the dialog closed).
function ask(planned, drafted) {
  const dialog = $("settle");
  const list = $("settle-drafts");
  list.replaceChildren();
  const line = (message, text) => {
    const li = document.createElement("li");
    li.append(message + " ", own(text));
    list.appendChild(li);
  };
  if (planned.conflicts.includes("correction")) line(t("Your correction, not saved yet:"), drafted.correction);
  if (planned.conflicts.includes("reason")) line(t("Your reason, which only Reject and Unsure keep:"), drafted.reason);
  const verb = VERB()[planned.kind];
  $("settle-keep").textContent = planned.conflicts.includes("correction")
    ? t("Save the correction (Amend)") : t("%(decision)s, and send the reason as a comment", {decision: verb});
  $("settle-discard").textContent = t("%(decision)s without it", {decision: verb});
  state.asking = true;
  return new Promise((done) => {
    const finish = (choice) => {
      dialog.removeEventListener("close", onClose);
      ["keep", "discard", "back"].forEach((c) => { $("settle-" + c).onclick = null; });
      state.asking = false;
      if (dialog.open) dialog.close();
      done(choice);
    };
    const onClose = () => finish("back");
    dialog.addEventListener("close", onClose);
    ["keep", "discard", "back"].forEach((c) => { $("settle-" + c).onclick = () => finish(c); });
    dialog.showModal();
    $("settle-keep").focus();
  });
}

// Settle the item's drafts before deciding `kind`: the plan to store ({kind, correction, reason,
// comments, dropped}), or null when the volunteer went back.
export async function settle(kind, correction) {
  const drafted = work();
  const planned = plan(kind, correction, drafted);
  if (!planned.conflicts.length) return Object.assign(planned, {dropped: []});
  const choice = await ask(planned, drafted);
  if (choice === "back") return null;
  return resolve(planned, drafted, choice);
}

// The item's drafts once its decision is on its way: saved with it, sent beside it, or dropped
// because the volunteer said so — the fields emptied and their drafts gone.
export function settled(ctx) {
  drafts.forget("amend-text", ctx);
  drafts.forget("reason-text", ctx);
  drafts.forget("item-comment-text", ctx);
  if (state.ctx === ctx) {
    $("reason-text").value = "";
    $("item-comment-text").value = "";
  }
}
