// The analysis mode and the hint, on the game page. The server analyses (GET/POST
// /api/games/<id>/analysis, /analysis/<ply>, /hint); this script shows it: a graph of
// the win rate (and the expected score) over the moves, the AI's best moves on the board,
// the principal variation on hover, the ownership map or each group's chance of the
// prison, the mistakes. game.js tells it when it has drawn a position (its onRender).
import { api } from "./api.js";
import { colorWord, currentState, gameId, load, moveWord, onRender } from "./game.js";
import { t, tn } from "./i18n.js";

const $ = (sel) => document.querySelector(sel);
const SVGNS = "http://www.w3.org/2000/svg";
const COLORS = { best: "#1f9d3a", other: "#1d6fd6", played: "#e07a10", prison: "#d62828", pv: "#7b2cbf" };

let shown = null; // the last state game.js drew
let summary = null; // GET /analysis: job, positions, mistakes
const details = {}; // ply -> GET /analysis/<ply> answer (with its iterations)
let pollTimer = null;
let hint = null; // {ply, moves} for the position now, when the hint is on
let hintFor = -1; // the move count the hint was asked for

const card = document.createElement("div");
card.className = "card analysis";
card.id = "analysis-card";
// Attributes' words first: Babel's extractor does not see a t() call inside an attribute of
// a template literal.
const budgetText = t("How long the AI searches each position");
const tips = {
  analyze: t("The AI searches every position of the game, in the background"),
  deeper: t("Search the position shown four times as long"),
  previous: t("the previous mistake"),
  next: t("the next mistake"),
};
card.innerHTML = `<h3>${t("Analysis")}</h3>
  <div class="form-row analysis-actions">
    <button id="analyze" data-testid="analyze" title="${tips.analyze}">${t("Analyze the game")}</button>
    <button id="analysis-stop" data-testid="analysis-stop" hidden>${t("Stop")}</button>
    <button id="analysis-deeper" data-testid="analysis-deeper" title="${tips.deeper}" hidden>${t("Deeper here")}</button>
    <select id="analysis-budget" data-testid="analysis-budget" aria-label="${budgetText}" title="${budgetText}">
      <option value="">${t("normal search")}</option><option value="300">${t("quick search")}</option></select>
  </div>
  <label class="hint-box" id="hint-box" hidden><input type="checkbox" id="hint" data-testid="hint"> ${t("Hint: show the AI's suggested moves")}</label>
  <div class="muted analysis-progress" id="analysis-progress" data-testid="analysis-progress"></div>
  <div class="winrate-graph" id="winrate-graph" data-testid="winrate-graph" hidden></div>
  <div class="analysis-position" id="analysis-position" data-testid="analysis-position"></div>
  <div class="mistakes" id="mistakes" data-testid="mistakes" hidden>
    <div class="form-row"><b>${t("Mistakes")}</b>
      <button id="mistake-prev" data-testid="mistake-prev" title="${tips.previous}">&#x25C0; ${t("previous")}</button>
      <button id="mistake-next" data-testid="mistake-next" title="${tips.next}">${t("next")} &#x25B6;</button></div>
    <div class="mistake-list" id="mistake-list"></div>
  </div>
  <label class="analysis-map-box" id="analysis-map-box" hidden><input type="checkbox" id="analysis-map" checked> <span id="analysis-map-label">${t("Show the map")}</span></label>
  <div class="legend analysis-legend" id="analysis-legend" data-testid="analysis-legend"></div>`;
const anchor = $("#score");
anchor.parentNode.insertBefore(card, anchor);

const base = () => `/api/games/${encodeURIComponent(gameId)}`;
const pct = (x) => `${Math.round(100 * x)}%`;
const signed = (x) => (x > 0 ? "+" : x < 0 ? "−" : "") + Math.abs(x).toFixed(1);

// -- the summary: progress, graph, mistakes -------------------------------------------
async function refresh() {
  const r = await api(base() + "/analysis");
  if (!r.ok) { $("#analysis-progress").textContent = r.data.detail; return; }
  summary = r.data;
  renderSummary();
  clearTimeout(pollTimer);
  if (summary.job && (summary.job.state === "running" || summary.job.state === "queued")) pollTimer = setTimeout(refresh, 600);
  if (shown) renderPosition(shown);
}

function renderSummary() {
  const job = summary.job;
  const running = job && (job.state === "running" || job.state === "queued");
  $("#analyze").hidden = running;
  $("#analysis-stop").hidden = !running;
  $("#analysis-budget").hidden = running;
  const n = summary.positions.length, total = summary.move_count + 1;
  $("#analyze").textContent = n === 0 ? t("Analyze the game") : n < total ? t("Analyze the rest") : t("Analyze again");
  let text = "";
  if (job && job.state === "queued") text = t("Queued: your analysis of another game runs first (place {place} of your analyses).", { place: job.place });
  else if (running) {
    text = t("Analysing: {done} of {total} positions", { done: job.done, total: job.total })
      + (job.current !== null ? " " + t("(now move {n})", { n: job.current }) : "")
      + (job.waiting ? " " + tn("(waiting for the AI: {n} position of other analyses first)",
        "(waiting for the AI: {n} positions of other analyses first)", job.waiting) : "") + "…";
  } else if (job && job.state === "failed") text = job.error;
  else if (job && job.state === "stopped") text = t("Stopped: {n} of {total} positions analysed.", { n, total });
  else if (n === total) text = t("{n} of {total} positions analysed.", { n, total });
  else if (n) text = t("{n} of {total} positions analysed: analyze the rest to fill the graph.", { n, total });
  else text = t("The AI has not looked at this game yet.");
  $("#analysis-progress").textContent = text;
  renderGraph();
  renderMistakes();
}

function renderGraph() {
  const box = $("#winrate-graph");
  const pos = summary.positions;
  box.hidden = pos.length === 0;
  if (!pos.length) { box.innerHTML = ""; return; }
  const W = 320, H = 110, pad = 4;
  const last = Math.max(summary.move_count, 1);
  const x = (ply) => pad + (W - 2 * pad) * ply / last;
  const y = (win) => pad + (H - 2 * pad) * (1 - win);
  const leads = pos.filter((p) => p.score_lead !== null).map((p) => Math.abs(p.score_lead));
  const scale = leads.length ? Math.max(1, ...leads) : 0;
  const ys = (lead) => pad + (H - 2 * pad) * (0.5 - lead / (2 * scale));
  const winLine = pos.map((p, i) => `${i ? "L" : "M"}${x(p.ply).toFixed(1)} ${y(p.black_win).toFixed(1)}`).join("");
  const withLead = pos.filter((p) => p.score_lead !== null);
  const leadLine = withLead.map((p, i) => `${i ? "L" : "M"}${x(p.ply).toFixed(1)} ${ys(p.score_lead).toFixed(1)}`).join("");
  const at = shown ? shown.at : summary.move_count;
  const mistakes = new Set(summary.mistakes.map((m) => m.ply));
  const dots = pos.map((p) => `<circle data-ply="${p.ply}" cx="${x(p.ply).toFixed(1)}" cy="${y(p.black_win).toFixed(1)}" r="${mistakes.has(p.ply) ? 3.2 : 2}" class="${mistakes.has(p.ply) ? "mistake" : ""}"><title>${dotTitle(p)}</title></circle>`).join("");
  const label = t("Black's chance of winning over the moves");
  box.innerHTML = `<svg viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="${label}">
    <rect x="0" y="0" width="${W}" height="${H}" class="graph-bg"/>
    <line x1="${pad}" x2="${W - pad}" y1="${y(0.5)}" y2="${y(0.5)}" class="graph-mid"/>
    ${leadLine ? `<path d="${leadLine}" class="graph-lead"/>` : ""}
    <path d="${winLine}" class="graph-win"/>
    <line x1="${x(at)}" x2="${x(at)}" y1="0" y2="${H}" class="graph-at" data-graph-at="${at}"/>
    ${dots}</svg>
    <div class="graph-key muted"><span class="key-win"></span> ${t("Black's chance of winning (top: {top})", { top: pct(1) })}${scale ? ` <span class="key-lead"></span> ${t("expected score lead for Black (top: {top})", { top: "+" + scale.toFixed(1) })}` : ""}; ${t("click to go to a move.")}</div>`;
  box.querySelector("svg").addEventListener("click", (e) => {
    const svg = e.currentTarget;
    const rect = svg.getBoundingClientRect();
    const fx = (e.clientX - rect.left) / rect.width * W;
    const ply = Math.max(0, Math.min(summary.move_count, Math.round((fx - pad) / (W - 2 * pad) * last)));
    load(ply === summary.move_count ? null : ply);
  });
}

// The search that analysed a position ("compiled": the classic search, "net": the network's).
function engineWord(engine) {
  return engine === "compiled" ? t("compiled") : engine === "net" ? t("net") : engine === "python" ? t("python") : engine;
}

// A graph point's tooltip: the move, Black's chance, the expected lead.
function dotTitle(p) {
  const move = p.move ? t("move {n} ({move})", { n: p.ply, move: p.move }) : t("move {n}", { n: p.ply });
  const lead = p.score_lead !== null ? ", " + t("score {lead} for Black", { lead: signed(p.score_lead) }) : "";
  return `${move}: ${t("Black {share}", { share: pct(p.black_win) })}${lead}`;
}

function renderMistakes() {
  const box = $("#mistakes");
  const ms = summary.mistakes;
  box.hidden = ms.length === 0;
  $("#mistake-list").innerHTML = ms.map((m) => {
    const tip = t("go to the position before move {n}", { n: m.ply });
    return `<button class="mistake-item ${m.color === "black" ? "b" : "w"}" data-mistake="${m.ply}" title="${tip}">${m.ply}. ${moveWord(m.move)} <span class="drop">${colorWord(m.color)} −${pct(m.drop)}</span></button>`;
  }).join("");
  updateMistakeButtons();
}

function updateMistakeButtons() {
  if (!summary || !shown) return;
  const at = shown.at;
  const before = summary.mistakes.filter((m) => m.ply - 1 < at);
  const after = summary.mistakes.filter((m) => m.ply - 1 > at);
  $("#mistake-prev").disabled = before.length === 0;
  $("#mistake-next").disabled = after.length === 0;
  for (const b of card.querySelectorAll("[data-mistake]")) b.classList.toggle("current", Number(b.dataset.mistake) - 1 === at);
}

const goTo = (ply) => load(ply === currentState().move_count ? null : ply);
$("#mistake-prev").addEventListener("click", () => {
  const before = summary.mistakes.filter((m) => m.ply - 1 < shown.at);
  if (before.length) goTo(before[before.length - 1].ply - 1);
});
$("#mistake-next").addEventListener("click", () => {
  const after = summary.mistakes.filter((m) => m.ply - 1 > shown.at);
  if (after.length) goTo(after[0].ply - 1);
});
$("#mistake-list").addEventListener("click", (e) => {
  const b = e.target.closest("[data-mistake]");
  if (b) goTo(Number(b.dataset.mistake) - 1);
});

// -- the actions ------------------------------------------------------------------------
async function action(body) {
  const r = await api(base() + "/analysis", body);
  if (!r.ok) { $("#analysis-progress").textContent = r.data.detail; return; }
  summary = r.data;
  renderSummary();
  refresh();
}
$("#analyze").addEventListener("click", () => {
  const budget = $("#analysis-budget").value;
  action(budget ? { action: "start", iterations: Number(budget) } : { action: "start" });
});
$("#analysis-stop").addEventListener("click", () => action({ action: "stop" }));
$("#analysis-deeper").addEventListener("click", () => action({ action: "deeper", ply: shown.at }));
$("#analysis-map").addEventListener("change", () => { if (shown) renderPosition(shown); });
$("#hint").addEventListener("change", () => { hint = null; hintFor = -1; if (shown) showState(shown); });

// -- the position shown -----------------------------------------------------------------
async function detail(ply) {
  const line = summary && summary.positions.find((p) => p.ply === ply);
  if (!line) return null;
  const have = details[ply];
  if (have && have.iterations === line.iterations && have.played === (ply < shown.move_count ? shown.moves[ply] : null)) return have;
  const r = await api(`${base()}/analysis/${ply}`);
  if (!r.ok) return null;
  details[ply] = r.data;
  return r.data;
}

async function renderPosition(s) {
  const data = await detail(s.at);
  if (s !== shown) return; // another position was drawn meanwhile
  drawMarks(s, data);
  updateMistakeButtons();
  if (summary) renderGraphCursor(s.at);
}

function renderGraphCursor(at) {
  const line = card.querySelector("[data-graph-at]");
  if (!line || !summary) return;
  const W = 320, pad = 4, last = Math.max(summary.move_count, 1);
  const xv = (pad + (W - 2 * pad) * at / last).toFixed(1);
  line.setAttribute("x1", xv); line.setAttribute("x2", xv); line.dataset.graphAt = String(at);
}

function pointXY(svg, point) {
  const node = svg.querySelector(`[data-point="${CSS.escape(point)}"]`);
  const c = node && node.querySelector("circle.stone, circle.ghost, circle.hit");
  if (!c) return null;
  return { x: Number(c.getAttribute("cx")), y: Number(c.getAttribute("cy")), r: Number(c.getAttribute("r")) };
}

function el(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

function drawMarks(s, data) {
  const svg = document.querySelector("#board svg");
  const info = $("#analysis-position");
  $("#analysis-deeper").hidden = !data;
  $("#analysis-map-box").hidden = !(data && (data.ownership || data.prison_chance));
  if (!svg) return;
  for (const old of svg.querySelectorAll(".analysis-layer")) old.remove();
  const useHint = !data && hint && hint.ply === s.at && s.at === s.move_count;
  if (!data && !useHint) { info.innerHTML = ""; renderLegend(null); return; }
  const layer = el("g", { class: "analysis-layer", "pointer-events": "none" });
  const shownMap = $("#analysis-map").checked;
  $("#analysis-map-label").textContent = data && data.prison_chance ? t("Show each group's chance of the prison") : t("Show the ownership map");
  const parts = new Set();
  if (data && shownMap && data.ownership) {
    parts.add("ownership");
    const side = 0.5 * (pointXY(svg, Object.keys(data.ownership)[0]) || { r: 10 }).r * 2;
    for (const [p, v] of Object.entries(data.ownership)) {
      if (Math.abs(v) < 0.15) continue;
      const xy = pointXY(svg, p);
      if (!xy) continue;
      // On a stone, only when it is likely lost: the map then marks dead stones.
      const stone = svg.querySelector(`[data-point="${CSS.escape(p)}"]`).dataset.stone;
      if (stone && (stone === "black") === (v > 0)) continue;
      layer.append(el("rect", { class: "own", "data-own": p, x: xy.x - side / 2, y: xy.y - side / 2, width: side, height: side,
        fill: v > 0 ? "#111" : "#fff", stroke: v > 0 ? "#111" : "#555", "stroke-width": 0.8, opacity: (0.25 + 0.65 * Math.abs(v)).toFixed(2) }));
    }
  }
  if (data && shownMap && data.prison_chance) {
    parts.add("prison");
    for (const g of data.prison_chance) {
      g.points.forEach((p, i) => {
        const xy = pointXY(svg, p);
        if (!xy) return;
        layer.append(el("circle", { class: "prison-ring", cx: xy.x, cy: xy.y, r: xy.r * 0.8, fill: "none", stroke: COLORS.prison,
          "stroke-width": 3, opacity: (0.15 + 0.85 * g.chance).toFixed(2) }));
        if (i === 0) {
          const label = el("g", { class: "prison-label", "data-prison": p, "data-chance": g.chance });
          label.append(el("rect", { x: xy.x - 14, y: xy.y - 8, width: 28, height: 16, rx: 7, fill: "#fff", stroke: COLORS.prison, "stroke-width": 1.5 }));
          label.append(el("text", { x: xy.x, y: xy.y + 4, "text-anchor": "middle", "font-size": 10, "font-weight": "bold", fill: "#000" }, pct(g.chance)));
          layer.append(label);
        }
      });
    }
  }
  const candidates = useHint ? hint.moves : (data.moves || []);
  const total = candidates.reduce((a, m) => a + m.visits, 0) || 1;
  const shownMoves = candidates.slice(0, useHint ? 3 : 8);
  shownMoves.forEach((m, i) => {
    const xy = pointXY(svg, m.move);
    if (!xy) return;
    const share = m.visits / total;
    const g = el("g", { class: "candidate" + (i === 0 ? " best" : ""), "data-candidate": m.move, "data-win": m.win_rate, "data-visits": m.visits });
    if (useHint) g.setAttribute("data-hint", m.move);
    const color = i === 0 ? COLORS.best : COLORS.other;
    g.append(el("circle", { cx: xy.x, cy: xy.y, r: xy.r * 0.95, fill: color, "fill-opacity": (i === 0 ? 0.9 : 0.55 + 0.35 * Math.min(1, share * 3)).toFixed(2), stroke: "#fff", "stroke-width": 1.5 }));
    g.append(el("text", { x: xy.x, y: xy.y + 1, "text-anchor": "middle", "font-size": Math.max(8, xy.r * 0.62), "font-weight": "bold", fill: "#fff" }, pct(m.win_rate)));
    g.append(el("text", { x: xy.x, y: xy.y + xy.r * 0.62, "text-anchor": "middle", "font-size": Math.max(6, xy.r * 0.42), fill: "#fff" }, pct(share)));
    layer.append(g);
  });
  if (shownMoves.length) parts.add("candidates");
  const played = !useHint && data.played;
  if (played) {
    const xy = pointXY(svg, played);
    if (xy) {
      layer.append(el("circle", { class: "played", "data-played": played, cx: xy.x, cy: xy.y, r: xy.r * 1.08, fill: "none", stroke: COLORS.played, "stroke-width": 3, "stroke-dasharray": "5 3" }));
      parts.add("played");
    }
  }
  svg.append(layer);
  renderInfo(s, data, useHint, candidates, total);
  renderLegend(parts);
}

function renderInfo(s, data, useHint, candidates, total) {
  const info = $("#analysis-position");
  if (useHint) {
    const moves = candidates.slice(0, 3).map((m) => `<b>${moveWord(m.move)}</b> (${pct(m.win_rate)})`).join(", ");
    info.innerHTML = `<p>${t("<b>Hint</b>: the AI would play {moves}.", { moves })}</p>`;
    return;
  }
  const rows = [];
  if (data.to_move) {
    const values = { at: s.at, color: `<b>${colorWord(data.to_move)}</b>`, share: pct(data.win_rate),
      searches: data.iterations, engine: engineWord(data.engine) };
    rows.push(`<p>${t("At move {at}: {color} to move wins {share} of the AI's games ({searches} searches, {engine}).", values)}</p>`);
  } else {
    rows.push(`<p>${data.black_win === 1 ? t("The game is over: Black wins.") : t("The game is over: White wins.")}</p>`);
  }
  if (data.expected_score) {
    rows.push(`<p>${t("Expected score: Black {black}, White {white}.",
      { black: data.expected_score.black.toFixed(1), white: data.expected_score.white.toFixed(1) })}</p>`);
  }
  if (candidates.length) {
    rows.push(`<table class="candidates"><thead><tr><th>${t("move")}</th><th>${t("wins")}</th><th>${t("searched")}</th></tr></thead><tbody>` +
      candidates.slice(0, 6).map((m, i) => `<tr data-move="${m.move}"${i === 0 ? ' class="best"' : ""}><td>${moveWord(m.move)}</td><td>${pct(m.win_rate)}</td><td>${pct(m.visits / total)}</td></tr>`).join("") + "</tbody></table>");
  }
  if (data.pv && data.pv.length) {
    rows.push(`<p class="muted pv-line">${t("Best line: {moves} (hover the best move to see it on the board)", { moves: data.pv.slice(0, 12).map(moveWord).join(" ") })}</p>`);
  }
  if (data.played) {
    const p = candidates.find((m) => m.move === data.played);
    const played = `<b>${moveWord(data.played)}</b>`;
    rows.push(`<p>${p ? t("Played: {move} ({share}).", { move: played, share: pct(p.win_rate) })
      : t("Played: {move} (not among the AI's best moves).", { move: played })}</p>`);
  }
  info.innerHTML = rows.join("");
}

const LEGEND = {
  candidates: [`<circle cx="9" cy="9" r="7" fill="${COLORS.best}"/>`, t("the AI's best move; others in blue (upper figure: the mover's chance of winning after it, lower: share of the search)")],
  other: [`<circle cx="9" cy="9" r="7" fill="${COLORS.other}" fill-opacity=".7"/>`, t("another move the AI considered: the more it searched it, the stronger the colour")],
  played: [`<circle cx="9" cy="9" r="6" fill="none" stroke="${COLORS.played}" stroke-width="2.5" stroke-dasharray="4 2"/>`, t("the move that was played here")],
  pv: [`<circle cx="9" cy="9" r="7" fill="${COLORS.pv}" fill-opacity=".75"/><text x="9" y="12.5" font-size="9" text-anchor="middle" fill="#fff">1</text>`, t("hovering the best move: its line, numbered in order")],
  ownership: [`<rect x="2" y="5" width="7" height="8" fill="#111"/><rect x="10" y="5" width="7" height="8" fill="#fff" stroke="#555"/>`, t("likely Black's / White's at the end, the darker the surer (on a stone: likely lost)")],
  prison: [`<circle cx="9" cy="9" r="6" fill="none" stroke="${COLORS.prison}" stroke-width="2.5"/>`, t("the group's chance of ending in the prison (a stronger ring: likelier)")],
};

function renderLegend(parts) {
  const box = $("#analysis-legend");
  if (!parts || !parts.size) { box.innerHTML = ""; return; }
  const keys = [];
  if (parts.has("candidates")) keys.push("candidates", "other", "pv");
  for (const k of ["played", "ownership", "prison"]) if (parts.has(k)) keys.push(k);
  box.innerHTML = "<ul>" + keys.map((k) => `<li data-legend-item="${k}"><svg width="18" height="18" viewBox="0 0 18 18" aria-hidden="true">${LEGEND[k][0]}</svg><span>${LEGEND[k][1]}</span></li>`).join("") + "</ul>";
}

// The principal variation, on hover of the best move.
const boardEl = $("#board");
boardEl.addEventListener("mouseover", (e) => {
  const point = e.target.closest("[data-point]");
  const svg = boardEl.querySelector("svg");
  if (!svg || !shown) return;
  const data = details[shown.at];
  const best = data && data.moves && data.moves[0];
  const over = point && best && point.dataset.point === best.move && data.pv && data.pv.length;
  const old = svg.querySelector(".pv-layer");
  if (!over) { if (old) old.remove(); return; }
  if (old) return;
  const layer = el("g", { class: "pv-layer", "pointer-events": "none" });
  let color = data.to_move;
  data.pv.slice(0, 12).forEach((m, i) => {
    const xy = pointXY(svg, m);
    if (xy) {
      const g = el("g", { "data-pv": String(i + 1), "data-pv-move": m });
      g.append(el("circle", { cx: xy.x, cy: xy.y, r: xy.r * 0.9, fill: color === "black" ? "#222" : "#fafafa", "fill-opacity": 0.8, stroke: COLORS.pv, "stroke-width": 2 }));
      g.append(el("text", { x: xy.x, y: xy.y + 4, "text-anchor": "middle", "font-size": Math.max(9, xy.r * 0.7), "font-weight": "bold", fill: color === "black" ? "#fff" : "#000" }, String(i + 1)));
      layer.append(g);
    }
    color = color === "black" ? "white" : "black";
  });
  svg.append(layer);
});
boardEl.addEventListener("mouseleave", () => {
  const old = boardEl.querySelector(".pv-layer");
  if (old) old.remove();
});

// -- the hint ---------------------------------------------------------------------------
async function askHint(s) {
  hintFor = s.move_count;
  $("#analysis-position").innerHTML = `<p class="muted">${t("Hint: the AI is looking…")}</p>`;
  const r = await api(base() + "/hint", {});
  if (!r.ok) { $("#analysis-position").innerHTML = `<p class="muted">${r.data.detail}</p>`; return; }
  hint = r.data;
  if (shown && shown.move_count === hint.ply) renderPosition(shown);
}

// -- game.js drew a position --------------------------------------------------------------
let overSeen = null; // whether the game was over at the last render
function showState(s) {
  const first = shown === null;
  shown = s;
  // Ask again when the moves change, and when the game ends (a game between two people
  // opens its analysis then: the refusal shown until then goes).
  const ended = overSeen !== null && overSeen !== s.over;
  overSeen = s.over;
  if (first || ended || (summary && summary.move_count !== s.move_count)) {
    $("#hint-box").hidden = s.opponent !== "ai";
    refresh(); // draws the position when the summary is in
  }
  const hintOn = $("#hint").checked && s.opponent === "ai";
  if (hintOn && s.human_turn && s.at === s.move_count && hintFor !== s.move_count) { hint = null; askHint(s); }
  if (!hintOn) hint = null;
  if (summary) renderPosition(s);
}
onRender(showState);
