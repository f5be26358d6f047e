"""A served token's marks: the shape and the words that say what happened to it, besides its
colour, so a learner who cannot tell the colours apart still reads which token was kept,
thrown away, repaired or given as a bonus.

The page draws a mark after each token from CSS (`static/css/marks.css`, generated from
`MARKS` by `python -m app.contract.generate`), with the label as the mark's alternative text
(`content: "✓" / "accepted"`): a screen reader says "accepted" where the eye sees ✓, and a
token in the HTML is its word and its class alone, sent with every slider tick.
"""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Mark:
    style: str  # the token's class after "tok--"
    glyph: str
    label: str


_MARKS = (
    Mark("accepted", "✓", "accepted"),
    Mark("rejected", "✗", "rejected draft"),
    Mark("repaired", "R", "repaired from the residual"),
    Mark("bonus", "+", "bonus from p"),
    Mark("unchecked", "?", "unchecked draft"),
    # Typical acceptance's closing token is not a repair: when no sibling is typical it emits
    # the target's argmax. It keeps the repaired token's style with its own mark and words,
    # so it comes after "repaired" (the later rule wins).
    Mark("argmax", "A", "the target's argmax (typical acceptance)"),
)
MARKS = {m.style: m for m in _MARKS}


def marks_css() -> str:
    """Each mark as CSS: the glyph alone first, for a browser without alternative text in
    `content`; in the legend, where the label is written beside it, an empty alternative."""

    def rule(selector: str, glyph: str, alt: str) -> str:
        g, a = json.dumps(glyph, ensure_ascii=False), json.dumps(alt, ensure_ascii=False)
        return f"{selector}::after {{ content: {g}; content: {g} / {a}; }}"

    lines = [
        "/* GENERATED: do not edit. A served token's marks (app/station/views/marks.py), written",
        "   by `python -m app.contract.generate` (`make setup` runs it; a test checks it). */",
    ]
    lines += [rule(f".tok--{m.style}", m.glyph, m.label) for m in _MARKS]
    lines += [rule(f".legend .tok--{m.style}", m.glyph, "") for m in _MARKS]
    return "\n".join(lines) + "\n"
