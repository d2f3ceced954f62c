// What the AI's first start is doing, in words: shared by the start page (index.js) and
// the game page (game.js). The parts' labels come from the server in English ("Keil
// rules", "the search"); their words are the catalogue's.
import { t } from "./i18n.js";

function partName(label) {
  const rules = /^(.+) rules$/.exec(label);
  if (rules) return t("{game} rules", { game: rules[1] });
  return label === "the search" ? t("the search") : label === "the network search" ? t("the network search") : label;
}

// "step 2 of 5", "compiling Keil rules, the search" or "loading what is compiled".
export function warmingWhat(w) {
  if (!w.compiling) return t("step {done} of {total}", { done: Math.max(w.done, 0), total: w.total });
  if (w.compiling.length) return t("compiling {what}", { what: w.compiling.map(partName).join(", ") });
  return t("loading what is compiled");
}
