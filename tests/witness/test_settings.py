"""Settings: bad values are refused with a message that names the field and its range."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from witness import Settings
from witness.core.settings import expected_text, field_bounds

NUMERIC = ["match", "k", "draft_cost", "seed", "tokens", "tpot_ms", "ttft_ms"]


@pytest.mark.parametrize(
    ("field", "value", "needle"),
    [
        ("k", 0, "from 1 to 16"),
        ("k", 17, "from 1 to 16"),
        ("k", "four", "from 1 to 16"),
        ("k", True, "from 1 to 16"),  # a boolean is never read as 1
        ("k", 4.5, "from 1 to 16"),
        ("match", 1.5, "from 0 to 1"),
        ("match", -0.01, "from 0 to 1"),
        ("match", math.nan, "from 0 to 1"),
        ("draft_cost", math.inf, "from 0 to 1"),
        ("verify", "maybe", "true or false"),
        ("seed", -1, "from 0 to 2147483647"),
        ("seed", 2**31, "from 0 to 2147483647"),
        ("tokens", 0, "from 1 to 256"),
        ("tpot_ms", 0, "above 0 and at most 10000"),
        ("ttft_ms", -1, "from 0 to 600000"),
        ("prompt", "x" * 201, "at most 200 characters"),
    ],
)
def test_bad_value_names_field_and_range(field: str, value: object, needle: str) -> None:
    with pytest.raises(ValidationError) as info:
        Settings(**{field: value})
    errors = info.value.errors()
    assert len(errors) == 1
    assert errors[0]["loc"] == (field,)
    message = errors[0]["msg"]
    assert message.startswith(f"{field} must be ")
    assert needle in message
    assert "(got " in message  # what was sent is echoed back


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k": 0}, "k must be an integer from 1 to 16 (got 0)"),
        ({"match": 1.5}, "match must be a number from 0 to 1 (got 1.5)"),
        ({"k": "four"}, "k must be an integer from 1 to 16 (got 'four')"),
    ],
)
def test_whole_message(kwargs: dict, message: str) -> None:
    with pytest.raises(ValidationError) as info:
        Settings(**kwargs)
    assert info.value.errors()[0]["msg"] == message


def test_extra_field_is_rejected() -> None:
    with pytest.raises(ValidationError) as info:
        Settings(temperature=0.7)
    assert info.value.errors()[0]["loc"] == ("temperature",)
    assert info.value.errors()[0]["type"] == "extra_forbidden"


def test_several_bad_fields_are_all_named() -> None:
    with pytest.raises(ValidationError) as info:
        Settings(k=0, match=2)
    assert {e["loc"][0] for e in info.value.errors()} == {"k", "match"}


def test_defaults_are_valid_and_frozen() -> None:
    s = Settings()
    assert Settings(**s.model_dump()) == s
    with pytest.raises(ValidationError):
        s.k = 5  # type: ignore[misc]


@pytest.mark.parametrize("field", NUMERIC)
def test_field_bounds_agree_with_the_model(field: str) -> None:
    b = field_bounds(field)
    assert b["kind"] == ("int" if field in ("k", "seed", "tokens") else "float")
    lo, hi, step = b["min"], b["max"], b["step"]
    assert lo < hi
    assert step > 0
    assert lo <= b["default"] <= hi
    assert Settings(**{field: hi}).model_dump()[field] == hi
    with pytest.raises(ValidationError):
        Settings(**{field: hi + step})
    with pytest.raises(ValidationError):
        Settings(**{field: lo - step})
    if "gt" in b:  # exclusive minimum: the bound itself is refused, one step above is fine
        with pytest.raises(ValidationError):
            Settings(**{field: lo})
        assert Settings(**{field: lo + step}).model_dump()[field] == pytest.approx(lo + step)
    else:
        assert Settings(**{field: lo}).model_dump()[field] == lo
    # A slider with this step lands on the default and on both ends.
    for x in (b["default"] - lo, hi - lo):
        assert x / step == pytest.approx(round(x / step), abs=1e-6)
    assert str(int(hi)) in expected_text(field)


def test_bool_and_text_fields_have_no_numeric_bounds() -> None:
    for field in ("verify", "repair", "greedy"):
        assert field_bounds(field)["kind"] == "bool"
        assert expected_text(field) == "true or false"
        assert Settings(**{field: "off"}).model_dump()[field] is False
    assert field_bounds("prompt")["max_length"] == 200


def test_every_setting_declares_exactly_one_thing_it_affects() -> None:
    from witness.core.settings import Affects, affects, tagged

    for name in Settings.model_fields:
        assert isinstance(affects(name), Affects)  # zero or two tags fail to unpack
    assert sorted(n for t in Affects for n in tagged(t)) == sorted(Settings.model_fields)
