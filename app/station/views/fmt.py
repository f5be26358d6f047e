"""Number formatting shared by every panel, so a speedup reads the same everywhere."""

from __future__ import annotations

import math


def speedup(x: float | None) -> str:
    """'2.29×', or 'unbounded' where the speculative cost is zero (verify off, free draft):
    None from one request, inf from the mean of requests that all cost nothing."""
    return "unbounded" if x is None or math.isinf(x) else f"{x:.2f}×"


def prob(x: float) -> str:
    """Probabilities to three places, with tiny non-zero values shown as such, not as 0."""
    if x == 0:
        return "0"
    if x < 0.001:
        return "<0.001"
    return f"{x:.3f}"


def distance(x: float) -> str:
    """A total-variation distance: exact zero (to 1e-12) reads as 0."""
    return "0" if x <= 1e-12 else f"{x:.3f}" if x >= 0.001 else f"{x:.1e}"


def p_value(x: float) -> str:
    if x == 0:
        return "< 1e-300"
    return f"{x:.3f}" if x >= 0.001 else f"{x:.1e}"


def ms(x: float) -> str:
    return f"{x:,.0f} ms"


def pass_ms(x: float) -> str:
    """One pass's time: a few significant figures, since a pass takes from under a
    millisecond to hundreds of them."""
    if x >= 100:
        return f"{x:,.1f} ms"
    return f"{x:.2f} ms" if x >= 1 else f"{x:.3f} ms"


def setting(x: float) -> str:
    return f"{x:.2f}"


def on_off(x: bool) -> str:
    """A switch as the instrument labels it."""
    return "on" if x else "off"
