// The lobby: the open seeks, live (a WebSocket tells of each seek made, taken or withdrawn;
// the page then fetches the list), accepting one (its game opens), withdrawing one's own,
// and the form that makes a seek (it opens /new?opponent=seek, which leads to the waiting page).
import { api } from "./api.js";

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
    who.textContent = seek.yours ? "You" : (seek.maker || "a guest"); // text: names are typed by people
    const what = document.createElement("span");
    what.textContent = " " + seek.text; // the server says what it offers, in words
    const button = document.createElement("button");
    button.type = "button";
    if (seek.yours) {
      Object.assign(button, { textContent: "Withdraw" });
      button.dataset.testid = "withdraw";
      button.addEventListener("click", () => withdraw(seek.id, button));
    } else {
      Object.assign(button, { textContent: "Accept", className: "primary" });
      button.dataset.testid = "accept";
      button.addEventListener("click", () => accept(seek.id, button));
    }
    li.append(who, what, button);
    return li;
  });
  if (rows.length === 0) {
    const none = Object.assign(document.createElement("li"), { className: "muted", textContent: "No open seeks: make one, and others see it here." });
    rows.push(none);
  }
  $("#seeks").replaceChildren(...rows);
}

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
    if (!m.ping) loadSeeks(); // a change, or the first message since (re)connecting: catch up
  };
  ws.onclose = () => {
    delete document.body.dataset.live;
    $("#connection").textContent = "Connection lost: reconnecting…";
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
    $("#balance-name").textContent = spec.balance.short;
  }
  const pie = checked("balance") === "pie";
  $("#seek-komi").disabled = pie; // a disabled field is not sent: no komi beside the pie
  $("#color-row").hidden = pie;
  for (const input of form.querySelectorAll("[name=color]")) input.disabled = pie;
}

form.addEventListener("change", (e) => { if (specs) refreshForm(e.target.id === "seek-game"); });
form.addEventListener("submit", () => {
  // The balance radio is the form's own; the link says pie=you, or a komi.
  if (checked("balance") === "pie") {
    form.append(Object.assign(document.createElement("input"), { type: "hidden", name: "pie", value: "you" }));
  }
  for (const input of form.querySelectorAll("[name=balance]")) input.disabled = true;
});
window.addEventListener("pageshow", () => { for (const input of form.querySelectorAll("[name=balance]")) input.disabled = false; });

async function start() {
  const r = await api("/api/spec");
  if (!r.ok) { say(r.data.detail); return; }
  specs = r.data.games;
  refreshForm(true);
}

start();
connectLive();
