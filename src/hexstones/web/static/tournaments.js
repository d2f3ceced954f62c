// The tournaments: the upcoming, running and finished ones (fetched again every few
// seconds), and the form that makes one (POST /api/tournaments, then its page opens).
import { api } from "./api.js";
import { lang, t, tn } from "./i18n.js";

const rounds = (n) => tn("{n} round", "{n} rounds", n);

const $ = (sel, root = document) => root.querySelector(sel);
const form = $("#tournament-form");
const REFRESH_MS = 5000;

function say(text, kind = "error") { $("#message").textContent = text; $("#message").className = `message ${kind}`; }

function when(seconds) { return seconds ? new Date(seconds * 1000).toLocaleString(lang) : ""; }

// One tournament's row: its name (a link to its page, as text: names are typed by people) and the cells.
function row(tour, last) {
  const tr = document.createElement("tr");
  tr.dataset.testid = "tournament";
  tr.dataset.tournament = tour.id;
  const link = Object.assign(document.createElement("a"), { href: tour.url, textContent: tour.name });
  const system = tour.system === "swiss" ? t("Swiss, {rounds}", { rounds: rounds(tour.round_count) }) : t("round robin");
  const cells = [link, `${tour.title} ${tour.size}, ${system}${tour.rated ? t(", rated") : ""}`, tour.clock_text,
    t("{n} of {total}", { n: tour.entrants, total: tour.max_players }), last];
  for (const c of cells) {
    const td = document.createElement("td");
    if (typeof c === "string") td.textContent = c; else td.append(c);
    tr.append(td);
  }
  return tr;
}

function fill(id, list, last, none) {
  const rows = list.map((tour) => row(tour, last(tour)));
  if (!rows.length) {
    const td = Object.assign(document.createElement("td"), { className: "muted", colSpan: 5, textContent: none });
    const tr = document.createElement("tr");
    tr.append(td);
    rows.push(tr);
  }
  $(`#${id}`).replaceChildren(...rows);
}

async function load() {
  const r = await api("/api/tournaments");
  if (!r.ok) { say(r.data.detail); return; }
  fill("upcoming", r.data.upcoming, (tour) => (tour.starts_at ? when(tour.starts_at) : t("when its creator starts it")), t("None: make one with the form."));
  fill("running", r.data.running, (tour) => t("{n} of {total}", { n: tour.round, total: tour.round_count }), t("None now."));
  fill("finished", r.data.finished, (tour) => (tour.status === "cancelled" ? t("cancelled (too few players)") : tour.winner || ""), t("None yet."));
}

// The games' facts (board sides) come from the server: GET /api/spec.
let specs = null;
function refreshSizes() {
  const spec = specs[$("#t-game").value];
  $("#t-size").replaceChildren(...spec.app_sizes.map((n) => new Option(String(n), String(n), false, n === spec.default_size)));
}

form.addEventListener("change", (e) => {
  if (specs && e.target.id === "t-game") refreshSizes();
  $("#rounds-row").hidden = form.elements.system.value !== "swiss";
});

form.addEventListener("submit", async (e) => {
  e.preventDefault();
  const data = {
    name: $("#t-name").value, game: $("#t-game").value, size: Number($("#t-size").value),
    clock: $("#t-clock").value, system: form.elements.system.value, max_players: Number($("#t-max").value),
    rated: $("[data-testid=t-rated]").checked ? "yes" : "no",
  };
  if (data.system === "swiss") data.rounds = Number($("#t-rounds").value);
  if ($("#t-start").value) data.starts_at = new Date($("#t-start").value).getTime() / 1000;
  const r = await api("/api/tournaments", data);
  if (r.ok) { location.href = r.data.url; return; }
  say(r.data.detail);
});

async function start() {
  const r = await api("/api/spec");
  if (r.ok) { specs = r.data.games; refreshSizes(); }
  await load();
  setInterval(load, REFRESH_MS);
}
start();
