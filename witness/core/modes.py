"""The three ways a drafted position can be emitted, named by the switches that choose them.

The names are the rows of the switches table: verify and repair on is ``lossless``; verify
on and repair off is ``no_repair``; verify off is ``no_verify`` (repair then does nothing).
"""

from __future__ import annotations

from typing import Literal

Mode = Literal["lossless", "no_repair", "no_verify"]

# (mode, verify, repair), in the order the evaluation slice reports them.
MODES: tuple[tuple[Mode, bool, bool], ...] = (
    ("lossless", True, True),
    ("no_repair", True, False),
    ("no_verify", False, True),
)


def mode_of(verify: bool, repair: bool) -> Mode:
    """The mode the switches select.

    Examples
    --------
    >>> mode_of(True, True), mode_of(True, False), mode_of(False, False)
    ('lossless', 'no_repair', 'no_verify')
    """
    if not verify:
        return "no_verify"
    return "lossless" if repair else "no_repair"


def switches(mode: Mode) -> tuple[bool, bool]:
    """``(verify, repair)`` for a mode: the inverse of `mode_of`, with repair on for no_verify.

    Examples
    --------
    >>> switches("no_repair")
    (True, False)
    """
    return {m: (verify, repair) for m, verify, repair in MODES}[mode]
