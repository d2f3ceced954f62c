"""Droched (docs/rules.md section 4): Go on hexagonal cells where life is a bridge to the border.

A group lives while the empty cells reachable from its stones through empty cells touch at
least two of the board's 12 border features (6 corners, 6 edges without their corners).
After a placement, enemy groups on broken bridges go to the prison, then friendly ones. A
turn may instead release one enemy stone from the prison. Whoever cannot act loses.

Positions are bitboards (Python ints) laid out so that the six neighbour directions are
fixed shifts; flood fills are then a few big-int operations per step. That keeps the plain
implementation fast enough to list legal moves for every position of a game.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache
from typing import Any

from hexstones.board import get_board
from hexstones.games.base import BLACK, WHITE, Game, IllegalMove, other

RELEASE = "release"

# Outcomes of trying a placement (kept as codes so listing legal moves builds no messages).
LEGAL, OCCUPIED, ONLY_PRISONER, REPEATS = range(4)


class _Geometry:
    """Bit layout of one board side: point (c, r) is bit ``c * stride + r``.

    The stride leaves one unused bit per column, so the six neighbours of a bit are the
    shifts by 1, stride and stride + 1 either way; results are masked with ``valid``.
    """

    def __init__(self, size: int):
        board = get_board(size)
        self.board = board
        self.stride = board.span + 1
        self.bit = tuple(1 << (c * self.stride + r) for c, r in board.coords)
        self.index_of_bit = {b: i for i, b in enumerate(self.bit)}
        self.valid = sum(self.bit)
        self.feature_masks = tuple(
            sum(self.bit[i] for i in range(board.num_points) if board.feature_of[i] == f)
            for f in range(12)
        )
        # Neighbour bits in cyclic order, 0 for a direction off the board.
        self.slot_bits = tuple(
            tuple(self.bit[j] if j >= 0 else 0 for j in slots) for slots in board.neighbour_slots
        )

    def dilate(self, x: int) -> int:
        """``x`` plus every neighbour of its points."""
        s, t = self.stride, self.stride + 1
        return (x | x << 1 | x >> 1 | x << s | x >> s | x << t | x >> t) & self.valid

    def flood(self, seed: int, within: int) -> int:
        """The points of ``within`` connected to ``seed`` (which must lie in ``within``)."""
        s, t = self.stride, self.stride + 1
        x = seed
        while True:
            y = (x | x << 1 | x >> 1 | x << s | x >> s | x << t | x >> t) & within
            if y == x:
                return x
            x = y

    def components(self, bits: int) -> list[int]:
        """The connected parts of the point set ``bits``."""
        parts = []
        while bits:
            part = self.flood(bits & -bits, bits)
            parts.append(part)
            bits ^= part
        return parts

    def features(self, bits: int) -> int:
        """Bit f set iff ``bits`` holds a point of border feature f."""
        mask = 0
        for f, fm in enumerate(self.feature_masks):
            if bits & fm:
                mask |= 1 << f
        return mask

    def indices(self, bits: int) -> list[int]:
        """Board indices of the points in ``bits``, in board order."""
        found = []
        while bits:
            low = bits & -bits
            found.append(self.index_of_bit[low])
            bits ^= low
        return sorted(found)


@cache
def _geometry(size: int) -> _Geometry:
    return _Geometry(size)


def _two_or_more(mask: int) -> bool:
    return mask & (mask - 1) != 0


@dataclass(frozen=True)
class DrochedState:
    black: int  # bitboard of black stones
    white: int
    to_move: str
    prison_black: int  # black stones in the prison (White may release them)
    prison_white: int
    released_black: int  # black stones released from the prison: out of the game
    released_white: int
    imprisoned: int = 0  # bitboard: points whose stones the last move sent to prison

    @property
    def board_key(self) -> tuple[int, int]:
        return (self.black, self.white)


class _Position:
    """What the rules need of one board, computed once per board and reused.

    ``regions``: the empty regions as (bits, feature mask). ``groups[colour]``: the groups
    as (bits, neighbour bits, indices of adjacent regions).
    """

    __slots__ = ("regions", "region_of", "groups")

    def __init__(self, geo: _Geometry, black: int, white: int):
        empty = geo.valid & ~(black | white)
        self.regions = [(r, geo.features(r)) for r in geo.components(empty)]
        self.region_of: dict[int, int] = {}
        for k, (r, _) in enumerate(self.regions):
            while r:
                low = r & -r
                self.region_of[low] = k
                r ^= low
        self.groups = {}
        for color, bits in ((BLACK, black), (WHITE, white)):
            found = []
            for g in geo.components(bits):
                nb = geo.dilate(g) & ~g
                adjacent = tuple(k for k, (r, _) in enumerate(self.regions) if r & nb)
                found.append((g, nb, adjacent))
            self.groups[color] = found


class DrochedGame(Game):
    name = "droched"
    default_size = 9
    special_moves = (RELEASE,)

    def __init__(self, size: int = 9, prison: int = 0, handicap=()):
        super().__init__(size)
        self._geo = _geometry(self.size)
        if isinstance(prison, float) and prison.is_integer():
            prison = int(prison)
        if isinstance(prison, bool) or not isinstance(prison, int) or prison < 0:
            raise ValueError(
                f"Droched's prison option is a whole number of black stones (0 or more) "
                f"starting in the prison, not {prison!r}"
            )
        self.initial_prison = prison
        self.handicap: tuple[str, ...] = self._check_handicap(handicap)
        black = 0
        for name in self.handicap:
            black |= self._geo.bit[self.board.index[name]]
        self._states = [
            DrochedState(black, 0, WHITE if self.handicap else BLACK, prison, 0, 0, 0)
        ]
        # Boards at the end of each player's turns so far (the repetition rule); a
        # handicap start is nobody's turn, so it is in neither.
        self._history: dict[str, Counter] = {BLACK: Counter(), WHITE: Counter()}
        self._positions: dict[tuple[int, int], _Position] = {}
        self._legal_cache: dict[int, list[str]] = {}  # len(moves) -> legal moves

    def _check_handicap(self, handicap) -> tuple[str, ...]:
        if isinstance(handicap, str):
            handicap = handicap.replace(",", " ").split()
        if not isinstance(handicap, (list, tuple)):
            raise ValueError(
                f"Droched's handicap option is a list of points like ['d4', 'f6'], not {handicap!r}"
            )
        names = []
        for point in handicap:
            try:
                names.append(self.board.names[self.board.point(point)])
            except ValueError as exc:
                raise ValueError(f"bad handicap point: {exc}") from None
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"handicap points must differ: {', '.join(repeated)} given twice")
        names.sort(key=self.board.index.__getitem__)
        if names:
            geo = _geometry(self.size)
            black = sum(geo.bit[self.board.index[n]] for n in names)
            position = _Position(geo, black, 0)
            for g, _nb, adjacent in position.groups[BLACK]:
                reach = 0
                for k in adjacent:
                    reach |= position.regions[k][1]
                if not _two_or_more(reach):
                    points = " ".join(self.board.names[i] for i in geo.indices(g))
                    raise ValueError(
                        f"handicap stones {points} would start on a broken bridge (their empty "
                        "paths reach fewer than two border features): choose other points"
                    )
        return tuple(names)

    # -- rules ---------------------------------------------------------------------

    @property
    def state(self) -> DrochedState:
        return self._states[-1]

    @property
    def to_move(self) -> str:
        return self.state.to_move

    def _position(self, black: int, white: int) -> _Position:
        key = (black, white)
        found = self._positions.get(key)
        if found is None:
            if len(self._positions) > 2048:  # a cache, not a record: keep it bounded
                self._positions.clear()
            found = self._positions[key] = _Position(self._geo, black, white)
        return found

    def _reach(self, nb: int, regions) -> int:
        """Feature mask of the empty regions touching neighbour bits ``nb``."""
        mask = 0
        for r, f in regions:
            if r & nb:
                mask |= f
        return mask

    def _try_place(self, point: int) -> tuple[int, DrochedState | None]:
        """The outcome code of placing on ``point`` and, when legal, the new state."""
        geo = self._geo
        s = self.state
        pb = geo.bit[point]
        if (s.black | s.white) & pb:
            return OCCUPIED, None
        mover = s.to_move
        mine, theirs = (s.black, s.white) if mover == BLACK else (s.white, s.black)
        pos = self._position(s.black, s.white)

        # The placement splits only the empty region holding the point.
        k_split = pos.region_of[pb]
        region, region_features = pos.regions[k_split]
        rest = region & ~pb
        if not rest:
            parts = []
        else:
            flags = [(b & region) != 0 for b in geo.slot_bits[point]]
            runs = sum(1 for d in range(6) if flags[d] and not flags[d - 1])
            if runs <= 1:
                # The empty neighbours form one arc of mutually adjacent cells: still one region.
                f = self.board.feature_of[point]
                features = region_features
                if f >= 0 and not rest & geo.feature_masks[f]:
                    features &= ~(1 << f)
                parts = [(rest, features)]
            else:
                parts = [(part, geo.features(part)) for part in geo.components(rest)]

        def reach_after(group_adjacent, nb) -> int:
            mask = 0
            for k in group_adjacent:
                if k != k_split:
                    mask |= pos.regions[k][1]
            for r, f in parts:
                if r & nb:
                    mask |= f
            return mask

        # (i) Enemy groups on broken bridges. Every group of a reached position is on a
        # bridge, so only groups touching the split region can have lost theirs.
        jailed_enemy = 0
        for g, nb, adjacent in pos.groups[other(mover)]:
            if k_split in adjacent and not _two_or_more(reach_after(adjacent, nb)):
                jailed_enemy |= g
        new_mine = mine | pb
        new_theirs = theirs & ~jailed_enemy

        # (ii) Friendly groups on broken bridges, on the board after (i).
        jailed_mine = 0
        if jailed_enemy:
            empty = geo.valid & ~(new_mine | new_theirs)
            regions = [(r, geo.features(r)) for r in geo.components(empty)]
            for g in geo.components(new_mine):
                if not _two_or_more(self._reach(geo.dilate(g) & ~g, regions)):
                    jailed_mine |= g
        else:
            joined = pb
            for g, nb, adjacent in pos.groups[mover]:
                if nb & pb:
                    joined |= g
                elif k_split in adjacent and not _two_or_more(reach_after(adjacent, nb)):
                    jailed_mine |= g
            regions = [pos.regions[k] for k in range(len(pos.regions)) if k != k_split] + parts
            if not _two_or_more(self._reach(geo.dilate(joined) & ~joined, regions)):
                jailed_mine |= joined
        if jailed_mine == pb and not jailed_enemy:
            return ONLY_PRISONER, None
        new_mine &= ~jailed_mine

        black, white = (new_mine, new_theirs) if mover == BLACK else (new_theirs, new_mine)
        if self._history[mover][(black, white)]:
            return REPEATS, None
        n_enemy = jailed_enemy.bit_count()
        n_mine = jailed_mine.bit_count()
        if mover == BLACK:
            prison_black, prison_white = s.prison_black + n_mine, s.prison_white + n_enemy
        else:
            prison_black, prison_white = s.prison_black + n_enemy, s.prison_white + n_mine
        return LEGAL, DrochedState(
            black, white, other(mover), prison_black, prison_white,
            s.released_black, s.released_white, jailed_enemy | jailed_mine,
        )

    def _release_state(self) -> DrochedState | None:
        """The state after a release by the player to move, or None if the prison holds no enemy."""
        s = self.state
        if s.to_move == BLACK:
            if not s.prison_white:
                return None
            return DrochedState(s.black, s.white, WHITE, s.prison_black, s.prison_white - 1,
                                s.released_black, s.released_white + 1)
        if not s.prison_black:
            return None
        return DrochedState(s.black, s.white, BLACK, s.prison_black - 1, s.prison_white,
                            s.released_black + 1, s.released_white)

    def _next_state(self, move: str) -> DrochedState:
        if move == RELEASE:
            new = self._release_state()
            if new is not None:
                return new
            self._raise_if_over(move)
            raise IllegalMove(
                f"no release: the prison holds no {other(self.to_move)} stone for "
                f"{self.to_move} to release"
            )
        point = self.board.index[move]
        code, new = self._try_place(point)
        if code == LEGAL:
            return new
        self._raise_if_over(move)
        if code == OCCUPIED:
            raise IllegalMove(f"{move} is occupied")
        if code == ONLY_PRISONER:
            raise IllegalMove(
                f"{move} is suicide: the placed stone would be the only stone to go to the prison"
            )
        raise IllegalMove(
            f"{move} repeats the board {self.to_move} left at the end of an earlier turn "
            "(repetition rule)"
        )

    def _raise_if_over(self, move: str) -> None:
        if self.is_over:
            raise IllegalMove(
                f"the game is over ({self.to_move} has no legal action; "
                f"{other(self.to_move)} won); {move!r} cannot be played"
            )

    def play(self, move: str) -> None:
        move = self.normalize_move(move)
        new = self._next_state(move)
        mover = self.to_move
        self._states.append(new)
        self.moves.append(move)
        self._history[mover][new.board_key] += 1

    def undo(self) -> str:
        if not self.moves:
            raise IllegalMove("no move to take back")
        self._legal_cache.pop(len(self.moves), None)
        last = self._states.pop()
        history = self._history[self.to_move]
        history[last.board_key] -= 1
        if not history[last.board_key]:
            del history[last.board_key]
        return self.moves.pop()

    def legal_moves(self) -> list[str]:
        cached = self._legal_cache.get(len(self.moves))
        if cached is not None:
            return list(cached)
        s = self.state
        occupied = s.black | s.white
        bit = self._geo.bit
        legal = [
            name
            for p, name in enumerate(self.board.names)
            if not occupied & bit[p] and self._try_place(p)[0] == LEGAL
        ]
        if self._release_state() is not None:
            legal.append(RELEASE)
        self._legal_cache[len(self.moves)] = legal
        return list(legal)

    @property
    def is_over(self) -> bool:
        if self._release_state() is not None:
            return False
        return not self.legal_moves()

    def result(self) -> dict[str, Any] | None:
        if not self.is_over:
            return None
        # The player to move cannot act: the one who took the last action wins.
        return {"winner": other(self.to_move)}

    def score(self) -> None:
        return None  # Droched has no score, only a last action

    def copy(self) -> DrochedGame:
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.moves = list(self.moves)
        twin._states = list(self._states)  # states are immutable: share them
        twin._history = {c: Counter(h) for c, h in self._history.items()}
        twin._positions = dict(self._positions)
        twin._legal_cache = dict(self._legal_cache)
        return twin

    # -- inspection ----------------------------------------------------------------

    def stone_at(self, point: str) -> str | None:
        b = self._geo.bit[self.board.point(point)]
        if self.state.black & b:
            return BLACK
        if self.state.white & b:
            return WHITE
        return None

    def stones(self) -> dict[str, str]:
        names, geo, s = self.board.names, self._geo, self.state
        found = {names[i]: BLACK for i in geo.indices(s.black)}
        found.update({names[i]: WHITE for i in geo.indices(s.white)})
        return {n: found[n] for n in sorted(found, key=self.board.index.__getitem__)}

    @property
    def options(self) -> dict[str, Any]:
        return {"size": self.size, "prison": self.initial_prison, "handicap": list(self.handicap)}

    @property
    def prison(self) -> dict[str, int]:
        """Stones of each colour now in the prison."""
        return {BLACK: self.state.prison_black, WHITE: self.state.prison_white}

    @property
    def released(self) -> dict[str, int]:
        """Stones of each colour released from the prison (out of the game)."""
        return {BLACK: self.state.released_black, WHITE: self.state.released_white}

    @property
    def last_imprisoned(self) -> list[str]:
        """Points whose stones the last move sent to the prison."""
        return [self.board.names[i] for i in self._geo.indices(self.state.imprisoned)]

    def groups(self) -> list[dict[str, Any]]:
        """Every group: colour, points, whether it is on a bridge, the border features reached."""
        geo, s = self._geo, self.state
        pos = self._position(s.black, s.white)
        names, feature_names = self.board.names, self.board.feature_names
        found = []
        for color in (BLACK, WHITE):
            for g, _nb, adjacent in pos.groups[color]:
                reach = 0
                for k in adjacent:
                    reach |= pos.regions[k][1]
                points = geo.indices(g)
                found.append({
                    "color": color,
                    "points": [names[i] for i in points],
                    "on_bridge": _two_or_more(reach),
                    "features": [feature_names[f] for f in range(12) if reach >> f & 1],
                    "_first": points[0],
                })
        found.sort(key=lambda g: g["_first"])
        for g in found:
            del g["_first"]
        return found

    def analysis(self) -> dict[str, Any]:
        return {
            "groups": self.groups(),
            "prison": self.prison,
            "released": self.released,
            "last_imprisoned": self.last_imprisoned,
        }
