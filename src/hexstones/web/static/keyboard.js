// Playing without a mouse, and hearing the game: the board takes focus (Tab), a cursor
// moves between its points with the arrow keys, Enter or Space plays there; P passes, B
// takes the button, R releases, U undoes. Each move is said in words in a live region
// ("White d4; two black stones captured"), and the cursor's point below the board.
import { api } from "./api.js";
import { $, board, currentState, onRender } from "./game.js";
import { t, tn } from "./i18n.js";

// The board's three directions with four keys: Left and Right along a row; Up and Down
// to the nearer point above or below, to the right (with Shift: to the left).
const BEARINGS = { ArrowRight: 0, ArrowLeft: 180, ArrowUp: 90, ArrowDown: 270 };
const KEYS = { p: "#pass", b: "#button", r: "#release", u: "#undo" };
// Counts said in words up to ten (Korean's native numbers: 한 개, 두 개, ...).
const COUNTS = [null, t("one"), t("two"), t("three"), t("four"), t("five"), t("six"), t("seven"), t("eight"), t("nine"), t("ten")];

let cursor = null; // the point the cursor is on
let prisons = {}; // game name -> whether the stones a move removes go to a prison (Droched)
api("/api/spec").then((r) => {
  if (r.ok) prisons = Object.fromEntries(Object.entries(r.data.games).map(([g, spec]) => [g, spec.balance.option === "prison"]));
});

board.tabIndex = 0;
board.setAttribute("role", "application");
board.setAttribute("aria-roledescription", t("game board"));
board.setAttribute("aria-describedby", "cursor-note keys-note");

function points() { return Array.from(board.querySelectorAll("[data-point]")); }

function centre(el) {
  const circle = el.querySelector("circle");
  return circle ? { x: Number(circle.getAttribute("cx")), y: Number(circle.getAttribute("cy")) } : null;
}

// What a point holds, in words.
function content(el) {
  const stone = el.dataset.stone;
  const legal = el.hasAttribute("data-legal") ? t(", you may play here") : "";
  const point = el.dataset.point;
  const what = stone === "black" ? t("{point}: black stone", { point }) : stone === "white" ? t("{point}: white stone", { point })
    : stone ? `${point}: ${stone}` : t("{point}: empty", { point });
  return what + legal;
}

function show(name) {
  board.querySelectorAll(".cursor").forEach((el) => el.classList.remove("cursor"));
  const el = board.querySelector(`[data-point="${name}"]`);
  if (!el) return;
  cursor = name;
  el.classList.add("cursor");
  $("#cursor-note").textContent = content(el);
}

// The nearest point from the cursor in the key's direction (within 60 degrees of it).
function step(key, leftward) {
  const here = board.querySelector(`[data-point="${cursor}"]`);
  const from = here && centre(here);
  if (!from) return null;
  const bearing = (BEARINGS[key] * Math.PI) / 180;
  let best = null, bestScore = Infinity;
  for (const el of points()) {
    const to = centre(el);
    if (!to || el === here) continue;
    const dx = to.x - from.x, dy = from.y - to.y; // y grows downwards on the screen
    const distance = Math.hypot(dx, dy);
    let off = Math.abs(Math.atan2(dy, dx) - bearing);
    if (off > Math.PI) off = 2 * Math.PI - off;
    if (off > Math.PI / 3 + 1e-6) continue;
    const side = (key === "ArrowUp" || key === "ArrowDown") ? ((dx > 0) !== leftward ? 0 : 0.01) : 0;
    const score = distance * (1 + off) + side * distance;
    if (score < bestScore) { best = el; bestScore = score; }
  }
  return best && best.dataset.point;
}

board.addEventListener("keydown", (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  if (e.key in BEARINGS) {
    e.preventDefault();
    e.stopPropagation(); // on the board the arrows move the cursor, not through the moves
    if (cursor === null) { const first = points()[0]; if (first) show(first.dataset.point); return; }
    const next = step(e.key, e.shiftKey);
    if (next) show(next);
    return;
  }
  if ((e.key === "Enter" || e.key === " ") && cursor !== null) {
    e.preventDefault();
    const el = board.querySelector(`[data-point="${cursor}"]`);
    if (el) el.dispatchEvent(new MouseEvent("click", { bubbles: true, detail: 1 }));
    return;
  }
  const button = KEYS[e.key.toLowerCase()];
  if (button && !$(button).hidden && !$(button).disabled) { e.preventDefault(); $(button).click(); }
});
board.addEventListener("focus", () => {
  if (cursor === null || !board.querySelector(`[data-point="${cursor}"]`)) {
    const s = currentState();
    const start = (s && s.legal && s.legal.find((m) => board.querySelector(`[data-point="${m}"]`))) || (points()[0] && points()[0].dataset.point);
    if (start) show(start);
  } else show(cursor);
});

// "two black stones captured": the count in words (한 개, 두 개 in Korean).
function taken(n, color, imprisoned) {
  const count = COUNTS[n] || String(n);
  if (color === "black") {
    return imprisoned ? tn("{count} black stone imprisoned", "{count} black stones imprisoned", n, { count })
      : tn("{count} black stone captured", "{count} black stones captured", n, { count });
  }
  return imprisoned ? tn("{count} white stone imprisoned", "{count} white stones imprisoned", n, { count })
    : tn("{count} white stone captured", "{count} white stones captured", n, { count });
}

// A move in words: "Black d4", "White passes".
function moveWords(color, move) {
  const black = color === "black";
  if (move === "button") return black ? t("Black takes the button") : t("White takes the button");
  if (move === "pass") return black ? t("Black passes") : t("White passes");
  if (move === "release") return black ? t("Black releases") : t("White releases");
  return black ? t("Black {move}", { move }) : t("White {move}", { move });
}

// The moves ``s`` adds to ``previous``, in words, with what the last one took off the board.
function said(s, previous) {
  const added = s.moves.slice(previous.moves.length);
  // No new move: only an end not said yet (a second drawing of the last move's state, its
  // answer after its live update, must not replace what was said of that move).
  if (!added.length) return s.over && !previous.over ? s.status : null;
  let mover = previous.to_move || "black";
  const words = added.map((move) => {
    const text = moveWords(mover, move);
    mover = mover === "black" ? "white" : "black";
    return text;
  });
  const removed = {};
  board.querySelectorAll("[data-removed]").forEach((el) => { removed[el.dataset.was] = (removed[el.dataset.was] || 0) + 1; });
  const off = Object.entries(removed).map(([color, n]) => taken(n, color, prisons[s.game]));
  let text = words.join(", ") + (off.length ? "; " + off.join(", ") : "");
  if (s.over) text += `. ${s.status}`;
  return text;
}

// The position as text, for readers that cannot use the picture: the points grouped in
// the rows the picture draws them in (by their centres), top to bottom, left to right.
function textView() {
  const rows = new Map();
  for (const el of points()) {
    const at = centre(el);
    if (!at) continue;
    const y = Math.round(at.y);
    const row = Array.from(rows.keys()).find((k) => Math.abs(k - y) < 2) ?? y;
    if (!rows.has(row)) rows.set(row, []);
    rows.get(row).push({ x: at.x, el });
  }
  const list = $("#text-view-rows");
  list.replaceChildren(...Array.from(rows.keys()).sort((a, b) => a - b).map((y) => {
    const item = document.createElement("li");
    item.textContent = rows.get(y).sort((a, b) => a.x - b.x).map(({ el }) => content(el)).join("; ");
    return item;
  }));
}

onRender((s, previous) => {
  if (cursor !== null) show(cursor); // the new drawing's point
  if ($("#text-view").open) textView();
  if (!previous || previous.id !== s.id || s.at !== s.move_count) return;
  if (s.moves.length < previous.moves.length || s.moves.slice(0, previous.moves.length).join() !== previous.moves.join()) return;
  const text = said(s, previous);
  if (text) $("#announce").textContent = text;
});

$("#text-view").addEventListener("toggle", () => { if ($("#text-view").open) textView(); });
