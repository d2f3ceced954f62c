"""The ``hexstones`` command.

Each subcommand lives in ``hexstones.commands.<name>``: ``HELP`` (its line in
``hexstones --help``), ``DESCRIPTION`` (the head of its own ``--help``),
``add_arguments(parser)`` and ``run(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Subcommand modules under hexstones.commands, in the order --help lists them.
COMMANDS = ["show", "tournament", "komi", "gtp", "match", "serve", "bot", "db", "render", "play", "train", "solve"]


class _Parser(argparse.ArgumentParser):
    """Bad arguments: a short message and exit code 2 (argparse's own convention)."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    import hexstones

    parser = _Parser(prog="hexstones", description=hexstones.__doc__)
    parser.add_argument("--version", action="version", version=hexstones.__version__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        module = importlib.import_module(f"hexstones.commands.{name}")
        module.add_arguments(sub.add_parser(name, help=module.HELP, description=module.DESCRIPTION))
        sub.choices[name].set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 0
    try:
        return args._run(args) or 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
