"""The Manipulation panel's controls, built from the witness `Settings` model's bounds.

Min, max, step and help text come from the model (one place), so a slider can never offer
a value the witness would refuse.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.state.query import FieldProblem, number_text
from app.views import fmt
from witness import Settings
from witness.core.settings import DISTINCT_WIDTH_MAX, TREE_NODES_MAX, field_bounds, tree_nodes
from witness.cost.costing import MACHINES, PAIRS, costing, price, scored_per_sequence
from witness.methods.block import is_chain
from witness.methods.lookup import NGRAM_MAX
from witness.methods.typical import DELTA, EPSILON

SLIDERS = ("match", "k", "draft_cost")
SWITCHES = ("verify", "repair")
WORKLOAD = ("prompt", "tokens", "ttft_ms", "tpot_ms")
# The advanced drafting control: how a block's drafts are made and checked.
DRAFTING = ("tree_width", "drafting", "acceptance", "draft_source")
# What each choice is, beside its value (the value itself is the model's, never copied here;
# a choice the witness adds without a note here is shown by its value alone).
CHOICE_NOTES: dict[str, dict[str, str]] = {
    "drafting": {
        "sample": "independent draws from q (SpecInfer)",
        "distinct": "draws from q without replacement (Sequoia)",
        "top": "q's most likely words (EAGLE-2)",
    },
    "acceptance": {
        "exact": "rejection sampling against p: lossless",
        "typical": "Medusa's threshold on p(x): not lossless",
    },
    "draft_source": {
        "model": "the draft model proposes",
        "lookup": "prompt lookup copies earlier words: no draft model",
        "adversary": "an adversarial draft: it proposes the target's least likely word",
    },
    # The labels come from witness.cost.costing, where each number is cited.
    "machine": {"custom": "the c slider; every target pass costs one"}
    | {m.id: m.label for m in MACHINES.values()},
    "pair": {p.id: p.label for p in PAIRS.values()},
}


@dataclass(frozen=True, slots=True)
class Control:
    name: str
    label: str
    help: str
    value: str
    value_text: str
    min: str
    max: str
    step: str
    error: str
    options: tuple[Option, ...] = ()  # a choice setting's values, in the model's order


@dataclass(frozen=True, slots=True)
class Option:
    value: str
    note: str
    checked: bool


@dataclass(frozen=True, slots=True)
class DraftingView:
    """The advanced drafting control: four settings and what they make of a block."""

    width: Control
    drafting: Control
    acceptance: Control
    draft_source: Control
    summary: str  # what a full block drafts and who scores it, for these settings
    depth_note: str  # the deepest k this width allows
    notes: tuple[str, ...]  # what the acceptance rule and draft source give up or save
    open: bool  # any of the four differs from its default, or was refused

    @property
    def controls(self) -> tuple[Control, ...]:
        return (self.width, self.drafting, self.acceptance, self.draft_source)


@dataclass(frozen=True, slots=True)
class ControlsView:
    sliders: tuple[Control, ...]
    switches: tuple[Control, ...]
    greedy: Control
    seed: Control
    prompt: Control
    workload: tuple[Control, ...]
    drafting: DraftingView
    cost: CostView


def control(name: str, s: Settings, problems: tuple[FieldProblem, ...]) -> Control:
    info = Settings.model_fields[name]
    bounds = field_bounds(name)
    value = getattr(s, name)
    options: tuple[Option, ...] = ()
    if bounds["kind"] == "bool":
        text = fmt.on_off(value)
    elif bounds["kind"] == "choice":
        text = value
        notes = CHOICE_NOTES.get(name, {})
        options = tuple(Option(c, notes.get(c, ""), c == value) for c in bounds["choices"])
    elif bounds["kind"] == "str":
        text = value
    else:
        text = number_text(value)
    shown = f"{value:.2f}" if bounds["kind"] == "float" and name in SLIDERS else text
    return Control(
        name=name,
        label=info.title or name,
        help=info.description or "",
        value=text,
        value_text=shown,
        min=_bound(lowest_offered(bounds)),
        # A text field's bound is its max_length ("max" is there too, and None).
        max=_bound(bounds["max"] if bounds.get("max") is not None else bounds.get("max_length")),
        step=_bound(bounds.get("step")),
        error="; ".join(p.message for p in problems if p.field == name),
        options=options,
    )


def lowest_offered(bounds: dict[str, object]) -> object:
    """The lowest value a control may offer: for a strict bound (TPOT > 0), one step above."""
    if "gt" in bounds and "step" in bounds:
        return round(float(bounds["gt"]) + float(bounds["step"]), 12)  # type: ignore[arg-type]
    return bounds.get("min")


def _bound(x: object) -> str:
    if x is None:
        return ""
    return number_text(x) if isinstance(x, float) else str(x)


def controls_view(s: Settings, problems: tuple[FieldProblem, ...]) -> ControlsView:
    sliders = [control(n, s, problems) for n in SLIDERS]
    if s.machine != "custom":  # the slider waits for custom: say so where it stands
        i = SLIDERS.index("draft_cost")
        sliders[i] = replace(
            sliders[i],
            help=f"Used with machine custom. On {costing(s).machine_label} c is derived from "
            f"the model pair: now {costing(s).c:.3f} (under “Cost of a pass”).",
        )
    return ControlsView(
        sliders=tuple(sliders),
        switches=tuple(control(n, s, problems) for n in SWITCHES),
        greedy=control("greedy", s, problems),
        seed=control("seed", s, problems),
        prompt=control("prompt", s, problems),
        workload=tuple(control(n, s, problems) for n in WORKLOAD if n != "prompt"),
        drafting=drafting_view(s, problems),
        cost=cost_view(s, problems),
    )


K_MAX = int(field_bounds("k")["max"])


def deepest_k(width: int) -> int:
    """The largest k whose full tree at ``width`` the target scores in one pass."""
    return max(d for d in range(1, K_MAX + 1) if tree_nodes(width, d) <= TREE_NODES_MAX)


def _sum_text(width: int, depth: int) -> str:
    return " + ".join(str(width**d) for d in range(1, depth + 1))


def tree_text(s: Settings) -> str:
    """What one full block drafts, and who scores it: "a chain of 4 drafts, …"."""
    width, k = s.tree_width, s.k
    nodes = tree_nodes(width, k)
    scored = (
        "all scored in one target pass"
        if s.verify
        else "none scored: target verify is off, so the drafts stand unchecked"
    )
    if s.draft_source == "lookup":
        return (
            f"No draft model: a chain of at most {k} copied words per block, {scored}. Each "
            "block copies what followed the latest earlier occurrence of its last 1 to "
            f"{NGRAM_MAX} words in the prompt and text, and drafts nothing when there is none."
        )
    if width == 1:
        return f"A chain of {k} draft{'s' if k != 1 else ''} per full block, {scored}."
    return (
        f"A tree {width} wide and {k} deep: {_sum_text(width, k)} = {nodes} drafted nodes per "
        f"full block, {scored} (at most {TREE_NODES_MAX})."
    )


def depth_text(width: int) -> str:
    deepest = deepest_k(width)
    if deepest == K_MAX:
        return f"At width {width}, every k up to {K_MAX} fits in one target pass."
    return (
        f"At width {width}, k is at most {deepest}: {_sum_text(width, deepest)} = "
        f"{tree_nodes(width, deepest)} nodes; k = {deepest + 1} would draft "
        f"{tree_nodes(width, deepest + 1)}, past the {TREE_NODES_MAX} one pass scores."
    )


def _notes(s: Settings) -> tuple[str, ...]:
    notes = []
    if s.tokens - 1 < s.k:  # a block drafts no further than the request goes (room − 1)
        most = s.tokens - 1
        notes.append(
            f"This request is {s.tokens} token{'s' if s.tokens != 1 else ''} long, too short "
            f"for a full block: a block drafts at most {most} level{'s' if most != 1 else ''}."
        )
    if s.tree_width == 1 and s.drafting == "distinct" and is_chain(s):
        notes.append(
            "With one sibling and exact acceptance this is the chain: distinct drafting "
            "changes nothing until the width is 2 or more."
        )
    if s.tree_width == 1 and s.drafting == "top" and s.draft_source != "lookup":
        notes.append(
            "One sibling drafted top is q's most likely token at every level, not a draw "
            "from q: it stands with probability p(x)."
        )
    if s.tree_width > DISTINCT_WIDTH_MAX:
        notes.append(
            f"Distinct drafting is checked exactly only up to width {DISTINCT_WIDTH_MAX}; at "
            f"width {s.tree_width} the station refuses it."
        )
    if s.acceptance == "typical" and not s.verify:
        notes.append("Target verify is off, so no acceptance rule runs: nothing is checked.")
    elif s.acceptance == "typical":
        notes.append(
            "Typical acceptance is not lossless: a drafted word stands when its p(x) clears "
            f"min({EPSILON:g}, {DELTA:g}·e^(−H(p))), and nothing is resampled, so the output "
            "leans toward the draft."
        )
    if s.draft_source == "lookup":
        needs = ", ".join(
            f"{Settings.model_fields[n].title} {field_bounds(n)['default']}"
            for n in ("tree_width", "drafting", "acceptance")
        )
        notes.append(
            "Prompt lookup uses no draft model: copying costs nothing, so the draft cost c "
            f"counts as 0. It drafts one copied chain, checked exactly ({needs})."
        )
    return tuple(notes)


def drafting_view(s: Settings, problems: tuple[FieldProblem, ...]) -> DraftingView:
    controls, opened = _group(DRAFTING, s, problems)
    return DraftingView(
        width=controls["tree_width"],
        drafting=controls["drafting"],
        acceptance=controls["acceptance"],
        draft_source=controls["draft_source"],
        summary=tree_text(s),
        depth_note=depth_text(s.tree_width),
        notes=_notes(s),
        open=opened,
    )


def _group(
    names: tuple[str, ...], s: Settings, problems: tuple[FieldProblem, ...]
) -> tuple[dict[str, Control], bool]:
    """A folded group's controls, and whether it opens: any of them moved from its default,
    or refused."""
    controls = {n: control(n, s, problems) for n in names}
    moved = any(getattr(s, n) != field_bounds(n)["default"] for n in names)
    return controls, moved or any(c.error for c in controls.values())


# The cost-of-a-pass control: which machine prices the passes, and of what.
COST = ("machine", "pair", "batch", "context")


@dataclass(frozen=True, slots=True)
class CostView:
    """The cost-of-a-pass control and the server's words for what it prices (cost_text)."""

    machine: Control
    pair: Control
    batch: Control
    context: Control
    lines: tuple[str, ...]  # what a pass costs here, with the formula's numbers
    source: str  # where the machine's and the models' numbers come from
    open: bool

    @property
    def controls(self) -> tuple[Control, ...]:
        return (self.machine, self.pair, self.batch, self.context)


def _gb(x: float) -> str:
    return f"{x / 1e9:.1f} GB"


def cost_lines(s: Settings) -> tuple[str, ...]:
    """What one pass costs under ``s``, every number from `witness.cost.costing`."""
    cost = costing(s)
    m, p = cost.machine, cost.pair
    if m is None or p is None:
        draft = (
            "prompt lookup runs no draft model (c counts as 0)"
            if s.draft_source == "lookup"
            else f"a draft pass costs the slider's c = {s.draft_cost:.2f} of a target pass"
        )
        return (
            f"Custom: {draft}, and a target pass costs one whatever it scores, so the batch "
            "and the context change nothing here. Choose a machine to price every pass by "
            "the roofline.",
        )
    scored = scored_per_sequence(s)
    verify_ms = cost.seconds(p.target, scored) * 1e3
    plain_ms, draft_ms = cost.plain_seconds * 1e3, cost.draft_seconds * 1e3
    total = price(s)
    lines = [
        f"{m.label}, {p.target.label} ({p.target.params / 1e9:.2f} B parameters) with "
        f"{p.draft.label} ({p.draft.params / 1e9:.2f} B), batch {s.batch}, "
        f"{s.context} tokens of context.",
        "A pass takes T = max((N·2 bytes + KV bytes) / bandwidth, 2·N·tokens / FLOP/s): "
        f"a plain decoding step (the target scoring 1 token of each of {s.batch} "
        f"sequence{'s' if s.batch != 1 else ''}) {plain_ms:.3f} ms, "
        + (
            "and prompt lookup runs no draft model, so no draft pass is paid (c = 0)."
            if s.draft_source == "lookup"
            else f"a draft pass {draft_ms:.3f} ms, so c = T_draft / T_target = {cost.c:.3f}."
        ),
        f"The verifying pass scores {scored} tokens of each sequence ({s.batch * scored} in "
        f"all): {verify_ms:.3f} ms, {cost.verify(scored):.2f} plain steps"
        + (
            ", no dearer than one: it is still memory-bound"
            if cost.verify(scored) <= 1.0 + 1e-9
            else ", dearer than one: its arithmetic now outlasts reading the weights"
        )
        + f". The price per draft at k = {s.k} is c + (v − 1)/k = {total:.3f}.",
    ]
    if s.context:
        kv = s.batch * s.context * p.target.kv_per_token
        lines.append(
            f"Every target pass also reads the batch's KV cache: {s.batch} × {s.context} "
            f"tokens × {p.target.kv_per_token / 1024:.0f} KiB = {_gb(kv)}."
        )
    if not cost.fits:
        lines.append(
            f"This does not fit: the weights ({_gb(cost.weights_bytes)}) and the KV cache "
            f"({_gb(cost.kv_bytes)}) need more than the {_gb(m.memory)} of memory; a real "
            "server could not run this batch at this context. The station still prices it."
        )
    return tuple(lines)


def cost_view(s: Settings, problems: tuple[FieldProblem, ...]) -> CostView:
    controls, opened = _group(COST, s, problems)
    cost = costing(s)
    source = ""
    if cost.machine is not None and cost.pair is not None:
        source = (
            f"Sources: {cost.machine.source}; {cost.pair.target.source}; {cost.pair.draft.source}."
        )
    return CostView(
        machine=controls["machine"],
        pair=controls["pair"],
        batch=controls["batch"],
        context=controls["context"],
        lines=cost_lines(s),
        source=source,
        open=opened,
    )
