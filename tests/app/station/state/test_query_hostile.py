"""The station's query parser against a hostile pass: every value it cannot use
is a problem named by its field, shown without control characters and never echoed whole."""

from __future__ import annotations

import pytest

from app.station.state.query import parse_query, parse_state
from witness import Settings


def _fields(query: bytes) -> dict[str, str]:
    return {p.field: p.message for p in parse_query(query).problems}


@pytest.mark.parametrize(
    ("query", "field"),
    [
        (b"expect_faster=maybe", "expect_faster"),  # read without a prediction too
        (b"expect_kept=maybe", "expect_kept"),
        (b"base=garbage", "base"),
        (b"block=%D9%A3", "block"),  # an Arabic-Indic three: int() reads it
        (b"block=1_0", "block"),  # int() reads 10
        (b"sub=%D9%A3", "sub"),
        (b"sub=1_0", "sub"),
        (b"k=1_0", "k"),
        (b"k=%D9%A3", "k"),
        (b"k=%EF%BC%91", "k"),  # a fullwidth one
        (b"k=%205", "k"),  # no whitespace around a number
        (b"match=0_5", "match"),
        (b"tpot_ms=1e-320", "tpot_ms"),  # a subnormal: "above 0" is a normal number
        (b"tpot_ms=0", "tpot_ms"),
        (b"prompt=a%00b", "prompt"),
        (b"prompt=a%0D%0Ab", "prompt"),
        (b"prompt=%1B%5B31m", "prompt"),
        (b"prompt=%C2%85", "prompt"),  # a C1 control
        (b"prompt=%FF", "prompt"),  # not UTF-8
        (b"prompt=%ZZ", "prompt"),  # not an escape
        (b"match=%", "match"),
    ],
)
def test_each_bad_value_is_named(query: bytes, field: str) -> None:
    problems = _fields(query)
    assert field in problems, problems
    assert f"{field} must" in problems[field]


def test_numbers_as_the_station_writes_them_still_read() -> None:
    state = parse_query(b"k=5&match=0.55&tpot_ms=0.01&ttft_ms=1e3&block=3&sub=2&seed=%2B7")
    assert not state.problems, state.problems
    assert (state.settings.k, state.settings.match, state.settings.tpot_ms) == (5, 0.55, 0.01)
    assert (state.block, state.options.sub, state.settings.seed) == (3, 2, 7)
    assert parse_query(b"prompt=caf%C3%A9+au+lait").settings.prompt == "café au lait"


def test_a_name_or_value_is_never_echoed_whole_or_raw() -> None:
    state = parse_query(b"z" * 100_000 + b"=1&a%00%0d%0ab=1&pred=" + b"p" * 100_000)
    for p in state.problems:
        assert len(p.field) <= 40 and len(p.message) <= 400, p
        assert p.field.isprintable() and p.message.isprintable(), p


def test_parse_query_agrees_with_parse_state_on_a_good_query() -> None:
    query = "pred=lengthen_k&expect_faster=yes&k=6&prompt=the+draft&block=2"
    pairs = [tuple(part.replace("+", " ").split("=", 1)) for part in query.split("&")]
    assert parse_query(query.encode()) == parse_state(pairs)  # type: ignore[arg-type]


def test_the_settings_refuse_the_same_as_the_query() -> None:
    for field, value in [("k", "1_0"), ("k", "٣"), ("match", " 0.5"), ("prompt", "a\x00b")]:
        with pytest.raises(ValueError, match=field):
            Settings.model_validate({field: value})
