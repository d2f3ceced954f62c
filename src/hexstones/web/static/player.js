// A player's profile: the rating in each game (a "?" while provisional), a graph of each
// rating after every rated game, the record in each game and the latest finished games
// (public ones; all to the player), the games being played, links to their archive search
// and SGF download, and a Challenge button that opens the lobby's challenge, addressed to them.
import { api } from "./api.js";
import { t, tn } from "./i18n.js";

const $ = (sel) => document.querySelector(sel);
const name = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const SVG = "http://www.w3.org/2000/svg";

const rated = (n) => tn("{n} rated game", "{n} rated games", n);

function el(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

// The ratings after each game as a line, with the deviation as a band around it.
function graph(title, points) {
  const w = 560, h = 180, pad = 36;
  const svg = el("svg", { viewBox: `0 0 ${w} ${h}`, role: "img", "aria-label": t("{game} rating history", { game: title }), class: "rating-graph" });
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

// A table of ``rows`` (each a list of cells: text or elements); ``testids``: each row's, if any.
function table(head, rows, testids = []) {
  const tbl = document.createElement("table");
  tbl.className = "games";
  const tr = document.createElement("tr");
  for (const h of head) tr.append(Object.assign(document.createElement("th"), { textContent: h }));
  tbl.createTHead().append(tr);
  const body = tbl.createTBody();
  for (const [i, cells] of rows.entries()) {
    const line = document.createElement("tr");
    if (testids[i]) line.dataset.testid = testids[i];
    for (const c of cells) {
      const td = document.createElement("td");
      if (/^\d{4}-\d\d-\d\d$/.test(c)) td.className = "day"; // a date stays on one line
      td.append(c);
      line.append(td);
    }
    body.append(line);
  }
  return tbl;
}

// Wins and losses by game, with how many of them on time and by resignation.
function record(rec, titles) {
  const played = Object.entries(rec).filter(([, r]) => r.games);
  if (!played.length) return t("No finished game yet.");
  const rows = played.map(([game, r]) => [titles[game] || game, String(r.games), String(r.wins), String(r.losses),
    `${r.won_on_time} / ${r.lost_on_time}`, `${r.won_by_resignation} / ${r.lost_by_resignation}`, String(r.aborted)]);
  return table([t("Game"), t("Games played"), t("Wins"), t("Losses"), t("On time (won / lost)"), t("By resignation (won / lost)"), t("Aborted")],
    rows, played.map(([game]) => `record-${game}`));
}

function recentRow(g) {
  const names = g.players.map((p) => p.name).join(t(" vs "));
  const link = Object.assign(document.createElement("a"), { href: g.url, textContent: names }); // text: names are typed by people
  link.dataset.testid = "recent-game";
  const ended = new Date(g.ended * 1000).toISOString().slice(0, 10);
  return [link, `${g.title} ${g.size}${g.rated ? t(", rated") : ""}`, g.clock || t("none"), g.result.text, ended];
}

// The challenge form: the games and their board sides from the spec, sent to /new as the lobby's
// challenge link is (opponent=challenge&to=NAME), which opens the challenge's waiting page.
function challengeForm(spec, to) {
  const games = $("#challenge-game"), sizes = $("#challenge-size");
  games.replaceChildren(...Object.entries(spec.games).map(([g, s]) => Object.assign(document.createElement("option"), { value: g, textContent: s.title })));
  const fill = () => {
    const s = spec.games[games.value];
    const options = [];
    for (let n = s.sizes[0]; n <= s.sizes[1]; n++) options.push(Object.assign(document.createElement("option"), { value: String(n), textContent: String(n), selected: n === s.default_size }));
    sizes.replaceChildren(...options);
  };
  games.addEventListener("change", fill);
  fill();
  $("#challenge-to").value = to;
  $("#challenge").addEventListener("click", () => {
    $("#challenge-form").hidden = !$("#challenge-form").hidden;
    if (!$("#challenge-form").hidden) games.focus();
  });
}

async function show() {
  const [r, spec, me] = await Promise.all([api(`/api/players/${encodeURIComponent(name)}`), api("/api/spec"), api("/api/account")]);
  if (!r.ok) { $("#message").textContent = r.data.detail; return; }
  const p = r.data;
  const titles = spec.ok ? Object.fromEntries(Object.entries(spec.data.games).map(([g, s]) => [g, s.title])) : {};
  $("#name").textContent = p.name;
  $("#title").textContent = t("{name}'s profile", { name: p.name });
  document.title = `${p.name} · hexstones`;
  const ratings = $("#ratings");
  ratings.replaceChildren();
  for (const [game, rating] of Object.entries(p.ratings)) {
    const box = document.createElement("div");
    box.className = "rating";
    box.dataset.testid = `rating-${game}`;
    box.textContent = `${titles[game] || game}: ${Math.round(rating.rating)}${rating.provisional ? "?" : ""} ` +
      t("(±{deviation}, {games})", { deviation: Math.round(rating.deviation), games: rated(rating.games) });
    ratings.append(box);
  }
  const graphs = $("#graphs");
  graphs.replaceChildren();
  for (const [game, points] of Object.entries(p.history)) if (points.length) graphs.append(graph(titles[game] || game, points));
  if (!graphs.children.length) graphs.textContent = t("No rated game yet.");
  $("#record").replaceChildren(record(p.record, titles));
  $("#games").replaceChildren(p.recent.length
    ? table([t("Players"), t("Game"), t("Clock"), t("Result"), t("Ended")], p.recent.map(recentRow)) : t("No finished game to show."));
  const list = document.createElement("ul");
  list.className = "games-list";
  const playing = p.games.filter((g) => !g.finished);
  for (const g of playing) {
    const li = document.createElement("li");
    const link = document.createElement("a");
    link.href = `/game/${encodeURIComponent(g.id)}`;
    link.textContent = `${g.title} ${g.size}${t(" vs ")}${g.opponent || t("an open seat")}`;
    li.append(link, ` · ${t(g.color)}${g.clock ? " · " + g.clock : ""}${g.rated ? " · " + t("rated") : ""} · ${t(g.summary)}`);
    list.append(li);
  }
  $("#playing").replaceChildren(playing.length ? list : t("No game being played to show."));
  $("#archive-link").href = `/games?${new URLSearchParams({ player: p.name })}`;
  $("#sgf-link").href = `/api/players/${encodeURIComponent(p.name)}/games.sgf`;
  // One challenges another account: a guest is asked to sign in; nobody challenges themselves.
  const signedIn = me.ok && me.data.signed_in;
  const self = signedIn && me.data.name === p.name;
  if (spec.ok) challengeForm(spec.data, p.name);
  $("#challenge").hidden = !signedIn || self || !spec.ok;
  $("#challenge-sign-in").hidden = signedIn;
}
show();
