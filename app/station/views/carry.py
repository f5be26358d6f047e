"""The carry-in table: each workload field, its value, and which source it came from.

Precedence (docs/route-memory.md): a link beats the saved Serving checkpoint, which beats the
defaults, field by field. The browser fills fields from the saved checkpoint by adding them
to the URL with `memory=<fields>`, so the server can say where each one came from.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.contract.route import WORKLOAD
from app.station.state.query import StationState, number_text
from app.words import Sentence, say


@dataclass(frozen=True, slots=True)
class CarryRow:
    field: str
    label: str
    value: str
    source: str


def carry_rows(state: StationState) -> tuple[CarryRow, ...]:
    rows = []
    for field in WORKLOAD:
        name = field.setting
        value = getattr(state.settings, name)
        text = value if isinstance(value, str) else number_text(value) + field.unit
        rows.append(CarryRow(name, field.label, text, _source(state, name)))
    return tuple(rows)


# The pages whose links the table names by where they came from.
LINKS = ("serving", "cockpit")


def _source(state: StationState, name: str) -> Sentence:
    """Where the field's value came from: the mode of ``carry.source``."""
    if name in state.memory:
        return say("carry.source.memory")
    if name in state.given:
        origin = state.origin if state.origin in LINKS else "link"
        return say(f"carry.source.{origin}")
    if state.origin:
        return say("carry.source.default_not_carried")
    return say("carry.source.default")
