"""Droched kernels (docs/rules.md section 4). Move P is a release (one enemy stone leaves the
prison)."""

from __future__ import annotations

import numpy as np
from numba import njit

from hexstones.core.common import (  # noqa: F401  (copy_into: part of the interface)
    add_stone_ownership,
    board_at,
    commit,
    copy_into,
    draw,
    empty_points,
    new_stamp,
    prefetch_position,
    rand_below,
    repeats,
    reserve_stamps,
    undo,
)
from hexstones.core.layout import (
    BIAS_BORDER,
    DROCHED,
    M_DEAD,
    M_LAST,
    M_OVER,
    M_PLY,
    M_PRISON,
    M_REMOVED,
    M_TO_MOVE,
    OK,
    R_FULL,
    R_LONE_PRISONER,
    R_NOT_A_MOVE,
    R_OCCUPIED,
    R_PRISON_EMPTY,
    R_REPETITION,
    W_ADJ,
    W_AREAS,
    W_BUF,
    W_BUF2,
    W_CAND,
    W_DEG,
    W_DISC,
    W_FILL,
    W_GROUP,
    W_LABEL,
    W_LOW,
    W_MARKS,
    W_MASK,
    W_NODEG,
    W_SEDGE,
    W_SNODE,
    W_SPLIT,
)

GAME_ID = DROCHED  # this game's id for the dispatchers of hexstones.core.dispatch


@njit(cache=True, _nrt=False)
def two_features(mask):
    return (mask & (mask - 1)) != 0


@njit(cache=True, _nrt=False)
def flood_reach(board, nbr, feature, marks, base, stamp, buf, off, start, empties):
    """Walk the group on ``start`` and the empty cells reachable from it through empty
    cells, listing the group's stones in ``buf`` from ``off``. Returns -1 as soon as cells
    of two border features are reached (on a bridge), or when a stone marked earlier in
    this batch (``base <= mark < stamp``) is reached (its group was found on a bridge);
    else the end of the list: the group is on a broken bridge.
    Empty cells are walked first (a stack in the scratch row ``empties``): features lie
    on paths of empty cells, and on a crowded board a group has many more stones than
    the empty cells that decide it."""
    color = board[start]
    mask = np.int64(0)  # a bit set of border features, as wide as the bits shifted in
    marks[start] = stamp
    buf[off] = start
    head = off
    tail = off + 1
    ne = 0
    while True:
        if ne > 0:
            ne -= 1
            x = empties[ne]
            from_stone = False
        elif head < tail:
            x = buf[head]
            head += 1
            from_stone = True
        else:
            return tail
        for d in range(6):
            q = nbr[x, d]
            if q < 0:
                continue
            bq = board[q]
            if bq == 0:
                if marks[q] == stamp:
                    continue
                f = feature[q]
                if f >= 0:
                    mask |= np.int64(1) << np.int64(f)
                    if two_features(mask):
                        return -1
                marks[q] = stamp
                empties[ne] = q
                ne += 1
            elif bq == color and from_stone:
                mq = marks[q]
                if mq == stamp:
                    continue
                if mq >= base:
                    return -1
                marks[q] = stamp
                buf[tail] = q
                tail += 1


@njit(cache=True, _nrt=False, inline="always")
def flood_empty(board, nbr, marks, stamp, queue, head, tail):
    """Add to ``queue`` (from ``tail``) every empty cell connected to the cells
    ``queue[head:tail]`` (marked with ``stamp``) through empty cells, marking each; returns
    the new end."""
    while head < tail:
        e = queue[head]
        head += 1
        for d in range(6):
            q = nbr[e, d]
            if q >= 0 and board[q] == 0 and marks[q] != stamp:
                marks[q] = stamp
                queue[tail] = q
                tail += 1
    return tail


@njit(cache=True, _nrt=False)
def label_regions(board, nbr, feature, marks, stamp, label, region_mask, queue):
    """Number the empty regions (``label[e]`` for empty ``e``, marked with ``stamp``) and
    give each its set of border features (bit mask). Returns the region count."""
    P = board.shape[0]
    regions = 0
    for p in range(P):
        if board[p] != 0 or marks[p] == stamp:
            continue
        marks[p] = stamp
        queue[0] = p
        mask = np.int64(0)
        for i in range(flood_empty(board, nbr, marks, stamp, queue, 0, 1)):
            e = queue[i]
            label[e] = regions
            mask |= feature_bit(feature, e)
        region_mask[regions] = mask
        regions += 1
    return regions


@njit(cache=True, _nrt=False)
def walk_group(board, nbr, marks, stamp, label, region_mask, out, start):
    """List in ``out`` from ``start`` the group of the stone ``out[start]`` (already marked
    with ``stamp``), given fresh region labels. Returns the end of the list and the border
    features (bit mask) that the empty regions touching the group reach."""
    color = board[out[start]]
    head = start
    tail = start + 1
    mask = 0
    while head < tail:
        x = out[head]
        head += 1
        for d in range(6):
            q = nbr[x, d]
            if q < 0:
                continue
            bq = board[q]
            if bq == 0:
                mask |= region_mask[label[q]]
            elif bq == color and marks[q] != stamp:
                marks[q] = stamp
                out[tail] = q
                tail += 1
    return tail, mask


@njit(cache=True, _nrt=False)
def broken_groups(board, nbr, marks, stamp, label, region_mask, color, out, off):
    """Append to ``out`` (from ``off``) every stone of ``color`` whose group is on a broken
    bridge, given fresh region labels; return the new end."""
    P = board.shape[0]
    end = off
    for p in range(P):
        if board[p] != color or marks[p] == stamp:
            continue
        marks[p] = stamp
        out[end] = p
        tail, mask = walk_group(board, nbr, marks, stamp, label, region_mask, out, end)
        if not two_features(mask):
            end = tail
    return end


@njit(cache=True, _nrt=False)
def flood_piece(board, nbr, feature, marks, base, stamp, queue, off, start, stop_bit):
    """List in ``queue`` from ``off`` the empty cells connected to ``start``: a piece of the
    region a placement split. Returns (end, border features of the piece); end is -1 when
    the walk stopped early because the piece is known to keep every bridge through it: two
    features reached, ``stop_bit`` reached, or a cell of an earlier piece of this batch
    (``base <= mark < stamp``), which only a walk that itself stopped early can leave."""
    marks[start] = stamp
    queue[off] = start
    head = off
    tail = off + 1
    mask = np.int64(0)  # a bit set of border features, as wide as the bits shifted in
    while head < tail:
        e = queue[head]
        head += 1
        f = feature[e]
        if f >= 0:
            mask |= np.int64(1) << np.int64(f)
            if two_features(mask) or (mask & stop_bit) != 0:
                return -1, mask
        for d in range(6):
            q = nbr[e, d]
            if q < 0 or board[q] != 0:
                continue
            mq = marks[q]
            if mq == stamp:
                continue
            if mq >= base:
                return -1, mask
            marks[q] = stamp
            queue[tail] = q
            tail += 1
    return tail, mask


@njit(cache=True, _nrt=False)
def arc_starts(empty_dirs):
    """Where the arcs of consecutive empty neighbours begin (bit masks by direction). The
    cells of one arc are adjacent in turn, so each arc lies within one piece of the empty
    region; six empty neighbours are one arc."""
    if empty_dirs == 63:
        return 1
    before = ((empty_dirs << 1) | (empty_dirs >> 5)) & 63
    return empty_dirs & ~before


@njit(cache=True, _nrt=False, inline="always")
def run_ends_empty(run_dirs, empty_dirs, d):
    """Whether the run of consecutive directions in ``run_dirs`` (bit masks) that holds
    ``d`` is followed or preceded, around the point, by a direction in ``empty_dirs``."""
    k = d
    for _ in range(5):
        k = k + 1 if k < 5 else 0
        if (run_dirs >> k) & 1 == 0:
            break
    if (empty_dirs >> k) & 1 != 0:
        return True
    k = d
    for _ in range(5):
        k = k - 1 if k > 0 else 5
        if (run_dirs >> k) & 1 == 0:
            break
    return (empty_dirs >> k) & 1 != 0


@njit(cache=True, _nrt=False)
def split_region(board, nbr, feature, marks, st, move, starts, queue, pieces):
    """After a placement on ``move`` (not yet judged), list in ``queue`` from 0 the cells
    of the doubtful pieces its empty region left; ``starts`` are the arc starts. A piece is
    safe when every group touching it keeps a bridge: it reaches two features, or exactly
    the features the whole region reached (every group was on a bridge before the
    placement, and its other regions are unchanged); else it is doubtful. Returns (some of
    the features of the empty cells next to ``move``: all unless a walk stopped early, the
    count of doubtful cells)."""
    fm = np.int64(0)
    if feature[move] >= 0:
        fm = np.int64(1) << np.int64(feature[move])
    # With one arc, reaching the placed cell's own feature again keeps the region's mask.
    stop_bit = fm if starts & (starts - 1) == 0 else np.int64(0)
    base = new_stamp(st)
    full = 0  # pieces walked to the end: pieces[3k:3k+3] = mask, start, end
    reach = np.int64(0)
    end = 0
    for d in range(6):
        if (starts >> d) & 1 == 0:
            continue
        e = nbr[move, d]
        if marks[e] >= base:
            continue
        stamp = new_stamp(st)
        tail, mask = flood_piece(board, nbr, feature, marks, base, stamp, queue, end, e,
                                 stop_bit)
        reach |= mask
        if tail >= 0:
            pieces[3 * full] = mask
            pieces[3 * full + 1] = end
            pieces[3 * full + 2] = tail
            full += 1
            end = tail
    # A piece that stopped early is safe; with several arcs it showed two features, so
    # the region did too, and no piece walked to the end (one feature at most) is safe.
    region = fm | reach
    n = 0
    for k in range(full):
        if pieces[3 * k] != region:
            for i in range(pieces[3 * k + 1], pieces[3 * k + 2]):
                queue[n] = queue[i]
                n += 1
    return reach, n


@njit(cache=True, _nrt=False)
def judge(board, nbr, feature, marks, st, base, buf, off, start):
    """Walk the group on ``start`` with a fresh stamp of the batch begun at ``base``; if it
    is on a broken bridge, keep its stones in ``buf`` from ``off``. Returns the new end."""
    stamp = new_stamp(st)
    end = flood_reach(board, nbr, feature, marks, base, stamp, buf, off, start,
                      st.work[W_FILL])
    return off if end < 0 else end


@njit(cache=True, _nrt=False, inline="always")
def judge_with(board, nbr, feature, marks, st, base, buf, off, start, from_forest):
    """:func:`judge`, or with ``from_forest`` :func:`judge_forest` (whose conditions the
    caller vouches for)."""
    if from_forest:
        return judge_forest(board, nbr, marks, st, base, buf, off, start)
    return judge(board, nbr, feature, marks, st, base, buf, off, start)


@njit(cache=True, _nrt=False, inline="always")
def judge_touching(board, nbr, feature, marks, st, base, buf, off, queue, n, color,
                   from_forest):
    """:func:`judge_with` every group of ``color`` touching a cell of ``queue[:n]`` (the
    doubtful pieces a placement left) not yet walked in the batch begun at ``base``.
    Returns the new end of ``buf``."""
    for i in range(n):
        e = queue[i]
        for d in range(6):
            q = nbr[e, d]
            if q >= 0 and board[q] == color and marks[q] < base:
                off = judge_with(board, nbr, feature, marks, st, base, buf, off, q, from_forest)
    return off


@njit(cache=True, _nrt=False, inline="always")
def judge_own(board, nbr, feature, marks, st, base, buf, move, stone_safe, queue, n, color,
              from_forest):
    """The mover's groups a placement on ``move`` may have left on a broken bridge, judged
    (see :func:`judge_with`): the placed stone's group unless ``stone_safe``, and those
    touching a doubtful piece (``queue[:n]``). Returns the end of ``buf``."""
    off = 0
    if not stone_safe:
        off = judge_with(board, nbr, feature, marks, st, base, buf, 0, move, from_forest)
    return judge_touching(board, nbr, feature, marks, st, base, buf, off, queue, n, color,
                          from_forest)


@njit(cache=True, _nrt=False, inline="always")
def around(board, nbr, move, X):
    """The neighbours of ``move``: the directions of its empty ones and of its enemy ones
    (bit d for direction d), and whether one holds a stone of ``X``."""
    empty_dirs = 0
    enemy_dirs = 0
    own_next = False
    for d in range(6):
        q = nbr[move, d]
        if q >= 0:
            if board[q] == 0:
                empty_dirs |= 1 << d
            elif board[q] == X:
                own_next = True
            else:
                enemy_dirs |= 1 << d
    return empty_dirs, enemy_dirs, own_next


@njit(cache=True, _nrt=False, inline="always")
def removed_by_labels(board, nbr, feature, marks, st, work, X, buf, buf2):
    """After a placement of ``X`` on a board where some group was already off its bridge:
    every region labelled anew, the enemy groups off their bridges removed from the board
    (``buf[0:nY]``), then the own groups off theirs found (``buf2[0:nX]``, left on the
    board); returns ``(nY, nX)``."""
    label = work[W_LABEL]
    region_mask = work[W_MASK]
    queue = buf2
    stamp = new_stamp(st)
    label_regions(board, nbr, feature, marks, stamp, label, region_mask, queue)
    stamp = new_stamp(st)
    nY = broken_groups(board, nbr, marks, stamp, label, region_mask, 3 - X, buf, 0)
    if nY > 0:
        for i in range(nY):
            board[buf[i]] = 0
        stamp = new_stamp(st)
        label_regions(board, nbr, feature, marks, stamp, label, region_mask, queue)
    stamp = new_stamp(st)
    nX = broken_groups(board, nbr, marks, stamp, label, region_mask, X, buf2, 0)
    return nY, nX


# Inlined into each caller (the playout above all): a compiled call passes every array
# of the geometry and state tuples field by field, which cost 6-15 % of a playout.
@njit(cache=True, _nrt=False, inline="always")
def play(geo, st, move):
    """Play ``move`` for the player to move; returns OK or a reason code (state unchanged)."""
    return place(geo, st, move, False, False)


@njit(cache=True, _nrt=False, inline="always")
def place(geo, st, move, trial, forest):
    """:func:`play`; with ``trial`` (a constant where inlined) only the verdict: the state is
    left as it was whatever the answer (a trial costs no history row to write and take
    back, as ``play`` then ``undo`` would). With ``forest`` (a constant), the work rows
    hold :func:`empty_forest` of the board and every group is on a bridge: the pieces the
    placement leaves are read there instead of walked."""
    nbr, feature, zob = geo.nbr, geo.feature, geo.zobrist
    board, meta, hh = st.board, st.meta, st.hist_hash
    P = board.shape[0]
    if move < 0 or move > P:
        return R_NOT_A_MOVE
    ply = meta[M_PLY]
    if ply + 1 >= hh.shape[0]:
        return R_FULL
    X = meta[M_TO_MOVE]
    Y = 3 - X
    h = hh[ply]
    if move == P:
        if meta[M_PRISON + Y - 1] == 0:
            return R_PRISON_EMPTY
        meta[M_PRISON + Y - 1] -= 1
        meta[M_REMOVED] = 0
        meta[M_OVER] = -1
        commit(st, move, h, False)
        return OK
    if board[move] != 0:
        return R_OCCUPIED
    work = st.work
    marks = work[W_MARKS]
    buf = work[W_BUF]
    buf2 = work[W_BUF2]
    board[move] = X
    h ^= zob[X, move]
    # Nine placements in ten remove no stone, and then ``h`` is the hash ``repeats``
    # looks up at the end: its table slot loads while the bridges are walked.
    prefetch_position(st, h)
    reserve_stamps(st, P + 16)
    nY = 0  # removed enemy stones: buf[0:nY]
    nX = 0  # removed own stones: buf2[0:nX]
    if meta[M_DEAD] == 0:
        # Every group was on a bridge before the placement, and only the empty region that
        # held ``move`` changed: only groups next to ``move`` (which may have lost the
        # region) or touching a doubtful piece of it can have lost their bridge.
        empty_dirs, enemy_dirs, own_next = around(board, nbr, move, X)
        if empty_dirs == 0 and not own_next and feature[move] < 0:
            # A lone stone filling a one-cell hole off the border: the hole added no
            # feature to any group's paths, so no enemy group loses its bridge, and the
            # stone itself reaches no empty cell: it alone would go to the prison.
            board[move] = 0
            return R_LONE_PRISONER
        queue = work[W_LABEL]
        starts = arc_starts(empty_dirs)
        if forest:
            reach, n = forest_pieces(board, nbr, marks, st, move, queue)
        elif feature[move] < 0 and starts & (starts - 1) == 0:
            # At most one arc, off the border: the region keeps its features, whole.
            reach = np.int64(0)
            n = 0
        else:
            reach, n = split_region(board, nbr, feature, marks, st, move, starts, queue,
                                    work[W_MASK])
        # An enemy stone next to ``move`` whose run of enemy stones around ``move`` ends on
        # an empty cell touches a piece through that run (one group): a safe piece keeps
        # the group's bridge, a doubtful one has the group judged below.
        base = new_stamp(st)
        for d in range(6):
            q = nbr[move, d]
            if q >= 0 and board[q] == Y and marks[q] < base and \
                    not run_ends_empty(enemy_dirs, empty_dirs, d):
                nY = judge_with(board, nbr, feature, marks, st, base, buf, nY, q, forest)
        nY = judge_touching(board, nbr, feature, marks, st, base, buf, nY, queue, n, Y, forest)
        for i in range(nY):
            board[buf[i]] = 0
        # Removing enemy stones only widened regions, so a friendly group now on a broken
        # bridge is the placed stone's or touches a doubtful piece. The placed stone touches
        # every piece: joined to a friendly group, it needs judging here only without an
        # empty neighbour (a doubtful piece has it judged below); alone, unless its empty
        # neighbours showed two features.
        base = new_stamp(st)
        stone_safe = (own_next and empty_dirs != 0) or two_features(reach)
        # From the forest while it still shows the board, but for the stone. (A constant
        # in each call: the compiler keeps one walk in each, where a flag known only at
        # run time cost the playouts 3-9 %.)
        if forest and nY == 0:
            nX = judge_own(board, nbr, feature, marks, st, base, buf2, move, stone_safe,
                           queue, n, X, True)
        else:
            nX = judge_own(board, nbr, feature, marks, st, base, buf2, move, stone_safe,
                           queue, n, X, False)
    else:
        nY, nX = removed_by_labels(board, nbr, feature, marks, st, work, X, buf, buf2)
    if nY == 0 and nX == 1 and buf2[0] == move:
        board[move] = 0
        return R_LONE_PRISONER
    for i in range(nX):
        board[buf2[i]] = 0
        h ^= zob[X, buf2[i]]
    for i in range(nY):
        h ^= zob[Y, buf[i]]
    repeated = repeats(st, h, -1)
    if trial or repeated:
        for i in range(nX):
            board[buf2[i]] = X
        for i in range(nY):
            board[buf[i]] = Y
        board[move] = 0
        return R_REPETITION if repeated else OK
    meta[M_PRISON + Y - 1] += nY
    meta[M_PRISON + X - 1] += nX
    meta[M_REMOVED] = nX + nY
    meta[M_DEAD] = 0
    meta[M_OVER] = -1
    commit(st, move, h, True)
    return OK


# Not inlined: the trials off the hot paths (here, and ``_legal_moves`` without the forest)
# share one compiled ``place``; each inlined copy costs seconds of compile.
@njit(cache=True, _nrt=False)
def try_place(geo, st, move):
    """:func:`place` as a trial: the verdict on ``move``, the state left as it was."""
    return place(geo, st, move, True, False)


@njit(cache=True, _nrt=False)
def is_over(geo, st):
    """No legal action for the player to move (cached in meta until the next move)."""
    board, meta = st.board, st.meta
    if meta[M_OVER] >= 0:
        return meta[M_OVER] == 1
    P = board.shape[0]
    over = True
    if meta[M_PRISON + (3 - meta[M_TO_MOVE]) - 1] > 0:
        over = False
    else:
        for p in range(P):
            if board[p] == 0:
                code = try_place(geo, st, p)
                if code == OK:
                    over = False
                    break
                if code == R_FULL:
                    return False  # undecided (not cached): the caller grows the history
    meta[M_OVER] = 1 if over else 0
    return over


@njit(cache=True, _nrt=False, inline="always")
def feature_bit(feature, p):
    """The bit of ``p``'s border feature (0 off the border)."""
    f = feature[p]
    return np.int64(1) << np.int64(f) if f >= 0 else np.int64(0)


@njit(cache=True, _nrt=False, inline="always")
def keeps_bridges(piece, region):
    """Whether every group touching a piece (border features ``piece``) of a region that
    reached ``region`` keeps its bridge through it: the piece reaches two features, or
    all the region did. Otherwise the piece is doubtful."""
    return piece == region or two_features(piece)


@njit(cache=True, _nrt=False)
def empty_forest(board, nbr, feature, work):
    """A depth-first search of the empty cells, region by region (Hopcroft-Tarjan), leaving
    in the work rows what :func:`quiet_placement` reads: for an empty ``p``, ``disc[p]``
    its discovery number, ``low[p]`` the lowest number its subtree reaches by one other
    edge, ``parent[p]`` (-1 at a region's root), ``sub[p]`` the border features (bit
    mask) of its subtree, ``last[p]`` the highest number in its subtree; by discovery
    number ``i``, ``before[i]`` and ``after[i]`` the features of the cells of the same
    region numbered below and above ``i``, and ``home[i]`` (row ``W_ADJ``) the number of
    the region's root. Filling ``p`` leaves its region in pieces: each child subtree with
    ``low >= disc[p]``, and (below the root) the rest."""
    disc, low, parent, sub = work[W_DISC], work[W_LOW], work[W_SPLIT], work[W_SNODE]
    last, order, before, after = work[W_SEDGE], work[W_NODEG], work[W_GROUP], work[W_AREAS]
    stack, dirs = work[W_ADJ], work[W_DEG]
    P = board.shape[0]
    for p in range(P):
        disc[p] = -1
    t = 0
    for r in range(P):
        if board[r] != 0 or disc[r] >= 0:
            continue
        first = t
        disc[r] = t
        low[r] = t
        parent[r] = -1
        sub[r] = feature_bit(feature, r)
        order[t] = r
        t += 1
        top = 0
        stack[0] = r
        dirs[0] = 0
        while top >= 0:
            v = stack[top]
            d = dirs[top]
            if d < 6:
                dirs[top] = d + 1
                u = nbr[v, d]
                if u < 0 or board[u] != 0:
                    continue
                if disc[u] < 0:
                    disc[u] = t
                    low[u] = t
                    parent[u] = v
                    sub[u] = feature_bit(feature, u)
                    order[t] = u
                    t += 1
                    top += 1
                    stack[top] = u
                    dirs[top] = 0
                elif u != parent[v] and disc[u] < low[v]:
                    low[v] = disc[u]
            else:
                last[v] = t - 1
                top -= 1
                if top >= 0:
                    w = stack[top]
                    if low[v] < low[w]:
                        low[w] = low[v]
                    sub[w] |= sub[v]
        seen = 0
        for i in range(first, t):
            before[i] = seen
            seen |= feature_bit(feature, order[i])
        seen = 0
        for i in range(t - 1, first - 1, -1):
            after[i] = seen
            seen |= feature_bit(feature, order[i])
    # The stack's row is free now: by number, the number of the region's root.
    home = stack
    for i in range(t):
        if parent[order[i]] < 0:
            first = i
        home[i] = first


@njit(cache=True, _nrt=False)
def forest_pieces(board, nbr, marks, st, move, queue):
    """For ``place`` with the forest: the pieces the placement on ``move`` leaves of its
    region (the stone already on the board). Lists in ``queue`` from 0 the cells of the
    doubtful pieces (neither the features the region reached nor two) and returns (the
    features of all the pieces, the count of doubtful cells), as ``split_region`` would
    with every piece walked; leaves the pieces in the work row ``W_MASK`` for
    :func:`judge_forest`: their count k, (first number, last number, features) of each
    subtree piece, then the features of the rest and the region's number."""
    work = st.work
    disc, low, parent, sub = work[W_DISC], work[W_LOW], work[W_SPLIT], work[W_SNODE]
    last, order, before, after = work[W_SEDGE], work[W_NODEG], work[W_GROUP], work[W_AREAS]
    pieces = work[W_MASK]
    dp = disc[move]
    rest = before[dp] | after[last[move]]
    region = rest | sub[move]
    whole = np.int64(0)
    n = 0
    k = 0
    for d in range(6):
        q = nbr[move, d]
        if q < 0 or board[q] != 0 or parent[q] != move:
            continue
        if low[q] >= dp:  # a piece of its own: the subtree, numbered disc[q] to last[q]
            piece = sub[q]
            whole |= piece
            pieces[1 + 3 * k] = disc[q]
            pieces[2 + 3 * k] = last[q]
            pieces[3 + 3 * k] = piece
            k += 1
            if not keeps_bridges(piece, region):
                for i in range(disc[q], last[q] + 1):
                    queue[n] = order[i]
                    n += 1
        else:
            rest |= sub[q]
    pieces[0] = k
    pieces[1 + 3 * k] = rest
    pieces[2 + 3 * k] = work[W_ADJ][dp]  # the region's number (its root's)
    if parent[move] >= 0:
        whole |= rest
        if not keeps_bridges(rest, region):
            # Walked from the parent (``move`` holds the stone now: the walk stays out).
            stamp = new_stamp(st)
            start = parent[move]
            marks[start] = stamp
            queue[n] = start
            n = flood_empty(board, nbr, marks, stamp, queue, n, n + 1)
    return whole, n


@njit(cache=True, _nrt=False)
def judge_forest(board, nbr, marks, st, base, buf, off, start):
    """:func:`judge` on the board the forest was made of plus the placement
    :func:`forest_pieces` described (nobody removed yet): the group's bridge is read from
    the features of the regions and pieces its stones touch, walking its stones only
    (most groups touch a region with two features at their first stone)."""
    work = st.work
    disc, sub, last = work[W_DISC], work[W_SNODE], work[W_SEDGE]
    before, after, home, pieces = work[W_GROUP], work[W_AREAS], work[W_ADJ], work[W_MASK]
    k = pieces[0]
    rest = pieces[1 + 3 * k]
    region = pieces[2 + 3 * k]
    stamp = new_stamp(st)
    color = board[start]
    marks[start] = stamp
    buf[off] = start
    head = off
    tail = off + 1
    mask = 0
    while head < tail:
        x = buf[head]
        head += 1
        for d in range(6):
            q = nbr[x, d]
            if q < 0:
                continue
            bq = board[q]
            if bq == 0:
                i = disc[q]
                if home[i] == region:
                    m = rest
                    for j in range(k):
                        if pieces[1 + 3 * j] <= i <= pieces[2 + 3 * j]:
                            m = pieces[3 + 3 * j]
                            break
                else:
                    m = before[i] | sub[q] | after[last[q]]
                mask |= m
                if two_features(mask):
                    return off
            elif bq == color:
                mq = marks[q]
                if mq == stamp:
                    continue
                if mq >= base:
                    return off  # a stone of a group already found on a bridge
                marks[q] = stamp
                buf[tail] = q
                tail += 1
    return tail


# What :func:`quiet_placement` knows of a placement.
UNKNOWN = -1  # play it to know
LONE_PRISONER = 0  # illegal: the stone alone goes to the prison
QUIET = 1  # nobody goes to the prison: legal unless it repeats a board


@njit(cache=True, _nrt=False, inline="always")
def quiet_placement(board, nbr, work, p, X):
    """What a placement of ``X`` on the empty ``p`` does to the prison, if that is known
    (UNKNOWN, LONE_PRISONER or QUIET), given that every group is on a bridge (``M_DEAD``
    0) and :func:`empty_forest` of the board. The rules' own reasoning: only the region R
    holding ``p`` changes, into the pieces it leaves. A group touching a piece that
    reaches the features R reached, or two features, keeps its bridge; if every piece
    does, only a group touching R at ``p`` alone can lose one: an enemy group whose run
    of stones around ``p`` ends on no empty neighbour (else it touches a piece there),
    which is not settled here. The new stone touches every piece: joined to a friendly
    group it keeps that group's bridge; alone it needs the pieces to reach two features,
    else it alone goes to the prison."""
    disc, low, parent, sub = work[W_DISC], work[W_LOW], work[W_SPLIT], work[W_SNODE]
    last, before, after = work[W_SEDGE], work[W_GROUP], work[W_AREAS]
    dp = disc[p]
    rest = before[dp] | after[last[p]]  # R outside p's subtree
    region = rest | sub[p]
    empty_dirs = 0
    enemy_dirs = 0
    own_next = False
    whole = 0  # the features of all the pieces
    for d in range(6):
        q = nbr[p, d]
        if q < 0:
            continue
        b = board[q]
        if b == 0:
            empty_dirs |= 1 << d
            if parent[q] == p:
                if low[q] >= dp:  # a piece of its own
                    piece = sub[q]
                    if not keeps_bridges(piece, region):
                        return UNKNOWN
                    whole |= piece
                else:
                    rest |= sub[q]
        elif b == X:
            own_next = True
        else:
            enemy_dirs |= 1 << d
    if empty_dirs == 0:
        return UNKNOWN
    if parent[p] >= 0:
        if not keeps_bridges(rest, region):
            return UNKNOWN
        whole |= rest
    for d in range(6):
        if (enemy_dirs >> d) & 1 and not run_ends_empty(enemy_dirs, empty_dirs, d):
            return UNKNOWN
    return QUIET if own_next or two_features(whole) else LONE_PRISONER


@njit(cache=True, _nrt=False)
def legal_moves(geo, st, out):
    """Write every legal move (points ascending, then P) into ``out``; return the count."""
    return _legal_moves(geo, st, out, out, False)


@njit(cache=True, _nrt=False)
def legal_moves_tracked(geo, st, out, rings, left):
    """:func:`legal_moves` for a caller that keeps ``left`` up to date with
    ``common.track_board`` (``rings`` unused here): the same moves. A placement that sends
    nobody to the prison makes the board now plus the mover's stone on the point, which an
    earlier board can only equal if the mover's stone stood there and has left since; so
    only on points in ``left`` does a quiet placement probe the position table (out of
    the cache in a batch of games)."""
    return _legal_moves(geo, st, out, left, True)


@njit(cache=True, _nrt=False, inline="always")
def _legal_moves(geo, st, out, left, tracked):
    """The body of both ``legal_moves``: placements :func:`quiet_placement` settles are
    legal unless they repeat a board; the others are played and taken back."""
    nbr, feature, zob = geo.nbr, geo.feature, geo.zobrist
    board, meta = st.board, st.meta
    P = board.shape[0]
    X = meta[M_TO_MOVE]
    ply = meta[M_PLY]
    # With a group already on a broken bridge (a set-up position) or a full history,
    # ``play`` decides each placement.
    quick = meta[M_DEAD] == 0 and ply + 1 < st.hist_hash.shape[0]
    work = st.work
    if quick:
        empty_forest(board, nbr, feature, work)  # in rows ``play`` leaves alone
    h = st.hist_hash[ply]
    mine = (X - 1) * P
    n = 0
    for p in range(P):
        if board[p] != 0:
            continue
        known = UNKNOWN
        if quick:
            known = quiet_placement(board, nbr, work, p, X)
        if known == LONE_PRISONER:
            legal = False
        elif known == QUIET:
            legal = True
            if not tracked or left[mine + p] != 0:
                board[p] = X
                legal = not repeats(st, h ^ zob[X, p], -1)
                board[p] = 0
        elif quick:
            legal = place(geo, st, p, True, True) == OK
        else:
            legal = try_place(geo, st, p) == OK
        if legal:
            out[n] = p
            n += 1
    if meta[M_PRISON + (3 - X) - 1] > 0:
        out[n] = P
        n += 1
    meta[M_OVER] = 1 if n == 0 else 0
    return n


@njit(cache=True, _nrt=False)
def winner(geo, st):
    """The player who took the last action, once the player to move has none; else 0."""
    if not is_over(geo, st):
        return 0
    return 3 - st.meta[M_TO_MOVE]


SCORE_PARTS = 0  # no score, no parts


@njit(cache=True, _nrt=False)
def score_parts(geo, st, out):
    """Droched has no score: writes nothing and returns False."""
    return False


@njit(cache=True, _nrt=False)
def score(geo, st, out):
    """Droched has no score: writes zeros and returns False."""
    out[0] = 0.0
    out[1] = 0.0
    return False


@njit(cache=True, _nrt=False)
def playout(geo, st, rng, max_ply):
    """Uniformly random legal actions (placements and release alike) until the player to
    move has none. Returns the winner, 0 if ``max_ply`` was reached, -1 if the history is
    full."""
    board, meta, moves = st.board, st.meta, st.hist_move
    P = board.shape[0]
    work = st.work
    cand, buf, buf2 = work[W_CAND], work[W_BUF], work[W_BUF2]
    # The empty points cand[:empties], kept from turn to turn instead of listed anew: a
    # draw swaps two of them, the placed point leaves from the slot its draw put it in,
    # stones sent to the prison join at the end. The release, when there is one, is drawn
    # as if it were one more candidate after them.
    empties = empty_points(board, cand)
    # A random game ends with a long run of releases, each turn trying placements that
    # were already refused on the same board. A refusal stands while the board stays the
    # same (lone prisoner: a matter of the board; repetition: the earlier boards only
    # grow), so each player records theirs: cand[off + p] holds the run in which ``p``
    # was refused, cand[off + P] the current run, off = P+1 (Black) or 2P+2 (White); runs
    # are numbered by the ply they start at, plus 1. Once every empty point is refused in
    # the run, the release is the only action: no more draws.
    for i in range(P + 1, 3 * P + 3):
        cand[i] = 0
    refused_black = 0
    refused_white = 0
    first = meta[M_PLY]
    while True:
        ply = meta[M_PLY]
        if ply >= max_ply:
            return 0
        X = meta[M_TO_MOVE]
        Y = 3 - X
        off = (P + 1) * X
        refused = refused_black if X == 1 else refused_white
        # Two releases since this player's last turn (in this call): the same board.
        if not (ply >= first + 2 and moves[ply] == P and moves[ply - 1] == P):
            cand[off + P] = ply + 1
            refused = 0
        run = cand[off + P]
        points = empties if refused < empties else 0
        prison_y = meta[M_PRISON + Y - 1]
        release = 1 if prison_y > 0 else 0
        moved = False
        while points + release > 0:
            i = rand_below(rng, points + release)
            if i == points:
                p = P
                release = 0
            else:
                points -= 1
                p = cand[i]
                cand[i] = cand[points]
                cand[points] = p
                if cand[off + p] == run:
                    continue
            code = play(geo, st, p)
            if code == OK:
                moved = True
                if p < P:
                    empties -= 1
                    cand[points] = cand[empties]
                    enemy = meta[M_PRISON + Y - 1] - prison_y  # play left them in buf
                    for k in range(enemy):
                        cand[empties] = buf[k]
                        empties += 1
                    for k in range(meta[M_REMOVED] - enemy):  # own ones in buf2
                        cand[empties] = buf2[k]
                        empties += 1
                break
            if code == R_FULL:
                return -1
            cand[off + p] = run
            refused += 1
        if X == 1:
            refused_black = refused
        else:
            refused_white = refused
        if not moved:
            meta[M_OVER] = 1
            return 3 - X


# -- the search's knowledge: the policy playout and what it asks of the search ----------

# A placement on the border is worse than one inside while the board is open (deep
# searches of tournament positions: by 0.03-0.06 in win rate up to move 30, alike later).
SEARCH_BIASES = BIAS_BORDER
LEARNS_REPLIES = True  # the policy playout plays the last good reply
# How many self-imprisoning placements to take back before playing one, and how many quiet
# actions (nobody imprisoned) to try while looking for one that imprisons enemy stones.
POLICY_TRIES = 4
POLICY_LOOK = 4
POLICY_SCRATCH = 1  # slots of ``cand`` the policy playout needs beyond P (the release)


@njit(cache=True, _nrt=False)
def policy_move_limit(num_points):
    """Moves beyond the root after which a policy playout counts as undecided: those that
    last more than 3 moves per point almost never end: they cycle (placements imprison
    groups, the board refills) for thousands of moves."""
    return 3 * num_points


@njit(cache=True)
def add_ownership(geo, st, own, region_of, owner_of_region):
    """Add +1 for each point Black owns at the end of a playout, -1 for White: stones."""
    add_stone_ownership(st.board, own)
    return np.int64(0)


@njit(cache=True)
def policy_playout(geo, st, rng, max_ply, cand, scores, reply):
    """The full-strength playout: play the last good reply (``reply``, learnt by the
    search) unless it imprisons own stones; avoid self-imprisonment: a placement after
    which own stones go to the prison is taken back and another tried (after POLICY_TRIES
    such placements the last is kept); prefer actions that send enemy stones to the prison
    (up to POLICY_LOOK quiet ones are tried while looking).

    ``cand``: int32 scratch of P + POLICY_SCRATCH slots; ``scores`` is unused (the
    dispatchers' signature). Returns the winner, 0 at ``max_ply`` or when the history is
    full."""
    board, meta = st.board, st.meta
    P = board.shape[0]
    # No is_over test per turn: it would try placements that the turn tries anyway.
    while True:
        if meta[M_PLY] >= max_ply:
            return 0
        X = meta[M_TO_MOVE]
        own_prison = meta[M_PRISON + X - 1]  # own stones in the prison before the move
        enemy_prison = meta[M_PRISON + 2 - X]
        last = meta[M_LAST]
        if last >= 0:
            # The last good reply (as in Dehil), unless it imprisons own stones.
            r = reply[X - 1, last]
            if r >= 0 and board[r] == 0:
                code = play(geo, st, r)
                if code == R_FULL:
                    return 0
                if code == OK:
                    if meta[M_PRISON + X - 1] == own_prison:
                        continue
                    undo(geo, st)
        n = empty_points(board, cand)
        cand[n] = P
        n += 1
        fallback = -1
        quiet = -1
        imprisoning = 0
        quiets = 0
        moved = False
        while n > 0:
            m = draw(rng, cand, n)
            n -= 1
            code = play(geo, st, m)
            if code == R_FULL:
                return 0
            if code != OK:
                continue
            if m < P and meta[M_PRISON + X - 1] > own_prison:
                # Own stones went to the prison: keep it only as a last resort, and stop
                # looking after a few such moves (late in a game most moves are like
                # this, and trying them all costs a whole board of kernel calls).
                imprisoning += 1
                if imprisoning >= POLICY_TRIES:
                    moved = True
                    break
                if fallback < 0:
                    fallback = m
                undo(geo, st)
                continue
            if m < P and meta[M_PRISON + 2 - X] > enemy_prison:
                moved = True  # enemy stones went to the prison: take it
                break
            # A quiet action: look a little further for one that imprisons enemy stones.
            # Without this, random games cycle (build, imprison, rebuild) for thousands
            # of moves; real games end when one side has taken the board.
            quiets += 1
            if quiets >= POLICY_LOOK:
                moved = True
                break
            if quiet < 0:
                quiet = m
            undo(geo, st)
        if not moved:
            # The quiet action, else the fallback: one call site (each inlined ``play``
            # costs seconds of compile); the quiet one was legal on this very state.
            m = quiet if quiet >= 0 else fallback
            if m < 0 or play(geo, st, m) != OK:
                # Every action was tried and none is legal: X loses.
                meta[M_OVER] = 1
                return 3 - X


# -- inspection (the game API's groups, handicap check and last prisoners) ---------------


@njit(cache=True, _nrt=False)
def group_bridges(geo, st, group_of, reach):
    """Number the groups in board order (by their lowest point): ``group_of[p]`` is the
    group of the stone on ``p`` (-1 on an empty point), ``reach[g]`` the border features
    (bit mask) of the empty cells reachable from group ``g`` through empty cells. A group
    is on a bridge when its mask has two or more bits. Returns the group count."""
    nbr, feature = geo.nbr, geo.feature
    board = st.board
    P = board.shape[0]
    work = st.work
    marks = work[W_MARKS]
    label = work[W_LABEL]
    region_mask = work[W_MASK]
    queue = work[W_BUF]
    reserve_stamps(st, 4)
    stamp = new_stamp(st)
    label_regions(board, nbr, feature, marks, stamp, label, region_mask, queue)
    stamp = new_stamp(st)
    for p in range(P):
        group_of[p] = -1
    count = 0
    for p in range(P):
        color = board[p]
        if color == 0 or marks[p] == stamp:
            continue
        marks[p] = stamp
        queue[0] = p
        tail, mask = walk_group(board, nbr, marks, stamp, label, region_mask, queue, 0)
        for i in range(tail):
            group_of[queue[i]] = count
        reach[count] = mask
        count += 1
    return count


@njit(cache=True, _nrt=False)
def imprisoned_points(geo, st, out):
    """Write the points whose stones the last move sent to the prison (ascending) into
    ``out``, the placed stone included when it went too; return the count (0 after a
    release or before the first move)."""
    board, meta = st.board, st.meta
    P = board.shape[0]
    ply = meta[M_PLY]
    if ply == 0:
        return 0
    move = st.hist_move[ply]
    if move < 0 or move >= P:
        return 0
    before = board_at(st, ply - 1)
    n = 0
    for p in range(P):
        if board[p] == 0 and (before[p] != 0 or p == move):
            out[n] = p
            n += 1
    return n
