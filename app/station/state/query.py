"""The station's whole state, read from a query string and written back to one.

Any state on screen is a URL: the witness `Settings` plus the view's own fields (the
recorded prediction, the settings it was made at, the selected block). Parsing never raises:
bad values become `FieldProblem`s that the page shows in place, beside the defaults it fell
back to, so a mistyped link still renders a working station.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any
from urllib.parse import quote_plus, unquote_to_bytes

from pydantic import ValidationError

from app.contract.route import WORKLOAD_FIELDS, Intervention
from app.station.state.options import OPTION_FIELDS, ViewOptions, parse_options
from witness import Settings
from witness.core.settings import expected_text, shown

INTERVENTION_LABELS: dict[Intervention, str] = {
    Intervention.RAISE_MATCH: "Raise draft-target match",
    Intervention.LENGTHEN_K: "Lengthen the draft (k)",
    Intervention.CHEAPEN_DRAFT: "Cheapen the draft",
    Intervention.SKIP_VERIFY: "Skip target verification",
    Intervention.SKIP_REPAIR: "Skip residual repair",
}

YES_NO = {"yes": True, "no": False}
# The settings an intervention acts on; `base` records them as they were at prediction time.
BASE_FIELDS = ("match", "k", "draft_cost", "verify", "repair", "greedy")


@dataclass(frozen=True, slots=True)
class FieldProblem:
    field: str
    message: str


@dataclass(frozen=True, slots=True)
class Prediction:
    intervention: Intervention
    expect_faster: bool | None
    expect_kept: bool | None
    base: Settings  # the instrument as it stood when the prediction was recorded


@dataclass(frozen=True, slots=True)
class StationState:
    settings: Settings
    prediction: Prediction | None
    block: int | None
    origin: str = ""  # who linked the learner in: "serving", "cockpit" or "" (nobody said)
    memory: tuple[str, ...] = ()  # workload fields filled in from the saved Serving checkpoint
    problems: tuple[FieldProblem, ...] = ()
    given: frozenset[str] = frozenset()  # the settings this query spelled out (carry-in sources)
    options: ViewOptions = ViewOptions()

    def query(self, **overrides: Any) -> dict[str, str]:
        """The canonical query: only what differs from the defaults, in a stable order."""
        return state_query(replace(self, **overrides) if overrides else self)

    def url(self, path: str = "/station", **overrides: Any) -> str:
        q = self.query(**overrides)
        return f"{path}?{encode_query(q)}" if q else path


def encode_query(query: Mapping[str, str]) -> str:
    """`urllib.parse.urlencode` for str values, with each part's quoting remembered: a page
    writes dozens of links that share most of their parts."""
    return "&".join(f"{_quote(k)}={_quote(v)}" for k, v in query.items())


_quote = lru_cache(maxsize=1024)(quote_plus)


PREDICTION_FIELDS = ("pred", "expect_faster", "expect_kept", "base")
VIEW_FIELDS = (*PREDICTION_FIELDS, "block", "from", "memory", *OPTION_FIELDS)
ORIGINS = ("serving", "cockpit")


def parse_query(query_string: bytes) -> StationState:
    """`parse_state` of a raw query string, as the server received it. A part that is not
    percent-encoded UTF-8 (``%ZZ``, ``%FF``) is refused by name, never decoded into a guess."""
    pairs, problems = decode_query(query_string)
    state = parse_state(pairs)
    return replace(state, problems=(*problems, *state.problems)) if problems else state


def decode_query(query_string: bytes) -> tuple[list[tuple[str, str]], list[FieldProblem]]:
    """A raw query's well-formed (name, value) pairs, and a problem for each part that is not
    percent-encoded UTF-8 (the JSON API refuses those with the same message)."""
    pairs: list[tuple[str, str]] = []
    problems: list[FieldProblem] = []
    for part in query_string.decode("latin-1").split("&"):
        if not part:
            continue
        key, _, value = part.replace("+", " ").partition("=")
        name, name_ok = _decoded(key)
        text, value_ok = _decoded(value)
        if name_ok and value_ok:
            pairs.append((name, text))
            continue
        shown_name = shown_key(name)
        expected = f"{expected_text(name)}, " if name in Settings.model_fields else ""
        problems.append(
            FieldProblem(
                shown_name,
                f"{shown_name} must be {expected}percent-encoded as UTF-8 (got {shown(part)}); "
                "it was ignored",
            )
        )
    return pairs, problems


_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


def _decoded(text: str) -> tuple[str, bool]:
    """The percent-decoded text, and whether it was well formed (escapes, then UTF-8)."""
    raw = unquote_to_bytes(text)
    try:
        return raw.decode("utf-8"), not _BAD_ESCAPE.search(text)
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace"), False


def shown_key(name: str) -> str:
    """A parameter's name as a message may show it: control characters escaped, and cut
    short (a name is echoed back to the learner, never a megabyte of it)."""
    text = name if name.isprintable() else repr(name)[1:-1]
    return text if len(text) <= 40 else text[:37] + "..."


def ascii_int(text: str) -> int | None:
    """An integer written in ASCII digits (``int()`` also reads ``٣`` and ``1_0``)."""
    return int(text) if _ASCII_INT.fullmatch(text) else None


_ASCII_INT = re.compile(r"[+-]?[0-9]{1,20}")


def parse_state(params: Iterable[tuple[str, str]]) -> StationState:
    """Read a query string; the last value of a repeated key wins (as a form's would)."""
    raw: dict[str, str] = {}
    for key, value in params:
        raw[key] = value
    problems: list[FieldProblem] = []
    settings = _settings(raw, problems)
    prediction = _prediction(raw, settings, problems)
    block = _int_field(raw, "block", 0, 255, problems)
    unknown = sorted(set(raw) - set(Settings.model_fields) - set(VIEW_FIELDS))
    problems += [
        FieldProblem(
            shown_key(k), f"{shown_key(k)} is not a setting of this station; it was ignored"
        )
        for k in unknown
    ]
    origin = raw.get("from", "")
    if origin and origin not in ORIGINS:
        problems.append(
            FieldProblem("from", f"from must be serving or cockpit (got {shown(origin)})")
        )
        origin = ""
    memory = _memory_fields(raw.get("memory", ""), problems)
    given = frozenset(k for k in raw if k in Settings.model_fields)
    found: list[tuple[str, str]] = []
    options = parse_options(raw, found)
    problems += [FieldProblem(f, m) for f, m in found]
    return StationState(
        settings, prediction, block, origin, memory, tuple(problems), given, options
    )


def _memory_fields(text: str, problems: list[FieldProblem]) -> tuple[str, ...]:
    names = tuple(n for n in text.split(",") if n)
    if all(n in WORKLOAD_FIELDS for n in names):
        return tuple(n for n in WORKLOAD_FIELDS if n in names)
    problems.append(
        FieldProblem(
            "memory", f"memory must be a list of workload fields ({', '.join(WORKLOAD_FIELDS)})"
        )
    )
    return ()


def _settings(raw: Mapping[str, str], problems: list[FieldProblem]) -> Settings:
    given = {k: v for k, v in raw.items() if k in Settings.model_fields}
    # A field that fell back to its default can make a later one invalid in combination
    # (k=99&tree_width=3: k's default 4 is too deep for width 3), so drop and retry; every
    # round drops at least one field, and an empty query is valid.
    while True:
        try:
            return Settings.model_validate(given)
        except ValidationError as exc:
            before = len(given)
            for err in exc.errors():
                name = str(err["loc"][0]) if err["loc"] else "settings"
                given.pop(name, None)
                problems.append(FieldProblem(name, f"{err['msg']}; the default was used"))
            if len(given) == before:  # nothing left to drop: the defaults
                return Settings()


def _int_field(
    raw: Mapping[str, str], name: str, low: int, high: int, problems: list[FieldProblem]
) -> int | None:
    if name not in raw or raw[name] == "":
        return None
    value = ascii_int(raw[name])
    if value is not None and low <= value <= high:
        return value
    problems.append(
        FieldProblem(
            name, f"{name} must be an integer from {low} to {high} (got {shown(raw[name])})"
        )
    )
    return None


def _prediction(
    raw: Mapping[str, str], settings: Settings, problems: list[FieldProblem]
) -> Prediction | None:
    # The expectations and the base are read (and refused by name) even without a
    # prediction: a link that carries them means something by them.
    expectations = []
    for name in ("expect_faster", "expect_kept"):
        value = raw.get(name, "")
        if value and value not in YES_NO:
            problems.append(FieldProblem(name, f"{name} must be yes or no (got {shown(value)})"))
        expectations.append(YES_NO.get(value))
    base = decode_base(raw.get("base", ""), settings, problems)
    if not raw.get("pred"):
        return None
    try:
        intervention = Intervention(raw["pred"])
    except ValueError:
        allowed = ", ".join(i.value for i in Intervention)
        problems.append(
            FieldProblem("pred", f"pred must be one of {allowed} (got {shown(raw['pred'])})")
        )
        return None
    return Prediction(intervention, expectations[0], expectations[1], base)


# The drafting a prediction was made with: written after BASE_FIELDS only when it is not the
# chain, so every link made before trees existed (six fields) still reads as the chain.
DRAFTING_FIELDS = ("tree_width", "drafting", "acceptance", "draft_source")
# Everything the prediction's base records: what "nothing has changed since" compares.
RECORDED_FIELDS = (*BASE_FIELDS, *DRAFTING_FIELDS)


@lru_cache(maxsize=1024)
def encode_base(s: Settings) -> str:
    """Compact text of the settings an intervention acts on, e.g. "0.6,4,0.1,1,1,0", then
    the drafting when it is not the chain ("…,2,sample,exact,model")."""
    fields: tuple[str, ...] = BASE_FIELDS
    if any(getattr(s, f) != getattr(_DEFAULTS, f) for f in DRAFTING_FIELDS):
        fields = (*BASE_FIELDS, *DRAFTING_FIELDS)
    return ",".join(
        str(int(v)) if isinstance(v, bool) else number_text(v) if isinstance(v, float) else str(v)
        for v in (getattr(s, f) for f in fields)
    )


def decode_base(text: str, current: Settings, problems: list[FieldProblem]) -> Settings:
    if not text:
        return current
    parts = text.split(",")
    names = BASE_FIELDS if len(parts) == len(BASE_FIELDS) else (*BASE_FIELDS, *DRAFTING_FIELDS)
    try:
        if len(parts) != len(names):
            raise ValueError
        drafting = {f: getattr(_DEFAULTS, f) for f in DRAFTING_FIELDS}
        return current.model_validate(
            current.model_dump() | drafting | dict(zip(names, parts, strict=True))
        )
    except (ValueError, ValidationError):
        problems.append(
            FieldProblem(
                "base",
                "base must list match, k, draft cost, verify, repair, greedy as "
                f"'{encode_base(Settings())}' ({expected_text('match')}, {expected_text('k')}, "
                "...), then tree width, drafting, acceptance and draft source when the "
                "prediction was made with a tree, typical acceptance or prompt lookup; the "
                "current settings were used",
            )
        )
        return current


def state_query(state: StationState) -> dict[str, str]:
    out = dict(_settings_query(state.settings, bool(state.origin or state.memory)))
    if state.origin:
        out["from"] = state.origin
    if state.memory:
        out["memory"] = ",".join(state.memory)
    if state.prediction is not None:
        pred = state.prediction
        out["pred"] = pred.intervention.value
        for name, value in (
            ("expect_faster", pred.expect_faster),
            ("expect_kept", pred.expect_kept),
        ):
            if value is not None:
                out[name] = "yes" if value else "no"
        out["base"] = encode_base(pred.base)
    out.update(state.options.query())
    # The selected block comes last, so a page can write one link per block by appending it.
    if state.block is not None:
        out["block"] = str(state.block)
    return out


@lru_cache(maxsize=1024)
def _settings_query(settings: Settings, carried: bool) -> tuple[tuple[str, str], ...]:
    """The settings' part of a query (cached: every link on a page starts with it)."""
    # A carried-in workload is spelled out even where it equals a default, so a reload can
    # never mistake "the link said 30 ms" for "nobody said" and fill it from memory instead.
    spelled = WORKLOAD_FIELDS if carried else ()
    return tuple(
        (name, _text(value))
        for name in Settings.model_fields
        if (value := getattr(settings, name)) != getattr(_DEFAULTS, name) or name in spelled
    )


_DEFAULTS = Settings()


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return number_text(value)
    return str(value)


def number_text(x: float) -> str:
    """Shortest text that reads back as the same float ("0.6", "30"): links stay exact."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text
