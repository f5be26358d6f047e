"""The words catalog: every sentence is well formed, filled exactly, and said somewhere."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import pytest

from app import words
from app.words import Sentence, say

APP = Path(words.__file__).resolve().parent.parent
SOURCES = "\n".join(p.read_text() for p in APP.rglob("*.py"))


def all_keys() -> list[str]:
    return [k for panel in words.panels() for k in words.keys(panel)]


def test_the_catalog_has_panels_and_every_entry_is_words() -> None:
    assert "gates" in words.panels()
    for key in all_keys():
        text = words.entry(key)
        assert text.strip() == text and text, key
        # A placeholder is a plain name: views format the numbers, the words say them.
        assert all(re.fullmatch(r"[a-z_]+", f) for f in words.fields(text)), key


def test_a_sentence_is_its_text_and_remembers_its_key_and_values() -> None:
    s = say("gates.correctness.lost.no_repair", tv="0.184")
    assert s == "without repair the output over-weights what the draft likes, TV 0.184."
    assert isinstance(s, str) and s.key == "gates.correctness.lost.no_repair"
    assert s.mode == "no_repair" and s.values == {"tv": "0.184"}
    back = pickle.loads(pickle.dumps(s))
    assert back == s and back.key == s.key and back.values == s.values


def test_a_sentence_must_be_filled_exactly() -> None:
    with pytest.raises(KeyError, match="missing \\['tv'\\]"):
        say("gates.correctness.lost.no_repair")
    with pytest.raises(KeyError, match="unexpected \\['speed'\\]"):
        say("gates.summary.holds", speed="2×")
    with pytest.raises(KeyError, match="no sentence"):
        say("gates.correctness.kept.by_magic")
    with pytest.raises(KeyError, match="group"):
        say("gates.correctness.kept")
    with pytest.raises(KeyError, match="no words for panel"):
        say("nowhere.at.all")


def said(key: str) -> bool:
    """Whether the app's code names ``key``: whole, or as the prefix of a key it builds
    from a mode (``f"gates.correctness.kept.{mode}"``)."""
    if f'"{key}"' in SOURCES:
        return True
    parts = key.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        prefix = ".".join(parts[:cut])
        if f'f"{prefix}.{{' in SOURCES:
            return True
    return False


def test_every_sentence_in_the_catalog_is_said_somewhere() -> None:
    unsaid = [k for k in all_keys() if not said(k)]
    assert not unsaid, f"sentences no view says: {unsaid}"


def test_an_orphan_sentence_is_caught() -> None:
    assert not said("gates.nowhere.orphan")
    assert said("gates.correctness.kept.greedy")  # built from a mode
    assert said("gates.summary.holds")


def test_sentence_is_a_str_for_every_consumer() -> None:
    s: str = say("gates.verdict.skipped")
    assert isinstance(s, Sentence) and s.upper().startswith("YOU SKIPPED")
