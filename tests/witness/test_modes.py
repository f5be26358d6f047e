"""The mode names and the switches that select them."""

from __future__ import annotations

import itertools

from witness.core.modes import MODES, mode_of, switches


def test_switches_and_modes_agree() -> None:
    assert [m for m, _, _ in MODES] == ["lossless", "no_repair", "no_verify"]
    for mode, verify, repair in MODES:
        assert mode_of(verify, repair) == mode
        assert switches(mode) == (verify, repair)
    for verify, repair in itertools.product([True, False], repeat=2):
        assert mode_of(*switches(mode_of(verify, repair))) == mode_of(verify, repair)
