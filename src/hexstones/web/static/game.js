// The game page. The server draws the board (SVG) and decides everything; this module
// shows its state, sends clicks, and polls while the AI is thinking. game-page.js starts
// it (start()) once online.js and analysis.js have hooked themselves in (onRender).
import { api } from "./api.js";
import { formatNumber, t, tn } from "./i18n.js";
import { warmingWhat } from "./warming.js";

export const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
export const $ = (sel) => document.querySelector(sel);
export const board = $("#board");
// The game's facts (title, balance, overlays, ...) come from the server: GET /api/spec.
let specs = null;
let legendsOf = {};
const specOf = (s) => specs[s.game];

let state = null; // the last state the server sent
let drawnSvg = null; // the board drawing shown (the server's SVG of that state)
let overlays = null; // Set of overlay names shown
let pollTimer = null;
let finalShown = false;
let resignArmed = null;
let undoArmed = null; // undo of a finished game asks first: it reopens the game
let sending = false; // a move is on its way: further clicks wait (a double click is one move)
// A point clicked while a move was on its way (its stone can show from a live update before
// the answer is in): played when the answer is, if the person may still play there.
let clickedMeanwhile = null;
let legends = null; // overlay name -> legend items, for this game (null: not set up yet)

// "black" as a person reads it: Black (흑 in Korean).
export function colorWord(color) { return color === "black" ? t("Black") : color === "white" ? t("White") : color; }
// A move as a person reads it: a point as it is, a special move in words (pass: 패스).
export function moveWord(move) {
  return move === "pass" ? t("pass") : move === "button" ? t("button") : move === "release" ? t("release") : move;
}

// What the other modules of the page read of this one's state.
export const currentState = () => state; // the state shown, null before the first
export const isSending = () => sending;
export const undoAsking = () => undoArmed !== null; // Undo asks for a second click

export function say(text, kind = "error") {
  const m = $("#message");
  m.textContent = text || "";
  m.className = "message " + kind;
}

export function overlayParam() { return overlays ? Array.from(overlays).join(",") : ""; }

function stateUrl(at, since) {
  // ``since``: a state shown (its version, counted by its ``server``'s copy of the game).
  const q = new URLSearchParams();
  if (at !== null && at !== undefined) q.set("at", String(at));
  if (overlayParam()) q.set("overlays", overlayParam());
  if (since !== undefined) {
    q.set("since", String(since.version));
    if (since.server) q.set("server", since.server);
  }
  return `/api/games/${encodeURIComponent(gameId)}?${q}`;
}

// The position the address asks for (?at=N): what "the position shown" is until the first
// state is in (a live update arriving first must not jump to the end).
const startAt = (() => {
  const at = new URLSearchParams(location.search).get("at");
  return at === null ? null : Number(at);
})();

export function viewing() {
  if (!state) return startAt;
  return state.at !== state.move_count ? state.at : null;
}

let loadAsked = 0; // the state asked for last: an older answer arriving later is not drawn
export async function load(at) {
  const asked = ++loadAsked;
  if (specs === null) {
    const r = await api("/api/spec");
    if (!r.ok) { say(r.data.detail); $("#status").textContent = r.data.detail; return; }
    specs = r.data.games;
    legendsOf = r.data.legends;
  }
  const r = await api(stateUrl(at));
  if (asked !== loadAsked) return; // a later click asked for another position meanwhile
  if (!r.ok) { say(r.data.detail); if (!state) $("#status").textContent = r.data.detail; return; }
  render(r.data);
}

// -- drawing the state ----------------------------------------------------------------------
// What is told of each state drawn: online.js (seats, takebacks) and analysis.js.
const renderListeners = [];

// ``listener(s, previous)`` is called after each state ``s`` is drawn (``previous``: the
// state shown before it, or null), in the order the listeners came.
export function onRender(listener) {
  renderListeners.push(listener);
}

// A state older than the one shown (a reply overtaken by a live update) is not drawn: one of
// an older stored revision of the game (from any server process's copy of it), or of the
// same copy (``server``) at an older version (its changes in memory: the AI thinking).
let shownJson = null; // the state last drawn, as the server sent it

export function render(s) {
  if (state && s.id === state.id
      && (s.revision < state.revision || (s.server === state.server && s.version < state.version))) return;
  // The same state again (a live update's refetch of what the page already shows, as when it
  // connects): nothing is redrawn, so nothing under the pointer is replaced.
  const json = JSON.stringify(s);
  if (json === shownJson && state && state.id === s.id) return;
  shownJson = json;
  const previous = state;
  draw(s);
  for (const listener of renderListeners) listener(s, previous);
}

function draw(s) {
  state = s;
  if (overlays === null) {
    const saved = localStorage.getItem("hexstones-overlays-" + s.game);
    overlays = new Set(saved ? saved.split(",").filter((o) => s.overlays_available.includes(o)) : []);
    if (overlays.size) { load(s.at === s.move_count ? null : s.at); return; }
  }
  if (legends === null) setUpGame(s);
  if (!$("#overlay-boxes").children.length) renderOverlayBoxes();
  const past = viewing() !== null;
  // A state with the same board (a friend's name, a seat taken) keeps the drawing: no point
  // is swapped under a finger mid-tap, the last move's animation is not replayed.
  if (s.svg !== drawnSvg) { board.innerHTML = s.svg; drawnSvg = s.svg; }
  else board.querySelectorAll("[data-legal]").forEach((el) => el.removeAttribute("data-legal"));
  board.classList.toggle("past", past);
  board.classList.toggle("can-play", !past && s.human_turn);
  board.classList.remove("to-move-black", "to-move-white");
  if (s.to_move) board.classList.add("to-move-" + s.to_move);
  if (!past && s.human_turn) {
    for (const move of s.legal) {
      const el = board.querySelector(`[data-point="${move}"]`);
      if (el) el.setAttribute("data-legal", "");
    }
  }
  renderHeader(s);
  renderStatus(s);
  renderActions(s, past);
  renderPie(s);
  renderScore(s);
  renderResult(s);
  renderMoves(s);
  if (s.over && !finalShown) {
    finalShown = true;
    // The overlay that explains the final position is switched on by itself.
    const final = specOf(s).final_overlay;
    const add = final && !overlays.has(final) ? [final] : [];
    if (add.length) {
      add.forEach((o) => overlays.add(o));
      renderOverlayBoxes();
      load(past ? s.at : null);
    }
  }
  schedulePoll();
}

// Once per page: what depends only on the game (help link, tooltips, board size).
function setUpGame(s) {
  const spec = specOf(s);
  $("#rules-link").href = `/rules/${encodeURIComponent(s.game)}`;
  $("#rules-link").textContent = t("{game} rules", { game: spec.title });
  for (const id of ["pass", "button", "release"]) {
    const help = (spec.special_help || {})[id];
    if (help) $("#" + id).title = help;
  }
  // How many points the board spans: Zoom on a narrow screen keeps them a finger apart.
  board.style.setProperty("--board-span", String(2 * s.size - 1));
  legends = legendsOf[s.game] || {};
}

function renderHeader(s) {
  let who = t("two players at this screen");
  if (s.opponent === "ai") {
    const human = s.players ? (s.players.black === "human" ? "black" : "white") : null;
    // "you" only to the person who plays it; a spectator sees whose game it is.
    const values = { level: s.level, color: human === "black" ? t("black") : t("white") };
    who = !human ? t("vs the AI, level {level}", values)
      : s.spectator ? t("a person ({color}) vs the AI, level {level}", values) : t("you ({color}) vs the AI, level {level}", values);
  }
  const b = specOf(s).balance;
  // A komi is a number of points; a prison balance is where the prison started.
  const value = s.options[b.option];
  const balance = b.offsets_score ? t("{balance} {value}", { balance: b.short, value }) : t("{value} {note}", { value, note: b.note });
  const pie = s.pie && s.pie.stage !== "done" ? t("komi pie") : balance;
  const named = s.name ? `${s.name} · ` : "";
  const stones = s.options.handicap ? s.options.handicap.length : 0;
  const handicap = stones ? " · " + tn("handicap: {n} black stone", "handicap: {n} black stones", stones) : "";
  $("#title").textContent = `${named}${specOf(s).title} · ${t("side {size}", { size: s.size })} · ${pie}${handicap} · ${who}`;
  document.title = `${specOf(s).title} · hexstones`;
  $("#sgf-link").href = `/api/games/${encodeURIComponent(gameId)}/sgf`;
}

function renderStatus(s) {
  $("#status").textContent = s.status;
  const dot = $("#status-dot");
  const color = s.result ? s.result.winner : s.to_move;
  dot.className = "dot " + (color || "");
  dot.hidden = !color || (s.pie && s.pie.stage !== "done");
  $("#status-box").classList.toggle("over", !!s.over);
  $("#thinking").hidden = !(s.waiting_for === "ai" && !s.ai_error);
  renderWarming(s.ai_warming);
}

// While the AI's processes compile their search (the first start of a fresh install),
// the spinner and a note say what is compiling, with a bar of the share done.
function warmingShare(w) {
  return typeof w.fraction === "number" ? w.fraction : w.total ? Math.max(w.done, 0) / w.total : 0;
}

function warmingText(w) {
  return t("first start only: {what}; {share} done after {seconds} s",
    { what: warmingWhat(w), share: formatNumber(warmingShare(w), { style: "percent" }), seconds: Math.round(w.seconds) });
}

// The progress bar ``id`` (made on first use), showing ``share``.
function warmingBar(id, share) {
  let bar = document.getElementById(id);
  if (!bar) {
    bar = document.createElement("progress");
    bar.id = id;
    bar.className = "warming-bar";
    bar.dataset.testid = id;
    bar.max = 1;
    bar.setAttribute("aria-label", t("The AI's compile, share done"));
    bar.style.cssText = "display:block;flex:1 0 100%;width:100%;max-width:22rem;margin-top:.3rem";
  }
  bar.value = share;
  bar.hidden = false;
  return bar;
}

// While this game's move waits for the AI's processes behind other games: its place in line.
function aiQueueText(place) {
  if (!place) return "";
  if (place === 1) return t("The AI is busy with other games; it will think for this one next…");
  return tn("The AI will think after {n} other game waiting before this one…",
    "The AI will think after {n} other games waiting before this one…", place - 1);
}

export function renderWarming(warming) {
  const text = warming ? warmingText(warming) : "";
  $("#thinking-text").textContent = warming
    ? t("The AI is thinking, with a simpler search while its own compiles ({text})…", { text })
    : aiQueueText(state && state.ai_queue) || t("The AI is thinking…");
  const note = $("#warming-note");
  note.hidden = !warming || !state || state.over || state.waiting_for === "ai";
  for (const bar of document.querySelectorAll(".warming-bar")) bar.hidden = !warming;
  if (!warming) return;
  const share = warmingShare(warming);
  const thinking = $("#thinking");
  thinking.style.flexWrap = "wrap"; // the bar on a line of its own below the text
  $("#thinking-text").style.flex = "1 1 0";
  thinking.append(warmingBar("thinking-bar", share));
  note.replaceChildren(t("The AI's search is still compiling ({text}); until then the AI answers with a simpler, weaker search.", { text }),
    warmingBar("warming-bar", share));
}

// The special moves' buttons (the rest of renderActions; holdActions lets them go with it).
function renderSpecialMoves(s, past) {
  const live = !past;
  for (const id of ["pass", "button", "release"]) {
    const b = $("#" + id);
    b.hidden = !s.special_moves.includes(id);
    b.disabled = sending || !(live && s.human_turn && s.legal.includes(id)); // see holdActions
  }
  if (s.prison) {
    const enemy = s.to_move === "white" ? "black" : "white";
    const n = s.to_move ? s.prison[enemy] : 0;
    $("#release").textContent = !s.to_move ? t("Release")
      : enemy === "black" ? t("Release a black stone ({n} in prison)", { n }) : t("Release a white stone ({n} in prison)", { n });
  }
}

function renderActions(s, past) {
  renderSpecialMoves(s, past);
  const pieOpen = s.pie && s.pie.stage !== "done";
  const resigned = s.result && s.result.reason === "resignation";
  $("#undo").disabled = !(s.move_count > 0 && !resigned && !pieOpen);
  if (undoArmed === null) $("#undo").textContent = t("Undo");
  $("#resign").disabled = !!(s.over || pieOpen);
  if (resignArmed === null) $("#resign").textContent = t("Resign");
}

function renderPie(s) {
  const panel = $("#pie-panel");
  const pie = s.pie;
  if (!pie || pie.stage === "done") { panel.hidden = true; panel.innerHTML = ""; return; }
  panel.hidden = false;
  const ai = s.opponent === "ai";
  const spec = specOf(s).balance;
  const balance = spec.label;
  if (pie.stage === "propose" && pie.proposer === "human") {
    const who = ai ? t("You propose the balance; the AI then chooses a colour.")
      : t("First player: propose the balance; the second player then chooses a colour.");
    if (panel.dataset.stage !== "propose") {
      panel.innerHTML = `<p>${who}</p>
        <div class="form-row"><label>${balance} <input type="number" step="1" id="pie-komi" data-testid="pie-komi" value="${spec.default}" min="${spec.minimum}" max="${spec.maximum}"></label>
        <button class="primary" id="pie-propose" data-testid="pie-propose">${t("Propose")}</button></div>`;
      $("#pie-propose").onclick = async () => {
        const r = await api(`/api/games/${encodeURIComponent(gameId)}/pie`, { komi: $("#pie-komi").value });
        if (!r.ok) { say(r.data.detail); return; }
        say("");
        render(r.data);
      };
    }
  } else if (pie.stage === "choose" && (!ai || pie.proposer === "ai")) {
    const values = { komi: `<b>${pie.komi}</b>`, balance };
    panel.innerHTML = `<p>${ai ? t("The AI proposes {komi} {balance}. Choose your colour:", values)
      : t("The proposal is {komi} {balance}. Second player: choose a colour:", values)}</p>
      <div class="form-row"><button id="pie-black" data-testid="pie-black">${t("Play black (first)")}</button>
      <button id="pie-white" data-testid="pie-white">${t("Play white")}</button></div>`;
    for (const color of ["black", "white"]) {
      $("#pie-" + color).onclick = async () => {
        const r = await api(`/api/games/${encodeURIComponent(gameId)}/pie`, { color });
        if (!r.ok) { say(r.data.detail); return; }
        say("");
        render(r.data);
      };
    }
  } else {
    panel.innerHTML = `<p class="muted">${pie.stage === "propose" ? t("The AI is proposing the balance…")
      : t("You proposed {komi} {balance}; the AI is choosing a colour…", { komi: pie.komi, balance })}</p>`;
  }
  panel.dataset.stage = pie.stage === "propose" && pie.proposer === "human" ? "propose" : "";
}

function scoreTable(s) {
  const rows = s.score_details.black.map((part, i) => {
    const white = s.score_details.white[i];
    return `<tr><td>${part.label}</td><td>${fmt(part.value)}</td><td>${fmt(white.value)}</td></tr>`;
  });
  return `<table><thead><tr><th></th><th>${t("Black")}</th><th>${t("White")}</th></tr></thead><tbody>${rows.join("")}
    <tr class="total"><td>${t("total")}</td><td data-testid="score-black">${fmt(s.score.black)}</td><td data-testid="score-white">${fmt(s.score.white)}</td></tr></tbody></table>`;
}

function fmt(v) { return Number.isInteger(v) ? String(v) : v.toFixed(1); }

function renderScore(s) {
  const box = $("#score");
  const resigned = s.result && s.result.reason === "resignation";
  const past = viewing() !== null;
  box.hidden = false;
  if (s.score && s.score_details && resigned && !past) {
    // A resignation decides the game: a count of the board would read as its result.
    box.innerHTML = "";
    box.hidden = true;
  } else if (s.score && s.score_details) {
    const title = past ? t("Score at move {at} if the game ended there", { at: s.at })
      : s.over ? t("Final score") : t("Score if the game ended now");
    box.innerHTML = `<h3>${title}</h3>` + scoreTable(s);
  } else if (s.prison) {
    box.innerHTML = `<h3>${t("Prison")}</h3><div class="prison">
      <span class="dot black"></span><span data-testid="prison-black">${tn("{n} black stone (White may release them)", "{n} black stones (White may release them)", s.prison.black)}</span>
      <span class="dot white"></span><span data-testid="prison-white">${tn("{n} white stone (Black may release them)", "{n} white stones (Black may release them)", s.prison.white)}</span></div>
      <p class="muted" style="margin:.4rem 0 0;font-size:.85rem">${t("No score in {game}: whoever cannot act loses.", { game: specOf(s).title })}</p>`;
  } else {
    box.innerHTML = "";
    box.hidden = true;
  }
}

function renderResult(s) {
  const box = $("#result");
  const r = s.result;
  if (!r) { box.hidden = true; box.innerHTML = ""; return; }
  box.hidden = false;
  let how = "";
  const loser = r.winner === "black" ? "white" : "black";
  if (r.reason === "resignation") {
    how = tn("{loser} resigned after {n} move.", "{loser} resigned after {n} moves.", s.move_count, { loser: colorWord(loser) });
  }
  else if (r.score) {
    // The final position's parts, not those of the position shown.
    const parts = (color) => r.score_details[color].filter((p) => p.value !== 0).map((p) => `${fmt(p.value)} ${p.label}`).join(" + ").replace(/\+ -/g, "− ");
    how = `<div>${t("Black")} ${fmt(r.score.black)} = ${parts("black") || "0"}</div><div>${t("White")} ${fmt(r.score.white)} = ${parts("white") || "0"}</div>`;
  } else how = t("{winner} took the last action; {loser} has no legal action.", { winner: colorWord(r.winner), loser: colorWord(loser) });
  box.innerHTML = `<div class="winner" data-testid="winner">${r.winner === "black" ? t("Black wins") : t("White wins")}</div><div class="muted">${how}</div>`;
}

function renderMoves(s) {
  const list = $("#movelist");
  const items = [];
  const first = document.createElement("li");
  first.innerHTML = `<button data-at="0"${s.at === 0 ? ' class="current"' : ""}>${t("start")}</button>`;
  items.push(first);
  // Colours alternate from Black, except in Droched handicap games (White first).
  let color = s.options.handicap && s.options.handicap.length ? "white" : "black";
  s.moves.forEach((move, i) => {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.dataset.at = String(i + 1);
    b.textContent = `${i + 1}. ${moveWord(move)}`;
    b.className = (color === "black" ? "b" : "w") + (s.at === i + 1 ? " current" : "");
    li.append(b);
    items.push(li);
    color = color === "black" ? "white" : "black";
  });
  list.replaceChildren(...items);
  // Keep the current move in view inside the list (scrolling the list, never the page).
  const current = list.querySelector(".current");
  if (current) {
    const top = current.offsetTop; // the list is positioned: offsets are inside it
    if (top < list.scrollTop || top + current.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = Math.max(0, top - list.clientHeight / 2);
    }
  }
  $("#where").textContent = viewing() === null ? t("move {n} (now)", { n: s.move_count })
    : t("move {at} of {n}", { at: s.at, n: s.move_count });
  $("#first").disabled = $("#prev").disabled = s.at === 0;
  $("#next").disabled = $("#last").disabled = s.at === s.move_count;
}

function renderOverlayBoxes() {
  const box = $("#overlay-boxes");
  box.innerHTML = "";
  const labels = Object.fromEntries(specOf(state).overlays.map((o) => [o.name, o.label]));
  for (const name of state.overlays_available) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "checkbox";
    input.checked = overlays.has(name);
    input.dataset.overlay = name;
    input.addEventListener("change", () => {
      if (input.checked) overlays.add(name); else overlays.delete(name);
      localStorage.setItem("hexstones-overlays-" + state.game, Array.from(overlays).join(","));
      renderLegends();
      load(viewing());
    });
    label.append(input, " " + (labels[name] || name));
    box.append(label);
  }
  renderLegends();
}

// A legend for each overlay shown: what its colours and marks mean.
const SWATCH = {
  "square-black": '<rect x="5" y="5" width="8" height="8" fill="#111" stroke="#111"/>',
  "square-white": '<rect x="5" y="5" width="8" height="8" fill="#fff" stroke="#333"/>',
  "none": '<circle cx="9" cy="9" r="3" fill="none" stroke="#b8a27a" stroke-dasharray="2 2"/>',
  "link": '<line x1="2" y1="14" x2="16" y2="4" stroke="#d62828" stroke-width="4" stroke-linecap="round"/>',
  "dot": '<circle cx="9" cy="9" r="4" fill="#1d6fd6" stroke="#fff"/>',
  "label": '<rect x="1" y="3" width="16" height="12" rx="6" fill="#fff" stroke="#2a9d3f" stroke-width="2"/><text x="9" y="12.5" font-size="9" text-anchor="middle" font-weight="bold">3</text>',
  "ring-good": '<circle cx="9" cy="9" r="6" fill="none" stroke="#1f9d3a" stroke-width="3"/>',
  "ring-bad": '<circle cx="9" cy="9" r="6" fill="none" stroke="#d62828" stroke-width="3" stroke-dasharray="5 3"/>',
};

function renderLegends() {
  const box = $("#legends");
  const parts = [];
  for (const name of state.overlays_available) {
    if (!overlays.has(name) || !legends[name]) continue;
    const items = legends[name].map((item) =>
      `<li><svg width="18" height="18" viewBox="0 0 18 18" aria-hidden="true">${SWATCH[item.swatch] || ""}</svg><span>${item.text}</span></li>`);
    parts.push(`<div class="legend" data-legend="${name}"><ul>${items.join("")}</ul></div>`);
  }
  box.innerHTML = parts.join("");
}

// -- the AI's turn: poll until the game waits for a person again ---------------------------
function schedulePoll() {
  clearTimeout(pollTimer);
  if (state && state.waiting_for === "ai" && !state.ai_error) pollTimer = setTimeout(poll, 300);
}

async function poll() {
  const at = viewing();
  const r = await api(stateUrl(at, state));
  if (r.ok && r.data.unchanged) {
    // The game is as it was; the AI's place in line may have moved.
    state.ai_queue = r.data.ai_queue;
    renderWarming(r.data.ai_warming); schedulePoll(); return;
  }
  if (r.ok) { render(r.data); return; }
  say(r.data.detail);
  pollTimer = setTimeout(poll, 1500); // the server may be restarting: keep trying
}

// -- what the player does -------------------------------------------------------------------
// While a move is on its way a click is not taken: the special moves' buttons say so by
// being disabled (a quick Button then Pass waits for the first answer instead of being lost),
// also through a drawing of the live update meanwhile. Returns what lets them go: they are
// then set from the state shown, which may already be the answer's (a live update can
// come first, and the same state is not drawn twice), never put back as they were.
export function holdActions() {
  sending = true;
  for (const id of ["pass", "button", "release"]) $("#" + id).disabled = true;
  return () => {
    sending = false;
    if (state) renderSpecialMoves(state, viewing() !== null);
  };
}

async function play(move) {
  if (viewing() !== null) {
    say(t("You are looking at move {at}: go to the current position (End) to play.", { at: state.at }), "info");
    return;
  }
  if (sending) {
    if (board.querySelector(`[data-point="${CSS.escape(move)}"]`)) clickedMeanwhile = move;
    return;
  }
  const release = holdActions();
  let r;
  try {
    r = await api(`/api/games/${encodeURIComponent(gameId)}/moves`, { move, ply: state.move_count, overlays: overlayParam() });
  } finally { release(); }
  const next = clickedMeanwhile;
  clickedMeanwhile = null;
  if (r.status === 409) {
    // The game is not where this page thought (another tab, the AI): show it as it is.
    say(r.data.detail);
    load(null);
    return;
  }
  if (!r.ok) { say(r.data.detail); return; }
  say("");
  render(r.data);
  if (next !== null && next !== move && state && !state.over && state.human_turn && state.legal.includes(next)) play(next);
}

board.addEventListener("click", (e) => {
  if (e.detail > 1) return; // the second click of a double click is not a second move
  const point = e.target.closest("[data-point]");
  if (point && state) play(point.dataset.point);
});
for (const id of ["pass", "button", "release"]) $("#" + id).addEventListener("click", () => play(id));

$("#undo").addEventListener("click", async (e) => {
  if (e.detail > 1) return; // the second click of a double click takes back nothing more
  // A finished game is reopened by undo: ask with a second click, as resign does.
  if (state && state.over && undoArmed === null) {
    $("#undo").textContent = t("Reopen the finished game? Click again");
    undoArmed = setTimeout(() => { undoArmed = null; $("#undo").textContent = t("Undo"); }, 4000);
    return;
  }
  clearTimeout(undoArmed);
  undoArmed = null;
  const r = await api(`/api/games/${encodeURIComponent(gameId)}/undo`, { ply: state.move_count, overlays: overlayParam() });
  if (r.status === 409 && r.data.detail.startsWith("this undo was meant")) {
    // A move this page has not shown yet (another tab, a second click): show the game as it is.
    say(r.data.detail);
    load(null);
    return;
  }
  if (!r.ok) { say(r.data.detail); return; }
  say(t("Took back {moves}.", { moves: r.data.undone.join(", ") }), "info");
  finalShown = false;
  render(r.data);
});

$("#resign").addEventListener("click", async () => {
  // Two clicks: a misclick must not end the game.
  if (resignArmed === null) {
    $("#resign").textContent = t("Really resign? Click again");
    resignArmed = setTimeout(() => { resignArmed = null; $("#resign").textContent = t("Resign"); }, 4000);
    return;
  }
  clearTimeout(resignArmed);
  resignArmed = null;
  const r = await api(`/api/games/${encodeURIComponent(gameId)}/resign`, { overlays: overlayParam() });
  if (!r.ok) { say(r.data.detail); return; }
  say("");
  render(r.data);
});

$("#movelist").addEventListener("click", (e) => {
  const b = e.target.closest("[data-at]");
  if (b) load(Number(b.dataset.at));
});
// On a narrow screen the board fits the width; Zoom makes its points a finger's tap apart.
$("#zoom").addEventListener("click", () => {
  const zoomed = board.classList.toggle("zoomed");
  $("#zoom").setAttribute("aria-pressed", String(zoomed));
  $("#zoom").textContent = zoomed ? t("Fit") : t("Zoom");
});
$("#first").addEventListener("click", () => load(0));
$("#prev").addEventListener("click", () => load(Math.max(0, state.at - 1)));
$("#next").addEventListener("click", () => load(Math.min(state.move_count, state.at + 1)));
$("#last").addEventListener("click", () => load(null));
document.addEventListener("keydown", (e) => {
  if (!state || e.target.closest("input, select, textarea")) return;
  const to = { ArrowLeft: state.at - 1, ArrowRight: state.at + 1, Home: 0, End: state.move_count }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  load(Math.max(0, Math.min(state.move_count, to)));
});

// Back and Forward may show this page from the browser's memory: fetch the game again.
window.addEventListener("pageshow", (e) => { if (e.persisted) load(viewing()); });

// The first drawing, once the page's other modules listen (game-page.js).
export function start() {
  load(startAt);
}
