"""What Keil and Dehil share as games: a komi for White, two passes in a row end the game,
and the count decides it (:class:`CountedGame`)."""

from __future__ import annotations

from typing import Any

from hexstones.core.state import start_state
from hexstones.games.base import BLACK, WHITE, Game, IllegalMove
from hexstones.games.engine import CoreBacked
from hexstones.games.spec import Outcome


class CountedGame(CoreBacked, Game):
    """A core-backed game with a komi, over after two passes in a row and won by the higher
    score; its one-time privilege (Keil's button, Dehil's first pass) is worth half a
    point, so a finished game has no tie."""

    option_names = ("size", "komi")

    def __init__(self, size: int, komi: int):
        super().__init__(size)
        self.komi = self.balance.check(komi, self.title)
        self._attach(start_state(self.name, self.size, komi=self.komi))

    @property
    def is_over(self) -> bool:
        return self.passes >= 2

    def _check_move(self, move: str) -> None:
        """Refuse ``move`` (:class:`IllegalMove`) for what the game knows before the kernels
        try it: here, that the game is over."""
        if self.is_over:
            raise IllegalMove(f"the game is over (two passes in a row); {move!r} cannot be played")

    def play(self, move: str) -> None:
        move = self.normalize_move(move)
        self._check_move(move)
        code = self._core_play(self.board.index.get(move, self.board.num_points))
        if code:
            raise IllegalMove(self._reason(move, code))
        self.moves.append(move)

    def legal_moves(self) -> list[str]:
        if self.is_over:
            return []
        P = self.board.num_points
        names = self.board.names
        special = self.special_move()
        return [names[m] if m < P else special for m in self._core_legal()]

    # score() and score_details(): the kernels' score parts, labelled by CoreBacked.

    def outcome(self) -> Outcome | None:
        if not self.is_over:
            return None
        score = self.score()
        assert score is not None, f"a finished {self.title} game is counted"
        # Someone took the privilege before the passes (Keil's button) or with the first of
        # them (Dehil's first pass): its half point rules out ties.
        return Outcome(BLACK if score[BLACK] > score[WHITE] else WHITE, "score", score)

    @property
    def options(self) -> dict[str, Any]:
        return {"size": self.size, "komi": self.komi}
