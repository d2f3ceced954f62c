"""Every page checked with axe-core (Deque's accessibility engine, from npm, run in
chromium): no finding at the "serious" or "critical" level, in English and in Korean, on a
desktop's screen and on a phone's (390x844), where the page must also fit the width (no
horizontal scroll).

axe-core is installed by ``npm ci`` (package.json), as .ci/run does before the tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from serving import CHROMIUM, WAIT_MS

pytestmark = pytest.mark.slow

if not Path(CHROMIUM).exists():
    pytest.skip(f"no chromium at {CHROMIUM}", allow_module_level=True)

from playwright.sync_api import expect  # noqa: E402

AXE = Path(__file__).resolve().parents[1] / "node_modules" / "axe-core" / "axe.min.js"
# The app's Content-Security-Policy allows no inline script: the checker's own is let in.
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True, "has_touch": True,
         "bypass_csp": True}
DESKTOP = {"viewport": {"width": 1200, "height": 900}, "bypass_csp": True}
# The pages, each opened on its own (a game and a profile are made first, see pages()).
PAGES = ["/", "/rules", "/rules/keil", "/rules/dehil", "/rules/droched", "/lobby", "/watch",
         "/account", "/leaderboard/keil", "/games", "/tournaments", "/no-such-page"]

expect.set_options(timeout=WAIT_MS)


def findings(page) -> list[str]:
    """axe-core's serious and critical findings on ``page``, one line each: the rule, what
    it asks, and the first elements it found."""
    assert AXE.exists(), f"no {AXE}: run npm ci (package.json) first"
    page.add_script_tag(content=AXE.read_text())
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [f"{v['impact']}: {v['id']} ({v['help']}): " + "; ".join(n["target"][0] for n in v["nodes"][:3])
            for v in result["violations"] if v["impact"] in ("serious", "critical")]


def overflow(page) -> int:
    """How many CSS pixels the page is wider than its window (0: no horizontal scroll)."""
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


def pages(base: str, person, name: str) -> list[str]:
    """The addresses of every page: the fixed ones, a game in play (with moves and its
    analysis), an earlier move of it, and the profile and a tournament of a new account
    ``name``."""
    page = person()
    page.goto(f"{base}/new?game=keil&size=4&opponent=human")
    expect(page.get_by_test_id("status")).to_have_text("Black to move")
    for _ in range(3):
        page.locator("[data-point][data-legal]").first.click()
    expect(page.get_by_test_id("status")).to_have_text("White to move")
    game = page.url.removeprefix(base)
    page.goto(f"{base}/account")
    page.get_by_test_id("signup-name").fill(name)
    page.get_by_test_id("signup-password").fill("a long password")
    page.get_by_test_id("signup").click()
    expect(page.get_by_test_id("who")).to_contain_text(name)
    made = page.evaluate("""(name) => fetch("/api/tournaments", {
        method: "POST", headers: {"Content-Type": "application/json"},
        body: JSON.stringify({name, game: "keil", size: 5, clock: "fischer:600:5"}),
    }).then((r) => r.json())""", f"{name}'s cup")
    page.context.close()
    return [*PAGES, game, f"{game}?at=1", f"/players/{name}", f"/tournaments/{made['id']}"]


@pytest.mark.parametrize("device, lang", [("desktop", "en"), ("phone", "en"), ("desktop", "ko"), ("phone", "ko")])
def test_no_serious_accessibility_finding_on_any_page_and_phones_need_no_sideways_scroll(module_server, person,
                                                                                      device, lang):
    base = module_server.url
    problems = {}
    for address in pages(base, person, f"Ada {device} {lang}"):
        page = person(**(PHONE if device == "phone" else DESKTOP))
        page.context.add_cookies([{"name": "hexstones_lang", "value": lang, "url": base}])
        page.goto(base + address)
        expect(page.locator("html")).to_have_attribute("lang", lang)
        page.wait_for_load_state("networkidle")
        found = findings(page)
        if device == "phone" and (wider := overflow(page)) > 0:
            found.append(f"the page is {wider} px wider than the phone's screen")
        if found:
            problems[address] = found
        page.context.close()
    assert problems == {}, "\n".join(f"{a}: {line}" for a, lines in problems.items() for line in lines)
