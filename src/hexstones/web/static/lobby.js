// The lobby: the open seeks, live (a WebSocket tells of each seek made, taken or withdrawn;
// the page then fetches the list), accepting one (its game opens), withdrawing one's own,
// and the form that makes a seek (it opens /new?opponent=seek, which leads to the waiting page)
// or a challenge to a player by name (POST /api/challenges, then its waiting page). The challenges to the
// person (accept, decline) and theirs (withdraw) come live on the same WebSocket, with a
// notification when one arrives, if the person allowed them.
import { api } from "./api.js";
import { t } from "./i18n.js";

const $ = (sel, root = document) => root.querySelector(sel);
const form = $("#seek-form");

function say(text, kind = "error") { $("#message").textContent = text; $("#message").className = `message ${kind}`; }

let asked = 0; // the latest list asked for: an older answer arriving late is not drawn
async function loadSeeks() {
  const mine = ++asked;
  const r = await api("/api/seeks");
  if (mine !== asked) return;
  if (!r.ok) { say(r.data.detail); return; }
  const rows = r.data.seeks.map((seek) => {
    const li = document.createElement("li");
    li.className = "seek";
    li.dataset.testid = "seek";
    li.dataset.seek = seek.id;
    const who = document.createElement("b");
    who.textContent = seek.yours ? t("You") : (seek.maker || t("a guest")); // text: names are typed by people
    if (seek.maker_rating) { // an account: its profile, and its rating in this game ("?": provisional)
      const link = document.createElement("a");
      link.href = `/players/${encodeURIComponent(seek.maker)}`;
      link.append(who.textContent, ` (${Math.round(seek.maker_rating.rating)}${seek.maker_rating.provisional ? "?" : ""})`);
      link.dataset.testid = "maker-rating";
      who.replaceChildren(link);
    }
    const what = document.createElement("span");
    what.textContent = " " + seek.text; // the server says what it offers, in words
    const button = document.createElement("button");
    button.type = "button";
    if (seek.yours) {
      Object.assign(button, { textContent: t("Withdraw") });
      button.dataset.testid = "withdraw";
      button.addEventListener("click", () => withdraw(seek.id, button));
    } else {
      Object.assign(button, { textContent: t("Accept"), className: "primary" });
      button.dataset.testid = "accept";
      button.addEventListener("click", () => accept(seek.id, button));
    }
    li.append(who, what, button);
    return li;
  });
  if (rows.length === 0) {
    const none = Object.assign(document.createElement("li"), { className: "muted", textContent: t("No open seeks: make one, and others see it here.") });
    rows.push(none);
  }
  $("#seeks").replaceChildren(...rows);
}

// -- challenges ----------------------------------------------------------------------------------
let challengesAsked = 0; // as for the seeks: an older answer arriving late is not drawn
let challengesSeen = null; // ids of the challenges to me at the last look (null: none yet)
async function loadChallenges() {
  const mine = ++challengesAsked;
  const r = await api("/api/challenges");
  if (mine !== challengesAsked) return;
  if (!r.ok) { say(r.data.detail); return; }
  const toYou = r.data.to_you.map((c) => challengeRow(c, "challenge", t("{maker} challenges you: ", { maker: c.maker || t("A guest") }), [
    [t("Accept"), "accept", "primary", () => `/api/challenges/${encodeURIComponent(c.id)}/accept`],
    [t("Decline"), "decline", "", () => `/api/challenges/${encodeURIComponent(c.id)}/decline`],
  ]));
  const fromYou = r.data.from_you.map((c) => challengeRow(c, "my-challenge", t("You challenge {player}: ", { player: c.to }), [
    [t("Withdraw"), "withdraw", "", null],
  ]));
  const none = (text) => [Object.assign(document.createElement("li"), { className: "muted", textContent: text })];
  $("#challenges").replaceChildren(...(toYou.length ? toYou : none(t("No one is challenging you now."))));
  $("#my-challenges").replaceChildren(...(fromYou.length ? fromYou : none(t("None: challenge a player by name with the form below."))));
  notifyOfChallenges(r.data.to_you);
}

// One challenge's line: who and what (as text: names are typed by people), and its buttons.
function challengeRow(c, testid, lead, actions) {
  const li = document.createElement("li");
  li.className = "seek";
  li.dataset.testid = testid;
  li.dataset.seek = c.id;
  const what = document.createElement("span");
  what.textContent = lead + c.text;
  li.append(what);
  for (const [label, id, kind, path] of actions) {
    const button = Object.assign(document.createElement("button"), { type: "button", textContent: label, className: kind });
    button.dataset.testid = id;
    button.addEventListener("click", () => (path ? answer(c.id, path(), button, id === "accept") : withdrawChallenge(c.id, button)));
    li.append(button);
  }
  return li;
}

async function answer(id, path, button, accepting) {
  if (button.disabled) return; // a double click answers once
  for (const b of button.parentElement.querySelectorAll("button")) b.disabled = true;
  const r = await api(path, {});
  if (r.ok && accepting) { location.href = `/game/${encodeURIComponent(r.data.game)}`; return; }
  if (!r.ok) say(r.data.detail); else say("");
  loadChallenges();
}

async function withdrawChallenge(id, button) {
  button.disabled = true;
  const r = await api(`/api/challenges/${encodeURIComponent(id)}`, undefined, "DELETE");
  if (!r.ok) say(r.data.detail); else say("");
  loadChallenges();
}

function notifyOfChallenges(list) {
  const canAsk = "Notification" in window && Notification.permission === "default";
  $("#notify-row").hidden = !canAsk;
  if (challengesSeen !== null && "Notification" in window && Notification.permission === "granted") {
    for (const c of list) {
      if (!challengesSeen.has(c.id)) {
        const note = new Notification(t("hexstones: a challenge"), { body: t("{maker} challenges you: ", { maker: c.maker || t("A guest") }) + c.text, tag: `challenge-${c.id}` });
        note.onclick = () => { window.focus(); };
      }
    }
  }
  challengesSeen = new Set(list.map((c) => c.id));
}

$("#notify").addEventListener("click", async () => {
  await Notification.requestPermission();
  $("#notify-row").hidden = Notification.permission !== "default";
});

async function accept(id, button) {
  if (button.disabled) return; // a double click accepts once
  button.disabled = true;
  const r = await api(`/api/seeks/${encodeURIComponent(id)}/accept`, {});
  if (r.ok) { location.href = `/game/${encodeURIComponent(r.data.game)}`; return; }
  button.disabled = false;
  say(r.data.detail);
  loadSeeks();
}

async function withdraw(id, button) {
  button.disabled = true;
  const r = await api(`/api/seeks/${encodeURIComponent(id)}`, undefined, "DELETE");
  if (!r.ok) say(r.data.detail); else say("");
  loadSeeks();
}

// -- live updates ------------------------------------------------------------------------------
let retry = 500; // ms before the next try; doubles up to 4 s while the server is away
function connectLive() {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const ws = new WebSocket(`${scheme}${location.host}/api/lobby/live`);
  ws.onopen = () => { retry = 500; $("#connection").hidden = true; document.body.dataset.live = "yes"; };
  ws.onmessage = (e) => {
    let m;
    try { m = JSON.parse(e.data); } catch (_) { return; }
    if (!m.ping) { loadSeeks(); loadChallenges(); } // a change, or the first message since (re)connecting: catch up
  };
  ws.onclose = () => {
    delete document.body.dataset.live;
    $("#connection").textContent = t("Connection lost: reconnecting…");
    $("#connection").hidden = false;
    setTimeout(connectLive, retry);
    retry = Math.min(retry * 2, 4000);
  };
}

// -- the form ------------------------------------------------------------------------------------
// The games' facts (sizes, balance) come from the server: GET /api/spec.
let specs = null;
const checked = (name) => $(`[name=${name}]:checked`, form).value;

function refreshForm(gameChanged) {
  const spec = specs[$("#seek-game").value];
  if (gameChanged) {
    const size = $("#seek-size");
    size.replaceChildren(...spec.app_sizes.map((n) => new Option(String(n), String(n), false, n === spec.default_size)));
    $("#seek-komi").value = spec.balance.default;
    $("#balance-name").textContent = spec.balance.short; // the server's spec is in the page's language
  }
  const pie = checked("balance") === "pie";
  $("#seek-komi").disabled = pie; // a disabled field is not sent: no komi beside the pie
  $("#color-row").hidden = pie;
  for (const input of form.querySelectorAll("[name=color]")) input.disabled = pie;
}

// "Play the AI instead": a game against the AI of the game and board side chosen, one click away.
function refreshAiLink() {
  const params = new URLSearchParams({ game: $("#seek-game").value, size: $("#seek-size").value, opponent: "ai" });
  $("#play-ai").href = `/new?${params}`;
}

form.addEventListener("change", (e) => { if (specs) { refreshForm(e.target.id === "seek-game"); refreshAiLink(); } });
// A challenge is sent here (a wrong name is said on this page), then its waiting page opens.
async function sendChallenge() {
  const to = $("#challenge-to").value.trim();
  if (!to) { say(t("Type the name of the player to challenge (their account name).")); $("#challenge-to").focus(); return; }
  const body = { to };
  for (const [name, value] of new FormData(form)) { // disabled fields (komi beside the pie) are left out
    if (!["opponent", "balance", "to", "bots"].includes(name)) body[name] = value; // bots: a seek's choice
  }
  if (checked("balance") === "pie") body.pie = "you";
  $("#challenge-submit").disabled = true;
  const r = await api("/api/challenges", body);
  $("#challenge-submit").disabled = false;
  if (!r.ok) { say(r.data.detail); return; }
  location.href = `/seek/${encodeURIComponent(r.data.id)}`;
}

// Enter in the name field challenges (the form's first button would make a seek).
$("#challenge-to").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); sendChallenge(); } });
form.addEventListener("submit", (e) => {
  if (e.submitter && e.submitter.id === "challenge-submit") { e.preventDefault(); sendChallenge(); return; }
  $("#challenge-to").disabled = true; // a seek goes to anyone: no name in its link
  // The balance radio is the form's own; the link says pie=you, or a komi.
  if (checked("balance") === "pie") {
    form.append(Object.assign(document.createElement("input"), { type: "hidden", name: "pie", value: "you" }));
  }
  for (const input of form.querySelectorAll("[name=balance]")) input.disabled = true;
});
window.addEventListener("pageshow", () => {
  for (const input of form.querySelectorAll("[name=balance], [name=to]")) input.disabled = false;
  for (const input of form.querySelectorAll("input[type=hidden][name=pie]")) input.remove();
});

async function start() {
  const r = await api("/api/spec");
  if (!r.ok) { say(r.data.detail); return; }
  specs = r.data.games;
  refreshForm(true);
  refreshAiLink();
}

// The outside engines' bot accounts, beside the AI's: each a link to its profile.
async function loadBots() {
  const r = await api("/api/bots");
  if (!r.ok) return;
  const outside = r.data.bots.filter((b) => b.outside);
  const note = $("#outside-bots");
  note.hidden = !outside.length;
  note.replaceChildren(t("Bots run by their owners (programs, through hexstones bot): "));
  outside.forEach((b, i) => {
    const link = document.createElement("a");
    link.href = `/players/${encodeURIComponent(b.name)}`;
    link.textContent = b.name; // text: names are typed by people
    link.dataset.testid = "outside-bot";
    note.append(...(i ? [", "] : []), link);
  });
}

start();
connectLive();
loadBots();
