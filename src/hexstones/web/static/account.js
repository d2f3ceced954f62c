// The account page: sign in, sign up, play as a guest, change the password, sign out; an
// account's language, vacation from correspondence games and email notices; a bot account's
// tokens.
import { api } from "./api.js";
import { lang, t } from "./i18n.js";

const $ = (sel) => document.querySelector(sel);

function say(text, kind = "error") { $("#message").textContent = text || ""; $("#message").className = "message " + kind; }

async function show() {
  const r = await api("/api/account");
  if (!r.ok) { say(r.data.detail); return; }
  const me = r.data;
  const who = me.kind === "account" ? (me.bot ? t("Signed in as {name} (a bot account).", { name: me.name }) : t("Signed in as {name}.", { name: me.name }))
    : me.kind === "guest" ? t("A guest named {name} (not signed in).", { name: me.name })
      : t("Not signed in: games you start are kept for this browser.");
  $("#who").textContent = who; // text: names are typed by people
  $("#signed-in").hidden = me.kind !== "account";
  $("#signed-out").hidden = me.kind === "account";
  if (me.kind === "account") { showVacation(); showMail(); }
  $("#bot-tokens").hidden = !(me.kind === "account" && me.bot);
  $("#bot-mark").hidden = !(me.kind === "account" && !me.bot);
  if (me.kind === "account" && me.bot) showTokens();
}

const when = (seconds) => (seconds ? new Date(seconds * 1000).toLocaleString(lang) : t("never"));

async function showTokens() {
  const r = await api("/api/account/tokens");
  if (!r.ok) return;
  const list = $("#tokens");
  list.replaceChildren();
  if (!r.data.tokens.length) {
    const li = document.createElement("li");
    li.className = "muted";
    li.textContent = t("No token yet.");
    list.append(li);
  }
  for (const token of r.data.tokens) {
    const li = document.createElement("li");
    li.dataset.testid = "token";
    const state = token.revoked ? t("revoked {when}", { when: when(token.revoked) }) : t("last used {when}", { when: when(token.last_used) });
    li.append(t("{label}: made {when}, {state} ", { label: token.label, when: when(token.created), state })); // text: labels are typed by people
    if (!token.revoked) {
      const revoke = document.createElement("button");
      revoke.type = "button";
      revoke.textContent = t("Revoke");
      revoke.dataset.testid = "token-revoke";
      revoke.addEventListener("click", async () => {
        const answer = await api(`/api/account/tokens/${encodeURIComponent(token.id)}`, undefined, "DELETE");
        say(answer.ok ? t("The token {label} is revoked: it works no more.", { label: token.label }) : answer.data.detail, answer.ok ? "info" : "error");
        showTokens();
      });
      li.append(revoke);
    }
    list.append(li);
  }
}

async function showVacation() {
  const r = await api("/api/account/vacation");
  if (!r.ok) return;
  const v = r.data;
  const until = v.away ? new Date(v.until * 1000).toLocaleString(lang) : null;
  $("#vacation-status").textContent = v.away ? t("On vacation until {until}. {n} days left this year.", { until, n: v.days_left })
    : t("{n} of {total} vacation days left this year.", { n: v.days_left, total: v.days_a_year });
  $("#vacation").hidden = v.away || v.days_left === 0;
  $("#vacation-end").hidden = !v.away;
}

async function showMail() {
  const r = await api("/api/account/mail");
  if (!r.ok) return;
  const m = r.data;
  $("#mail").hidden = !m.available;
  $("#mail-note").textContent = m.available ? t("Every message has a link that stops them.") : t("This server sends no email.");
  if (m.available) {
    $("#mail").elements.address.value = m.address || "";
    $("#mail").elements.your_turn.checked = m.your_turn;
    $("#mail").elements.low_time.checked = m.low_time;
  }
}

function form(id, path, done, shape = (body) => body) {
  let busy = false;
  $("#" + id).addEventListener("submit", async (e) => {
    e.preventDefault();
    if (busy) return; // a double click sends once
    busy = true;
    try {
      const body = shape(Object.fromEntries(new FormData(e.target).entries()));
      const r = await api(path, body);
      if (!r.ok) { say(r.data.detail); return; }
      // The account reads another language than this page's: the page comes again in it.
      if (r.data.language && r.data.language !== lang) { location.reload(); return; }
      e.target.reset();
      say(done, "info");
      show();
    } finally { busy = false; }
  });
}

form("signin", "/api/account/signin", t("Signed in."));
form("signup", "/api/account/signup", t("Your account is made, and you are signed in."), (b) => ({ ...b, bot: b.bot === "on" }));
form("bot-form", "/api/account/bot", t("This account is a bot now: make its program a token."));
$("#token-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const r = await api("/api/account/tokens", { label: e.target.elements.label.value });
  if (!r.ok) { say(r.data.detail); return; }
  e.target.reset();
  $("#new-token").textContent = r.data.token;
  $("#new-token-row").hidden = false;
  say(t("The token is made: copy it now."), "info");
  showTokens();
});
form("guest", "/api/account/guest", t("Your name is set."));
form("password", "/api/account/password", t("The password is changed; your other sessions are signed out."));
$("#vacation").addEventListener("submit", async (e) => {
  e.preventDefault();
  const r = await api("/api/account/vacation", { days: Number(e.target.elements.days.value) });
  say(r.ok ? t("Enjoy your vacation.") : r.data.detail, r.ok ? "info" : "error");
  showVacation();
});
$("#vacation-end").addEventListener("click", async () => {
  const r = await api("/api/account/vacation", undefined, "DELETE");
  say(r.ok ? t("Welcome back: your clocks run again.") : r.data.detail, r.ok ? "info" : "error");
  showVacation();
});
$("#mail").addEventListener("submit", async (e) => {
  e.preventDefault();
  const f = e.target.elements;
  const r = await api("/api/account/mail", { address: f.address.value, your_turn: f.your_turn.checked, low_time: f.low_time.checked }, "PUT");
  say(r.ok ? t("Saved.") : r.data.detail, r.ok ? "info" : "error");
});
$("#language-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const r = await api("/api/account/language", { language: e.target.elements.language.value }, "PUT");
  if (!r.ok) { say(r.data.detail); return; }
  if (r.data.language !== lang) { location.reload(); return; } // the page in the chosen language
  say(t("Saved."), "info");
});
$("#signout").addEventListener("click", async () => {
  const r = await api("/api/account/signout", {});
  if (!r.ok) { say(r.data.detail); return; }
  say(t("Signed out."), "info");
  show();
});
show();
