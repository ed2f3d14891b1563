// "Copy" beside a link shown once (the invitation link): the button is shown only where this
// script runs; without it the link is plain selectable text. The button's label says "Copied"
// for a moment after a copy.
(function () {
  "use strict";
  for (const button of document.querySelectorAll("button.copy-link[data-copy]")) {
    const target = document.getElementById(button.dataset.copy);
    if (!target || !navigator.clipboard) continue;
    const label = button.textContent;
    button.hidden = false;
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(target.textContent.trim());
      } catch (err) {
        // no permission: select the text, so Ctrl+C copies it
        const range = document.createRange();
        range.selectNodeContents(target);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        return;
      }
      button.textContent = button.dataset.copied || label;
      setTimeout(() => { button.textContent = label; }, 2000);
    });
  }
})();
