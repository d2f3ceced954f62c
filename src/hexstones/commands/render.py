"""``hexstones render RECORD.sgf``: a picture (SVG or PNG) of a position, as the app draws it."""

from __future__ import annotations

import argparse
import math
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

# Browsers that can turn the SVG into a PNG, first found wins; HEXSTONES_CHROMIUM overrides.
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


HELP = "draw a position of an SGF record as SVG or PNG"
DESCRIPTION = (
    "Draw the position of an SGF record (after --move N moves, default the last) with the app's "
    "drawing. The output's suffix picks the format: .svg, or .png (drawn by a headless Chromium, "
    "which must be installed; HEXSTONES_CHROMIUM names another browser binary)."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    from hexstones.svg import OVERLAYS

    p.add_argument("record", type=pathlib.Path, help="the SGF record")
    p.add_argument("--move", type=int, help="show the position after this many moves (default: all)")
    p.add_argument("-o", "--output", default="-",
                   help="output file, .svg or .png (default: SVG on standard output)")
    p.add_argument("--overlay", action="append", default=[], choices=OVERLAYS,
                   help="draw an overlay (repeatable); one that means nothing in the game draws nothing")
    p.add_argument("--no-coordinates", action="store_true", help="leave out the coordinates")
    p.add_argument("--scale", type=float, default=1.0, help="PNG pixels per SVG unit (default 1)")


def find_browser() -> str | None:
    override = os.environ.get("HEXSTONES_CHROMIUM")
    if override:
        return override
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def svg_to_png(svg: str, output: pathlib.Path, *, scale: float = 1.0) -> None:
    """Screenshot ``svg`` with headless Chromium into ``output``; RuntimeError if it cannot."""
    browser = find_browser()
    if browser is None:
        raise RuntimeError("PNG output needs Chromium (Debian: apt-get install chromium), "
                           "or write .svg instead")
    match = re.search(r'<svg[^>]*\bwidth="([\d.]+)"[^>]*\bheight="([\d.]+)"', svg)
    if not match:
        raise RuntimeError("the SVG has no width and height to size the picture")
    width, height = (math.ceil(float(v)) for v in match.groups())
    with tempfile.TemporaryDirectory(prefix="hexstones-render-") as tmp:
        page = pathlib.Path(tmp) / "board.svg"
        page.write_text(svg, encoding="utf-8")
        target = pathlib.Path(tmp) / "board.png"
        command = [
            browser, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
            "--no-first-run", f"--user-data-dir={tmp}/profile",  # a private profile: runs may overlap
            f"--force-device-scale-factor={scale:g}", f"--window-size={width},{height}",
            f"--screenshot={target}", page.as_uri(),
        ]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise RuntimeError(f"{browser} failed: {exc}") from None
        if done.returncode != 0 or not target.exists():
            tail = (done.stderr or "").strip().splitlines()[-1:] or ["no output"]
            raise RuntimeError(f"{browser} made no PNG (exit {done.returncode}): {tail[0]}")
        shutil.copyfile(target, output)


def run(args: argparse.Namespace) -> int:
    from hexstones.records import SGFError, read_sgf
    from hexstones.svg import board_svg

    def fail(message: str, code: int = 2) -> int:
        print(f"hexstones render: {message}", file=sys.stderr)
        return code

    output = None if args.output == "-" else pathlib.Path(args.output)
    if output is not None and output.suffix.lower() not in (".svg", ".png"):
        return fail(f"the output must end in .svg or .png, not {output.name!r}")
    if not (args.scale > 0 and math.isfinite(args.scale)):
        return fail(f"--scale must be a positive number, not {args.scale}")
    try:
        text = args.record.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return fail(f"cannot read {args.record}: {exc}")
    try:
        game = read_sgf(text)
    except SGFError as exc:
        return fail(f"{args.record}: {exc}")
    if args.move is not None and not 0 <= args.move <= len(game.moves):
        return fail(f"--move must be from 0 to {len(game.moves)} (the record's moves), not {args.move}")
    svg = board_svg(game, overlays=tuple(dict.fromkeys(args.overlay)), move_number=args.move,
                    coordinates=not args.no_coordinates)
    if output is None:
        sys.stdout.write(svg + "\n")
        return 0
    try:
        if output.suffix.lower() == ".svg":
            output.write_text(svg + "\n", encoding="utf-8")
        else:
            svg_to_png(svg, output, scale=args.scale)
    except OSError as exc:
        return fail(f"cannot write {output}: {exc}", 1)
    except RuntimeError as exc:
        return fail(str(exc), 1)
    return 0
