"""hexstones: exact engines, AI and tools for the hexagonal Go-family games Keil, Dehil
and Droched."""

from hexstones.board import Board, get_board
from hexstones.games import GAME_NAMES, Game, IllegalMove, game_class, new_game

__version__ = "0.1.0"

__all__ = ["Board", "get_board", "Game", "IllegalMove", "GAME_NAMES", "game_class", "new_game", "__version__",
           "playouts"]


def __getattr__(name):
    # hexstones.playouts loads the compiled core only when first used (keeps import fast).
    if name == "playouts":
        from hexstones.games.engine import playouts

        return playouts
    raise AttributeError(f"module 'hexstones' has no attribute {name!r}")
