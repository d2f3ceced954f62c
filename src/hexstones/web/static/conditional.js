// Conditional moves on the game page (a game between two people): while the opponent is
// to move, a player may leave answers in advance, one line per line of the text box. The
// server checks every line on a copy of the game and plays an answer the moment the
// opponent's move matches; it cancels lines the game leaves.
import { api } from "./api.js";
import { tn } from "./i18n.js";
import { $, gameId, onRender, overlayParam, render } from "./game.js";

let editing = false; // the person is typing: a live update does not replace the text

onRender((s) => {
  const box = $("#conditional");
  const waiting = !!s.seats && !s.spectator && !s.over && s.you.length === 1 && s.to_move && s.to_move !== s.you[0]
    && !(s.pie && s.pie.stage !== "done");
  box.hidden = !waiting && !(s.conditional && Object.keys(s.conditional).length);
  if (box.hidden) return;
  const lines = (s.conditional && s.conditional[s.you[0]]) || [];
  if (!editing) $("#conditional-lines").value = lines.map((line) => line.join(" ")).join("\n");
  $("#conditional-note").textContent = lines.length ? tn("{n} line waiting", "{n} lines waiting", lines.length) : "";
  $("#conditional-lines").disabled = !waiting;
});

$("#conditional-lines").addEventListener("input", () => { editing = true; });
$("#conditional-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const lines = $("#conditional-lines").value.split("\n").map((l) => l.trim().split(/\s+/).filter(Boolean)).filter((l) => l.length);
  const r = await api(`/api/games/${encodeURIComponent(gameId)}/conditional`, { lines, overlays: overlayParam() }, "PUT");
  if (!r.ok) { $("#conditional-note").textContent = r.data.detail; return; }
  editing = false;
  render(r.data);
});
