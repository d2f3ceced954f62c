// A player's profile: the rating in each game (a "?" while provisional), a graph of each
// rating after every rated game, and the latest games (public ones; all to the player).
import { api } from "./api.js";

const $ = (sel) => document.querySelector(sel);
const name = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const SVG = "http://www.w3.org/2000/svg";

function el(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

// The ratings after each game as a line, with the deviation as a band around it.
function graph(title, points) {
  const w = 560, h = 180, pad = 36;
  const svg = el("svg", { viewBox: `0 0 ${w} ${h}`, role: "img", "aria-label": `${title} rating history`, class: "rating-graph" });
  const lows = points.map((p) => p.rating - p.deviation), highs = points.map((p) => p.rating + p.deviation);
  const lo = Math.min(...lows, 1400), hi = Math.max(...highs, 1600);
  const x = (i) => pad + (points.length === 1 ? (w - 2 * pad) / 2 : (i * (w - 2 * pad)) / (points.length - 1));
  const y = (v) => h - pad / 2 - ((v - lo) * (h - pad)) / (hi - lo);
  const band = points.map((p, i) => `${x(i)},${y(p.rating + p.deviation)}`)
    .concat(points.slice().reverse().map((p, j) => `${x(points.length - 1 - j)},${y(p.rating - p.deviation)}`));
  svg.append(el("polygon", { points: band.join(" "), class: "band" }));
  svg.append(el("polyline", { points: points.map((p, i) => `${x(i)},${y(p.rating)}`).join(" "), class: "line" }));
  points.forEach((p, i) => svg.append(el("circle", { cx: x(i), cy: y(p.rating), r: 3, class: "dot" })));
  for (const v of [lo, hi]) svg.append(el("text", { x: 2, y: y(v) + 4, class: "axis" }, String(Math.round(v))));
  svg.append(el("text", { x: pad, y: 14, class: "title" }, `${title}: ${Math.round(points[points.length - 1].rating)}`));
  return svg;
}

async function show() {
  const [r, spec] = await Promise.all([api(`/api/players/${encodeURIComponent(name)}`), api("/api/spec")]);
  if (!r.ok) { $("#message").textContent = r.data.detail; return; }
  const p = r.data;
  const titles = spec.ok ? Object.fromEntries(Object.entries(spec.data.games).map(([g, s]) => [g, s.title])) : {};
  $("#name").textContent = p.name;
  $("#title").textContent = `${p.name}'s profile`;
  document.title = `${p.name} · hexstones`;
  const ratings = $("#ratings");
  ratings.replaceChildren();
  for (const [game, rating] of Object.entries(p.ratings)) {
    const box = document.createElement("div");
    box.className = "rating";
    box.dataset.testid = `rating-${game}`;
    box.textContent = `${titles[game] || game}: ${Math.round(rating.rating)}${rating.provisional ? "?" : ""} ` +
      `(±${Math.round(rating.deviation)}, ${rating.games} rated game${rating.games === 1 ? "" : "s"})`;
    ratings.append(box);
  }
  const graphs = $("#graphs");
  graphs.replaceChildren();
  for (const [game, points] of Object.entries(p.history)) if (points.length) graphs.append(graph(titles[game] || game, points));
  if (!graphs.children.length) graphs.textContent = "No rated game yet.";
  const list = document.createElement("ul");
  list.className = "games-list";
  for (const g of p.games) {
    const li = document.createElement("li");
    const link = document.createElement("a");
    link.href = `/game/${encodeURIComponent(g.id)}`;
    link.textContent = `${g.title} ${g.size} vs ${g.opponent || "an open seat"}`;
    li.append(link, ` · ${g.color}${g.clock ? " · " + g.clock : ""}${g.rated ? " · rated" : ""} · ${g.summary}`);
    list.append(li);
  }
  $("#games").replaceChildren(p.games.length ? list : "No games to show.");
}
show();
