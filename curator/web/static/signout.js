// Signing out on a shared device leaves none of this reviewer's drafts behind: on submit of the
// sign-out form (base.html, every page), the browser's kept drafts of the signed-in reviewer
// (localStorage keys starting with the form's data-drafts, "curator.draft.<user id>.", written by
// review.js) are removed before the form goes. Only drafts: the offline outbox is not touched.
(function () {
  "use strict";
  const form = document.getElementById("sign-out");
  if (!form || !form.dataset.drafts) return;
  form.addEventListener("submit", () => {
    try {
      const keys = [];
      for (let i = 0; i < localStorage.length; i++) {
        const key = localStorage.key(i);
        if (key && key.startsWith(form.dataset.drafts)) keys.push(key);
      }
      keys.forEach((key) => localStorage.removeItem(key));
    } catch (err) { /* no storage: no drafts were kept */ }
  });
})();
