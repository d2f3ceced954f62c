// The archive: the search of the page's address (GET /api/archive with the same parameters)
// drawn as a table, one finished game a row, each linking to its game page; the form above it
// is the address's parameters, so a search is a link that can be shared, and Back goes back.
import { api } from "./api.js";
import { formatNumber, t } from "./i18n.js";

const $ = (sel) => document.querySelector(sel);
const FIELDS = ["player", "game", "size", "result", "from", "to"];

function say(text) { $("#message").textContent = text; $("#message").className = text ? "message error" : "message"; }

function cell(...parts) {
  const td = document.createElement("td");
  td.append(...parts);
  return td;
}

// "Ann (1662, +162) vs Bea": names as text (they are typed by people), each rating after the game.
function playersText(players) {
  return players.map((p) => {
    if (!p.rating) return p.name;
    const change = p.rating.change >= 0 ? `+${p.rating.change}` : String(p.rating.change);
    return `${p.name} (${Math.round(p.rating.rating)}, ${change})`;
  }).join(t(" vs "));
}

function row(g) {
  const tr = document.createElement("tr");
  tr.dataset.testid = "archive-row";
  tr.dataset.game = g.id;
  const link = Object.assign(document.createElement("a"), { href: g.url, textContent: playersText(g.players) });
  link.dataset.testid = "archive-row-link";
  const what = `${g.title} ${g.size}${g.rated ? t(", rated") : ""}${g.name ? ` · ${g.name}` : ""}`;
  const ended = new Date(g.ended * 1000).toISOString().slice(0, 10); // the UTC day, as the search reads dates
  const clock = cell(g.clock || t("none"));
  clock.className = "wide";
  const moves = cell(formatNumber(g.moves));
  moves.className = "wide";
  const day = cell(ended);
  day.className = "day";
  tr.append(cell(link), cell(what), clock, cell(g.result.text), day, moves);
  return tr;
}

function pageLink(element, page, shown) {
  element.hidden = !shown;
  const params = new URLSearchParams(location.search);
  params.set("page", String(page));
  element.href = `/games?${params}`;
}

async function search() {
  const params = new URLSearchParams(location.search);
  for (const name of FIELDS) {
    const input = $(`#archive-form [name="${name}"]`);
    if (params.has(name)) input.value = params.get(name);
  }
  const r = await api(`/api/archive?${params}`);
  if (!r.ok) {
    say(r.data.detail);
    $("#archive-games").replaceChildren();
    return;
  }
  say("");
  const { games, page, more } = r.data;
  $("#archive-games").replaceChildren(...games.map(row));
  $("#none").hidden = games.length > 0;
  $("#found").textContent = page > 1 ? t("Games (page {page})", { page }) : t("Games");
  pageLink($("#previous"), page - 1, page > 1);
  pageLink($("#next"), page + 1, more);
}

// Empty fields are left out of the address: the search's link says only what it asks.
$("#archive-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const params = new URLSearchParams();
  for (const [name, value] of new FormData(e.target)) if (String(value).trim()) params.set(name, String(value).trim());
  location.href = `/games${params.size ? `?${params}` : ""}`;
});
search();
