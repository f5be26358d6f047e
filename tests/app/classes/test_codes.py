"""A class code as a learner types it: any case and spaces are forgiven, nothing else."""

from __future__ import annotations

import pytest

from app.classes.codes import new_code, normal_code


def test_a_code_in_any_case_with_spaces_is_the_code() -> None:
    code = new_code()
    assert normal_code(f"  {code.lower()} ") == code


@pytest.mark.parametrize(
    "typed",
    [
        "ßßß",  # "ß".upper() is "SS": this would read as the six-letter code SSSSSS
        "ssßß",  # …and this as SSSSSS too
        "ＡＢＣＤＥＦ",  # full-width letters: not the alphabet
        "",
        "ABC2345",
    ],
)
def test_what_only_becomes_a_code_by_unicode_case_rules_is_refused(typed: str) -> None:
    assert normal_code(typed) is None


def test_teeth_without_the_ascii_rule_sharp_s_would_join_a_class() -> None:
    # What the rule stops: the naive reading turns "ßßß" into "SSSSSS", a well-formed code.
    assert "ßßß".upper() == "SSSSSS"
    assert normal_code("SSSSSS") == "SSSSSS"
