// The chat beside a game between two people online (a game with seats; others have none):
// the messages the server lets this page see, a box to write in, and each player's
// switches (let spectators write, mute the opponent). A WebSocket tells the page of each
// new message or change of switches; it then asks for what it lacks. Every text typed by
// people reaches the page as text (textContent), never as markup.
import { api } from "./api.js";
import { lang, t } from "./i18n.js";
import { $, gameId, onRender } from "./game.js";

const chatUrl = `/api/games/${encodeURIComponent(gameId)}/chat`;
let started = false;
let shown = new Map(); // message id -> message, as the server sent them
let last = 0; // the newest message id stored when last asked (shown or muted)
let seatsSeen = null; // the game's seats as last drawn: a friend taking a seat changes the chat's rights
let socket = null;
let retry = 500; // ms before the next try; doubles up to 4 s while the server is away
let asking = null; // the fetch under way; a change heard meanwhile asks again after it
let askAgain = null; // what to ask for then: "all", "new" or null

onRender((s) => {
  if (!s.seats) return; // at one screen or against the AI: no chat
  const seats = JSON.stringify(s.seats);
  if (!started) {
    started = true;
    $("#chat").hidden = false;
    connect();
  } else if (seats !== seatsSeen) {
    refresh("all");
  }
  seatsSeen = seats;
});

// Asks for every message (``all``: after connecting, or a switch or a mute changed) or only
// those after the newest one known (``new``); asks one at a time, so answers arrive in order.
async function refresh(what) {
  if (asking) {
    askAgain = askAgain === "all" || what === "all" ? "all" : "new";
    return;
  }
  asking = api(what === "all" ? chatUrl : `${chatUrl}?since=${last}`);
  const r = await asking;
  asking = null;
  if (r.ok) {
    if (what === "all") shown = new Map();
    draw(r.data);
  } else if (r.status !== 0) {
    showError(r.data.detail);
  }
  if (askAgain) {
    const again = askAgain;
    askAgain = null;
    refresh(again);
  }
}

function draw(chat) {
  for (const m of chat.messages) shown.set(m.id, m);
  last = Math.max(last, chat.last);
  const list = $("#chat-messages");
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 30;
  const items = [...shown.values()].sort((x, y) => x.id - y.id).map(messageItem);
  if (items.length === 0) {
    const empty = Object.assign(document.createElement("li"), { className: "muted chat-empty", textContent: t("No messages yet.") });
    items.push(empty);
  }
  list.replaceChildren(...items);
  if (atBottom) list.scrollTop = list.scrollHeight; // follows new messages unless one reads back
  drawRights(chat);
}

function messageItem(m) {
  const item = document.createElement("li");
  item.className = "chat-message" + (m.you ? " mine" : "");
  item.dataset.testid = "chat-message";
  item.dataset.id = String(m.id);
  const head = document.createElement("div");
  head.className = "chat-head";
  const author = document.createElement("span");
  author.className = "chat-author";
  author.textContent = m.you ? t("You") : (m.author || t("a guest")) + (m.role === "spectator" ? t(" (spectator)") : "");
  const time = document.createElement("time");
  time.className = "chat-time muted";
  const sent = new Date(m.sent * 1000);
  time.dateTime = sent.toISOString();
  time.textContent = sent.toLocaleTimeString(lang, { hour: "2-digit", minute: "2-digit" });
  time.title = sent.toLocaleString(lang);
  head.append(author, " ", time);
  const text = document.createElement("div");
  text.className = "chat-text";
  text.textContent = m.text; // as typed: text, never markup
  item.append(head, text);
  return item;
}

function drawRights(chat) {
  const box = $("#chat-text");
  box.disabled = !chat.can_write;
  $("#chat-send").disabled = !chat.can_write;
  $("#chat-switches").hidden = !chat.player;
  if (chat.player) {
    $("#chat-allow").checked = !!chat.allows[chat.role];
    $("#chat-mute").checked = chat.mute;
  }
  const opponentAllows = chat.player && Object.entries(chat.allows).some(([role, on]) => role !== chat.role && on);
  let note;
  if (chat.spectators_may_write) note = t("Spectators may write too: both players allow it.");
  else if (!chat.player) note = t("You are watching: only the players write here, unless both of them let spectators write.");
  else if (opponentAllows) note = t("Your opponent lets spectators write; they may once you do too.");
  else note = t("Spectators read; they may write only while both players allow it.");
  if (chat.spectators_may_write && !chat.can_write) note += " To write, sign in or choose a guest name on your Account page.";
  if (chat.mute) note += " Your opponent's messages are hidden from you.";
  $("#chat-note").textContent = note;
}

function showError(text) {
  $("#chat-error").textContent = text || "";
}

async function send() {
  const box = $("#chat-text");
  if (!box.value.trim() || $("#chat-send").disabled) return;
  $("#chat-send").disabled = true; // one message per click, however quick the second
  const r = await api(chatUrl, { text: box.value });
  $("#chat-send").disabled = box.disabled;
  if (!r.ok) { showError(r.data.detail); refresh("all"); return; } // the rights may have changed
  showError("");
  box.value = "";
  shown.set(r.data.id, r.data);
  refresh("new"); // what others wrote meanwhile comes with it
}

async function setSwitch(change) {
  const r = await api(`${chatUrl}/settings`, change);
  if (!r.ok) { showError(r.data.detail); refresh("all"); return; }
  showError("");
  shown = new Map();
  draw(r.data);
}

$("#chat-form").addEventListener("submit", (e) => { e.preventDefault(); send(); });
$("#chat-text").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); send(); }
});
$("#chat-allow").addEventListener("change", (e) => setSwitch({ spectators_may_write: e.target.checked }));
$("#chat-mute").addEventListener("change", (e) => setSwitch({ mute: e.target.checked }));

// -- live updates ------------------------------------------------------------------------------
function connect() {
  if (socket) return;
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const ws = new WebSocket(`${scheme}${location.host}${chatUrl}/live`);
  socket = ws;
  ws.onopen = () => { retry = 500; };
  ws.onmessage = (e) => {
    let m;
    try { m = JSON.parse(e.data); } catch (_) { return; }
    if (m.ping) return;
    // A new message: ask for those after the last; the first message since (re)connecting,
    // a switch changed, or events lost (resync): ask for all.
    refresh(m.message !== undefined ? "new" : "all");
  };
  ws.onclose = (e) => {
    if (socket === ws) socket = null;
    if (e.code === 4404 || e.code === 4409) return; // the game is gone, or has no chat
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 4000);
  };
}

window.addEventListener("pageshow", () => { if (started) connect(); });
window.addEventListener("online", () => { if (socket) socket.close(); else if (started) connect(); });
