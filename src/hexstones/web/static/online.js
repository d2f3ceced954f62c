// Online play on the game page, drawn after each state game.js draws (its onRender): the
// seats and the invitation link, the takeback between two people, what a spectator sees,
// and the live updates: a WebSocket tells the page of every change; it then fetches the
// state. A lost connection is retried by itself, and the page catches up when it is back.
import { api } from "./api.js";
import { t } from "./i18n.js";
import {
  $, board, currentState, gameId, holdActions, isSending, load, onRender, overlayParam, render, say,
  undoAsking, viewing,
} from "./game.js";

let liveSocket = null;
let liveRetry = 500; // ms before the next try; doubles up to 4 s while the server is away

// The live updates' WebSocket's readyState (null: none), for a report of a page that lags.
export const liveSocketState = () => liveSocket && liveSocket.readyState;

onRender((s, previous) => {
  const wasMyTurn = previous && previous.id === s.id && previous.human_turn;
  renderOnline(s);
  // A friend's move made it this player's turn while the page is in the background: say so.
  if (s.seats && s.human_turn && wasMyTurn === false && document.hidden && "Notification" in window
      && Notification.permission === "granted") {
    new Notification(t("hexstones: your turn"), { body: s.status, tag: s.id });
  }
});

function renderOnline(s) {
  const friend = !!s.seats;
  if (friend) $("#title").textContent = $("#title").textContent.replace(t("two players at this screen"), t("a game online"));
  $("#online").hidden = !friend && !s.spectator;
  renderSeats(s);
  const invite = $("#invite");
  invite.hidden = !s.invite;
  if (s.invite) {
    const url = location.origin + s.invite;
    $("#invite-link").href = url;
    $("#invite-link").textContent = url;
  }
  // A player who started the game from a link has no name yet: the friend would see "a guest".
  const nameless = friend && s.me && !s.me.name && (s.you.length > 0 || s.pie_you.length > 0);
  $("#my-name").hidden = !nameless;
  $("#watching").hidden = !s.spectator;
  if (s.spectator) {
    for (const id of ["pass", "button", "release", "undo", "resign"]) $("#" + id).disabled = true;
    board.classList.remove("can-play");
  }
  if (friend) {
    if (!undoAsking()) $("#undo").textContent = t("Ask to take back");
    $("#undo").title = t("ask your opponent to take back your last move");
    $("#undo").disabled = s.spectator || !s.you.length || s.move_count === 0 || !!s.over || !!s.takeback;
    if (s.you.length === 0 || (s.pie && s.pie.stage !== "done")) $("#resign").disabled = true;
  }
  renderTakeback(s);
  renderPieSeat(s);
}

function renderSeats(s) {
  const box = $("#seats");
  const rows = [];
  if (s.seats) {
    const roles = s.seats.black || s.seats.white ? ["black", "white"] : ["proposer", "chooser"];
    for (const role of roles) {
      const seat = s.seats[role];
      if (!seat) continue;
      const line = document.createElement("div");
      line.className = "seat";
      line.dataset.seat = role;
      if (role === "black" || role === "white") {
        const dot = document.createElement("span");
        dot.className = "dot " + role;
        line.append(dot);
      }
      const label = { black: t("Black"), white: t("White"), proposer: t("Proposes the komi"), chooser: t("Chooses a colour") }[role];
      const who = seat.open ? t("waiting for a friend") : (seat.name || t("a guest")) + (seat.you ? t(" (you)") : "");
      line.append(t("{seat}: {who}", { seat: label, who })); // text, never markup: names are typed by people
      rows.push(line);
    }
  }
  box.replaceChildren(...rows);
}

function renderTakeback(s) {
  const box = $("#takeback");
  const asked = s.takeback;
  if (!asked || !s.you.length) { box.hidden = true; box.replaceChildren(); return; }
  box.hidden = false;
  const mine = s.you.includes(asked.by);
  const text = document.createElement("p");
  text.textContent = mine ? t("You asked to take back your last move: waiting for the answer.")
    : t("Your opponent asks to take back their last move.");
  const buttons = mine ? [["cancel", t("Cancel")]] : [["accept", t("Accept")], ["decline", t("Decline")]];
  const row = document.createElement("div");
  row.className = "form-row";
  for (const [action, label] of buttons) {
    const b = Object.assign(document.createElement("button"), { type: "button", textContent: label });
    b.dataset.testid = "takeback-" + action;
    b.addEventListener("click", () => takeback(action));
    row.append(b);
  }
  box.replaceChildren(text, row);
}

// In a komi pie between two seats, the controls are shown to the seat whose step it is.
function renderPieSeat(s) {
  if (!s.seats || !s.pie || s.pie.stage === "done") return;
  const step = s.pie.stage === "propose" ? "propose" : "choose";
  if (s.pie_you.includes(step)) return;
  const panel = $("#pie-panel");
  const p = document.createElement("p");
  p.className = "muted";
  p.textContent = s.spectator ? (step === "propose" ? t("Komi pie: the players propose the balance.") : t("Komi pie: the players choose colours."))
    : step === "propose" ? t("Komi pie: your opponent proposes the balance; you then choose a colour.")
      : t("Komi pie: you proposed {komi}; your opponent chooses a colour.", { komi: s.pie.komi });
  panel.replaceChildren(p);
  panel.dataset.stage = ""; // game.js draws its controls afresh when they are this page's again
}

async function takeback(action) {
  if (isSending()) return;
  const release = holdActions(); // the moves wait for the answer too
  let r;
  try {
    r = await api(`/api/games/${encodeURIComponent(gameId)}/takeback`, { action, overlays: overlayParam() });
  } finally { release(); }
  if (!r.ok) { say(r.data.detail); load(null); return; }
  say(action === "accept" ? t("Took back.") : "", "info");
  render(r.data);
}

// Undo between two people is a request to the opponent.
$("#undo").addEventListener("click", (e) => {
  const state = currentState();
  if (!state || !state.seats) return;
  e.stopImmediatePropagation();
  takeback("request");
}, true);

$("#my-name").addEventListener("submit", async (e) => {
  e.preventDefault();
  const r = await api("/api/account/guest", { name: $("#my-name-input").value });
  if (!r.ok) { say(r.data.detail); return; }
  say("");
  load(viewing());
});

$("#invite-copy").addEventListener("click", async () => {
  try {
    await navigator.clipboard.writeText($("#invite-link").href);
    say(t("The invitation link is copied."), "info");
  } catch (_) { say(t("Select the link and copy it."), "info"); }
});

// -- live updates ------------------------------------------------------------------------------
function connectLive() {
  if (liveSocket) return;
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const ws = new WebSocket(`${scheme}${location.host}/api/games/${encodeURIComponent(gameId)}/live`);
  liveSocket = ws;
  ws.onopen = () => { liveRetry = 500; showConnection(true); };
  ws.onmessage = (e) => {
    let m;
    try { m = JSON.parse(e.data); } catch (_) { return; }
    if (m.ping) return;
    load(viewing()); // a change, or the first message since (re)connecting: catch up

  };
  ws.onclose = (e) => {
    if (liveSocket === ws) liveSocket = null;
    if (e.code === 4404) { showConnection(false, t("This game is no longer on the server.")); return; }
    showConnection(false);
    setTimeout(connectLive, liveRetry);
    liveRetry = Math.min(liveRetry * 2, 4000);
  };
}

function showConnection(up, text) {
  const line = $("#connection");
  const state = currentState();
  line.hidden = up;
  if (!up) {
    line.textContent = text || t("Connection lost: reconnecting…");
    $("#online").hidden = false;
  } else if (state) {
    $("#online").hidden = !state.seats && !state.spectator;
  }
}

window.addEventListener("pageshow", () => connectLive());
window.addEventListener("online", () => { if (liveSocket) liveSocket.close(); else connectLive(); });
connectLive();
