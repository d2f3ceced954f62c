// The game's clocks on the game page, drawn after each state game.js draws (its onRender).
// The server keeps the time: each state carries both clocks as they read when it was
// sent, and the page counts the running one down from there until the next state. When
// the running side's time is up on the page, it asks for the state again: the server has
// decided meanwhile (a flag, or a missed first move), and says so.
import { clockText, face } from "./clock-face.js";
import { $, load, onRender } from "./game.js";
import { t } from "./i18n.js";

const LOW_LIVE_S = 20; // a live clock under this many seconds is shown as low
const LOW_DAYS_S = 86400; // a correspondence bank under a day is shown as low
const SOUND_KEY = "hexstones-clock-sound";

let shown = null; // {clock, received: performance.now() when it came, you: the person's colours}
let ticker = null;
let askedAt = 0; // when the page last asked for the state because a time ran out
let beeped = false;

onRender((s) => {
  const box = $("#clocks");
  if (!s.clock) { box.hidden = true; shown = null; clearInterval(ticker); ticker = null; return; }
  box.hidden = false;
  shown = { clock: s.clock, received: performance.now(), you: s.you || [], over: !!s.over };
  $("#clock-control").textContent = t("Clock: {control}", { control: s.clock.describe }) + (s.rated ? " · " + t("rated") : "");
  if (!s.clock.running) beeped = false;
  tick();
  if (!ticker) ticker = setInterval(tick, 200);
});

function tick() {
  if (!shown) return;
  const { clock } = shown;
  const elapsed = (performance.now() - shown.received) / 1000;
  const correspondence = clock.control.startsWith("days:");
  let timeUp = false;
  for (const color of ["black", "white"]) {
    const running = clock.running === color && !clock.paused;
    // A side's first move is free: its clock stands still, the deadline counts instead.
    const side = face(clock[color], clock, elapsed, running && !clock.first_move);
    const el = $(`#clock-${color}`);
    const low = side.seconds < (correspondence ? LOW_DAYS_S : LOW_LIVE_S) && clock.started && !shown.over
      && (!clock.period_seconds || side.inPeriods);
    el.classList.toggle("running", running);
    el.classList.toggle("low", low);
    $(`[data-testid="clock-${color}"]`).textContent = clockText(side.seconds);
    const note = el.querySelector(".clock-note");
    if (running && clock.first_move && clock.abort_in !== null) {
      const left = Math.max(0, clock.abort_in - elapsed);
      note.textContent = t("first move within {time}", { time: clockText(left) });
      if (left <= 0) timeUp = true;
    } else if (clock.period_seconds && side.periods) {
      const values = { periods: side.periods, seconds: clock.period_seconds };
      note.textContent = side.inPeriods ? t("{periods} × {seconds} s left", values) : t("then {periods} × {seconds} s", values);
    } else note.textContent = "";
    if (running && clock.flag_in !== null && clock.flag_in - elapsed <= 0) timeUp = true;
    if (running && low && !beeped && shown.you.includes(color) && side.seconds <= 10 && !correspondence) {
      beeped = true;
      if (localStorage.getItem(SOUND_KEY) === "on") beep();
    }
  }
  // The server ends the game within a moment of the deadline: ask once a second until it has.
  if (timeUp && performance.now() - askedAt > 1000) {
    askedAt = performance.now();
    load(null);
  }
}

function beep() {
  try {
    const audio = new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 880;
    gain.gain.value = 0.1;
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.15);
  } catch (_error) { /* no sound: the colour says it */ }
}

const sound = $("#clock-sound");
sound.checked = localStorage.getItem(SOUND_KEY) === "on";
sound.addEventListener("change", () => localStorage.setItem(SOUND_KEY, sound.checked ? "on" : "off"));
