"""The house tells the truth about itself: every repository path its code, templates,
scripts and docs name exists; they speak in the present (no tracker numbers or work
history: that is CHANGELOG.md's); the README stays short and the witness's modules small.

Each rule is run over the tree and over a line that breaks it (the teeth)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# History is CHANGELOG.md's; the seeds are the source documents as they were given.
HISTORY = ("CHANGELOG.md", "seeds/")
TEXT = (".py", ".md", ".html", ".js", ".css", ".toml", ".lua", ".sh", ".cfg", ".txt", "Makefile")
# A path into the repository: a top-level folder of the house, then a file or folder.
PATH = re.compile(
    r"(?<![\w./-])((?:app|witness|tests|templates|static|docs|bench|scripts|\.ci)/[\w./*-]*[\w*])"
)
# A tracker's numbers and a work log's words: "issue 12", "stop 40", "session 3".
HISTORY_WORDS = re.compile(r"\b(?:[Ii]ssue|[Ss]top|[Ss]ession) #?\d+\b")
README_MAX = 8 * 1024
MODULE_MAX = 500  # lines of one witness module
SELF = "tests/test_house.py"  # its teeth name what the rules refuse


def _tracked() -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [
        ROOT / f
        for f in out
        if not f.startswith(HISTORY) and f.endswith(TEXT) and (ROOT / f).is_file()
    ]


@pytest.fixture(scope="module")
def house() -> dict[str, str]:
    if not (ROOT / ".git").exists():
        pytest.skip("needs the git checkout to list the house's files")
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in _tracked()}


def missing_paths(text: str) -> set[str]:
    """The repository paths ``text`` names that do not exist (globs and templates aside)."""
    named = (m.group(1).rstrip(".") for m in PATH.finditer(text))
    return {p for p in named if not any(c in p for c in "*{<") and not (ROOT / p).exists()}


def test_every_path_the_house_names_exists(house: dict[str, str]) -> None:
    wrong = {
        f: sorted(missing) for f, t in house.items() if f != SELF and (missing := missing_paths(t))
    }
    assert not wrong, f"paths named that do not exist (moved or renamed?): {wrong}"


def test_a_moved_path_is_caught() -> None:
    assert missing_paths("see app/views/evidence.py and app/station/views/evidence.py") == {
        "app/views/evidence.py"
    }


def test_the_house_speaks_in_the_present(house: dict[str, str]) -> None:
    said = {
        f: HISTORY_WORDS.findall(t)
        for f, t in house.items()
        if f != SELF and HISTORY_WORDS.search(t)
    }
    assert not said, f"work history outside CHANGELOG.md: {said}"


def test_history_words_are_caught() -> None:
    assert HISTORY_WORDS.findall("as issue 12 asked, since stop 40") == ["issue 12", "stop 40"]
    assert not HISTORY_WORDS.findall("a pytest session fixture; encode/uvicorn#3149")


def test_the_readme_is_short() -> None:
    size = len((ROOT / "README.md").read_bytes())
    assert size <= README_MAX, f"README.md is {size} bytes; say the rest in docs/"


def test_no_witness_module_is_long() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in (ROOT / "witness").rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MODULE_MAX
    }
    assert not long, f"split these by what they hold: {long}"
