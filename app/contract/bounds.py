"""The longest reopen link a checkpoint can carry, derived from what the station writes.

A checkpoint's `url` is `StationState.url()`: the canonical query of every setting that is
not its default, the view fields and the view options. Its bound in the schema (and so in the
browser's validator) is the length of that link with every part at its longest text: each
setting at a value whose text is longest (a float written with 17 significant digits and an
exponent, an int at its longest end, the longest choice, the prompt at its most characters
each taking the most bytes in UTF-8, then percent-encoded), a prediction with both
expectations and a base recording the drafting, every origin, memory field and option set.
That is an upper bound: a few of those values are not allowed together (a tree four wide is
at most two deep), so no real link reaches it, but none can pass it.

The bound is computed, never written down, so a setting, option or field added later moves it
with the schema it lands in (`python -m app.contract.generate`).
"""

from __future__ import annotations

import sys
from functools import cache
from typing import Any
from urllib.parse import quote_plus

from app.contract.route import WORKLOAD_FIELDS, Intervention
from app.station.state.options import VIEWS, ViewOptions
from app.station.state.presets import BY_ID
from app.station.state.query import ORIGINS, Prediction, StationState, number_text, parse_state
from witness import Settings
from witness.core.settings import choices, field_bounds

# The widest code point in UTF-8 is four bytes, each written %XX by the query's encoder.
WIDEST_CHARACTER = "\U0010ffff"
# Floats whose shortest round-trip text is the longest a float can have (23 characters for
# a positive one: 17 significant digits, a point and a three-digit exponent; one with a
# positive exponent has a "+", which the query writes as %2B).
LONG_FLOATS = (sys.float_info.min, 1.2345678901234567e16, sys.float_info.max)
# A probe's ceiling for an integer view field's range (block, sub): far past any of them.
PROBE_MAX = 10**12


def _longest(values: list[Any], text: Any, default: Any) -> Any:
    """The value with the longest text in a query among those that are not the default (a
    default is left out of the query, so it adds nothing)."""
    usable = [v for v in values if v != default] or values
    return max(usable, key=lambda v: len(quote_plus(text(v))))


def _in_range(x: float, bounds: dict[str, Any]) -> bool:
    return (
        ("ge" not in bounds or x >= bounds["ge"])
        and ("gt" not in bounds or x > bounds["gt"])
        and ("le" not in bounds or x <= bounds["le"])
        and ("lt" not in bounds or x < bounds["lt"])
    )


def longest_setting(name: str) -> Any:
    """The value of one `witness.Settings` field whose text in a link is the longest."""
    bounds = field_bounds(name)
    kind, default = bounds["kind"], bounds["default"]
    if kind == "bool":
        return not default
    if kind == "choice":
        return _longest(list(choices(name)), str, default)
    if kind == "str":
        return WIDEST_CHARACTER * int(bounds["max_length"])
    if kind == "int":
        return _longest([bounds["min"], bounds["max"]], str, default)
    candidates = [x for x in (*LONG_FLOATS, bounds["min"], bounds["max"]) if x is not None]
    return _longest(
        [float(x) for x in candidates if _in_range(float(x), bounds)], number_text, default
    )


def _largest_accepted(field: str) -> int:
    """The largest integer the page's parser takes for a view field (0 if it takes none)."""
    low, high = 0, PROBE_MAX
    if any(p.field == field for p in parse_state([(field, "0")]).problems):
        return 0
    while low < high:  # low is accepted; find the last accepted value below high
        middle = (low + high + 1) // 2
        refused = any(p.field == field for p in parse_state([(field, str(middle))]).problems)
        low, high = (low, middle - 1) if refused else (middle, high)
    return low


@cache
def longest_station_url() -> str:
    """The longest link `checkpoint.url` can hold (see the module's docstring)."""
    settings = Settings.model_construct(
        **{name: longest_setting(name) for name in Settings.model_fields}
    )
    prediction = Prediction(
        intervention=max(Intervention, key=lambda i: len(quote_plus(i.value))),
        expect_faster=True,
        expect_kept=True,
        base=settings,
    )
    options = ViewOptions(
        preset=max(BY_ID, key=len),
        view=max(VIEWS, key=len),
        embed=True,
        sub=_largest_accepted("sub"),
        slice=True,
        race=True,
    )
    state = StationState(
        settings=settings,
        prediction=prediction,
        block=_largest_accepted("block"),
        origin=max(ORIGINS, key=len),
        memory=WORKLOAD_FIELDS,
        options=options,
    )
    return state.url()


def station_url_max() -> int:
    return len(longest_station_url())
