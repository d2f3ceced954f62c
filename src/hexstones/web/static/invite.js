// The invitation page: who invites to what; join as a guest under a name (or signed in).
import { api } from "./api.js";
import { t } from "./i18n.js";

const [, , gameId, secret] = location.pathname.split("/").map(decodeURIComponent);
const $ = (sel) => document.querySelector(sel);

function say(text) { $("#message").textContent = text; $("#message").className = "message error"; }

async function show() {
  $("#watch").href = `/game/${encodeURIComponent(gameId)}`;
  const r = await api(`/api/invitations/${encodeURIComponent(gameId)}/${encodeURIComponent(secret)}`);
  const data = r.data;
  if (!r.ok) {
    if (r.status) $("#invite-title").textContent = t("No such invitation"); // the server said so
    say(data.detail);
    return;
  }
  $("#invite-title").textContent = t("{game}, board side {size}", { game: data.title, size: data.size });
  const who = data.inviter || t("A friend");
  const seat = data.color ? " " + t("You play {color}.", { color: data.color === "black" ? t("black") : t("white") })
    : data.pie ? " " + t("A komi pie decides the colours: your friend proposes the balance, you choose a colour.") : "";
  if (data.playing) {
    $("#invite-text").textContent = t("You play in this game already.");
    location.replace(`/game/${encodeURIComponent(gameId)}`);
    return;
  }
  if (!data.open) { $("#invite-text").textContent = t("Both seats are taken: you can watch the game."); return; }
  $("#invite-text").textContent = t("{who} invites you to a game of {game}.", { who, game: data.title }) + seat; // text: names are typed by people
  const named = data.you && data.you.name;
  $("#join-name").value = named || "";
  $("#name-row").hidden = !!(data.you && data.you.kind === "account");
  $("#account-note").hidden = !!(data.you && data.you.kind === "account");
  $("#join-form").hidden = false;
  if (!named) $("#join-name").focus();
}

let joining = false;
$("#join-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  if (joining) return; // a double click joins once
  joining = true;
  try {
    const r = await api(`/api/games/${encodeURIComponent(gameId)}/join`, { secret, name: $("#join-name").value });
    if (!r.ok) { say(r.data.detail); return; }
    location.href = `/game/${encodeURIComponent(gameId)}`;
  } finally { joining = false; }
});

show();
