"""How the page names the cost of a draft: the slider's c, or a machine's price per draft.

With machine custom a drafted level costs c of a target pass and the target pass costs the
same whatever it scores. On a machine the verifying pass grows dearer as it scores more, and
the station folds that surcharge into the price of each drafted level at that k
(`witness.cost.costing.price`), so every formula it quotes holds with the price in c's place.
These helpers pick the words for it (``judgement.cost`` in app/words/judgement.toml).
"""

from __future__ import annotations

from typing import Literal

from app.words import Sentence, say
from witness.core.settings import Settings
from witness.cost.costing import costing, price


def on_machine(s: Settings) -> bool:
    return s.machine != "custom"


def priced(s: Settings) -> Literal["custom", "machine"]:
    """How ``s`` prices a draft: the mode of every ``judgement.cost`` sentence."""
    return "machine" if on_machine(s) else "custom"


def cost_name(s: Settings) -> Sentence:
    """What the page calls the cost of one drafted level."""
    return say(f"judgement.cost.name.{priced(s)}")


def cost_now(s: Settings, k: int | None = None) -> Sentence:
    """'c = 0.45', or on a machine 'the price per draft = 0.17 (c = 0.15 for the draft pass,
    + 0.02 for the larger verifying pass)'."""
    total = price(s, k)
    if not on_machine(s):
        return say("judgement.cost.now.custom", price=f"{total:.2f}")
    c = costing(s).c
    return say(
        "judgement.cost.now.machine",
        price=f"{total:.2f}",
        c=f"{c:.2f}",
        surcharge=f"{total - c:.2f}",
    )


def cost_short(s: Settings, k: int | None = None) -> Sentence:
    """'c = 0.45' or 'price per draft 0.17': a parenthesis's worth."""
    return say(f"judgement.cost.short.{priced(s)}", price=f"{price(s, k):.2f}")
