"""Draw the app's icons for installing it (``static/icon-192.png``, ``static/icon-512.png``)
from its favicon, ``static/favicon.svg``, with Playwright and Debian's chromium.

    python scripts/icons.py [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
from pathlib import Path

STATIC = Path(__file__).resolve().parents[1] / "src" / "hexstones" / "web" / "static"
SIZES = (192, 512)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--chromium", default="/usr/bin/chromium")
    args = p.parse_args()
    from playwright.sync_api import sync_playwright

    svg = (STATIC / "favicon.svg").read_text()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        for size in SIZES:
            page = browser.new_page(viewport={"width": size, "height": size})
            sized = svg.replace("<svg ", f'<svg width="{size}" height="{size}" ', 1)
            page.set_content(f"<html><body style='margin:0;background:transparent'>{sized}</body></html>")
            page.screenshot(path=str(STATIC / f"icon-{size}.png"), omit_background=True)
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
