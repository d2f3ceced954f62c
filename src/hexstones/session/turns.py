"""A game with its players: who sits at each colour, whose turn it is, what may be taken
back, who may resign, and how the game ended.

A :class:`Session` is a value built around the engine's game: every check here raises a
:class:`~hexstones.session.errors.SessionError` and changes nothing; what a step changes
(a move played, moves taken back) is done on a copy the caller keeps once stored.
Clocks and ratings attach here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from hexstones.games import BLACK, COLORS, WHITE, Game, Outcome
from hexstones.games.spec import shown
from hexstones.session.errors import BadStep, NotNow
from hexstones.session.pie import AI, CHOOSE, PERSON, PROPOSE, KomiPie


@dataclass(frozen=True)
class Takeback:
    """Moves taken back: ``game``, a copy of the game without them; ``taken``, the moves in
    the order they were taken back (last first); ``reached``: whether it stopped at a
    person's move (else it took back every move and found none)."""

    game: Game
    taken: list[str]
    reached: bool


def takeback(game: Game, is_person: Callable[[str], bool], until: str | None = None) -> Takeback:
    """Take back moves of ``game`` (on a copy) up to and including the last one a person
    made: the AI's replies since go with it. With ``until``, a colour: back to that
    colour's last move."""
    trial = game.copy()
    taken: list[str] = []
    while trial.moves:
        taken.append(trial.undo())  # the mover of the move taken back is now to move
        if until is not None and trial.to_move != until:
            continue
        if is_person(trial.to_move):
            return Takeback(trial, taken, True)
    return Takeback(trial, taken, False)


@dataclass(frozen=True)
class Session:
    """``game`` and its players: ``players`` maps each colour to PERSON or AI (None while
    the komi ``pie`` decides them); ``against_ai`` whether the AI holds a seat (known before
    the pie decides which); ``resigned``, the colour that resigned, if one did;
    ``flagged``, the colour whose time ran out (:meth:`hexstones.session.Clock.fallen`),
    if one did; ``aborted``: whether the game was called off because a first move was not
    made in time (:meth:`hexstones.session.Clock.aborted`): over, with no winner."""

    game: Game
    players: Mapping[str, str] | None = None
    pie: KomiPie | None = None
    resigned: str | None = None
    against_ai: bool = field(default=False)
    flagged: str | None = None
    aborted: bool = False

    @classmethod
    def between(cls, game: Game, persons: set[str] | frozenset[str]) -> Session:
        """A game where the colours in ``persons`` are people and the others the AI."""
        players = {c: PERSON if c in persons else AI for c in COLORS}
        return cls(game, players, against_ai=len(persons) < len(COLORS))

    def player(self, color: str) -> str | None:
        return self.players[color] if self.players else None

    def is_person(self, color: str) -> bool:
        return self.player(color) == PERSON

    @property
    def pie_pending(self) -> bool:
        return self.pie is not None and self.pie.pending

    @property
    def over(self) -> bool:
        return self.ended_early is not None or self.game.is_over

    @property
    def ended_early(self) -> str | None:
        """Why the game ended before the rules' end, in words ("white resigned", "black ran
        out of time"), None if it did not."""
        if self.resigned is not None:
            return f"{self.resigned} resigned"
        if self.flagged is not None:
            return f"{self.flagged} ran out of time"
        if self.aborted:
            return "aborted: a first move was not made in time"
        return None

    def outcome(self) -> Outcome | None:
        """How the game ended (a resignation, a flag, or the rules' end), or None while it
        goes on or when it was aborted (nobody won)."""
        if self.resigned is not None:
            return Outcome.resignation(self.resigned)
        if self.flagged is not None:
            return Outcome.on_time(self.flagged)
        if self.aborted:
            return None
        return self.game.outcome()

    def ai_task(self) -> str | None:
        """What the AI must do now: "propose", "choose", "move" or None."""
        if not self.against_ai or self.ended_early is not None:
            return None
        if self.pie is not None and self.pie.pending:
            return self.pie.ai_task(against_ai=True)
        if not self.game.is_over and self.player(self.game.to_move) == AI:
            return "move"
        return None

    # -- checks before a step: each raises NotNow or BadStep, changing nothing -------------

    def check_can_play(self) -> None:
        """A move may be played now (by whoever's turn it is)."""
        if self.ended_early is not None:
            raise NotNow(f"the game is over: {self.ended_early}")
        if self.game.is_over:
            raise NotNow("the game is over: no more moves can be played (undo to take moves back)")
        if self.pie_pending:
            raise NotNow("the komi pie comes first: the balance must be proposed and a colour chosen")

    def check_person_moves(self) -> None:
        """A person may move now: the game goes on and a person is to move."""
        self.check_can_play()
        if not self.is_person(self.game.to_move):
            raise NotNow(f"it is the AI's turn ({self.game.to_move}), not yours")

    def resigner(self, color: str | None) -> str:
        """Who resigns when ``color`` (None: the person against the AI, else the side to
        move) asks to."""
        if color not in (None, BLACK, WHITE):
            raise BadStep(f"color must be 'black' or 'white', not {shown(color)}")
        if self.over:
            raise NotNow("the game is already over")
        if self.pie_pending:
            raise NotNow("the colours are not decided yet (komi pie): nothing to resign")
        if color is None:
            color = self.game.to_move
            if self.against_ai:
                color = next(c for c in COLORS if self.is_person(c))
        if not self.is_person(color):
            raise NotNow(f"{color} is played by the AI; only a person resigns")
        return color

    def pie_for_person(self) -> KomiPie:
        """The pie, when a person's step of it is due (else NotNow: none is pending, or it is
        the AI's step)."""
        pie = self.pie
        if self.ended_early is not None:
            raise NotNow(f"the game is over: {self.ended_early}")
        if pie is None or not pie.pending:
            raise NotNow("this game has no komi pie pending")
        if pie.stage == PROPOSE and pie.proposer != PERSON:
            raise NotNow("the AI proposes the balance in this game; wait for it")
        if pie.stage == CHOOSE and pie.chooser == AI and self.against_ai:
            raise NotNow("the AI chooses the colour in this game; wait for it")
        return pie

    def takeback(self, until: str | None = None, ply: int | None = None) -> Takeback:
        """The person's last move and the AI's replies taken back (:func:`takeback`); in a
        game between people, the last move (``until``: back to that colour's last one).
        ``ply``: the move count its sender saw (:meth:`check_seen`)."""
        if self.ended_early is not None:
            raise NotNow(f"the game is over: {self.ended_early}; nothing can be taken back")
        if ply is not None:
            self.check_seen(ply)
        if not self.game.moves:
            raise NotNow("there is no move to take back")
        back = takeback(self.game, self.is_person, until)
        if not back.reached and self.against_ai:
            raise NotNow("there is no move of yours to take back")
        return back

    def check_seen(self, ply: int) -> None:
        """Refuse a takeback meant for the position after ``ply`` moves where a person has
        played since (or moves were taken back since): it must never take back a move its
        sender has not seen."""
        now = len(self.game.moves)
        later = self.game.copy()
        seen = ply <= now
        while seen and len(later.moves) > ply:
            later.undo()  # the mover of the move taken back is now to move
            seen = not self.is_person(later.to_move)
        if not seen:
            raise NotNow(f"this undo was meant for the position at move {ply}, but the "
                         f"game is at move {now} now: look at it again first")

