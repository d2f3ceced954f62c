// The page of an email's unsubscribe link: one click turns the notices off. (Opening the
// link changes nothing by itself: mail programs open links to look at them.)
import { api } from "./api.js";
import { t } from "./i18n.js";

const token = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
document.getElementById("unsubscribe-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const r = await api(`/api/unsubscribe/${encodeURIComponent(token)}`, undefined, "POST");
  document.getElementById("message").textContent = r.ok ? t("Done: no more email notices.") : r.data.detail;
});
