"""Take the app's screenshots for the docs (docs/img/*.png).

Starts ``hexstones serve`` on a free port with a throwaway database, sets up one game of
each kind by playing seeded random legal moves through the API (two players at the
screen, so no AI is involved and the pictures are the same every time), and photographs
the pages with Playwright and Debian's chromium: the Keil game also in Korean and on a
phone's screen (390x844), in both languages. Korean needs a CJK font (Debian's
``fonts-noto-cjk``), which the tests do not.

    python scripts/screenshots.py [--out docs/img] [--chromium /usr/bin/chromium] [--only analysis]

The analysis pictures (analysis-<game>.png) analyse their game with the page's quick
search (a fixed number of iterations: the same figures every time) and show the
position before the first mistake, with the best move's line.
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

# (file, game, size, placements, overlays, note): the positions photographed.
SHOTS = [
    ("keil.png", "keil", 5, 26, "territory,groups", "Keil: territories and groups with liberties"),
    ("dehil.png", "dehil", 5, 44, "partitions", "Dehil: groups with and without partitions"),
    ("droched.png", "droched", 5, 30, "bridges", "Droched: prison counts and groups on bridges"),
]
# (file, game, size, placements): games analysed for the analysis pictures.
ANALYSIS_SHOTS = [
    ("analysis-keil.png", "keil", 5, 20),
    ("analysis-dehil.png", "dehil", 5, 20),
    ("analysis-droched.png", "droched", 5, 16),
]


# One session for the script (the games' seats are its own); the browser gets its cookie.
COOKIES = http.cookiejar.CookieJar()
OPENER = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(COOKIES))


def call(url: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with OPENER.open(req, timeout=60) as res:
        return json.load(res)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def set_up(base: str, game: str, size: int, placements: int, seed: int) -> str:
    """A game with ``placements`` seeded random placements (and what else is needed)."""
    extra = {"komi": 3} if game == "droched" else {}  # some stones in the prison to show
    s = call(f"{base}/api/games", {"game": game, "size": size, "opponent": "human", **extra})
    rng = random.Random(seed)
    while sum(1 for m in s["moves"] if m[0].isalpha() and m[1:].isdigit()) < placements and not s["over"]:
        points = [m for m in s["legal"] if m[1:].isdigit()]
        others = [m for m in s["legal"] if not m[1:].isdigit() and m != "pass"]
        choice = rng.choice(points) if points and (not others or rng.random() < 0.85) else rng.choice(others)
        s = call(f"{base}/api/games/{s['id']}/moves", {"move": choice})
    return s["id"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/img")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--only", choices=("pages", "analysis"), help="take only these pictures")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        server = subprocess.Popen([sys.executable, "-m", "hexstones.cli", "serve", "--port", str(port),
                                   "--db", str(Path(tmp) / "shots.db")], stdout=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    call(f"{base}/api/games")
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise SystemExit("the server did not start") from None
                    time.sleep(0.1)
            analysed = [] if args.only == "pages" else [
                (file, set_up(base, game, size, n, seed=7)) for file, game, size, n in ANALYSIS_SHOTS]
            games = [] if args.only == "analysis" else [
                (file, set_up(base, game, size, n, seed=7), overlays, game)
                for file, game, size, n, overlays, _ in SHOTS]
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=args.chromium, args=ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 860})
                page.context.add_cookies([{"name": c.name, "value": c.value or "", "url": base}
                                          for c in COOKIES])
                for file, gid in analysed:
                    analysis_shot(page, base, gid, out / file)
                for file, gid, overlays, game in games:
                    page.goto(base + "/")
                    page.evaluate(f"localStorage.setItem('hexstones-overlays-{game}', '{overlays}')")
                    game_shot(page, f"{base}/game/{gid}", out / file)
                    if game == "keil":  # the same page in Korean, and on a phone in both languages
                        game_shot(page, f"{base}/game/{gid}?lang=ko", out / "keil-ko.png")
                        phone = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                                 is_mobile=True, has_touch=True)
                        phone.context.add_cookies([{"name": c.name, "value": c.value or "", "url": base}
                                                   for c in COOKIES])
                        phone.goto(base + "/")
                        phone.evaluate(f"localStorage.setItem('hexstones-overlays-{game}', '{overlays}')")
                        game_shot(phone, f"{base}/game/{gid}?lang=en", out / "phone-keil.png")
                        game_shot(phone, f"{base}/game/{gid}?lang=ko", out / "phone-keil-ko.png")
                        phone.context.close()
                        page.goto(base + "/?lang=en")
                if args.only != "analysis":
                    page.goto(base + "/")
                    page.wait_for_selector("table.games")
                    page.screenshot(path=str(out / "start.png"))
                    print("wrote", out / "start.png")
                    # A game against a friend online: Ann's page once Bea joined from the invitation.
                    page.goto(f"{base}/new?game=keil&size=5&opponent=friend&color=black")
                    # The page's script writes the link once it has the game.
                    page.wait_for_selector("[data-testid=invite-link][href^='http']")
                    link = page.get_attribute("[data-testid=invite-link]", "href")
                    page.fill("[data-testid=my-name]", "Ann")
                    page.press("[data-testid=my-name]", "Enter")
                    friend = browser.new_page(viewport={"width": 1280, "height": 860})
                    friend.goto(link)
                    friend.fill("[data-testid=join-name]", "Bea")
                    friend.click("[data-testid=join]")
                    friend.wait_for_url("**/game/**")
                    for mover, point in [(page, "e5"), (friend, "d4"), (page, "c4"), (friend, "f6")]:
                        count = mover.locator("#movelist button").count()
                        mover.click(f'[data-point="{point}"]')
                        mover.wait_for_function(f"() => document.querySelectorAll('#movelist button').length > {count}")
                    page.click("#undo")  # Ann asks to take back her last move: Bea's page asks her
                    friend.wait_for_selector("[data-testid=takeback-accept]")
                    page.wait_for_timeout(1500)
                    friend.screenshot(path=str(out / "online.png"))
                    print("wrote", out / "online.png")
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=30)
    return 0


def game_shot(page, url: str, path: Path) -> None:
    """Photograph the game page at ``url`` once its position is drawn."""
    page.goto(url)
    page.wait_for_selector("[data-testid=status]:not(:has-text('Loading'))")
    page.wait_for_timeout(1500)  # let the last-move animation finish
    page.screenshot(path=str(path))
    print("wrote", path)


def analysis_shot(page, base: str, gid: str, path: Path) -> None:
    """Analyse the game with the quick search; photograph the position before its first
    mistake (or the middle), the best move's line shown."""
    page.goto(f"{base}/game/{gid}")
    page.wait_for_selector("[data-testid=status]:not(:has-text('Loading'))")
    page.select_option("[data-testid=analysis-budget]", "300")
    page.click("[data-testid=analyze]")
    page.wait_for_selector("[data-testid=analysis-progress]:has-text('positions analysed.')", timeout=600_000)
    summary = call(f"{base}/api/games/{gid}/analysis")
    first = next((m["ply"] - 1 for m in summary["mistakes"] if m["ply"] > 1), summary["move_count"] // 2)
    page.click(f"[data-testid=winrate-graph] [data-ply='{first}']")
    page.wait_for_selector(f"[data-testid=where]:has-text('move {first} of')")
    page.wait_for_selector("#board [data-candidate]")
    best = call(f"{base}/api/games/{gid}/analysis/{first}")["moves"][0]["move"]
    page.hover(f"#board [data-point='{best}']")
    page.wait_for_timeout(800)
    page.screenshot(path=str(path), full_page=True)
    print("wrote", path)


if __name__ == "__main__":
    sys.exit(main())
