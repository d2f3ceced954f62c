"""Perfect play on small boards: exact values of Keil and Dehil positions.

:func:`solve` gives Black's final score minus White's when both players maximise their
own margin (komi and the half point of Keil's button or Dehil's first pass included,
exactly as the game scores), for the position of a game object with its history, and
the value of each of its legal moves. Komi only shifts every final score, so the value
at komi ``k`` is the value at komi 0 minus ``k``: Black wins at every komi below the
value, White at every komi above.

The search (:mod:`hexstones.solve.kernel`) is fail-soft alpha-beta over the compiled
rules (the game API's door, as the AI's search uses it), with a transposition table.

Why the values are exact
------------------------
* Every move is judged by the game's own kernels on a state that carries the whole
  history (the game's moves before the root and the search's path), so legality,
  captures, repetitions and scores are the game's own.
* The table is keyed by exact position words, not hashes: the board (two stone masks
  of 19 points, reduced to the least of its 12 symmetric images), the side to move, the
  passes just played and who holds the special move (Keil's button, Dehil's first pass:
  who gets its half point). Nothing else of a position bears on its future except the
  history, through the repetition rule.
* The graph-history interaction: Keil forbids repeating a position the mover had at the
  end of an earlier turn, so a position's value can depend on the path to it; Dehil has
  no repetition rule and no captures (its positions never repeat), and there the guard
  below costs nothing but a little time. The search's result at a node rests on the
  repetition tests of the positions it tried (each placement played or refused for
  repetition, in the part of the tree it looked at, table hits included through the
  entries' own records). Every such position contains every stone of ``need``, the
  intersection of those positions (taken per row parity: a test compares only rows of
  the mover's parity; with the special move's "taken" bit). So only history rows that
  contain ``need`` could change any of those tests. An entry stores ``need`` and the set
  of those *relevant* rows (as exact codes: board, taken bit, parity); a probe recomputes
  the relevant rows of its own history for the entry's ``need`` and uses the entry only
  if they are the same set. Then, by induction over the tree the entry's search looked
  at, every test comes out the same under the new history, the same moves are legal
  everywhere in it, and its bound holds. The rows after the node are the path below it,
  the same in both. The bound is recomputed, not trusted, when the relevant history
  differs or is longer than an entry holds (such results are not stored). A move
  refused for repetition is accounted through every history row it can have repeated.
* Symmetries map the relevant rows with the same symmetry as the board, so a hit under
  another symmetry compares like with like.

Validated (tests/test_solve.py) against a plain minimax over the public game API, with
no table and no pruning, on random positions near the end of the game, with one table
shared across positions and histories.
"""

from hexstones.solve.search import (
    Counts,
    Solution,
    Solver,
    TooDeep,
    Unsupported,
    check_solvable,
    solve,
)

__all__ = ["Counts", "Solution", "Solver", "TooDeep", "Unsupported", "check_solvable", "solve"]
