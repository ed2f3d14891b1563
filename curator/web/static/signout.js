// Signing out on a shared device leaves none of this reviewer's drafts behind: on submit of the
// sign-out form (base.html, every page), the browser's kept drafts of the signed-in reviewer
// (localStorage keys starting with the form's data-drafts, "curator.draft.<user id>.", written by
// review/drafts.js) are removed before the form goes. Only drafts: the offline outbox is not touched.
import {removeDrafts} from "./review/drafts.js";

const form = document.getElementById("sign-out");
if (form && form.dataset.drafts) form.addEventListener("submit", () => removeDrafts(form.dataset.drafts));
