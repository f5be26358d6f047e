"""The Manipulation panel's controls, built from the witness `Settings` model's bounds.

Min, max, step and help text come from the model (one place), so a slider can never offer
a value the witness would refuse.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.station.state.query import FieldProblem, number_text
from app.station.views import fmt
from app.words import Sentence, catalog, say
from witness import Settings
from witness.core.settings import DISTINCT_WIDTH_MAX, TREE_NODES_MAX, field_bounds, tree_nodes
from witness.cost.costing import MACHINES, PAIRS, costing, passes, price, scored_per_sequence
from witness.cost.passes import MEASURED_ON, STACKS, figures_env
from witness.methods.block import is_chain
from witness.methods.lookup import NGRAM_MAX
from witness.methods.typical import DELTA, EPSILON

SLIDERS = ("match", "k", "draft_cost")
SWITCHES = ("verify", "repair")
WORKLOAD = ("prompt", "tokens", "ttft_ms", "tpot_ms")
# The advanced drafting control: how a block's drafts are made and checked.
DRAFTING = ("tree_width", "drafting", "acceptance", "draft_source", "models")


def _noted(name: str) -> dict[str, str]:
    """The notes the words hold for a choice setting's values, by value."""
    return {
        value: say(f"controls.choice.{name}.{value}")
        for value in catalog("controls")["choice"][name]
    }


# What each choice is, beside its value (the value itself is the model's, never copied here;
# a choice the witness adds without a note in app/words/controls.toml is shown by its value
# alone).
CHOICE_NOTES: dict[str, dict[str, str]] = {
    "models": _noted("models"),
    "drafting": _noted("drafting"),
    "acceptance": _noted("acceptance"),
    "draft_source": _noted("draft_source"),
    # The labels come from witness.cost.costing, where each number is cited.
    "machine": _noted("machine") | {m.id: m.label for m in MACHINES.values()},
    "pair": {p.id: p.label for p in PAIRS.values()},
    "stack": _noted("stack"),
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
    """The advanced drafting control: four settings, the models, and what they make of a
    block."""

    width: Control
    drafting: Control
    acceptance: Control
    draft_source: Control
    models: Control
    summary: str  # what a full block drafts and who scores it, for these settings
    depth_note: str  # the deepest k this width allows
    notes: tuple[str, ...]  # what the acceptance rule and draft source give up or save
    open: bool  # any of the five differs from its default, or was refused

    @property
    def controls(self) -> tuple[Control, ...]:
        return (self.width, self.drafting, self.acceptance, self.draft_source, self.models)


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
        cost = costing(s)
        words = say(
            "controls.slider.draft_cost_on_machine", machine=cost.machine_label, c=f"{cost.c:.3f}"
        )
        sliders[i] = replace(sliders[i], help=words)
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


def tree_text(s: Settings) -> Sentence:
    """What one full block drafts, and who scores it: "a chain of 4 drafts, …"."""
    width, k = s.tree_width, s.k
    scored = say(f"controls.tree.scored.{'verified' if s.verify else 'unverified'}")
    if s.draft_source == "lookup":
        return say("controls.tree.lookup", k=k, scored=scored, ngram_max=NGRAM_MAX)
    if width == 1:
        return say(f"controls.tree.{'chain_one' if k == 1 else 'chain'}", k=k, scored=scored)
    return say(
        "controls.tree.tree",
        width=width,
        k=k,
        sum=_sum_text(width, k),
        nodes=tree_nodes(width, k),
        scored=scored,
        nodes_max=TREE_NODES_MAX,
    )


def depth_text(width: int) -> Sentence:
    deepest = deepest_k(width)
    if deepest == K_MAX:
        return say("controls.depth.every", width=width, k_max=K_MAX)
    return say(
        "controls.depth.limited",
        width=width,
        deepest=deepest,
        sum=_sum_text(width, deepest),
        nodes=tree_nodes(width, deepest),
        next=deepest + 1,
        next_nodes=tree_nodes(width, deepest + 1),
        nodes_max=TREE_NODES_MAX,
    )


# What drafts with the transformers, named in their note.
TRANSFORMER_DRAFT = {"early-exit": "layer-1 exit", "small-draft": "1-layer draft"}


def transformers_note(s: Settings) -> Sentence:
    """What drafts for the transformers: the draft model alone, blended toward the target or
    the target itself (match 1), the adversary in its place, or nothing (prompt lookup)."""
    draft = TRANSFORMER_DRAFT[s.models]
    if s.draft_source == "lookup":
        return say("controls.note.transformers.lookup")
    if s.draft_source == "adversary":
        return say("controls.note.transformers.adversary", draft=draft)
    if s.match == 0:
        return say("controls.note.transformers.alone", draft=draft)
    if s.match == 1:
        return say("controls.note.transformers.same", draft=draft)
    return say("controls.note.transformers.blended", match=f"{s.match:.2f}", draft=draft)


def _notes(s: Settings) -> tuple[Sentence, ...]:
    notes = []
    if s.models != "ngram":
        notes.append(transformers_note(s))
    if s.tokens - 1 < s.k:  # a block drafts no further than the request goes (room − 1)
        notes.append(_short_note(s.tokens))
    if s.tree_width == 1 and s.drafting == "distinct" and is_chain(s):
        notes.append(say("controls.note.distinct_chain"))
    if s.tree_width == 1 and s.drafting == "top" and s.draft_source != "lookup":
        notes.append(say("controls.note.top_chain"))
    if s.tree_width > DISTINCT_WIDTH_MAX:
        notes.append(
            say("controls.note.distinct_refused", width_max=DISTINCT_WIDTH_MAX, width=s.tree_width)
        )
    if s.acceptance == "typical" and not s.verify:
        notes.append(say("controls.note.typical_unverified"))
    elif s.acceptance == "typical":
        notes.append(say("controls.note.typical", epsilon=f"{EPSILON:g}", delta=f"{DELTA:g}"))
    if s.draft_source == "lookup":
        needs = ", ".join(
            f"{Settings.model_fields[n].title} {field_bounds(n)['default']}"
            for n in ("tree_width", "drafting", "acceptance")
        )
        notes.append(say("controls.note.lookup", needs=needs))
    return tuple(notes)


def _short_note(tokens: int) -> Sentence:
    """A request too short for a full block: a block drafts at most tokens − 1 levels."""
    mode = "one_token" if tokens == 1 else "two_tokens" if tokens == 2 else "longer"
    return say(f"controls.note.short.{mode}", tokens=tokens, most=tokens - 1)


def drafting_view(s: Settings, problems: tuple[FieldProblem, ...]) -> DraftingView:
    controls, opened = _group(DRAFTING, s, problems)
    return DraftingView(
        models=controls["models"],
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
COST = ("machine", "stack", "pair", "batch", "context")


@dataclass(frozen=True, slots=True)
class CostView:
    """The cost-of-a-pass control and the server's words for what it prices (cost_text)."""

    machine: Control
    stack: Control
    pair: Control
    batch: Control
    context: Control
    lines: tuple[str, ...]  # what a pass costs here, with the formula's numbers
    source: str  # where the machine's and the models' numbers come from
    open: bool

    @property
    def controls(self) -> tuple[Control, ...]:
        return (self.machine, self.stack, self.pair, self.batch, self.context)


def _gb(x: float) -> str:
    return f"{x / 1e9:.1f} GB"


def cost_lines(s: Settings) -> tuple[str, ...]:
    """What one pass costs under ``s``, every number from `witness.cost.costing`."""
    cost = costing(s)
    m, p = cost.machine, cost.pair
    if m is None or p is None:
        if s.draft_source == "lookup":
            draft = say("controls.cost.custom_draft.lookup")
        else:
            draft = say("controls.cost.custom_draft.model", c=f"{s.draft_cost:.2f}")
        return (say("controls.cost.custom", draft=draft),)
    lines = [
        say(
            "controls.cost.setup",
            machine=m.label,
            target=p.target.label,
            target_params=f"{p.target.params / 1e9:.2f}",
            draft=p.draft.label,
            draft_params=f"{p.draft.params / 1e9:.2f}",
            batch=s.batch,
            context=s.context,
        ),
        _plain_line(s),
        _verify_line(s),
    ]
    if s.context:
        kv = s.batch * s.context * p.target.kv_per_token
        lines.append(
            say(
                "controls.cost.kv",
                batch=s.batch,
                context=s.context,
                kib=f"{p.target.kv_per_token / 1024:.0f}",
                size=_gb(kv),
            )
        )
    if not cost.fits:
        lines.append(
            say(
                "controls.cost.no_fit",
                weights=_gb(cost.weights_bytes),
                kv=_gb(cost.kv_bytes),
                memory=_gb(m.memory),
            )
        )
    return tuple(lines)


def _plain_line(s: Settings) -> Sentence:
    """A pass's roofline, a plain step over the batch, and the draft's pass (none for lookup);
    on measured passes, the timed step beside the roofline's and where the numbers come from."""
    cost = costing(s)
    if cost.measured:
        return _measured_plain_line(s)
    return say(
        f"controls.cost.plain.{'one' if s.batch == 1 else 'many'}",
        batch=s.batch,
        plain_ms=f"{cost.plain_seconds * 1e3:.3f}",
        draft=_draft_pass(s),
    )


def _roofline(s: Settings) -> Settings:
    return s.model_copy(update={"stack": "roofline"})


def _draft_pass(s: Settings) -> Sentence:
    """The draft's pass and c (none with prompt lookup), beside the roofline's where timed."""
    if s.draft_source == "lookup":
        return say("controls.cost.draft_pass.lookup")
    cost = costing(s)
    values = {"draft_ms": f"{cost.draft_seconds * 1e3:.3f}", "c": f"{cost.c:.3f}"}
    if not cost.measured:
        return say("controls.cost.draft_pass.model", **values)
    roof = costing(_roofline(s))
    return say(
        "controls.cost.measured.draft",
        **values,
        roof_draft_ms=f"{roof.draft_seconds * 1e3:.3f}",
        c_roof=f"{roof.c:.3f}",
    )


def _measured_plain_line(s: Settings) -> Sentence:
    cost, roof = costing(s), costing(_roofline(s))
    assert cost.machine is not None
    assert cost.stack is not None
    return say(
        "controls.cost.measured.plain",
        machine=cost.machine.label,
        stack=STACKS[cost.stack],
        batch=s.batch,
        plain_ms=f"{cost.plain_seconds * 1e3:.3f}",
        roof_ms=f"{roof.plain_seconds * 1e3:.3f}",
        draft=_draft_pass(s),
        provenance=_provenance(s),
    )


def _span(lo: int, hi: int) -> str:
    return f"{lo:,}" if lo == hi else f"{lo:,}–{hi:,}"


def _provenance(s: Settings) -> Sentence:
    """Where the measured prices come from: timed, between timings, beyond them, the fit."""
    cost = costing(s)
    assert cost.pair is not None
    assert cost.stack is not None
    found = cost.provenance(scored_per_sequence(s))
    if found != "beyond":
        return say(f"controls.cost.provenance.{found}")
    batches, contexts, most = passes().span(cost.pair.target.key, cost.stack)
    return say(
        "controls.cost.provenance.beyond",
        target=cost.pair.target.label,
        batches=_span(*batches),
        contexts=_span(*contexts),
        most=most,
    )


def _verify_line(s: Settings) -> Sentence:
    """The verifying pass: what it scores, what it costs in plain steps, and the price."""
    cost = costing(s)
    assert cost.pair is not None
    scored = scored_per_sequence(s)
    steps = cost.verify(scored)
    common = {
        "scored": scored,
        "all": s.batch * scored,
        "verify_ms": f"{cost.seconds(cost.pair.target, scored) * 1e3:.3f}",
        "steps": f"{steps:.2f}",
        "k": s.k,
        "price": f"{price(s):.3f}",
    }
    if cost.measured:
        roof_steps = f"{costing(_roofline(s)).verify(scored):.2f}"
        return say("controls.cost.measured.verify", **common, roof_steps=roof_steps)
    bound = "memory_bound" if steps <= 1.0 + 1e-9 else "compute_bound"
    return say(f"controls.cost.verify.{bound}", **common)


def cost_view(s: Settings, problems: tuple[FieldProblem, ...]) -> CostView:
    controls, opened = _group(COST, s, problems)
    cost = costing(s)
    source = ""
    if cost.machine is not None and cost.pair is not None:
        cited = {
            "machine": cost.machine.source,
            "target": cost.pair.target.source,
            "draft": cost.pair.draft.source,
        }
        if cost.measured:
            env = figures_env()
            timed = {"gpu": env["gpu"], "torch": env["torch"], "date": MEASURED_ON}
            source = say("controls.cost.sources_timed", **cited, **timed)
        else:
            source = say("controls.cost.sources", **cited)
    return CostView(
        machine=controls["machine"],
        stack=controls["stack"],
        pair=controls["pair"],
        batch=controls["batch"],
        context=controls["context"],
        lines=cost_lines(s),
        source=source,
        open=opened,
    )
