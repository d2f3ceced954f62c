"""Keil kernels (docs/rules.md section 2). Move P is the special move: the button while nobody
has taken it, a pass afterwards (exactly one of the two is ever legal)."""

from __future__ import annotations

import numpy as np
from numba import njit

from hexstones.core.common import (  # noqa: F401  (undo, copy_into: part of the interface)
    commit,
    copy_into,
    draw,
    empty_points,
    new_stamp,
    next_stamp,
    repeats,
    reserve_stamps,
    ring_of,
    undo,
)
from hexstones.core.layout import (
    KEIL,
    M_DEAD,
    M_KOMI,
    M_PASSES,
    M_PLY,
    M_REMOVED,
    M_SPECIAL,
    M_TO_MOVE,
    OK,
    R_FULL,
    R_GAME_OVER,
    R_NOT_A_MOVE,
    R_OCCUPIED,
    R_REPETITION,
    R_SUICIDE,
    W_BUF,
    W_CAND,
    W_LABEL,
    W_MARKS,
    W_MASK,
    W_RING,
)

GAME_ID = KEIL  # this game's id for the dispatchers of hexstones.core.dispatch


@njit(cache=True, _nrt=False)
def linked(board, nbr, p, d):
    """Whether ``p`` and its neighbour in direction ``d`` are linked: a common neighbour
    holds the same content as one of them."""
    q = nbr[p, d]
    a = board[p]
    b = board[q]
    c = nbr[p, d - 1 if d > 0 else 5]
    if c >= 0:
        x = board[c]
        if x == a or x == b:
            return True
    c = nbr[p, d + 1 if d < 5 else 0]
    if c >= 0:
        x = board[c]
        if x == a or x == b:
            return True
    return False


# -- ring codes ---------------------------------------------------------------------
# A point's ring code (``ring_of``) is the contents of its six neighbours, 2 bits each in
# direction order (3 off the board). Every link between a point and a neighbour depends only on the
# point's content and its ring, so one table lookup answers what ``linked`` answers per
# direction: the playout refuses most suicides and eye-fills with it without playing.
RING_LIB = 0x3F        # centre a stone: directions linked to an empty neighbour (bits 0-5)
RING_SAME_0 = 1 << 6   # ... RING_SAME_0 << d: linked to a stone of its colour in direction d
RING_SAME = RING_SAME_0 * 0x3F  # ... linked to a stone of its colour in some direction
RING_EYE = 1 << 12     # centre empty: RING_EYE << (X - 1) iff filling it fills X's own eye


@njit(cache=True, _nrt=False)
def fill_ring_table(table, board, nbr):
    """``table[c, ring]`` (uint16[3, 4096]): the RING_* flags of a centre of content
    ``c``, from ``linked`` and ``fills_own_eye`` on a seven-point board (the centre and
    its ring; ``board`` int8[7] and ``nbr`` int32[7, 6] are scratch)."""
    nbr[:, :] = -1
    for ring in range(4096):
        for d in range(6):
            v = (ring >> (2 * d)) & 3
            nbr[0, d] = -1 if v == 3 else d + 1
            board[d + 1] = 0 if v == 3 else v
        for c in range(3):
            board[0] = c
            flags = 0
            for d in range(6):
                q = nbr[0, d]
                if c != 0 and q >= 0 and linked(board, nbr, 0, d):
                    if board[q] == 0:
                        flags |= 1 << d
                    elif board[q] == c:
                        flags |= RING_SAME_0 << d
            if c == 0:
                for X in (1, 2):
                    if fills_own_eye(board, nbr, 0, X):
                        flags |= RING_EYE << (X - 1)
            table[c, ring] = flags


@njit(cache=True, _nrt=False)
def group_has_liberty(nbr, table, rings, marks, stamp, buf, start, color):
    """Whether the group of the stone on ``start`` has a liberty: a walk over its linked
    stones (marked ``stamp``, listed in ``buf``) that reads each stone's links from the
    ring table (``rings``: the ring codes of the board) and stops at the first stone
    linked to an empty point, tested as each stone is found rather than when its turn in
    the queue comes (a large group's walk ends sooner: the mask's capture tests 8 % less,
    playouts 2-3 % faster). ``color``: the stone's colour."""
    if table[color, rings[start]] & RING_LIB:
        return True
    marks[start] = stamp
    buf[0] = start
    head = 0
    tail = 1
    while head < tail:
        p = buf[head]
        head += 1
        flags = table[color, rings[p]]
        for d in range(6):
            if flags & (RING_SAME_0 << d):
                q = nbr[p, d]
                if marks[q] != stamp:
                    if table[color, rings[q]] & RING_LIB:
                        return True
                    marks[q] = stamp
                    buf[tail] = q
                    tail += 1
    return False


@njit(cache=True, _nrt=False)
def ring_add(rings, nbr, p, c):
    """Keep ``rings`` (ring codes) up to date when ``p`` gains a stone of colour ``c``
    (``-c`` when it loses one): ``p`` is in direction d + 3 of its neighbour in d."""
    for d in range(6):
        q = nbr[p, d]
        if q >= 0:
            rings[q] += c << (2 * ((d + 3) % 6))


@njit(cache=True, _nrt=False, inline="always")
def captures_nothing(nbr, ring_nbr, table, rings, marks, stamp, buf, p, X):
    """Whether a stone of ``X`` on empty ``p`` would leave every enemy group next to it a
    liberty (``rings``: the ring codes of the board as it is). The playout's suicide test:
    with ``table[X, rings[p]] == 0`` the stone is linked to no empty point and no own
    stone, so the placement is refused as suicide unless it captures."""
    return captured_around(nbr, ring_nbr, table, rings, marks, stamp, buf, p, X, True) == 0


@njit(cache=True, _nrt=False, inline="always")
def captured_around(nbr, ring_nbr, table, rings, marks, stamp, buf, p, X, first):
    """The directions (bit d) in which a stone of ``X`` on empty ``p`` would capture the
    enemy neighbour: its group left with no liberty (``rings``: the ring codes of the
    board as it is). With ``first`` (a constant where inlined), only the first such."""
    Y = 3 - X
    ring = rings[p]
    # First without a branch per direction: which enemy neighbours have no liberty of
    # their own once X is on p (``ring_nbr`` keeps the reads on the board).
    bare = 0
    for d in range(6):
        enemy = ((ring >> (2 * d)) & 3) == Y
        r = rings[ring_nbr[p, d]] + (X << (2 * ((d + 3) % 6)))
        bare |= (enemy & ((table[Y, r & 4095] & RING_LIB) == 0)) << d
    if bare == 0:
        return 0
    ring_add(rings, nbr, p, X)
    captured = 0
    for d in range(6):
        if bare & (1 << d) and not group_has_liberty(
                nbr, table, rings, marks, next_stamp(stamp, marks), buf, nbr[p, d], Y):
            captured |= 1 << d
            if first:
                break
    ring_add(rings, nbr, p, -X)
    return captured


@njit(cache=True, _nrt=False, inline="always")
def stone_has_liberty(nbr, table, rings, marks, stamp, buf, p, X):
    """Whether a stone of ``X`` on empty ``p`` would be in a group with a liberty, before
    any capture (``rings``: the ring codes of the board as it is; ``stamp``: the state's
    counter). The ring table answers for a stone linked to an empty point, and for one
    linked to no stone of its colour (a group of its own: none); else a walk."""
    links = table[X, rings[p]]
    if links & RING_LIB:
        return True
    if (links & RING_SAME) == 0:
        return False
    ring_add(rings, nbr, p, X)
    found = group_has_liberty(nbr, table, rings, marks, next_stamp(stamp, marks), buf, p, X)
    ring_add(rings, nbr, p, -X)
    return found


@njit(cache=True, _nrt=False, inline="always")
def flood_group(board, geo, marks, base, stamp, buf, off, start, rings, use_rings):
    """Walk the group of the stone on ``start`` (marking stones with ``stamp``, listing
    them in ``buf`` from ``off``; ring codes from ``rings`` if ``use_rings``, else from
    the board). Returns -1 as soon as a liberty shows up, else the end
    of the list: then ``buf[off:end]`` is the whole liberty-less group. A stone marked by
    an earlier walk of this batch (``base <= mark < stamp``) belongs to a group that was
    stopped at a liberty, so being linked to it also means a liberty. Each stone's links
    are read from the ring table (fewer branches than asking ``linked`` per direction)."""
    nbr, ring_nbr, ring_edge = geo.nbr, geo.ring_nbr, geo.ring_edge
    table = RING_TABLE
    color = board[start]
    marks[start] = stamp
    buf[off] = start
    head = off
    tail = off + 1
    while head < tail:
        p = buf[head]
        head += 1
        if use_rings:
            flags = table[color, rings[p]]
        else:
            flags = table[color, ring_of(board, ring_nbr, ring_edge, p)]
        if flags & RING_LIB:
            return -1
        for d in range(6):
            if flags & (RING_SAME_0 << d):
                q = nbr[p, d]
                mq = marks[q]
                if mq == stamp:
                    continue
                if mq >= base:
                    return -1
                marks[q] = stamp
                buf[tail] = q
                tail += 1
    return tail


# Inlined into each caller (the playout above all): a compiled call passes every array
# of the geometry and state tuples field by field, which cost 6-15 % of a playout.
@njit(cache=True, _nrt=False, inline="always")
def play(geo, st, move):
    """Play ``move`` for the player to move; returns OK or a reason code (state unchanged)."""
    return place(geo, st, move, st.work[W_RING], False, False)


# ``use_rings`` and ``trial`` are constants where this is inlined, so the compiler drops
# the branches of the other case: the playout keeps ``rings`` (ring codes) current
# through here and its floods read them (1.1x); ``legal_moves`` tries placements without
# recording them; other callers pay nothing for either.
@njit(cache=True, _nrt=False, inline="always")
def place(geo, st, move, rings, use_rings, trial):
    """``play``; with ``use_rings``, ``rings`` (the board's ring codes) is kept up to date
    too, whatever the outcome; with ``trial``, a placement's code is returned and the
    state left as it was, played or not (no history row, nothing to undo)."""
    nbr, zob, zextra = geo.nbr, geo.zobrist, geo.zextra
    board, meta, hh = st.board, st.meta, st.hist_hash
    P = board.shape[0]
    if meta[M_PASSES] >= 2:
        return R_GAME_OVER
    if move < 0 or move > P:
        return R_NOT_A_MOVE
    ply = meta[M_PLY]
    if ply + 1 >= hh.shape[0]:
        return R_FULL
    X = meta[M_TO_MOVE]
    Y = 3 - X
    h = hh[ply]
    if move == P:
        if meta[M_SPECIAL] == 0:
            meta[M_SPECIAL] = X
            h ^= zextra[0]
            meta[M_PASSES] = 0
        else:
            meta[M_PASSES] += 1
        meta[M_REMOVED] = 0
        commit(st, move, h, False)
        return OK
    if board[move] != 0:
        return R_OCCUPIED
    work = st.work
    marks = work[W_MARKS]
    buf = work[W_BUF]
    board[move] = X
    if use_rings:
        ring_add(rings, nbr, move, X)
    h ^= zob[X, move]
    reserve_stamps(st, P + 16)
    base = new_stamp(st)
    stamp = base
    ncap = 0
    if meta[M_DEAD + Y - 1] != 0:
        # Y may have liberty-less groups anywhere (left by its own last placement).
        for q in range(P):
            if board[q] == Y and marks[q] < base:
                stamp = new_stamp(st)
                end = flood_group(board, geo, marks, base, stamp, buf, ncap, q, rings, use_rings)
                if end >= 0:
                    ncap = end
    else:
        # Only enemy groups touching the placed stone can have lost a liberty.
        for d in range(6):
            q = nbr[move, d]
            if q >= 0 and board[q] == Y and marks[q] < base:
                stamp = new_stamp(st)
                end = flood_group(board, geo, marks, base, stamp, buf, ncap, q, rings, use_rings)
                if end >= 0:
                    ncap = end
    for i in range(ncap):
        board[buf[i]] = 0
        h ^= zob[Y, buf[i]]
        if use_rings:
            ring_add(rings, nbr, buf[i], -Y)
    stamp = new_stamp(st)
    code = OK
    if flood_group(board, geo, marks, stamp, stamp, buf, ncap, move, rings, use_rings) >= 0:
        code = R_SUICIDE
    elif repeats(st, h, M_SPECIAL):
        code = R_REPETITION
    if code != OK or trial:
        board[move] = 0
        if use_rings:
            ring_add(rings, nbr, move, -X)
        for i in range(ncap):
            board[buf[i]] = Y
            if use_rings:
                ring_add(rings, nbr, buf[i], Y)
        return code
    # Another own group touching the stone may now lack liberties: it stays, and the
    # opponent's next placement removes it (flag makes that placement look everywhere).
    dead_x = meta[M_DEAD + X - 1]
    if dead_x == 0:
        base = new_stamp(st)
        for d in range(6):
            q = nbr[move, d]
            if q >= 0 and board[q] == X and marks[q] < base and not linked(board, nbr, move, d):
                stamp = new_stamp(st)
                if flood_group(board, geo, marks, base, stamp, buf, ncap, q, rings, use_rings) >= 0:
                    dead_x = 1
                    break
    meta[M_DEAD + X - 1] = dead_x
    meta[M_DEAD + Y - 1] = 0
    meta[M_PASSES] = 0
    meta[M_REMOVED] = ncap
    commit(st, move, h, True)
    return OK


@njit(cache=True, _nrt=False)
def is_over(geo, st):
    return st.meta[M_PASSES] >= 2


@njit(cache=True, _nrt=False)
def legal_moves(geo, st, out):
    """Write every legal move (points ascending, then P) into ``out``; return the count.

    A placement that captures nothing is decided without playing it, by the tests
    ``place`` makes, in the same order: the placed stone's group needs a liberty (read
    from ring codes, as the playout reads them), then the position must not repeat (the
    hash after it is the hash now with the stone's key: no capture, no button change).
    Only a placement that may capture (next to an enemy group that may lose its last
    liberty) is tried in full, by ``place`` without recording it."""
    ring_nbr, ring_edge = geo.ring_nbr, geo.ring_edge
    board = st.board
    rings = st.work[W_RING]
    if _quick(st):
        for p in range(board.shape[0]):
            rings[p] = ring_of(board, ring_nbr, ring_edge, p)
    # ``board`` stands in for the unused ``left`` (tracked False).
    return _legal_moves(geo, st, out, rings, board, False)


@njit(cache=True, _nrt=False)
def legal_moves_tracked(geo, st, out, rings, left):
    """:func:`legal_moves` for a caller that follows the game move by move (the RL
    environments) and keeps two facts of the position up to date for it (see
    ``common.track_board``): ``rings`` (int16 or int32 [P]) the ring code of every point,
    and ``left`` (uint8[2P]) non-zero at ``(c - 1) * P + p`` if a stone of colour ``c`` has
    left ``p`` since the start of the history (a superset does no harm). The same moves as
    :func:`legal_moves`, with less work: no ring codes to compute, and a placement that
    captures nothing can only repeat an earlier position if that position had the
    mover's stone on the point and it has left since, so only on points in ``left`` does
    it probe the position table (a probe per point was most of the cost: the table is
    out of the cache). Elsewhere only the stone's liberty counts, so the capture test is
    asked only of a stone whose group would have none before captures."""
    return _legal_moves(geo, st, out, rings, left, True)


@njit(cache=True, _nrt=False, inline="always")
def _quick(st):
    """Whether placements may be decided without playing them: the opponent left no
    liberty-less group (``place`` then looks everywhere) and the history has room."""
    meta = st.meta
    return meta[M_DEAD + 2 - meta[M_TO_MOVE]] == 0 and meta[M_PLY] + 1 < st.hist_hash.shape[0]


@njit(cache=True, _nrt=False, inline="always")
def _legal_moves(geo, st, out, rings, left, tracked):
    """The body of both ``legal_moves``: ``rings`` the ring codes (current if ``_quick``);
    with ``tracked`` (a constant where inlined), ``left`` as ``legal_moves_tracked`` takes
    it."""
    nbr, ring_nbr, zob = geo.nbr, geo.ring_nbr, geo.zobrist
    board, meta = st.board, st.meta
    P = board.shape[0]
    if meta[M_PASSES] >= 2:
        return 0
    X = meta[M_TO_MOVE]
    # Where every placement may capture (Y left liberty-less groups; ``place`` then looks
    # everywhere) or none can be played (history full), play each one.
    quick = _quick(st)
    table = RING_TABLE
    work = st.work
    marks, buf, stamp = work[W_MARKS], work[W_BUF], st.stamp
    h = st.hist_hash[meta[M_PLY]]
    mine = (X - 1) * P
    n = 0
    for p in range(P):
        if board[p] != 0:
            continue
        # The fields of ``p``'s ring that hold Y (01 or 10; 11 is off the board): with
        # none, nothing can be captured (``captures_nothing`` would look at no direction).
        ring = rings[p]
        low = ring & 0x555
        high = (ring >> 1) & 0x555
        enemies = (low & ~high) if X == 2 else (high & ~low)
        # Whether to play the placement to know: one call site for both cases below (each
        # inlined ``place`` costs seconds of compile).
        play_it = False
        if tracked and quick and left[mine + p] == 0:
            # No earlier position can come back (see ``legal_moves_tracked``; captures or
            # not, the new position has X on ``p`` and the position now has not), so the
            # placement is legal iff the stone's group has a liberty once the captures are
            # off. A liberty it has before them it keeps: a capture only turns Y stones
            # into empty points, and a link of an X stone to an X stone or an empty point
            # rests on a common neighbour that holds X or is empty, never on a Y stone. So
            # what captures is asked only of a stone whose group has no liberty before
            # them (the capture test costs more than the ring lookup and the walk).
            legal = stone_has_liberty(nbr, table, rings, marks, stamp, buf, p, X)
            if not legal and enemies != 0:
                captured = captured_around(nbr, ring_nbr, table, rings, marks, stamp, buf,
                                           p, X, False)
                if captured:
                    # The ring ``p`` has once the captures are off: the captured
                    # neighbours' fields emptied (every captured group is next to ``p``).
                    # Linked to an empty point there, the stone has a liberty; else play.
                    after = np.int64(ring)
                    for d in range(6):
                        if captured & (1 << d):
                            after &= ~(3 << (2 * d))
                    legal = (table[X, after] & RING_LIB) != 0
                    play_it = not legal
        elif quick and (enemies == 0 or captures_nothing(nbr, ring_nbr, table, rings, marks,
                                                         stamp, buf, p, X)):
            legal = stone_has_liberty(nbr, table, rings, marks, stamp, buf, p, X)
            if legal and (not tracked or left[mine + p] != 0):
                board[p] = X
                legal = not repeats(st, h ^ zob[X, p], M_SPECIAL)
                board[p] = 0
        else:
            play_it = True
        if play_it:
            legal = place(geo, st, p, rings, False, True) == OK
        if legal:
            out[n] = p
            n += 1
    out[n] = P
    return n + 1


@njit(cache=True, _nrt=False)
def territories(geo, st, region_of, owner_of_region):
    """Label territories: ``region_of[p]`` region number of empty ``p`` (-1 for stones),
    ``owner_of_region[r]`` 0 nobody, 1 black, 2 white. Returns the region count."""
    nbr = geo.nbr
    board = st.board
    P = board.shape[0]
    buf = st.work[W_BUF]
    for p in range(P):
        region_of[p] = -1
    regions = 0
    for p in range(P):
        if board[p] != 0 or region_of[p] >= 0:
            continue
        region_of[p] = regions
        buf[0] = p
        head = 0
        tail = 1
        seen = 0
        while head < tail:
            e = buf[head]
            head += 1
            for d in range(6):
                q = nbr[e, d]
                if q < 0 or not linked(board, nbr, e, d):
                    continue
                bq = board[q]
                if bq == 0:
                    if region_of[q] < 0:
                        region_of[q] = regions
                        buf[tail] = q
                        tail += 1
                else:
                    seen |= 1 << bq
        owner_of_region[regions] = 1 if seen == 2 else (2 if seen == 4 else 0)
        regions += 1
    return regions


# The parts of a player's score, in the order of the game API's ``score_parts``: the
# player's stones, territory, komi (White) and the button's half point; the score is
# their sum.
SCORE_PARTS = 4


@njit(cache=True, _nrt=False, inline="always")
def score_terms(geo, st):
    """Black's and White's score parts (two tuples, see SCORE_PARTS) as if the game
    ended now."""
    board, meta = st.board, st.meta
    P = board.shape[0]
    region_of = st.work[W_LABEL]
    owner = st.work[W_MASK]
    territories(geo, st, region_of, owner)
    black_stones = 0
    white_stones = 0
    black_area = 0
    white_area = 0
    for p in range(P):
        b = board[p]
        if b == 1:
            black_stones += 1
        elif b == 2:
            white_stones += 1
        else:
            o = owner[region_of[p]]
            if o == 1:
                black_area += 1
            elif o == 2:
                white_area += 1
    button = meta[M_SPECIAL]
    return ((float(black_stones), float(black_area), 0.0, 0.5 if button == 1 else 0.0),
            (float(white_stones), float(white_area), float(meta[M_KOMI]),
             0.5 if button == 2 else 0.0))


@njit(cache=True, _nrt=False)
def score_parts(geo, st, out):
    """Write each player's score parts into ``out`` (float64[2, SCORE_PARTS], row c - 1
    for colour c) as if the game ended now; returns True (Keil has a score)."""
    black, white = score_terms(geo, st)
    for k in range(SCORE_PARTS):
        out[0, k] = black[k]
        out[1, k] = white[k]
    return True


@njit(cache=True, _nrt=False)
def score_pair(geo, st):
    """(black, white) scores as if the game ended now: the sums of their parts."""
    black, white = score_terms(geo, st)
    return (black[0] + black[1] + black[2] + black[3],
            white[0] + white[1] + white[2] + white[3])


@njit(cache=True, _nrt=False)
def score(geo, st, out):
    """Write the score (black, white) into ``out[0:2]``; returns True (Keil has a score)."""
    black, white = score_pair(geo, st)
    out[0] = black
    out[1] = white
    return True


@njit(cache=True, _nrt=False)
def winner(geo, st):
    """1 black, 2 white once the game is over, else 0."""
    if st.meta[M_PASSES] < 2:
        return 0
    black, white = score_pair(geo, st)
    return 1 if black > white else 2


@njit(cache=True, _nrt=False)
def fills_own_eye(board, nbr, p, X):
    """Playout policy: ``p`` is a one-point territory of ``X`` (no empty point linked to it,
    every linked stone X's, at least one)."""
    any_stone = False
    for d in range(6):
        q = nbr[p, d]
        if q < 0 or not linked(board, nbr, p, d):
            continue
        if board[q] != X:
            return False
        any_stone = True
    return any_stone


@njit(cache=True, _nrt=False)
def playout(geo, st, rng, max_ply):
    """Play uniformly random moves to the end under the playout policy (see core docs):
    a uniformly random legal placement that does not fill one's own eye, else move P
    (button, then pass). Returns the winner (1/2), 0 if ``max_ply`` was reached, -1
    if the history is full (grow the state and call again: the game continues)."""
    nbr, ring_nbr, ring_edge = geo.nbr, geo.ring_nbr, geo.ring_edge
    board, meta = st.board, st.meta
    P = board.shape[0]
    cand, marks, buf, stamp = st.work[W_CAND], st.work[W_MARKS], st.work[W_BUF], st.stamp
    table = RING_TABLE
    # Ring codes kept up to date move by move (a placement changes six, a capture six per
    # stone; ``place`` does it), so that each candidate and each stone a flood visits
    # costs one read instead of six.
    rings = st.work[W_RING]
    for p in range(P):
        rings[p] = ring_of(board, ring_nbr, ring_edge, p)
    # The empty points ``cand[:empties]``, kept from move to move instead of listed anew
    # each turn (1.1x): a draw only swaps two of them, the placed point leaves the list
    # from the slot the draw put it in, captured points join at the end.
    empties = empty_points(board, cand)
    while meta[M_PASSES] < 2:
        if meta[M_PLY] >= max_ply:
            return 0
        X = meta[M_TO_MOVE]
        n = empties
        while True:
            # Move P once no placement is left: through the same call site as the
            # placements (each inlined ``place`` costs seconds of compile); move P returns
            # before it reads ``rings``.
            p = P
            if n > 0:
                p = draw(rng, cand, n)
                n -= 1
                ring = rings[p]
                if table[0, ring] & (RING_EYE << (X - 1)):
                    continue
                if table[X, ring] == 0 and meta[M_DEAD + 2 - X] == 0 and captures_nothing(
                        nbr, ring_nbr, table, rings, marks, stamp, buf, p, X):
                    continue  # a certain suicide (see captures_nothing), refused without playing
            code = place(geo, st, p, rings, True, False)
            if code == OK:
                if p < P:
                    empties -= 1
                    q = cand[empties]
                    cand[n] = q
                    for k in range(meta[M_REMOVED]):  # place leaves the captured stones in buf
                        s = buf[k]
                        cand[empties] = s
                        empties += 1
                break
            if code == R_FULL or p == P:  # only R_FULL can refuse the special move here
                return -1
    return winner(geo, st)


@njit(cache=True, _nrt=False)
def groups_and_liberties(geo, st, group_of, liberties):
    """Number the groups in board order of their first stone: ``group_of[p]`` (-1 for an
    empty point); ``liberties[g, q]`` = 1 iff empty ``q`` is linked to a stone of group
    ``g`` (``liberties`` zeroed by the caller). Returns the group count."""
    nbr = geo.nbr
    board = st.board
    P = board.shape[0]
    buf = st.work[W_BUF]
    for p in range(P):
        group_of[p] = -1
    groups = 0
    for p in range(P):
        color = board[p]
        if color == 0 or group_of[p] >= 0:
            continue
        group_of[p] = groups
        buf[0] = p
        head = 0
        tail = 1
        while head < tail:
            x = buf[head]
            head += 1
            for d in range(6):
                q = nbr[x, d]
                if q < 0 or not linked(board, nbr, x, d):
                    continue
                bq = board[q]
                if bq == 0:
                    liberties[groups, q] = 1
                elif bq == color and group_of[q] < 0:
                    group_of[q] = groups
                    buf[tail] = q
                    tail += 1
        groups += 1
    return groups


# -- the search's knowledge: the policy playout and what it asks of the search ----------

SEARCH_BIASES = 0  # the policy playout asks the search for no bias
LEARNS_REPLIES = False  # the policy playout is the core playout: it learns nothing
POLICY_SCRATCH = 0  # slots of ``cand`` the policy playout needs beyond P (it uses the state's)


@njit(cache=True, _nrt=False)
def policy_move_limit(num_points):
    """Moves beyond the root after which a policy playout counts as undecided."""
    return 4 * num_points + 40


@njit(cache=True)
def policy_playout(geo, st, rng, max_ply, cand, scores, reply):
    """The full-strength playout is the core playout (never filling one's own eye); the
    other arguments are the dispatchers' signature. Returns what :func:`playout` does."""
    return playout(geo, st, rng, max_ply)


@njit(cache=True)
def add_ownership(geo, st, own, region_of, owner_of_region):
    """Add +1 for each point Black owns at the end of a playout, -1 for White: stones and
    territories (``region_of``, ``owner_of_region``: scratch for :func:`territories`)."""
    board = st.board
    P = board.shape[0]
    territories(geo, st, region_of, owner_of_region)
    for p in range(P):
        b = board[p]
        if b == 1:
            own[p] += 1.0
        elif b == 2:
            own[p] -= 1.0
        elif region_of[p] >= 0:
            o = owner_of_region[region_of[p]]
            if o == 1:
                own[p] += 1.0
            elif o == 2:
                own[p] -= 1.0
    return np.int64(0)


RING_TABLE = np.zeros((3, 4096), np.uint16)
fill_ring_table(RING_TABLE, np.zeros(7, np.int8), np.zeros((7, 6), np.int32))
