"""The komi pie (docs/rules.md section 5): one side proposes the balance, the other picks a colour.

A :class:`KomiPie` is a value: :meth:`KomiPie.propose` and :meth:`KomiPie.choose` return
the next pie and leave this one as it was, so a step that cannot be stored changes
nothing. It is stored in a game's setup as :meth:`KomiPie.to_dict` (the same dict the
app has always stored: ``proposer``, ``stage``, ``komi``, ``chooser_color``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from hexstones.games import BLACK, WHITE
from hexstones.web.errors import WebError, shown

PROPOSE, CHOOSE, DONE = "propose", "choose", "done"


@dataclass(frozen=True)
class KomiPie:
    proposer: str  # "human" or "ai"
    stage: str = PROPOSE
    komi: int | None = None  # the proposed balance, once proposed
    chooser_color: str | None = None  # the colour the chooser took, once done

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> KomiPie | None:
        if data is None:
            return None
        pie = cls(data["proposer"], data["stage"], data.get("komi"), data.get("chooser_color"))
        if pie.proposer not in ("human", "ai") or pie.stage not in (PROPOSE, CHOOSE, DONE):
            raise ValueError(f"a komi pie with proposer {pie.proposer!r} and stage {pie.stage!r}")
        return pie

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def pending(self) -> bool:
        return self.stage != DONE

    @property
    def chooser(self) -> str:
        return "ai" if self.proposer == "human" else "human"

    def ai_task(self, against_ai: bool) -> str | None:
        """What the AI must do now ("propose", "choose") or None."""
        if not against_ai:
            return None
        if self.stage == PROPOSE and self.proposer == "ai":
            return PROPOSE
        if self.stage == CHOOSE and self.chooser == "ai":
            return CHOOSE
        return None

    def propose(self, komi: int) -> KomiPie:
        """The pie once ``komi`` is proposed (the caller checks it is a valid balance)."""
        if self.stage != PROPOSE:
            raise WebError(409, "the balance is already proposed: now a colour is chosen")
        return replace(self, stage=CHOOSE, komi=komi)

    def choose(self, color: Any) -> KomiPie:
        """The pie once the chooser takes ``color``: done, the game can start."""
        if self.stage != CHOOSE:
            raise WebError(400, "the balance must be proposed first: give 'komi'")
        if color not in (BLACK, WHITE):
            raise WebError(400, f"choose a colour: 'black' or 'white', not {shown(color)}")
        return replace(self, stage=DONE, chooser_color=color)

    def players(self, against_ai: bool) -> dict[str, str]:
        """Who plays which colour once done: the chooser has ``chooser_color``."""
        if not against_ai:
            return {BLACK: "human", WHITE: "human"}
        other = WHITE if self.chooser_color == BLACK else BLACK
        return {self.chooser_color: self.chooser, other: self.proposer}
