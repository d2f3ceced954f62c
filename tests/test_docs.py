"""The project's copy of the rules: docs/rules.md is ../shared/RULES.md word for word, and
the sources cite the copy (a clone stands on its own)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules.md"
SHARED_RULES = ROOT.parent / "shared" / "RULES.md"
SOURCES = ROOT / "src" / "hexstones"


@pytest.mark.skipif(not SHARED_RULES.is_file(), reason="outside the workplace: no ../shared to compare with")
def test_rules_copy_is_in_step_with_shared():
    assert RULES.read_bytes() == SHARED_RULES.read_bytes(), (
        "docs/rules.md differs from ../shared/RULES.md: copy it again")


def test_sources_cite_the_copy_of_the_rules():
    texts = [p for p in SOURCES.rglob("*") if p.is_file() and p.suffix in (".py", ".js", ".html", ".css")]
    assert len(texts) > 40  # the walk found the package
    stale = [f"{p.relative_to(ROOT)}:{n}"
             for p in texts
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if "RULES.md" in line]
    assert not stale, f"cite docs/rules.md, not RULES.md (outside the project): {stale}"


def fair_column_of_komi_md() -> dict[tuple[str, int], int | None]:
    """docs/komi.md's summary table: (game title, side) -> the balance its last column
    calls fair between the AI's players (its bold words), None where it says not placed."""
    import re

    text = (ROOT / "docs" / "komi.md").read_text(encoding="utf-8")
    table = text.split("## The answers so far", 1)[1].split("\n\n## ", 1)[0]
    found: dict[tuple[str, int], int | None] = {}
    for line in table.splitlines():
        row = re.match(r"\| (\w+) (\d+) \|.*\| \*\*([^*]+)\*\*[^|]*\|$", line)
        if row is None:
            continue
        title, side, verdict = row.group(1), int(row.group(2)), row.group(3)
        number = re.search(r"-?\d+", verdict)
        found[(title, side)] = (int(number.group()) if number else
                                0 if verdict.startswith("no ") else
                                None if verdict == "not placed" else verdict)
    return found


def test_the_fair_balances_on_record_are_the_ones_docs_komi_md_gives():
    from hexstones.games import GAME_NAMES, game_class

    docs = fair_column_of_komi_md()
    assert len(docs) == 7  # every default configuration has its row
    in_code = {(game_class(g).title, size): game_class(g).balance.fair_at(size)
               for g in GAME_NAMES for size in {s for t, s in docs if t == game_class(g).title}}
    assert in_code == docs
    for g in GAME_NAMES:  # and the code holds none the table lacks
        assert all((game_class(g).title, size) in docs for size, _ in game_class(g).balance.fair)


def _anchors(text: str) -> set[str]:
    """The anchors GitHub makes of a Markdown file's headings (lowercase, punctuation
    dropped, spaces as hyphens; a repeated heading gets -1, -2, ...)."""
    import re

    seen: dict[str, int] = {}
    anchors = set()
    in_code = False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not line.startswith("#"):
            continue
        title = line.lstrip("#").strip().lower()
        title = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", r"\1", title)
        slug = re.sub(r"[^\w\- ]", "", title).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def test_every_link_between_the_docs_leads_somewhere():
    """Relative links of README.md, docs/ and benchmarks/ name files that exist, and their
    #anchors headings that exist: the docs are read as Markdown files, so nothing else
    checks them."""
    import re

    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
             *sorted((ROOT / "benchmarks").rglob("*.md"))]
    link = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
    broken, checked = [], 0
    for page in pages:
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        for target in link.findall(text):
            if re.match(r"[a-z]+:", target):
                continue  # another site: not checked offline
            path, _, anchor = target.partition("#")
            goal = (page.parent / path).resolve() if path else page
            checked += 1
            if not goal.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and goal.suffix == ".md" and anchor not in _anchors(goal.read_text(encoding="utf-8")):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert checked > 20
    assert not broken, "\n".join(broken)
