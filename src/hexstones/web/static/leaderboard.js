// A game's leaderboard: the players with a recent rated game, best rating first; a rating
// still provisional (a high deviation) carries a "?".
import { api } from "./api.js";
import { formatNumber, t } from "./i18n.js";

const $ = (sel) => document.querySelector(sel);
const game = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());

async function show() {
  const r = await api(`/api/leaderboard/${encodeURIComponent(game)}`);
  if (!r.ok) { $("#message").textContent = r.data.detail; return; }
  const board = r.data;
  $("#heading").textContent = t("{game}: the best rated players", { game: board.title });
  document.title = t("{game} leaderboard · hexstones", { game: board.title });
  $("#note").textContent = t("Players with a rated {game} game in the last {days} days.", { game: board.title, days: board.active_days });
  const body = $("#rows");
  body.replaceChildren();
  board.players.forEach((p, i) => {
    const tr = document.createElement("tr");
    tr.dataset.testid = "leader";
    const link = document.createElement("a");
    link.href = `/players/${encodeURIComponent(p.name)}`;
    link.textContent = p.name; // text: names are typed by people
    const cells = [String(i + 1), link, `${Math.round(p.rating)}${p.provisional ? "?" : ""}`, formatNumber(p.games)];
    for (const c of cells) {
      const td = document.createElement("td");
      if (typeof c === "string") td.textContent = c; else td.append(c);
      tr.append(td);
    }
    body.append(tr);
  });
  if (!board.players.length) $("#note").textContent += " " + t("None yet.");
}
show();
