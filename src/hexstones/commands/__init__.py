"""Subcommands of the ``hexstones`` command, one module each (see hexstones.cli)."""
