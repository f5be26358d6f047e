"""How the page names the cost of a draft: the slider's c, or a machine's price per draft.

With machine custom a drafted level costs c of a target pass and the target pass costs the
same whatever it scores. On a machine the verifying pass grows dearer as it scores more, and
the station folds that surcharge into the price of each drafted level at that k
(`witness.cost.costing.price`), so every formula it quotes holds with the price in c's place.
These helpers keep the words for it in one place.
"""

from __future__ import annotations

from witness.core.settings import Settings
from witness.cost.costing import costing, price


def on_machine(s: Settings) -> bool:
    return s.machine != "custom"


def cost_name(s: Settings) -> str:
    """What the page calls the cost of one drafted level."""
    return "the price per draft" if on_machine(s) else "the draft cost"


def cost_now(s: Settings, k: int | None = None) -> str:
    """'c = 0.45', or on a machine 'the price per draft = 0.17 (c = 0.15 for the draft pass,
    + 0.02 for the larger verifying pass)'."""
    if not on_machine(s):
        return f"c = {price(s, k):.2f}"
    c, total = costing(s).c, price(s, k)
    return (
        f"the price per draft = {total:.2f} (c = {c:.2f} for the draft pass, "
        f"+ {total - c:.2f} for the larger verifying pass)"
    )


def cost_short(s: Settings, k: int | None = None) -> str:
    """'c = 0.45' or 'price 0.17': a parenthesis's worth."""
    return f"c = {price(s, k):.2f}" if not on_machine(s) else f"price per draft {price(s, k):.2f}"
