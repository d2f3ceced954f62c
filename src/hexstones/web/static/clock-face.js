// What a clock shows, from a game state's ``clock`` (the server's reading) and the seconds
// since it was read: shared by the game page (clock.js) and the watch page (watch.js).
import { t, tn } from "./i18n.js";

// A side's clock ``elapsed`` seconds after the state (``running``: its time runs, not on a
// free first move): byo-yomi's main time runs into its periods, a period run out starts
// the next.
export function face(side, clock, elapsed, running = true) {
  let left = side.seconds - (running ? elapsed : 0);
  let periods = side.periods;
  let inPeriods = side.in_periods;
  const period = clock.period_seconds;
  if (period) {
    if (!inPeriods && left <= 0 && periods > 0) { inPeriods = true; left += period; }
    while (inPeriods && left <= 0 && periods > 1) { periods -= 1; left += period; }
  }
  return { seconds: Math.max(0, left), periods, inPeriods };
}

// Time as a clock shows it: m:ss, h:mm:ss, or days and hours.
export function clockText(seconds) {
  const whole = Math.max(0, Math.ceil(seconds - 1e-9));
  if (whole >= 86400) {
    const days = Math.floor(whole / 86400), hours = Math.floor((whole % 86400) / 3600);
    return tn("{n} day", "{n} days", days) + (hours ? " " + t("{hours} h", { hours }) : "");
  }
  const h = Math.floor(whole / 3600), m = Math.floor((whole % 3600) / 60), sec = whole % 60;
  const ss = String(sec).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}
