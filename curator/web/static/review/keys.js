// The review screen's one key mapper, imported by review.js and review_context.js so a key means
// the same thing to both (docs/review-app.md, "The keys work under any keyboard layout").

// The shortcut a key press means. A layout that types Latin letters (QWERTY, AZERTY, Dvorak)
// means the letter typed; any other layout (Arabic, Hebrew, Greek, Russian, Persian type
// their own letter on the key that says A on a US keyboard) means the physical key
// (KeyboardEvent.code), whose Latin letter the help and the buttons show. "?" is the typed
// character where the layout has one, else Shift and the US "/" key. Digits are the physical
// key on every layout (the top row or the keypad): AZERTY types "&", "é"… on the top row
// without Shift, and Arabic layouts may type "١", "٢"…. Arrows and Escape are the same
// everywhere. Without a code (an old or synthetic event) the typed character is used.
export function shortcutKey(event) {
  const key = event.key || "";
  const code = event.code || "";
  const physical = code.match(/^Key([A-Z])$/);
  if (key === "?" || (code === "Slash" && event.shiftKey)) return "?";
  const digit = code.match(/^(?:Digit|Numpad)([0-9])$/);
  if (digit) return digit[1];
  if (/^[a-z]$/i.test(key) || !physical) return key.toLowerCase();
  return physical[1].toLowerCase();
}

// True while the focus is where keys type text (a field, or an editable element): shortcuts
// then stay out of the way, so typing ش in a comment types ش.
export function typing() {
  const active = document.activeElement;
  return !!active && (["INPUT", "TEXTAREA", "SELECT"].includes(active.tagName) || active.isContentEditable);
}
