"""The carry-in table: each workload field, its value, and which source it came from.

Precedence (docs/route-memory.md): a link beats the saved Serving checkpoint, which beats the
defaults, field by field. The browser fills fields from the saved checkpoint by adding them
to the URL with `memory=<fields>`, so the server can say where each one came from.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.state import WORKLOAD_FIELDS, StationState, number_text

LABELS = {"prompt": "Prompt", "ttft_ms": "TTFT", "tpot_ms": "TPOT", "tokens": "Tokens to generate"}
UNITS = {"ttft_ms": " ms", "tpot_ms": " ms"}


@dataclass(frozen=True, slots=True)
class CarryRow:
    field: str
    label: str
    value: str
    source: str


def carry_rows(state: StationState) -> tuple[CarryRow, ...]:
    rows = []
    for name in WORKLOAD_FIELDS:
        value = getattr(state.settings, name)
        text = value if isinstance(value, str) else number_text(value) + UNITS.get(name, "")
        rows.append(CarryRow(name, LABELS[name], text, _source(state, name)))
    return tuple(rows)


def _source(state: StationState, name: str) -> str:
    if name in state.memory:
        return "saved Serving checkpoint"
    if name in state.given:
        who = {"serving": "link from Serving", "cockpit": "link from the route cockpit"}
        return who.get(state.origin, "link (this page's address)")
    if state.origin:
        return "default (the link did not carry it)"
    return "default"
