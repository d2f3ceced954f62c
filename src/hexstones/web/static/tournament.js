// A tournament's page: what it is, who plays, each round's boards (links to the games),
// the standings and the crosstable, fetched again every few seconds while it is open or
// running (the server brings the tournament up to date at each look); the winner at the
// end. Join, leave, and for its creator: add one of the AI's accounts, start now.
import { api } from "./api.js";

const rounds = (n) => `${n} round${n === 1 ? "" : "s"}`;

const $ = (sel) => document.querySelector(sel);
const id = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const path = `/api/tournaments/${encodeURIComponent(id)}`;
const REFRESH_MS = 2000;

function say(text, kind = "error") { $("#message").textContent = text; $("#message").className = `message ${kind}`; }

function cell(content, testid) {
  const td = document.createElement("td");
  if (typeof content === "string") td.textContent = content; else td.append(content);
  if (testid) td.dataset.testid = testid;
  return td;
}

function gameLink(text, game) {
  if (!game) return text;
  return Object.assign(document.createElement("a"), { href: `/game/${encodeURIComponent(game)}`, textContent: text });
}

const points = (p) => (Number.isInteger(p) ? String(p) : `${Math.floor(p) || ""}½`);

function drawStandings(t) {
  $("#tiebreak").textContent = t.tiebreak;
  $("#standings").replaceChildren(...t.standings.map((s) => {
    const tr = document.createElement("tr");
    tr.dataset.testid = "standing";
    tr.append(cell(String(s.place)), cell(s.name), cell(points(s.points), "points"), cell(points(s.tiebreak)),
      cell(String(s.wins)), cell(String(s.losses)));
    return tr;
  }));
}

// One row per player in standings order, one column per opponent: the points scored
// against them (b/w: the colour), each a link to its game; "…" while it is played.
function drawCrosstable(t) {
  const table = $("#crosstable");
  const head = document.createElement("tr");
  head.append(cell("#"), cell("Player"));
  t.crosstable.players.forEach((_, i) => head.append(cell(String(i + 1))));
  head.append(cell("Points"));
  const rows = t.crosstable.rows.map((r, i) => {
    const tr = document.createElement("tr");
    tr.dataset.testid = "cross-row";
    tr.append(cell(String(r.place)), cell(r.name));
    r.cells.forEach((games, j) => {
      const td = cell(i === j ? "×" : "");
      td.dataset.testid = "cross-cell";
      games.forEach((g, k) => {
        if (k) td.append(" ");
        td.append(gameLink(`${g.points === null ? "…" : g.points}${g.color === "black" ? "b" : "w"}`, g.game));
      });
      tr.append(td);
    });
    tr.append(cell(points(r.points)));
    return tr;
  });
  const thead = document.createElement("thead");
  thead.append(head);
  const body = document.createElement("tbody");
  body.append(...rows);
  table.replaceChildren(thead, body);
}

function drawRounds(t) {
  $("#rounds").replaceChildren(...t.rounds.slice().reverse().map((r) => {
    const box = document.createElement("div");
    box.dataset.testid = "round";
    box.append(Object.assign(document.createElement("h3"), { textContent: `Round ${r.round}` }));
    const list = document.createElement("ul");
    for (const g of r.games) {
      const li = document.createElement("li");
      li.dataset.testid = "board";
      li.append(`${g.board}. ${g.black} (black) – ${g.white} (white): `, gameLink(g.score || "being played", g.game));
      list.append(li);
    }
    if (r.bye) list.append(Object.assign(document.createElement("li"), { textContent: `${r.bye}: a bye` }));
    box.append(list);
    return box;
  }));
}

const STATUS = {
  open: (t) => `Open to join: ${t.entrants} of at most ${t.max_players} players. ` +
    (t.starts_at ? `Starts ${new Date(t.starts_at * 1000).toLocaleString()}.` : "Starts when its creator starts it."),
  running: (t) => `Round ${t.round} of ${t.round_count} being played.`,
  finished: (t) => `Finished after ${rounds(t.round_count)}.`,
  cancelled: () => "Cancelled: too few players at its start.",
};

let timer = null;
async function load() {
  const r = await api(path);
  if (!r.ok) { say(r.data.detail); return; }
  const t = r.data;
  document.title = `${t.name} · hexstones`;
  $("#name").textContent = t.name;
  $("#title").textContent = t.name;
  const system = t.system === "swiss" ? `Swiss, ${rounds(t.round_count)}` : "round robin";
  $("#about").textContent = `${t.title}, board side ${t.size}, ${t.clock_text}, ${system}${t.rated ? ", rated" : ""}; made by ${t.creator}.`;
  $("#status").textContent = STATUS[t.status](t);
  $("#winner").hidden = !t.winner;
  $("#winner").textContent = t.winner ? `Winner: ${t.winner}` : "";
  const open = t.status === "open";
  $("#join").hidden = !open || t.joined;
  $("#leave").hidden = !open || !t.joined;
  $("#start").hidden = !open || !t.yours;
  $("#bot-form").hidden = !open || !t.yours;
  $("#players").replaceChildren(...t.players.map((p) => {
    const li = document.createElement("li");
    li.dataset.testid = "player";
    li.textContent = `${p.seed ? `${p.seed}. ` : ""}${p.name}${p.bot ? " (the AI)" : ""}`;
    return li;
  }));
  drawStandings(t);
  drawCrosstable(t);
  drawRounds(t);
  if (!open && t.status !== "running" && timer !== null) { clearInterval(timer); timer = null; }
}

async function act(what, body) {
  const r = await api(`${path}/${what}`, body || {});
  if (!r.ok) say(r.data.detail); else say("");
  await load();
}

$("#join").addEventListener("click", () => act("join"));
$("#leave").addEventListener("click", () => act("leave"));
$("#start").addEventListener("click", () => act("start"));
$("#bot-form").addEventListener("submit", (e) => { e.preventDefault(); act("bots", { name: $("#bot-name").value }); });

async function start() {
  const bots = await api("/api/bots");
  if (bots.ok) {
    $("#bot-name").replaceChildren(...bots.data.bots.filter((b) => b.level !== null)
      .map((b) => new Option(`${b.name} (level ${b.level})`, b.name)));
  }
  await load();
  timer = setInterval(load, REFRESH_MS);
}
start();
