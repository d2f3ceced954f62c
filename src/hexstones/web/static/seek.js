// A seek's (or a challenge's) waiting page: what is sought, and "withdraw" for its maker
// ("accept" and "decline" for the player challenged); it goes to the game by itself when
// someone accepts, and says when a challenge is declined or expires. A WebSocket tells of each change (the page then
// fetches the seek); while it is open on the maker's browser, it keeps a live seek open.
import { api } from "./api.js";
import { t } from "./i18n.js";

const seekId = decodeURIComponent(location.pathname.split("/")[2]);
const $ = (sel) => document.querySelector(sel);

function say(text, kind = "error") { $("#message").textContent = text; $("#message").className = `message ${kind}`; }

let asked = 0; // the latest state asked for: an older answer arriving late is not drawn
async function show() {
  const mine = ++asked;
  const r = await api(`/api/seeks/${encodeURIComponent(seekId)}`);
  if (mine !== asked) return;
  if (!r.ok) { say(r.data.detail); return; }
  const seek = r.data;
  if (seek.status === "taken" && seek.game_id) { // accepted: the game starts at once
    location.replace(`/game/${encodeURIComponent(seek.game_id)}`);
    return;
  }
  $("#seek-title").textContent = t("{game}, board side {size}", { game: seek.title, size: seek.size });
  const maker = seek.maker || t("A guest");
  const open = seek.status === "open";
  if (seek.challenge) {
    $("#seek-text").textContent = (seek.yours ? t("You challenge {player}: ", { player: seek.to }) : seek.to_you ? t("{maker} challenges you: ", { maker })
      : t("{maker} challenges {player}: ", { maker, player: seek.to })) + seek.text + ".";
    $("#seek-status").textContent = {
      open: seek.yours ? t("Waiting for {player} to accept or decline…", { player: seek.to }) : seek.to_you ? t("Accept it to play, or decline it.") : t("Open: only the player challenged may answer it."),
      taken: t("{player} accepted the challenge.", { player: seek.to }),
      declined: t("{player} declined the challenge.", { player: seek.to }),
      expired: t("The challenge expired: a day passed without an answer."),
      withdrawn: t("This challenge was withdrawn."),
    }[seek.status] || seek.status;
  } else {
    $("#seek-text").textContent = (seek.yours ? t("You seek an opponent: ") : t("{maker} seeks an opponent: ", { maker })) + seek.text + ".";
    $("#seek-status").textContent = open
      ? (seek.yours ? t("Waiting for someone to accept it in the lobby…") : t("Open: accept it to play."))
      : seek.status === "taken" ? t("Someone accepted this seek.") : t("This seek was withdrawn.");
  }
  $("#withdraw").textContent = seek.challenge ? t("Withdraw the challenge") : t("Withdraw the seek");
  $("#withdraw").hidden = !(open && seek.yours);
  $("#accept").hidden = !(open && (seek.challenge ? seek.to_you : !seek.yours));
  $("#decline").hidden = !(open && seek.to_you);
}

$("#withdraw").addEventListener("click", async () => {
  $("#withdraw").disabled = true;
  const r = await api(`/api/seeks/${encodeURIComponent(seekId)}`, undefined, "DELETE");
  $("#withdraw").disabled = false;
  if (!r.ok) say(r.data.detail); else say("");
  show();
});

$("#accept").addEventListener("click", async () => {
  if ($("#accept").disabled) return; // a double click accepts once
  $("#accept").disabled = true;
  const r = await api(`/api/seeks/${encodeURIComponent(seekId)}/accept`, {});
  if (r.ok) { location.href = `/game/${encodeURIComponent(r.data.game)}`; return; }
  $("#accept").disabled = false;
  say(r.data.detail);
  show();
});

$("#decline").addEventListener("click", async () => {
  $("#decline").disabled = true;
  const r = await api(`/api/challenges/${encodeURIComponent(seekId)}/decline`, {});
  $("#decline").disabled = false;
  if (!r.ok) say(r.data.detail); else say("");
  show();
});

let retry = 500; // ms before the next try; doubles up to 4 s while the server is away
function connectLive() {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const ws = new WebSocket(`${scheme}${location.host}/api/seeks/${encodeURIComponent(seekId)}/live`);
  ws.onopen = () => { retry = 500; $("#connection").hidden = true; document.body.dataset.live = "yes"; };
  ws.onmessage = (e) => {
    let m;
    try { m = JSON.parse(e.data); } catch (_) { return; }
    if (!m.ping) show(); // a change, or the first message since (re)connecting: catch up
  };
  ws.onclose = (e) => {
    delete document.body.dataset.live;
    if (e.code === 4404) { say(t("This seek or challenge is no longer on the server.")); return; }
    $("#connection").textContent = t("Connection lost: reconnecting…");
    $("#connection").hidden = false;
    setTimeout(connectLive, retry);
    retry = Math.min(retry * 2, 4000);
  };
}

connectLive();
