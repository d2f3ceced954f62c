// The start page: new-game form (it builds the /new link), stored games, SGF loading.
import { api } from "./api.js";
import { formatDate, formatNumber, t, tn } from "./i18n.js";
import { warmingWhat } from "./warming.js";

// The games' facts (sizes, balance, title) come from the server: GET /api/spec.
let specs = null;
const form = document.getElementById("new-game");
const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
const value = (name) => { const el = $(`[name=${name}]:checked`, form) || $(`[name=${name}]`, form); return el ? el.value : ""; };

function fillSizes(game) {
  const size = $("#size");
  size.innerHTML = "";
  const [smallest, largest] = specs[game].sizes;
  for (let n = smallest; n <= largest; n++) {
    const points = 3 * n * (n - 1) + 1;
    const opt = new Option(t("{size}  ({points} points)", { size: n, points }), String(n));
    if (n === specs[game].default_size) { opt.selected = true; opt.text += "  " + t("default"); }
    size.add(opt);
  }
}

function newGameLink() {
  const game = value("game");
  const params = new URLSearchParams({ game, size: $("#size").value, opponent: value("opponent") });
  const ai = value("opponent") === "ai";
  if (ai) params.set("level", $("#level").value);
  if (value("balance") === "fixed") {
    if (ai || value("opponent") === "friend") params.set("color", value("color"));
    params.set("komi", $("#komi").value || "0");
  } else {
    params.set("pie", ai ? value("pie") : "you");
  }
  if (!ai && $("#clock").value !== "none") params.set("clock", $("#clock").value);
  return "/new?" + params.toString();
}

// What each AI level plays on the chosen game and side (GET /api/levels), asked once each.
const levelGuides = new Map();
const levelQuery = () => new URLSearchParams({ game: value("game"), size: $("#size").value }).toString();
async function showLevel() {
  const key = levelQuery();
  if (!levelGuides.has(key)) {
    levelGuides.set(key, api(`/api/levels?${key}`).then((r) => (r.ok && r.data.levels ? r.data : null)));
  }
  const guide = await levelGuides.get(key);
  if (!guide) levelGuides.delete(key); // ask again next time
  if (levelQuery() !== key) return; // the choice changed while this was on its way
  const level = guide && guide.levels.find((l) => String(l.level) === $("#level").value);
  $("#level-note").textContent = level ? level.text : "";
}

function refreshForm(gameChanged) {
  const game = value("game");
  const d = specs[game].balance;
  if (gameChanged) {
    fillSizes(game);
    $("#komi").value = d.default;
  }
  $("#komi").min = String(d.minimum);
  $("#komi").max = String(d.maximum);
  $$(".balance-name").forEach((el) => (el.textContent = d.short));
  $(".balance-name-cap").textContent = d.short[0].toUpperCase() + d.short.slice(1); // no case in Korean: as it is
  $("#komi-note").textContent = d.note;
  // The balance found even between the AI's players on this side, where a study placed one.
  const fair = d.fair[$("#size").value];
  const fairButton = $("#komi-fair");
  fairButton.hidden = fair === undefined;
  if (fair !== undefined) {
    const set = String(fair) === $("#komi").value;
    fairButton.dataset.value = String(fair);
    fairButton.disabled = set;
    fairButton.textContent = set ? t("{value}: even between the AI's players", { value: fair })
      : t("use {value}, even between the AI's players", { value: fair });
  }
  const ai = value("opponent") === "ai";
  const fixed = value("balance") === "fixed";
  const friend = value("opponent") === "friend";
  $(".chooser").textContent = ai ? t("the AI") : friend ? t("your friend") : t("the other player");
  if (!ai) { const you = $("[name=pie][value=you]"); you.checked = true; }
  for (const row of $$("[data-for]", form)) {
    const needs = row.dataset.for.split(" ");
    const ok = needs.every((n) => (n === "ai" ? ai : n === "you" ? ai || friend : n === "fixed" ? fixed : n === "pie" ? !fixed : n === "people" ? !ai : true));
    row.hidden = !ok;
  }
  $("#level-out").textContent = $("#level").value;
  showLevel();
  const link = newGameLink();
  $("#link").href = link;
  $("#link").textContent = location.origin + link;
}

async function start() {
  const r = await api("/api/spec");
  if (!r.ok) { listMessage(r.data.detail); return; }
  specs = r.data.games;  // the page came with the game choices (web/app.py)
  form.addEventListener("change", (e) => refreshForm(e.target.name === "game"));
  form.addEventListener("input", () => refreshForm(false));
  form.addEventListener("submit", (e) => { e.preventDefault(); location.href = newGameLink(); });
  $("#komi-fair").addEventListener("click", (e) => { $("#komi").value = e.currentTarget.dataset.value; refreshForm(false); });
  refreshForm(true);
  loadGames();
  showWarming();
}
start();

// Back and Forward may show this page from the browser's memory: list the games again.
window.addEventListener("pageshow", (e) => { if (e.persisted) loadGames(); });

// On a fresh install the AI compiles its search when the server starts: say so.
async function showWarming() {
  const line = $("#warming");
  try {
    const w = (await api("/api/ai")).data.warming; // none on a refusal: the line is hidden
    line.hidden = !w;
    if (!w) return;
    const share = typeof w.fraction === "number" ? w.fraction : Math.max(w.done, 0) / w.total;
    const what = warmingWhat(w);
    line.textContent = t("The AI is getting ready, first start only: {what}; {share} done after {seconds} s. A game can start meanwhile: until then the AI answers with a simpler search.",
      { what, share: formatNumber(share, { style: "percent" }), seconds: Math.round(w.seconds) });
    setTimeout(showWarming, 1000);
  } catch (_) { line.hidden = true; }
}

// -- stored games -----------------------------------------------------------------------
function players(g) {
  const s = g.setup;
  if (s.seats) {
    const names = Object.values(s.seats).map((seat) => seat.open ? t("(an open seat)") : seat.you ? t("you") : seat.name || t("a guest"));
    return names.join(" vs ") + (g.your_turn ? ": " + t("your turn") : "");
  }
  if (s.opponent !== "ai") return t("two players");
  if (!s.players) return t("vs AI level {level} (komi pie)", { level: s.level });
  return s.players.black === "human" ? t("you black vs AI level {level}", { level: s.level }) : t("you white vs AI level {level}", { level: s.level });
}

let listAsked = 0; // the list asked for last: an older answer arriving later is not drawn
// The list is redrawn whenever one of the games changes (a friend's move): what a person is
// doing in it must outlive a redraw.
let armedDelete = null; // the game whose Delete was clicked once: {id, timer}
let naming = null; // the game whose name is being typed: no redraw until it is saved
export async function loadGames() {
  if (naming !== null) return; // saving the name draws the list again
  const box = $("#games");
  const asked = ++listAsked;
  try {
    const listed = await api("/api/games");
    if (!listed.ok) { box.textContent = t("Cannot list the stored games:") + " " + listed.data.detail; return; }
    const data = listed.data;
    if (asked !== listAsked || naming !== null) return;
    myTurns(data.games);
    drawWatchList(data.watch || []);
    if (!data.games.length) { box.innerHTML = `<p class="muted">${t("No games yet.")}</p>`; return; }
    const rows = data.games.map((g) => {
      const tr = gameRow(g);
      const td = document.createElement("td");
      td.className = "row-actions";
      const a = document.createElement("a");
      a.href = `/game/${g.id}`;
      a.textContent = g.finished ? t("Replay") : t("Resume");
      const rename = Object.assign(document.createElement("button"), { type: "button", textContent: t("Name"), title: t("give this game a name") });
      rename.dataset.action = "name";
      rename.addEventListener("click", () => nameGame(g, tr));
      const armed = armedDelete !== null && armedDelete.id === g.id;
      const del = Object.assign(document.createElement("button"),
        { type: "button", textContent: armed ? t("Really delete?") : t("Delete"), title: t("delete this game (click twice)") });
      del.dataset.action = "delete";
      del.addEventListener("click", () => deleteGame(g, del));
      td.append(a, " ", rename, " ", del);
      tr.append(td);
      return tr;
    });
    const parts = [gamesTable(rows)];
    const empty = data.games.filter((g) => g.move_count === 0).length;
    if (empty) {
      const b = Object.assign(document.createElement("button"), { type: "button", id: "remove-empty" });
      b.textContent = tn("Delete the {n} game with no moves", "Delete the {n} games with no moves", empty);
      b.addEventListener("click", async () => {
        const r = await api("/api/games/remove-empty", undefined, "POST");
        if (!r.ok) { listMessage(r.data.detail); return; }
        loadGames();
      });
      const p = document.createElement("p");
      p.append(b);
      parts.push(p);
    }
    box.replaceChildren(...parts);
  } catch (err) {
    box.textContent = t("Cannot list the stored games:") + " " + err;
  }
}

// A stored game's cells: name, board, players, moves, state, when (the actions come after).
function gameRow(g) {
  const when = formatDate(g.updated, { dateStyle: "short", timeStyle: "short" });
  const title = specs[g.game] ? specs[g.game].title : g.game;
  const tr = document.createElement("tr");
  tr.dataset.gameId = g.id;
  const side = t("side {size}", { size: g.options.size });
  const cells = [[g.setup.name || title, "name"], [g.setup.name ? `${title}, ${side}` : side, ""],
    [players(g), "wide"], [String(g.move_count), ""], [t(g.summary), ""], [when, "wide"]];
  for (const [text, kind] of cells) {
    const td = document.createElement("td");
    td.textContent = text;
    if (kind) td.className = kind;
    tr.append(td);
  }
  return tr;
}

function gamesTable(rows) {
  const table = document.createElement("table");
  table.className = "games";
  table.innerHTML = `<thead><tr><th>${t("Game")}</th><th>${t("Board")}</th><th class="wide">${t("Players")}</th><th>${t("Moves")}</th>`
    + `<th>${t("State")}</th><th class="wide">${t("Last played")}</th><th></th></tr></thead>`;
  const body = document.createElement("tbody");
  body.append(...rows);
  table.append(body);
  const scroll = document.createElement("div");
  scroll.className = "table-scroll";
  scroll.append(table);
  return scroll;
}

// Other people's public games: to watch, with nothing to act on.
function drawWatchList(games) {
  $("#watch-card").hidden = games.length === 0;
  const rows = games.map((g) => {
    const tr = gameRow(g);
    const td = document.createElement("td");
    td.className = "row-actions";
    const a = Object.assign(document.createElement("a"), { href: `/game/${g.id}`, textContent: t("Watch") });
    td.append(a);
    tr.append(td);
    return tr;
  });
  $("#watch").replaceChildren(gamesTable(rows));
}

function listMessage(text) {
  const m = $("#games-message");
  m.className = "message error";
  m.textContent = text || "";
}

function nameGame(g, tr) {
  const cell = $("td.name", tr);
  const input = Object.assign(document.createElement("input"), { type: "text", value: g.setup.name || "", maxLength: 80, placeholder: "a name for this game" });
  input.dataset.testid = "game-name";
  cell.replaceChildren(input);
  naming = g.id;
  input.focus();
  let done = false; // Enter, then the blur of the input the redraw removes: one save
  const finish = async (keep) => {
    if (done) return;
    done = true;
    if (keep) {
      const r = await api(`/api/games/${encodeURIComponent(g.id)}/name`, { name: input.value });
      listMessage(r.ok ? "" : r.data.detail);
    }
    if (naming === g.id) naming = null;
    loadGames();
  };
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") { e.preventDefault(); finish(true); }
    if (e.key === "Escape") finish(false);
  });
  input.addEventListener("blur", () => finish(true));
}

function disarmDelete() {
  if (armedDelete !== null) clearTimeout(armedDelete.timer);
  armedDelete = null;
  for (const b of document.querySelectorAll("[data-action=delete]")) b.textContent = t("Delete");
}

async function deleteGame(g, button) {
  // Two clicks: a deleted game cannot be brought back.
  if (armedDelete === null || armedDelete.id !== g.id) {
    disarmDelete();
    armedDelete = { id: g.id, timer: setTimeout(disarmDelete, 4000) };
    button.textContent = t("Really delete?");
    return;
  }
  disarmDelete();
  const r = await api(`/api/games/${encodeURIComponent(g.id)}`, undefined, "DELETE");
  if (!r.ok) { listMessage(r.data.detail); return; }
  listMessage("");
  loadGames();
}

// -- SGF ------------------------------------------------------------------------------
for (let n = 1; n <= 10; n++) $("#sgf-level").add(new Option(t("level {n}", { n }), String(n), n === 3, n === 3));
$("#load-sgf").addEventListener("submit", async (e) => {
  e.preventDefault();
  const msg = $("#sgf-message");
  const file = $("#sgf-file").files[0];
  if (!file) { msg.className = "message error"; msg.textContent = t("Choose an SGF file first."); return; }
  const body = { sgf: await file.text(), opponent: $("#sgf-opponent").value };
  if (body.opponent === "ai") { body.color = $("#sgf-color").value; body.level = Number($("#sgf-level").value); }
  const r = await api("/api/import", body);
  if (!r.ok) { msg.className = "message error"; msg.textContent = r.data.detail; return; }
  location.href = `/game/${r.data.id}?at=0`;
});
const sgfOpponent = $("#sgf-opponent");
const showSgfAiChoices = () => { $("#sgf-color").hidden = $("#sgf-level").hidden = sgfOpponent.value !== "ai"; };
sgfOpponent.addEventListener("change", showSgfAiChoices);
showSgfAiChoices();

// -- my games: whose turn, a badge, a notification when it becomes mine ----------------------
let turnsSeen = null; // ids of the games where it was my turn at the last look
function myTurns(list) {
  const mine = list.filter((g) => g.your_turn).map((g) => g.id);
  const badge = $("#turn-badge");
  badge.hidden = mine.length === 0;
  badge.textContent = String(mine.length);
  badge.title = tn("your turn in {n} game", "your turn in {n} games", mine.length);
  document.title = mine.length ? `(${mine.length}) hexstones` : "hexstones";
  const online = list.some((g) => g.setup.seats);
  $("#notify-row").hidden = !online || !("Notification" in window) || Notification.permission !== "default";
  if (turnsSeen !== null && "Notification" in window && Notification.permission === "granted") {
    for (const g of list) {
      if (g.your_turn && !turnsSeen.has(g.id)) {
        const title = specs && specs[g.game] ? specs[g.game].title : g.game;
        const note = new Notification(t("hexstones: your turn"), { body: `${g.setup.name || title}: ${g.summary}`, tag: g.id });
        note.onclick = () => { window.focus(); location.href = `/game/${g.id}`; };
      }
    }
  }
  turnsSeen = new Set(mine);
}

$("#notify").addEventListener("click", async () => {
  await Notification.requestPermission();
  $("#notify-row").hidden = Notification.permission !== "default";
});

// The list follows the games as they are played (a WebSocket; reconnects by itself).
let myGamesRetry = 500;
function watchMyGames() {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const ws = new WebSocket(`${scheme}${location.host}/api/my-games/live`);
  ws.onopen = () => { myGamesRetry = 500; };
  ws.onmessage = (e) => {
    const event = JSON.parse(e.data);
    if (event.ping) return;
    loadGames(); // a change, or (re)connected: catch up
    if (event.seek || event.games !== undefined) showChallenges(); // a challenge's change, or (re)connected
    if (event.change === "seated") ws.close(); // a game I now play: connect again to hear it
  };
  ws.onclose = () => { setTimeout(watchMyGames, myGamesRetry); myGamesRetry = Math.min(myGamesRetry * 2, 10000); };
}
watchMyGames();

// The challenges to me: one line each, "X challenges you: open the lobby" (where they are
// answered), and a notification when one arrives, if allowed.
let challengesSeen = null; // ids of the challenges to me at the last look
async function showChallenges() {
  const r = await api("/api/challenges");
  if (!r.ok) return;
  const lines = r.data.to_you.map((c) => {
    const p = Object.assign(document.createElement("p"), { className: "challenge-line" });
    p.dataset.testid = "challenge-line";
    const link = Object.assign(document.createElement("a"), { href: "/lobby", textContent: t("open the lobby") });
    p.title = c.text; // what is offered, in words
    const maker = c.maker || t("A guest");
    p.append(t("{name} challenges you:", { name: maker }) + " ", link); // text: names are typed by people
    return p;
  });
  $("#challenge-lines").replaceChildren(...lines);
  if (challengesSeen !== null && "Notification" in window && Notification.permission === "granted") {
    for (const c of r.data.to_you.filter((each) => !challengesSeen.has(each.id))) {
      const maker = c.maker || t("A guest");
      const body = `${t("{name} challenges you:", { name: maker })} ${c.text}`;
      const note = new Notification(t("hexstones: a challenge"), { body, tag: `challenge-${c.id}` });
      note.onclick = () => { window.focus(); location.href = "/lobby"; };
    }
  }
  challengesSeen = new Set(r.data.to_you.map((c) => c.id));
}

async function showAccount() {
  const me = (await api("/api/account")).data; // on a refusal, no kind: the link says "Sign in"
  $("#account-link").textContent = me.kind === "account" ? me.name : me.kind === "guest" ? t("{name} (guest)", { name: me.name }) : t("Sign in");
}
showAccount();
