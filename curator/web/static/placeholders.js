// Insert a placeholder by click or key while amending or suggesting (issue 37 §5): buttons [X]
// and [Y] beside the amend and suggestion fields, and Alt+X / Alt+Y in them, put the
// placeholder at the caret (replacing a selection), keep the focus in the field and fire an
// `input` event, so review.js's live check sees the new text. Kept apart from review.js (which
// owns the fields); loaded by review.html through _placeholders.html, which holds the labels
// in the page's language. The keys are the physical ones (`event.code`), so they work under
// Arabic, Greek or any other layout; review.js and review_context.js ignore key presses with
// Alt, and the field has the focus, so no decision key fires.
(function () {
  "use strict";

  const FIELDS = ["amend-text", "suggest-text"];
  const SLOTS = {KeyX: "[X]", KeyY: "[Y]"};
  const labels = JSON.parse(document.getElementById("placeholder-i18n").textContent);

  // `slot` at the caret of `input` (over its selection), the caret after it, focus kept
  function insert(input, slot) {
    const start = input.selectionStart ?? input.value.length;
    const end = input.selectionEnd ?? start;
    input.focus();
    input.setRangeText(slot, start, end, "end");
    input.dispatchEvent(new Event("input", {bubbles: true}));
  }

  function buttons(input) {
    const group = document.createElement("span");
    group.className = "placeholder-buttons";
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", labels.group);
    Object.entries(SLOTS).forEach(([code, slot]) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "placeholder-insert";
      button.dataset.slot = slot;
      button.dir = "ltr";
      button.textContent = slot;
      button.setAttribute("aria-label", labels[slot]);
      button.setAttribute("aria-keyshortcuts", "Alt+" + code.slice(3));
      button.title = labels[slot] + " (Alt+" + code.slice(3) + ")";
      // a press must not take the focus from the field: the caret stays where it was, and on a
      // phone the keyboard stays up and nothing moves under the finger
      button.addEventListener("pointerdown", (event) => event.preventDefault());
      button.addEventListener("mousedown", (event) => event.preventDefault());
      button.addEventListener("click", () => insert(input, slot));
      group.appendChild(button);
    });
    return group;
  }

  FIELDS.forEach((id) => {
    const input = document.getElementById(id);
    if (!input) return;
    input.after(buttons(input));
    input.addEventListener("keydown", (event) => {
      const slot = SLOTS[event.code];
      if (!slot || !event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      event.preventDefault();
      event.stopPropagation();
      insert(input, slot);
    });
  });
})();
