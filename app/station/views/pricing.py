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
from witness.core.theory import expected_speedup
from witness.cost.costing import costing, price, priced_optimum, scored_per_sequence


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


def measured_gap(alpha: float, s: Settings, k_max: int) -> str:
    """Where measured passes price ``s``: its best k beside the roofline's for the same state,
    and why they differ (the draft's measured c and the verifying pass's measured cost at
    the roofline's best k). Empty where the roofline or custom prices it."""
    if not costing(s).measured:
        return ""
    roof = s.model_copy(update={"stack": "roofline"})
    k, k_roof = priced_optimum(s, alpha, k_max).k, priced_optimum(roof, alpha, k_max).k
    mode = "smaller" if k < k_roof else "larger" if k > k_roof else "same"
    scored = scored_per_sequence(s, k_roof)
    c, c_roof = costing(s).c, costing(roof).c
    v, v_roof = costing(s).verify(scored), costing(roof).verify(scored)
    parts = []
    if round(c, 2) != round(c_roof, 2):
        parts.append(say("sweep.measured.why.draft", c=f"{c:.2f}", c_roof=f"{c_roof:.2f}"))
    if round(v, 2) != round(v_roof, 2):
        parts.append(
            say("sweep.measured.why.verify", scored=scored, v=f"{v:.2f}", v_roof=f"{v_roof:.2f}")
        )
    if len(parts) == 2:
        why = say("sweep.measured.why.both", draft=parts[0], verify=parts[1])
    else:
        why = parts[0] if parts else say("sweep.measured.why.none")
    values = {
        "k": k,
        "speedup": f"{float(expected_speedup(alpha, k, price(s, k))):.2f}×",
        "speedup_roof": f"{float(expected_speedup(alpha, k_roof, price(roof, k_roof))):.2f}×",
        "why": why,
    }
    return say(f"sweep.measured.{mode}", **values, **({} if k == k_roof else {"k_roof": k_roof}))
