"""Pairing a tournament's rounds: Swiss (the Dutch rules' essentials) and round robin (the
circle method). Pure functions of the players' records so far: no database, no clock.

**Swiss** (:func:`swiss_round`). The essentials of FIDE's Dutch system, in this order of
priority:

1. nobody meets the same opponent twice, whenever a pairing of the round allows it;
2. colours: nobody's colour difference (games with black less games with white) goes past
   2, and nobody gets the same colour three times running, whenever a pairing without
   repeats allows it; in each game the player whose colours call for black more gets it
   (the lower difference, then the one who had white last, then by rank and board);
3. score groups, top down: the highest ranked player still unpaired (score, then seed)
   meets someone of the same score, first the top of the group's lower half (the Dutch
   S1 against S2), then the rest of the group, then the nearest lower scores (a
   downfloater);
4. with an odd number of players the lowest ranked player who has not had a bye yet sits
   the round out, worth a win (1 point); everyone has had one: the lowest ranked.

The search backtracks, so a choice early in the order never makes a later player's pairing
impossible when another order would have worked. When no pairing keeps rules 1 and 2, it
keeps rule 1 alone, then rule 2 alone (a repeat is unavoidable: more rounds than players
left to meet), then neither; past :data:`SEARCH_LIMIT` steps (only with histories far
larger than a tournament here has) a try counts as failed and the next is made.

PyPI was checked for a library first: ``swissdutch`` is an alpha left unfinished since
2014, and the maintained engines are chess programs (FIDE titles and ratings, TRF files)
far larger than what the app needs; the rules above fit in this module and are tested
directly (tests/test_tournaments.py).

**Round robin** (:func:`round_robin_round`): the circle method: one player fixed, the
others turning one place a round, everyone meets everyone once in n-1 rounds (n rounds
and a bye each with an odd number); colours as Berger's tables give them: nobody gets a
colour three times running, and at the end everyone's difference is at most 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

BLACK, WHITE = "black", "white"
SEARCH_LIMIT = 50_000  # backtracking steps per try before a rule is relaxed


@dataclass(frozen=True)
class Record:
    """One player's tournament so far: ``score`` (points), ``seed`` (0: the top seed),
    ``opponents`` met, ``colors`` played in order, ``had_bye``."""

    id: str
    score: float = 0.0
    seed: int = 0
    opponents: frozenset[str] = field(default_factory=frozenset)
    colors: tuple[str, ...] = ()
    had_bye: bool = False

    @property
    def color_difference(self) -> int:
        """Games with black less games with white."""
        return sum(1 if c == BLACK else -1 for c in self.colors)

    def must_have(self) -> str | None:
        """The colour this player must get next to keep the difference within 2 and
        avoid a third same colour running (None: either will do)."""
        diff = self.color_difference
        if diff >= 2 or self.colors[-2:] == (BLACK, BLACK):
            return WHITE
        if diff <= -2 or self.colors[-2:] == (WHITE, WHITE):
            return BLACK
        return None


@dataclass(frozen=True)
class Pairing:
    """A round's games as (black, white) ids, board 1 first, and the id of the player
    with the bye (None: nobody)."""

    games: list[tuple[str, str]]
    bye: str | None = None


def ranked(records: Sequence[Record]) -> list[Record]:
    """Best first: score, then seed."""
    return sorted(records, key=lambda r: (-r.score, r.seed, r.id))


# -- Swiss ---------------------------------------------------------------------------------------

def swiss_round(records: Sequence[Record]) -> Pairing:
    """The next round's pairing of ``records`` (see the module)."""
    order = ranked(records)
    if len(order) < 2:
        return Pairing([], order[0].id if order else None)
    if len(order) % 2 == 0:
        byes: list[Record | None] = [None]
    else:
        without = [r for r in reversed(order) if not r.had_bye]
        byes = list(without or reversed(order))
    # The strictest rules first; for each, every bye candidate before relaxing a rule.
    for strictness in (_NO_REPEATS_COLORS_KEPT, _NO_REPEATS, _COLORS_KEPT, _ANYTHING):
        for bye in byes:
            rest = [r for r in order if bye is None or r.id != bye.id]
            found = _match(rest, strictness)
            if found is not None:
                return Pairing([_colored(a, b, board) for board, (a, b) in enumerate(found)],
                               None if bye is None else bye.id)
    raise AssertionError("every pairing is allowed at the last strictness")  # pragma: no cover


_NO_REPEATS_COLORS_KEPT, _NO_REPEATS, _COLORS_KEPT, _ANYTHING = 0, 1, 2, 3


def _allowed(a: Record, b: Record, strictness: int) -> bool:
    if strictness in (_NO_REPEATS_COLORS_KEPT, _NO_REPEATS) and b.id in a.opponents:
        return False
    if strictness in (_NO_REPEATS_COLORS_KEPT, _COLORS_KEPT):
        need_a, need_b = a.must_have(), b.must_have()
        return need_a is None or need_a != need_b
    return True


def _candidates(p: Record, rest: list[Record]) -> list[Record]:
    """Whom ``p`` (the best ranked unpaired player) meets, in order of preference: its
    score group's lower half first (from the top of it), then the group's upper half (from
    the bottom), then the nearest scores below and above, each best ranked first."""
    group = [q for q in rest if q.score == p.score]
    ideal = (len(group) + 1) // 2 - 1 if group else 0  # S2's first, p being S1's first
    in_group = group[ideal:] + list(reversed(group[:ideal]))
    others = sorted((q for q in rest if q.score != p.score),
                    key=lambda q: (abs(q.score - p.score), q.score < p.score and 0 or 1, -q.score, q.seed))
    return in_group + others


def _match(order: list[Record], strictness: int) -> list[tuple[Record, Record]] | None:
    """Everyone of ``order`` (best first) in pairs allowed at ``strictness``, found by
    backtracking in order of preference; None if there are none (or the search ran past
    SEARCH_LIMIT steps)."""
    steps = 0

    def search(rest: list[Record]) -> list[tuple[Record, Record]] | None:
        nonlocal steps
        if not rest:
            return []
        p, others = rest[0], rest[1:]
        for q in _candidates(p, others):
            steps += 1
            if steps > SEARCH_LIMIT:
                return None
            if not _allowed(p, q, strictness):
                continue
            found = search([r for r in others if r.id != q.id])
            if found is not None:
                return [(p, q), *found]
        return None

    return search(order)


def _colored(a: Record, b: Record, board: int) -> tuple[str, str]:
    """(black, white) of a game of ``a`` (the better ranked) and ``b`` on ``board`` (0 first)."""
    need_a, need_b = a.must_have(), b.must_have()
    if need_a is not None and need_a != need_b:
        return (a.id, b.id) if need_a == BLACK else (b.id, a.id)
    if need_b is not None and need_b != need_a:
        return (b.id, a.id) if need_b == BLACK else (a.id, b.id)
    diff_a, diff_b = a.color_difference, b.color_difference
    if diff_a != diff_b:
        return (a.id, b.id) if diff_a < diff_b else (b.id, a.id)
    last_a, last_b = (a.colors or (None,))[-1], (b.colors or (None,))[-1]
    if last_a != last_b and None not in (last_a, last_b):
        return (a.id, b.id) if last_a == WHITE else (b.id, a.id)
    # Nothing to go by: the better ranked player takes black on boards 1, 3, 5...
    return (a.id, b.id) if board % 2 == 0 else (b.id, a.id)


# -- round robin ----------------------------------------------------------------------------------

def round_robin_rounds(players: int) -> int:
    """Rounds of a round robin of ``players``: each meets every other once."""
    return players - 1 if players % 2 == 0 else players


def round_robin_round(ids: Sequence[str], round_number: int) -> Pairing:
    """Round ``round_number`` (1 first) of the round robin of ``ids`` (in seed order) by the
    circle method: the last one (or, with an odd count, the bye's empty place) stays, the
    others turn a place each round."""
    circle: list[str | None] = list(ids) + ([None] if len(ids) % 2 else [])
    n = len(circle)
    if n < 2:
        return Pairing([], circle[0] if circle else None)
    index = (round_number - 1) % (n - 1)
    turning = circle[:-1]
    turned = turning[index:] + turning[:index]
    seats = turned + [circle[-1]]
    games: list[tuple[str, str]] = []
    bye = None
    for board in range(n // 2):
        a, b = seats[board], seats[n - 1 - board]
        # Colours alternate by round for the fixed place and by board for the others, so
        # that each player's colours alternate as the circle turns.
        if board == 0:
            a, b = (a, b) if index % 2 == 0 else (b, a)
        elif board % 2 == 1:
            a, b = b, a
        if a is None or b is None:
            bye = a if b is None else b
            continue
        games.append((a, b))
    return Pairing(games, bye)
