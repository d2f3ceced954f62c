// A tournament's page: what it is, who plays, each round's boards (links to the games),
// the standings and the crosstable, fetched again every few seconds while it is open or
// running (the server brings the tournament up to date at each look); the winner at the
// end. Join, leave, and for its creator: add one of the AI's accounts, start now.
import { api } from "./api.js";
import { lang, t, tn } from "./i18n.js";

const rounds = (n) => tn("{n} round", "{n} rounds", n);
// The tie-breaks' names (the server sends them in English).
const TIEBREAKS = { Buchholz: () => t("Buchholz"), "Sonneborn-Berger": () => t("Sonneborn-Berger") };

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

function drawStandings(tour) {
  $("#tiebreak").textContent = TIEBREAKS[tour.tiebreak] ? TIEBREAKS[tour.tiebreak]() : tour.tiebreak;
  $("#standings").replaceChildren(...tour.standings.map((s) => {
    const tr = document.createElement("tr");
    tr.dataset.testid = "standing";
    tr.append(cell(String(s.place)), cell(s.name), cell(points(s.points), "points"), cell(points(s.tiebreak)),
      cell(String(s.wins)), cell(String(s.losses)));
    return tr;
  }));
}

// One row per player in standings order, one column per opponent: the points scored
// against them and the colour played (● Black, ○ White: no letter to translate; the words
// for a screen reader), each a link to its game; "…" while it is played.
function drawCrosstable(tour) {
  const table = $("#crosstable");
  const head = document.createElement("tr");
  head.append(cell("#"), cell(t("Player")));
  tour.crosstable.players.forEach((_, i) => head.append(cell(String(i + 1))));
  head.append(cell(t("Points")));
  const rows = tour.crosstable.rows.map((r, i) => {
    const tr = document.createElement("tr");
    tr.dataset.testid = "cross-row";
    tr.append(cell(String(r.place)), cell(r.name));
    r.cells.forEach((games, j) => {
      const td = cell(i === j ? "×" : "");
      td.dataset.testid = "cross-cell";
      games.forEach((g, k) => {
        if (k) td.append(" ");
        const scored = g.points === null ? "…" : g.points; // "1", "½", "0" as the server writes them
        const link = gameLink(`${scored}${g.color === "black" ? "●" : "○"}`, g.game);
        const words = g.color === "black" ? t("{points} with Black", { points: scored }) : t("{points} with White", { points: scored });
        if (typeof link === "string") {
          const span = Object.assign(document.createElement("span"), { textContent: link });
          span.setAttribute("aria-label", words);
          td.append(span);
        } else {
          link.setAttribute("aria-label", words);
          td.append(link);
        }
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

function drawRounds(tour) {
  $("#rounds").replaceChildren(...tour.rounds.slice().reverse().map((r) => {
    const box = document.createElement("div");
    box.dataset.testid = "round";
    box.append(Object.assign(document.createElement("h3"), { textContent: t("Round {n}", { n: r.round }) }));
    const list = document.createElement("ul");
    for (const g of r.games) {
      const li = document.createElement("li");
      li.dataset.testid = "board";
      li.append(t("{board}. {black} (black) – {white} (white): ", { board: g.board, black: g.black, white: g.white }), gameLink(g.score || t("being played"), g.game));
      list.append(li);
    }
    if (r.bye) list.append(Object.assign(document.createElement("li"), { textContent: t("{name}: a bye", { name: r.bye }) }));
    box.append(list);
    return box;
  }));
}

const STATUS = {
  open: (tour) => t("Open to join: {n} of at most {total} players.", { n: tour.entrants, total: tour.max_players }) + " " +
    (tour.starts_at ? t("Starts {when}.", { when: new Date(tour.starts_at * 1000).toLocaleString(lang) }) : t("Starts when its creator starts it.")),
  running: (tour) => t("Round {n} of {total} being played.", { n: tour.round, total: tour.round_count }),
  finished: (tour) => t("Finished after {rounds}.", { rounds: rounds(tour.round_count) }),
  cancelled: () => t("Cancelled: too few players at its start."),
};

let timer = null;
async function load() {
  const r = await api(path);
  if (!r.ok) { say(r.data.detail); return; }
  const tour = r.data;
  document.title = `${tour.name} · hexstones`;
  $("#name").textContent = tour.name;
  $("#title").textContent = tour.name;
  const system = tour.system === "swiss" ? t("Swiss, {rounds}", { rounds: rounds(tour.round_count) }) : t("round robin");
  $("#about").textContent = t("{game}, board side {size}", { game: tour.title, size: tour.size }) +
    `, ${tour.clock_text}, ${system}${tour.rated ? t(", rated") : ""}` + t("; made by {name}.", { name: tour.creator });
  $("#status").textContent = STATUS[tour.status](tour);
  $("#winner").hidden = !tour.winner;
  $("#winner").textContent = tour.winner ? t("Winner: {name}", { name: tour.winner }) : "";
  const open = tour.status === "open";
  $("#join").hidden = !open || tour.joined;
  $("#leave").hidden = !open || !tour.joined;
  $("#start").hidden = !open || !tour.yours;
  $("#bot-form").hidden = !open || !tour.yours;
  $("#players").replaceChildren(...tour.players.map((p) => {
    const li = document.createElement("li");
    li.dataset.testid = "player";
    li.textContent = `${p.seed ? `${p.seed}. ` : ""}${p.name}${p.bot ? t(" (the AI)") : ""}`;
    return li;
  }));
  drawStandings(tour);
  drawCrosstable(tour);
  drawRounds(tour);
  if (!open && tour.status !== "running" && timer !== null) { clearInterval(timer); timer = null; }
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
      .map((b) => new Option(t("{name} (level {level})", { name: b.name, level: b.level }), b.name)));
  }
  await load();
  timer = setInterval(load, REFRESH_MS);
}
start();
