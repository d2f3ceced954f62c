"""``hexstones play GAME``: play in the terminal against the AI or a second person."""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
from collections.abc import Callable

from hexstones.games import COLORS, Game, IllegalMove, Outcome
from hexstones.session import AI, PERSON, KomiPie, balanced, takeback

HELP = """\
Type a move in docs/rules.md notation: a point like e5, or {specials}.
  undo     take back your last move (and the AI's answer to it)
  resign   give up the game
  legal    list the legal moves
  board    show the board again
  help     this text
  quit     leave without a result"""

# ANSI styles for the coloured board; plain letters when colour is off.
RESET = "\033[0m"
STYLE = {"black": "\033[1;31m", "white": "\033[1;36m"}
LAST = "\033[7m"  # reverse video marks the last move
CHARS = {"black": "X", "white": "O"}


HELP = "play a game in the terminal"
DESCRIPTION = (
    "Play Keil, Dehil or Droched in the terminal against the AI, or against a second person at the "
    "same keyboard (--color both). Type 'help' during the game for the commands."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    from hexstones.commands import add_game

    add_game(p, options=True)
    p.add_argument("--level", type=int, default=3, help="AI strength 1-10 (default 3)")
    p.add_argument("--color", choices=("black", "white", "both"), default="black",
                   help="the colour you play; 'both' for two people (default black)")
    p.add_argument("--pie", choices=("propose", "choose"),
                   help="komi pie against the AI: you propose the balance and the AI picks a "
                        "colour, or the AI proposes and you pick (overrides --color)")
    p.add_argument("--seconds", type=float, help="AI search time per move, overriding the level's")
    p.add_argument("--iterations", type=int, help="AI search iterations per move, overriding the level's")
    p.add_argument("--seed", type=int, help="random seed for the AI")
    p.add_argument("--save", type=pathlib.Path, help="write the game's SGF record here at the end")
    p.add_argument("--no-color", action="store_true", help="plain text board (also NO_COLOR)")


def picture(game: Game, colored: bool) -> str:
    """The board in the docs/rules.md layout, stones coloured and the last move marked."""
    last = game.moves[-1] if game.moves and game.board.is_point(game.moves[-1]) else None
    marks = {}
    for point, color in game.stones().items():
        char = CHARS[color]
        if colored:
            char = STYLE[color] + (LAST if point == last else "") + char + RESET
        marks[game.board.index[point]] = char
    return game.board.render(marks)


def state_line(game: Game) -> str:
    """One line: the game, the last move, the score now with its parts (or the prison),
    the balance and whose turn it is or the result."""
    parts = [f"{game.title} side {game.size}, move {len(game.moves)}"]
    if game.moves:
        parts.append(f"last {game.moves[-1]}")
    details, score = game.score_details(), game.score()
    if details is not None and score is not None:  # both or neither: the game has a score
        sides = []
        for color in COLORS:
            # The parts that count now; the balance has its own place below.
            shown = [f"{p.label} {'-' if p.sign < 0 else ''}{details[color][p.key]:g}"
                     for p in game.score_parts if details[color][p.key] and p.key != game.balance.option]
            sides.append(f"{color} {score[color]:g}" + (f" ({', '.join(shown)})" if shown else ""))
        parts.append("score now: " + ", ".join(sides))
    prison = game.prison
    if prison is not None:
        parts.append(f"prison: {prison['black']} black, {prison['white']} white")
    else:  # a prison balance shows in the prison
        parts.append(f"{game.balance.short} {game.balance_value}")
    parts.append(game.status())
    return "; ".join(parts)


class TerminalGame:
    """A game at this terminal: people type their moves, the AI answers for the others."""

    def __init__(self, game: Game, humans: set[str], *, ai_move: Callable[[Game], str],
                 read: Callable[[str], str], write: Callable[[str], None], colored: bool):
        self.game, self.humans = game, humans
        self.ai_move, self.read, self.write, self.colored = ai_move, read, write, colored
        self.resigned: str | None = None

    def show(self) -> None:
        self.write(picture(self.game, self.colored))
        self.write(state_line(self.game))

    def run(self) -> bool:
        """Play until the end; False if the player quit without a result."""
        game = self.game
        self.show()
        while not game.is_over:
            color = game.to_move
            if color not in self.humans:
                move = self.ai_move(game)
                game.play(move)
                self.write(f"AI ({color}) plays {move}")
                self.show()
                continue
            try:
                text = self.read(f"{color}> ").strip().lower()
            except EOFError:
                self.write("")
                return False
            if not text:
                continue
            if text in ("quit", "exit"):
                return False
            if text in ("help", "?"):
                specials = ", ".join(game.special_moves) or "no other moves"
                self.write(HELP.format(specials=specials))
            elif text == "legal":
                self.write(" ".join(game.legal_moves()))
            elif text == "board":
                self.show()
            elif text == "undo":
                self.undo()
            elif text == "resign":
                self.resigned = color
                self.write(Outcome.resignation(color).text())
                return True
            else:
                try:
                    game.play(text)
                except IllegalMove as exc:
                    self.write(f"illegal: {exc}")
                    continue
                self.show()
        self.write(f"Game over: {game.status()}")
        return True

    def undo(self) -> None:
        """Take back moves up to and including the last one a person made."""
        back = takeback(self.game, lambda color: color in self.humans)
        if not back.reached:  # only the AI has moved
            self.write("nothing of yours to undo")
            return
        for _ in back.taken:
            self.game.undo()
        self.write(f"took back {' '.join(reversed(back.taken))}")
        self.show()


def run(args: argparse.Namespace) -> int:
    import hexstones
    from hexstones import ai
    from hexstones.commands import balance_flags, check_budget, game_options

    def fail(message: str) -> int:
        print(f"hexstones play: {message}", file=sys.stderr)
        return 2

    flag = f"--{hexstones.game_class(args.game).balance.option}"
    if args.pie and args.color == "both":
        return fail(f"--pie is for play against the AI; two people agree the balance with {flag}")
    if args.pie and any(getattr(args, option) is not None for option in balance_flags()):
        return fail(f"--pie decides the balance: leave out {flag}")
    try:
        options = game_options(args.game, args)
        ai.get_level(args.level)
        check_budget(args)
        game = hexstones.new_game(args.game, **options)
    except ValueError as exc:
        return fail(str(exc))

    colored = not args.no_color and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    write = print

    def read(prompt: str) -> str:
        return input(prompt)

    humans = {"black", "white"} if args.color == "both" else {args.color}
    if args.pie:
        try:
            chosen = pie(args, game, read, write)
        except EOFError:
            return 0
        if chosen is None:
            return 0
        game, humans = chosen

    def ai_move(current: Game) -> str:
        seed = None if args.seed is None else args.seed + len(current.moves)
        return ai.choose_move(current, seconds=args.seconds, iterations=args.iterations,
                              seed=seed, level=args.level)

    session = TerminalGame(game, humans, ai_move=ai_move, read=read, write=write, colored=colored)
    try:
        session.run()
    except KeyboardInterrupt:
        write("")
    if args.save is not None:
        from hexstones.records import write_sgf

        players = {c: ("you" if c in humans else f"hexstones AI level {args.level}") for c in ("black", "white")}
        if args.color == "both":
            players = {"black": "black", "white": "white"}
        try:
            args.save.write_text(write_sgf(game, black=players["black"], white=players["white"],
                                           resigned=session.resigned), encoding="utf-8")
        except OSError as exc:
            print(f"hexstones play: cannot save {args.save}: {exc}", file=sys.stderr)
            return 1
        write(f"record saved to {args.save}")
    return 0


def pie(args: argparse.Namespace, game: Game, read, write):
    """The komi pie (docs/rules.md section 5); returns (game, humans) or None if the player quits."""
    import hexstones
    from hexstones import ai

    what = game.balance.label
    steps = KomiPie(PERSON if args.pie == "propose" else AI)
    if steps.proposer == PERSON:
        while True:
            text = read(f"propose the balance ({what}): ").strip()
            if text in ("quit", "exit"):
                return None
            try:
                balance = int(text)
                balanced(game.name, game.options, balance)
                break
            except ValueError as exc:
                write(f"not a balance: {exc}" if text.lstrip("-").isdigit() else
                      f"not a balance: {text!r} is not a whole number")
        steps = steps.propose(balance)
        side = ai.choose_side(game.name, game.size, balance, iterations=args.iterations,
                              level=args.level)
        steps = steps.choose(side)
    else:
        balance = ai.propose_komi(game.name, game.size, iterations=args.iterations, level=args.level)
        steps = steps.propose(balance)
        write(f"the AI proposes {balance} ({what})")
        while True:
            text = read("choose your colour (black or white): ").strip().lower()
            if text in ("quit", "exit"):
                return None
            if text in ("b", "black", "w", "white"):
                steps = steps.choose("black" if text.startswith("b") else "white")
                break
            write("type black or white")
    proposed = hexstones.new_game(game.name, **balanced(game.name, game.options, balance))
    humans = {color for color, player in steps.players(against_ai=True).items() if player == PERSON}
    if steps.proposer == PERSON:
        (mine,) = humans
        write(f"the AI takes {steps.chooser_color}; you play {mine}")
    return proposed, humans
