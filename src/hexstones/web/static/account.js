// The account page: sign in, sign up, play as a guest, change the password, sign out.
import { api } from "./api.js";

const $ = (sel) => document.querySelector(sel);

function say(text, kind = "error") { $("#message").textContent = text || ""; $("#message").className = "message " + kind; }

async function show() {
  const r = await api("/api/account");
  if (!r.ok) { say(r.data.detail); return; }
  const me = r.data;
  const who = me.kind === "account" ? `Signed in as ${me.name}.` : me.kind === "guest" ? `A guest named ${me.name} (not signed in).`
    : "Not signed in: games you start are kept for this browser.";
  $("#who").textContent = who; // text: names are typed by people
  $("#signed-in").hidden = me.kind !== "account";
  $("#signed-out").hidden = me.kind === "account";
}

function form(id, path, done) {
  let busy = false;
  $("#" + id).addEventListener("submit", async (e) => {
    e.preventDefault();
    if (busy) return; // a double click sends once
    busy = true;
    try {
      const body = Object.fromEntries(new FormData(e.target).entries());
      const r = await api(path, body);
      if (!r.ok) { say(r.data.detail); return; }
      e.target.reset();
      say(done, "info");
      show();
    } finally { busy = false; }
  });
}

form("signin", "/api/account/signin", "Signed in.");
form("signup", "/api/account/signup", "Your account is made, and you are signed in.");
form("guest", "/api/account/guest", "Your name is set.");
form("password", "/api/account/password", "The password is changed; your other sessions are signed out.");
$("#signout").addEventListener("click", async () => {
  const r = await api("/api/account/signout", {});
  if (!r.ok) { say(r.data.detail); return; }
  say("Signed out.", "info");
  show();
});
show();
