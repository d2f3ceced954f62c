"""The komi pie (docs/rules.md section 5): one side proposes the balance, the other picks a colour.

A :class:`KomiPie` is a value: :meth:`KomiPie.propose` and :meth:`KomiPie.choose` return
the next pie and leave this one as it was, so a step that cannot be stored changes
nothing. Stored as :meth:`KomiPie.to_dict` (``proposer``, ``stage``, ``komi``,
``chooser_color``). The web app, the terminal game and the AI's side of it
(:mod:`hexstones.ai.pie` decides what the AI proposes and picks) all step this one machine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from hexstones.games import BLACK, WHITE, check_options, game_class
from hexstones.games.spec import shown
from hexstones.session.errors import BadStep, NotNow

PROPOSE, CHOOSE, DONE = "propose", "choose", "done"
PERSON, AI = "human", "ai"


@dataclass(frozen=True)
class KomiPie:
    proposer: str  # PERSON or AI
    stage: str = PROPOSE
    komi: int | None = None  # the proposed balance, once proposed
    chooser_color: str | None = None  # the colour the chooser took, once done

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> KomiPie | None:
        if data is None:
            return None
        pie = cls(data["proposer"], data["stage"], data.get("komi"), data.get("chooser_color"))
        if pie.proposer not in (PERSON, AI) or pie.stage not in (PROPOSE, CHOOSE, DONE):
            raise ValueError(f"a komi pie with proposer {pie.proposer!r} and stage {pie.stage!r}")
        return pie

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def pending(self) -> bool:
        return self.stage != DONE

    @property
    def chooser(self) -> str:
        return AI if self.proposer == PERSON else PERSON

    def ai_task(self, against_ai: bool) -> str | None:
        """What the AI must do now (PROPOSE, CHOOSE) or None."""
        if not against_ai:
            return None
        if self.stage == PROPOSE and self.proposer == AI:
            return PROPOSE
        if self.stage == CHOOSE and self.chooser == AI:
            return CHOOSE
        return None

    def propose(self, komi: int) -> KomiPie:
        """The pie once ``komi`` is proposed (check it with :func:`balanced` first)."""
        if self.stage != PROPOSE:
            raise NotNow("the balance is already proposed: now a colour is chosen")
        return replace(self, stage=CHOOSE, komi=komi)

    def choose(self, color: Any) -> KomiPie:
        """The pie once the chooser takes ``color``: done, the game can start."""
        if self.stage != CHOOSE:
            raise BadStep("the balance must be proposed first: give 'komi'")
        if color not in (BLACK, WHITE):
            raise BadStep(f"choose a colour: 'black' or 'white', not {shown(color)}")
        return replace(self, stage=DONE, chooser_color=color)

    def players(self, against_ai: bool) -> dict[str, str]:
        """Who plays which colour once done: the chooser has ``chooser_color``."""
        if not against_ai:
            return {BLACK: PERSON, WHITE: PERSON}
        assert self.chooser_color is not None, "the pie is not done"
        other = WHITE if self.chooser_color == BLACK else BLACK
        return {self.chooser_color: self.chooser, other: self.proposer}


def balanced(name: str, options: Mapping[str, Any], value: Any) -> dict[str, Any]:
    """A game's ``options`` with the balance ``value`` (komi; Droched: the prison's
    stones), checked by the game API: ValueError (or TypeError) says what is wrong."""
    changed = dict(options, **{game_class(name).balance.option: value})
    check_options(name, changed)
    return changed
