"""Game records: SGF (FF[4]) for Keil, Dehil and Droched; conventions in docs/sgf.md."""

from hexstones.records.sgf import (
    GAME_NUMBERS,
    INFO_PROPERTIES,
    GameRecord,
    read_collection,
    read_record,
    read_sgf,
    result_text,
    write_sgf,
)
from hexstones.records.sgf_syntax import SGFError

__all__ = [
    "GAME_NUMBERS", "INFO_PROPERTIES", "GameRecord", "SGFError",
    "read_collection", "read_record", "read_sgf", "result_text", "write_sgf",
]
