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
