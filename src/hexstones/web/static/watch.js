// The watch page: the public games being played (GET /api/watch), each with its players, move
// count, whose turn and both clocks, the running one counting down here from what the server
// said. The list is fetched again when the lobby tells of a game started (a WebSocket), and
// every few seconds, which also catches games that ended.
import { api } from "./api.js";
import { clockText, face } from "./clock-face.js";
import { t, tn } from "./i18n.js";

// The seats and colours the list names (the server sends them in English).
const ROLES = { black: () => t("black"), white: () => t("white"), proposer: () => t("proposer"), chooser: () => t("chooser") };
const role = (name) => (ROLES[name] ? ROLES[name]() : name);

const REFRESH_MS = 5000; // between fetches of the list while the page is open
const $ = (sel) => document.querySelector(sel);

function say(text) { $("#message").textContent = text; $("#message").className = text ? "message error" : "message"; }

let received = 0; // performance.now() when the list drawn came: the running clocks count from it
let clocks = []; // [{element, clock, color}] of the list drawn

// A side's clock now, counting down from the list's reading as the game page's does.
function sideText(clock, color) {
  const running = clock.running === color && !clock.paused && !clock.first_move;
  const side = face(clock[color], clock, (performance.now() - received) / 1000, running);
  return clockText(side.seconds) + (clock.period_seconds && side.inPeriods ? t(" ({periods} × {seconds} s)", { periods: side.periods, seconds: clock.period_seconds }) : "");
}

function tick() {
  for (const { element, clock, color } of clocks) element.textContent = sideText(clock, color);
}

let asked = 0; // the latest list asked for: an older answer arriving late is not drawn
async function load() {
  const mine = ++asked;
  const r = await api("/api/watch");
  if (mine !== asked) return;
  if (!r.ok) { say(r.data.detail); return; }
  say("");
  received = performance.now();
  clocks = [];
  const rows = r.data.games.map((g) => {
    const li = document.createElement("li");
    li.dataset.testid = "watch-game";
    li.dataset.game = g.id;
    const link = Object.assign(document.createElement("a"), { href: g.url, textContent: g.name || t("{game}, board side {size}", { game: g.title, size: g.size }) });
    const about = document.createElement("span");
    const names = Object.entries(g.players).map(([seat, name]) => t("{name} ({role})", { name: name || t("(an open seat)"), role: role(seat) }));
    const turn = g.to_move ? t("{color} to play", { color: role(g.to_move) }) : t("the komi pie decides the colours");
    const moves = tn("{n} move", "{n} moves", g.moves); // apart: Babel skips a call inside a call's arguments
    about.textContent = t(" {players}: {moves}, {turn}", { players: names.join(t(" vs ")), moves, turn }); // text: names are typed by people
    li.append(link, about);
    if (g.clock) {
      const box = Object.assign(document.createElement("span"), { className: "watch-clocks" });
      for (const color of ["black", "white"]) {
        const element = Object.assign(document.createElement("span"), { className: g.clock.running === color ? "running" : "" });
        element.dataset.clock = color;
        box.append(`${role(color)} `, element, " ");
        clocks.push({ element, clock: g.clock, color });
      }
      li.append(box);
    }
    return li;
  });
  if (rows.length === 0) rows.push(Object.assign(document.createElement("li"), { className: "muted", textContent: t("No public game is being played now.") }));
  $("#watch-games").replaceChildren(...rows);
  tick();
}

let retry = 500; // ms before the next try; doubles up to 4 s while the server is away
function connectLive() {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const ws = new WebSocket(`${scheme}${location.host}/api/lobby/live`);
  ws.onopen = () => { retry = 500; document.body.dataset.live = "yes"; };
  ws.onmessage = (e) => {
    let m;
    try { m = JSON.parse(e.data); } catch (_) { return; }
    if (!m.ping) load(); // a game started (a seek taken), or (re)connected: catch up
  };
  ws.onclose = () => {
    delete document.body.dataset.live;
    setTimeout(connectLive, retry);
    retry = Math.min(retry * 2, 4000);
  };
}

setInterval(tick, 500);
setInterval(load, REFRESH_MS);
connectLive();
