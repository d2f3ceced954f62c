// The rules pages: /rules lists the games, /rules/<game> explains one with boards to try.
// The words and examples come from /static/rules/<game>.json; every board is drawn and
// every move judged by the server (POST /api/position): nothing here knows the rules.
import { api } from "./api.js";
import { t } from "./i18n.js";

const $ = (sel, root = document) => root.querySelector(sel);
const main = $("#rules");
const parts = location.pathname.split("/").filter(Boolean);
const gameName = parts.length > 1 ? decodeURIComponent(parts[1]) : null;
const RULES_TEXT = "/rules/text"; // the exact rules (docs/rules.md), as plain text

function cap(s) { return s ? s[0].toUpperCase() + s.slice(1) : s; }
const colorWord = (color) => (color === "black" ? t("Black") : color === "white" ? t("White") : cap(color));
const moveWord = (move) => (move === "pass" ? t("pass") : move === "button" ? t("button") : move === "release" ? t("release") : move);

// An element with attributes and children (strings become text, never HTML).
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else if (k === "text") node.textContent = v; else node.setAttribute(k, v);
  }
  for (const child of children) node.append(child);
  return node;
}

// A special move's label: the words of its help text before the colon ("Take the button").
function label(spec, move) {
  const help = spec.special_help[move];
  return help ? help.split(":")[0] : cap(move);
}

function listGames(specs) {
  document.title = t("hexstones: rules");
  main.replaceChildren(
    el("h1", { text: t("The rules") }),
    el("p", { class: "lead", text: t("Three games on the hexagonal board. Each page explains one in plain words, with small boards where you play the example moves and see what the rules make of them.") }),
  );
  const list = el("div", { class: "rules-list" });
  for (const spec of Object.values(specs)) {
    list.append(el("section", { class: "card", "data-testid": `rules-${spec.name}` },
      el("h2", {}, el("a", { href: `/rules/${encodeURIComponent(spec.name)}`, text: spec.title })),
      el("p", { text: spec.summary })));
  }
  main.append(list);
}

class Example {
  constructor(spec, example, testid) {
    this.spec = spec;
    this.example = example;
    this.board = el("div", { class: "rules-board board", "data-testid": "rules-board" });
    this.prompt = el("p", { class: "prompt", "data-testid": "prompt" });
    this.caption = el("p", { class: "caption", "data-testid": "caption" });
    this.facts = el("p", { class: "facts", "data-testid": "facts" });
    this.controls = el("div", { class: "controls" });
    for (const move of spec.special_moves) {
      const b = el("button", { type: "button", "data-move": move, title: spec.special_help[move] || move, text: label(spec, move) });
      b.addEventListener("click", () => this.play(move));
      this.controls.append(b);
    }
    const reset = el("button", { type: "button", "data-testid": "reset", text: t("Reset") });
    reset.addEventListener("click", () => this.reset());
    this.controls.append(reset);
    this.node = el("div", { class: "example", "data-testid": testid },
      this.board, el("div", {}, this.prompt, this.caption, this.facts, this.controls));
    this.board.addEventListener("click", (e) => {
      const point = e.target.closest("[data-point]");
      if (point) this.play(point.getAttribute("data-point"));
    });
    this.busy = false;
  }

  ask(moves, attempt) {
    const ex = this.example;
    const body = { game: this.spec.name, size: ex.size, options: ex.options, moves, overlays: ex.overlays };
    if (attempt !== undefined) body.try = attempt;
    return api("/api/position", body);
  }

  // The next example step, or null once the reader has left the path or reached its end.
  current() {
    return this.offPath ? null : this.example.steps[this.step] || null;
  }

  async reset() {
    this.moves = this.example.setup.slice();
    this.step = 0;
    this.offPath = false;
    const r = await this.ask(this.moves);
    if (!r.ok) { this.say(r.data.detail, true); return; }
    this.caption.textContent = t(this.example.start);
    this.say("");
    this.draw(r.data);
  }

  say(text, refused = false) {
    this.facts.textContent = text;
    this.facts.classList.toggle("refused", refused);
  }

  async play(move) {
    if (this.busy) return;
    this.busy = true;
    try { await this.judge(move); } finally { this.busy = false; }
  }

  async judge(move) {
    const expected = this.current();
    const onPath = expected !== null && expected.move === move;
    const r = await this.ask(this.moves, move);
    if (!r.ok) { this.say(r.data.detail, true); return; }
    let answer = r.data;
    if (answer.refused) {
      this.caption.textContent = onPath && expected.expect.refused ? t(expected.caption)
        : t("{color} {move}: the rules refuse this move.", { color: colorWord(answer.refused.color), move: moveWord(move) });
      if (onPath && expected.expect.refused) this.step += 1;
      this.say(t("The engine says: {reason}.", { reason: answer.refused.reason }), true);
      this.draw(answer);
      return;
    }
    const facts = this.describe(answer);
    if (onPath && !expected.expect.refused) {
      this.step += 1;
      this.caption.textContent = t(expected.caption);
      if (expected.reply) {
        const reply = await this.ask(answer.moves, expected.reply);
        if (!reply.ok || reply.data.refused) { this.say(reply.ok ? reply.data.refused.reason : reply.data.detail, true); return; }
        answer = reply.data;
      }
    } else {
      this.offPath = true;
      this.caption.textContent = t("{color} played {move}, off the example's path: the board shows what the rules make of it. Reset to follow the example again.",
        { color: colorWord(answer.last.color), move: moveWord(move) });
    }
    this.moves = answer.moves;
    this.say(facts);
    this.draw(answer);
  }

  // What the move did, in the engine's terms: stones removed, the prison, the score, the result.
  describe(answer) {
    const words = [`${colorWord(answer.last.color)} ${moveWord(answer.last.move)}.`];
    const removed = answer.last.removed;
    const lower = (color) => (color === "black" ? t("black") : color === "white" ? t("white") : color);
    if (removed.length) words.push(t("Removed: {stones}.", { stones: removed.map((r) => `${r.point} (${lower(r.color)})`).join(", ") }));
    if (answer.prison) words.push(t("Prison: {black} black, {white} white.", answer.prison));
    if (answer.outcome) words.push(`${answer.outcome.text}.`);
    else if (answer.score) words.push(t("Score if the game ended now: Black {black}, White {white}.", answer.score));
    return words.join(" ");
  }

  draw(answer) {
    this.board.innerHTML = answer.svg; // the server's own drawing
    for (const b of this.controls.querySelectorAll("[data-move]")) b.classList.remove("hint");
    const next = this.current();
    this.node.setAttribute("data-step", String(this.step));
    this.node.toggleAttribute("data-done", next === null);
    if (next === null) {
      this.prompt.textContent = answer.outcome ? t("The game is over. Reset to play the example again.")
        : t("Try other moves if you like: the engine judges each one. Reset puts the example back.");
      return;
    }
    const who = colorWord(answer.to_move);
    const point = this.board.querySelector(`[data-point="${CSS.escape(next.move)}"]`);
    if (point) {
      point.classList.add("hint");
      this.prompt.textContent = t("{color} to play: click the highlighted point {point}.", { color: who, point: next.move });
    } else {
      const button = this.controls.querySelector(`[data-move="${CSS.escape(next.move)}"]`);
      if (button) button.classList.add("hint");
      this.prompt.textContent = t("{color} to play: press \u201c{button}\u201d.", { color: who, button: label(this.spec, next.move) });
    }
  }
}

async function showGame(specs, name) {
  const spec = specs[name];
  const r = await api(`/static/rules/${encodeURIComponent(name)}.json`);
  if (!spec || !r.ok) { main.replaceChildren(el("p", { class: "message error", text: t("No rules page for {game}.", { game: name }) })); return; }
  const page = r.data;
  document.title = t("{game} rules: hexstones", { game: spec.title });
  $("#title").textContent = t("{game}: the rules", { game: spec.title });
  const others = Object.values(specs).filter((s) => s.name !== name);
  const toc = el("ul", { class: "toc" }, ...page.ideas.map((idea) => el("li", {}, el("a", { href: `#${idea.id}`, text: t(idea.title) }))));
  main.replaceChildren(
    el("h1", { text: t("{game}: the rules", { game: spec.title }) }),
    ...page.intro.map((text) => el("p", { class: "lead", text: t(text) })),
    el("p", { class: "how", text: t("Each board below is a real position, judged by the app's own engine. Click the highlighted point (or press the highlighted button) to play the example's next move and read what happened and why. Any other move is judged too; Reset puts the example back.") }),
    toc,
  );
  const examples = [];
  for (const idea of page.ideas) {
    const section = el("section", { class: "card idea", id: idea.id, "data-testid": `idea-${idea.id}` },
      el("h2", { text: t(idea.title) }), ...idea.text.map((text) => el("p", { text: t(text) })));
    idea.examples.forEach((example, k) => {
      const shown = new Example(spec, example, `example-${idea.id}-${k}`);
      section.append(shown.node);
      examples.push(shown);
    });
    main.append(section);
  }
  main.append(el("p", {}, t("Other games:") + " ", ...others.flatMap((s, i) => [i ? ", " : "", el("a", { href: `/rules/${encodeURIComponent(s.name)}`, text: s.title })]),
    ". ", el("a", { href: "/", text: t("Play {game}", { game: spec.title }) }), " " + t("from the start page. The exact rules, every reading fixed:") + " ",
    el("a", { href: RULES_TEXT, text: "docs/rules.md" }), "."));
  await Promise.all(examples.map((x) => x.reset()));
  if (location.hash) { const target = document.getElementById(location.hash.slice(1)); if (target) target.scrollIntoView(); }
}

(async function start() {
  const r = await api("/api/spec");
  if (!r.ok) { main.replaceChildren(el("p", { class: "message error", text: r.data.detail })); return; }
  if (gameName === null) listGames(r.data.games); else await showGame(r.data.games, gameName);
})();
