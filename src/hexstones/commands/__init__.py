"""Subcommands of the ``hexstones`` command, one module each (see hexstones.cli).

Shared here: the game options every game-playing command takes (``--size`` and one flag
per balance option, both from the games' own facts) and their one check.
"""

from __future__ import annotations

import argparse
import math
from typing import Any


def balance_flags() -> dict[str, tuple[str, list[str]]]:
    """Each balance option of the games (``komi``, ``prison``): its label and the titles
    of the games that take it."""
    from hexstones.games import GAME_NAMES, game_class

    flags: dict[str, tuple[str, list[str]]] = {}
    for name in GAME_NAMES:
        balance = game_class(name).balance
        flags.setdefault(balance.option, (balance.label, []))[1].append(game_class(name).title)
    return flags


FAIR = "fair"  # a balance flag's value that asks for the game's fair balance on the side


def balance_value(text: str) -> int | str:
    """A balance flag's value: a whole number, or ``fair``."""
    if text == FAIR:
        return FAIR
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number or '{FAIR}', not {text!r}") from None


def add_game(p: argparse.ArgumentParser, *, options: bool = False) -> None:
    """The game, GAME, and ``--size``; with ``options``, the balance flags too."""
    from hexstones.games import GAME_NAMES

    p.add_argument("game", choices=GAME_NAMES)
    if options:
        add_game_options(p)
    else:
        p.add_argument("--size", type=int, help="board side (default: the game's)")


def add_game_options(p: argparse.ArgumentParser) -> None:
    """``--size`` and a flag for each balance option."""
    p.add_argument("--size", type=int, help="board side (default: the game's)")
    for option, (label, titles) in balance_flags().items():
        p.add_argument(f"--{option}", type=balance_value,
                       help=f"{label}, {' and '.join(titles)} (default: the game's; '{FAIR}': "
                            f"the value found even between the AI's players on the side, "
                            f"docs/komi.md)")


def balance_of(name: str, value: int | str, size: int | None) -> int:
    """A balance flag's ``value`` (:func:`balance_value`) for game ``name`` on side ``size``
    (None: the game's default side): the number given, or for ``fair`` the balance found
    fair between the project's AI players there; ValueError where no study placed one."""
    if value != FAIR:
        return int(value)
    from hexstones.games import game_class

    cls = game_class(name)
    side = cls.default_size if size is None else size
    fair = cls.balance.fair_at(side)
    if fair is None:
        known = ", ".join(f"side {s}: {v}" for s, v in cls.balance.fair) or "no side"
        raise ValueError(f"no fair {cls.balance.option} is on record for {cls.title} side "
                         f"{side} (docs/komi.md; on record: {known})")
    return fair


def game_options(name: str, args: argparse.Namespace) -> dict[str, Any]:
    """The options ``args`` give a new game of ``name``, checked by the game API
    (``check_options``); ValueError saying what and why."""
    from hexstones.games import check_options, game_class

    cls = game_class(name)
    options: dict[str, Any] = {}
    if args.size is not None:
        options["size"] = args.size
    for option in balance_flags():
        value = getattr(args, option, None)
        if value is None:
            continue
        if option != cls.balance.option:
            raise ValueError(f"{cls.title} has no {option}: its balance is --{cls.balance.option} "
                             f"({cls.balance.label})")
        options[option] = balance_of(name, value, args.size)
    check_options(name, options)
    return options


def check_budget(args: argparse.Namespace) -> None:
    """``--seconds`` and ``--iterations``, where given, are positive and finite."""
    for name in ("seconds", "iterations"):
        value = getattr(args, name, None)
        if value is not None and not (value > 0 and math.isfinite(value)):
            raise ValueError(f"--{name} must be a positive number, not {value}")
