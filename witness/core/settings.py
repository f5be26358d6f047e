"""The instrument's settings: one pydantic model whose bounds feed the sliders, the JSON API,
the command line and every validation message, so a range is written in exactly one place.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from enum import StrEnum
from functools import cache
from typing import Annotated, Any, Literal, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
)
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError

from witness.core.keys import SIBLINGS_MAX

SEED_MAX = 2**31 - 1
# The target scores every drafted node of a tree in its one pass; past this many a pass is no
# longer "about the cost of scoring one token" on any machine the station models.
TREE_NODES_MAX = 64
# `distinct` drafting's exact law enumerates the ordered draws of a node's siblings (V^(n-1)
# orderings of V-vectors); on the served 630-word vocabulary that is affordable for two.
DISTINCT_WIDTH_MAX = 2
# Positions the tiny transformers were trained on (witness.neural.model.Config.context; a test
# holds the two equal): a request with them must fit.
TRANSFORMER_POSITIONS = 320

Drafting = Literal["sample", "distinct", "top"]
Acceptance = Literal["exact", "typical"]
DraftSource = Literal["model", "lookup", "adversary"]
Machine = Literal["custom", "h200", "h100", "a100", "l4", "laptop"]
Stack = Literal["graphs", "compiled", "eager", "roofline"]
Pair = Literal["llama-8b-1b", "llama-70b-8b", "t5-xxl-small"]
# The language models the request is served with: the word n-grams (exact and cheap), or the
# tiny transformer target with one of its two drafts (witness.neural).
Models = Literal["ngram", "early-exit", "small-draft"]


# What "above 0" excludes besides 0, as JSON Schema (the OpenAPI description states it).
NOT_SUBNORMAL: dict[str, JsonValue] = {
    "exclusiveMinimum": 0,
    "exclusiveMaximum": sys.float_info.min,
}


def tree_nodes(width: int, depth: int) -> int:
    """Drafted nodes of a full tree: width + width² + … + width^depth (a chain: depth).

    Examples
    --------
    >>> tree_nodes(1, 4), tree_nodes(2, 5), tree_nodes(4, 3)
    (4, 62, 84)
    """
    if width == 1:  # the chain, on every block of every request: no loop
        return depth
    return sum(width**d for d in range(1, depth + 1))


def drafted_width(s: Settings) -> int:
    """Siblings a node really drafts. Greedy decoding makes q one-hot, so `distinct` and
    `top` (which draft only tokens q can give) find one sibling per node: a chain, counted
    as one. `sample` draws its n copies of the same token all the same.

    Examples
    --------
    >>> drafted_width(Settings(tree_width=3, k=3)), drafted_width(Settings(tree_width=3, k=3,
    ...     drafting="top", greedy=True))
    (3, 1)
    """
    if s.greedy and s.drafting != "sample":
        return 1
    return s.tree_width


def max_depth(width: int) -> int:
    """The deepest k a tree of this width may draft within `TREE_NODES_MAX` (and the k range).

    Examples
    --------
    >>> [max_depth(w) for w in (1, 2, 3, 4)]
    [16, 5, 3, 2]
    """
    k_max = int(field_bounds("k")["max"])
    return max(d for d in range(1, k_max + 1) if tree_nodes(width, d) <= TREE_NODES_MAX)


class Affects(StrEnum):
    """What a setting changes, declared on each field of `Settings`: every cache of results
    keys on the fields its result depends on (`without`), so a new setting joins the right
    keys by saying what it affects."""

    REQUEST = "request"  # what is served: the tokens, the passes, α, every check
    DRAFT_PRICE = "draft price"  # the draft cost c: what a draft pass costs on machine custom
    PASS_PRICE = "pass price"  # the machine, model pair, batch and context: each pass's price
    TIMING = "timing"  # the workload's clock (TPOT, TTFT): the latency figures alone


class Settings(BaseModel):
    """Everything that decides one served request; the same settings give the same bytes."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    match: Annotated[float, Affects.REQUEST] = Field(
        0.6,
        ge=0.0,
        le=1.0,
        title="Draft-target match",
        description="Blend of the draft toward the target, q = m·p + (1 − m)·d; 1 makes q = p.",
        json_schema_extra={"step": 0.01},
    )
    k: Annotated[int, Affects.REQUEST] = Field(
        4,
        ge=1,
        le=16,
        title="Draft length k",
        description="Tokens the draft proposes per block, all verified in one target pass.",
        json_schema_extra={"step": 1},
    )
    draft_cost: Annotated[float, Affects.DRAFT_PRICE] = Field(
        0.1,
        ge=0.0,
        le=1.0,
        title="Draft cost c",
        description="Cost of one draft pass as a fraction of one target pass.",
        json_schema_extra={"step": 0.01},
    )
    verify: Annotated[bool, Affects.REQUEST] = Field(
        True, title="Target verify", description="Check drafts with the target."
    )
    repair: Annotated[bool, Affects.REQUEST] = Field(
        True, title="Sampling repair", description="At a rejection, sample the residual, not p."
    )
    greedy: Annotated[bool, Affects.REQUEST] = Field(
        False, title="Greedy decoding", description="Temperature 0: both models take argmax."
    )
    seed: Annotated[int, Affects.REQUEST] = Field(
        8,
        ge=0,
        le=SEED_MAX,
        title="Request seed",
        description="Keys every uniform of the request; 'next request' adds one.",
        json_schema_extra={"step": 1},
    )
    tokens: Annotated[int, Affects.REQUEST] = Field(
        48,
        ge=1,
        le=256,
        title="Tokens to generate",
        description="Length of the served request's output.",
        json_schema_extra={"step": 1},
    )
    prompt: Annotated[str, Affects.REQUEST] = Field(
        "the draft model proposes",
        min_length=0,
        max_length=200,
        # No control character and no U+FFFD (a byte that was not UTF-8): never echoed raw.
        pattern=r"^[^\x00-\x1f\x7f-\x9f\uFFFD]*$",
        title="Prompt",
        description="Words the request starts from; words outside the corpus are skipped.",
    )
    tpot_ms: Annotated[float, Affects.TIMING] = Field(
        30.0,
        gt=0.0,
        le=10_000.0,
        title="TPOT (ms)",
        description="Time per output token of one target pass, carried in from Serving.",
        # "Above 0" is a normal positive number: a subnormal (1e-320) is refused (below).
        json_schema_extra={"step": 0.1, "not": NOT_SUBNORMAL},
    )
    ttft_ms: Annotated[float, Affects.TIMING] = Field(
        200.0,
        ge=0.0,
        le=600_000.0,
        title="TTFT (ms)",
        description="Time to first token (prefill), carried in from Serving; the same either way.",
        json_schema_extra={"step": 1},
    )
    tree_width: Annotated[int, Affects.REQUEST] = Field(
        1,
        ge=1,
        le=SIBLINGS_MAX,
        title="Tree width",
        description="Siblings drafted at every node, k levels deep; 1 is a chain. The target "
        "scores every node in its one pass.",
        json_schema_extra={"step": 1},
    )
    drafting: Annotated[Drafting, Affects.REQUEST] = Field(
        "sample",
        title="Sibling drafting",
        description="How a node's siblings are drafted: sample (independent draws from q, "
        "SpecInfer), distinct (without replacement, Sequoia), top (q's most likely, EAGLE-2).",
    )
    acceptance: Annotated[Acceptance, Affects.REQUEST] = Field(
        "exact",
        title="Acceptance rule",
        description="exact: rejection sampling against p (lossless); typical: Medusa's "
        "threshold on p(x), faster and not lossless.",
    )
    draft_source: Annotated[DraftSource, Affects.REQUEST] = Field(
        "model",
        title="Draft source",
        description="model: the draft model; lookup: copy what followed the last words "
        "earlier in the prompt and text (no draft model); adversary: a draft that blends "
        "toward the target's least likely word instead of the draft model (an injected "
        "failure).",
    )
    models: Annotated[Models, Affects.REQUEST] = Field(
        "ngram",
        title="Models",
        description="ngram: a word trigram target and a bigram draft (exact and instant); "
        "early-exit: a 4-layer character transformer whose first layer and exit head draft; "
        "small-draft: the same target with a separate 1-layer transformer drafting. The "
        "transformers run in numpy with KV caches (witness.neural). On a machine, early-exit "
        "prices the draft as the pair's target through its first quarter of layers.",
    )
    machine: Annotated[Machine, Affects.PASS_PRICE] = Field(
        "custom",
        title="Machine",
        description="custom: the draft cost c is the slider's and a target pass costs the same "
        "whatever it scores; a machine prices every pass by the roofline, with the model pair, "
        "batch and context (witness.cost.costing); the H200's passes were also timed (stack).",
    )
    stack: Annotated[Stack, Affects.PASS_PRICE] = Field(
        "graphs",
        title="Serving stack",
        description="How the H200 runs its passes, priced from passes timed on one: graphs "
        "(CUDA graphs, what serving engines run), compiled (torch.compile + CUDA graphs) or "
        "eager (op by op); roofline prices them by its datasheet instead. The other machines "
        "are priced by the roofline whatever this says (witness.cost.passes).",
    )
    pair: Annotated[Pair, Affects.PASS_PRICE] = Field(
        "llama-8b-1b",
        title="Model pair",
        description="The target and draft whose sizes price the passes on a machine (unused "
        "with machine custom).",
    )
    batch: Annotated[int, Affects.PASS_PRICE] = Field(
        1,
        ge=1,
        le=512,
        title="Batch size",
        description="Sequences the server decodes together, carried in from Serving; every "
        "pass scores each of them (unused with machine custom).",
        json_schema_extra={"step": 1},
    )
    context: Annotated[int, Affects.PASS_PRICE] = Field(
        0,
        ge=0,
        le=131_072,
        title="Context (tokens)",
        description="Tokens already in each sequence's KV cache, read by every pass; carried "
        "in from Serving (unused with machine custom).",
        json_schema_extra={"step": 256},
    )

    @field_validator("*", mode="wrap")
    @classmethod
    def _name_the_range(
        cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo
    ) -> Any:
        # Pydantic's own message says "greater than or equal to 1"; a learner needs the whole
        # range and what they sent, so every failure is restated from the field's bounds.
        name = info.field_name or "?"

        def refused() -> PydanticCustomError:  # built only on failure: this runs per field
            return PydanticCustomError(
                "settings_range",
                "{field} must be {expected} (got {value})",
                {"field": name, "expected": expected_text(name), "value": shown(value)},
            )

        bounds = field_bounds(name)
        kind = bounds["kind"]
        # Lax mode would read True as 1; a boolean is never a number on this instrument.
        if isinstance(value, bool) and kind in ("int", "float"):
            raise refused()
        # Lax mode also reads "1_0" as 10, " 5 " as 5 and "٣" as 3: a number in a link is
        # written in ASCII, as the station writes it.
        if isinstance(value, str) and kind in _NUMBER_TEXT:
            if not _NUMBER_TEXT[kind].fullmatch(value):
                raise refused()
        try:
            out = handler(value)
        except ValidationError as exc:
            raise refused() from exc
        # A subnormal (1e-320) is no time anyone means, and arithmetic on it is not exact:
        # "above 0" is a normal positive number.
        if "gt" in bounds and out != 0 and abs(out) < sys.float_info.min:
            raise refused()
        if kind == "str" and not printable_text(out):
            raise refused()  # the field's pattern says the same; this holds it for any input
        _check_combination(name, out, info.data)
        return out


def _check_combination(name: str, value: Any, earlier: dict[str, Any]) -> None:
    """Settings that are valid alone but not together, reported on the later field.

    Fields validate in order, so the tree's width sees k and the draft source sees the rest:
    the message lands on one field, whose default a page can fall back to.
    """
    problem = ""
    if name == "tree_width" and "k" in earlier:
        nodes = tree_nodes(value, earlier["k"])
        if nodes > TREE_NODES_MAX:
            deepest = max_depth(value)
            problem = (
                f"a tree {value} wide and k = {earlier['k']} deep drafts {nodes} nodes "
                f"({' + '.join(str(value**d) for d in range(1, earlier['k'] + 1))}); the "
                f"target scores at most {TREE_NODES_MAX} a pass: at width {value}, k is at "
                f"most {deepest}"
            )
    elif name == "drafting" and value == "distinct":
        if earlier.get("tree_width", 1) > DISTINCT_WIDTH_MAX:
            problem = (
                f"distinct drafting is checked exactly for at most {DISTINCT_WIDTH_MAX} "
                f"siblings (tree_width {earlier['tree_width']} was asked)"
            )
    elif name == "draft_source" and value == "lookup":
        others = [
            f"{field} {earlier[field]}"
            for field, default in (
                ("tree_width", 1),
                ("drafting", "sample"),
                ("acceptance", "exact"),
            )
            if earlier.get(field, default) != default
        ]
        if others:
            problem = (
                "prompt lookup drafts one copied chain, checked exactly: it needs tree_width 1, "
                f"drafting sample and acceptance exact (got {', '.join(others)})"
            )
    elif name == "models" and value != "ngram":
        # Characters of the prompt, the paragraph break before them, the tokens and one
        # verifying pass's k drafts past the last token must fit the positions the
        # transformers were trained on (witness.neural.model.Config.context).
        prompt = len(earlier.get("prompt", ""))
        tokens, k = earlier.get("tokens", 48), earlier.get("k", 4)
        if 1 + prompt + tokens + k > TRANSFORMER_POSITIONS:
            problem = (
                f"the transformers were trained on {TRANSFORMER_POSITIONS} positions: the "
                f"prompt ({prompt} characters) + tokens ({tokens}) + k ({k}) must be at most "
                f"{TRANSFORMER_POSITIONS - 1}"
            )
    if problem:
        raise PydanticCustomError("settings_combination", problem)


_NUMBER_TEXT = {
    "int": re.compile(r"[+-]?[0-9]+(?:\.0*)?"),
    "float": re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"),
}


def printable_text(text: str) -> bool:
    """No control character (C0, DEL, C1: a NUL, a CR LF or an escape sequence echoed into a
    page) and no U+FFFD (what a byte that was not UTF-8 decodes to).

    Examples
    --------
    >>> printable_text("the draft"), printable_text("a\\x00b"), printable_text("a\\r\\nb")
    (True, False, False)
    """
    return not _UNPRINTABLE.search(text)


_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\ufffd]")  # as the prompt's pattern


def shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@cache
def _bounds(name: str) -> tuple[tuple[str, Any], ...]:
    return tuple(_read_bounds(name).items())


def field_bounds(name: str) -> dict[str, Any]:
    """The bounds of one field as plain values: kind, default, min and max (with pydantic's
    ge/gt/le/lt), step, a text's lengths and pattern, and any JSON Schema ``not`` it states.

    Read once per field from the model (the model never changes), returned as a fresh dict.
    """
    return dict(_bounds(name))


def _read_bounds(name: str) -> dict[str, Any]:
    info: FieldInfo = Settings.model_fields[name]
    out: dict[str, Any] = {"kind": _kind(info), "default": info.default}
    for meta in info.metadata:
        for attr in ("ge", "gt", "le", "lt", "min_length", "max_length"):
            if getattr(meta, attr, None) is not None:
                out[attr] = getattr(meta, attr)
        if getattr(meta, "pattern", None) is not None:
            out["pattern"] = meta.pattern
    extra = info.json_schema_extra
    if isinstance(extra, dict):
        # The step, and any JSON Schema "not" the field states (a time's subnormals).
        out.update({key: extra[key] for key in ("step", "not") if key in extra})
    if out["kind"] == "choice":
        out["choices"] = choices(name)
    out["min"] = out.get("ge", out.get("gt"))
    out["max"] = out.get("le", out.get("lt"))
    return out


Kind = Literal["bool", "int", "float", "str", "choice"]


def _kind(info: FieldInfo) -> Kind:
    kinds: dict[Any, Kind] = {bool: "bool", int: "int", float: "float", str: "str"}
    if get_origin(info.annotation) is Literal:
        return "choice"
    return kinds[info.annotation]


def choices(name: str) -> tuple[str, ...]:
    """The values a choice setting takes, in the order the model lists them."""
    return tuple(get_args(Settings.model_fields[name].annotation))


def expected_text(name: str) -> str:
    """Human range of a field, e.g. "an integer from 1 to 16"."""
    b = field_bounds(name)
    if b["kind"] == "bool":
        return "true or false"
    if b["kind"] == "choice":
        return "one of " + ", ".join(b["choices"])
    if b["kind"] == "str":
        return f"text of at most {b['max_length']} characters, without control characters"
    noun = "an integer" if b["kind"] == "int" else "a number"
    if "gt" in b:
        return f"{noun} above {_num(b['min'])} and at most {_num(b['max'])}"
    return f"{noun} from {_num(b['min'])} to {_num(b['max'])}"


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


@cache
def tagged(tag: Affects) -> tuple[str, ...]:
    """The fields of `Settings` that affect ``tag``, in declaration order."""
    return tuple(n for n, info in Settings.model_fields.items() if tag in info.metadata)


def affects(name: str) -> Affects:
    """What the field ``name`` affects (each field declares exactly one)."""
    (tag,) = (m for m in Settings.model_fields[name].metadata if isinstance(m, Affects))
    return tag


@cache
def _defaults(names: frozenset[str]) -> dict[str, Any]:
    return {n: Settings.model_fields[n].default for n in names}


def without(s: Settings, *tags: Affects, also: Iterable[str] = ()) -> Settings:
    """``s`` with every field that affects one of ``tags`` (and the fields ``also``) at its
    default: the key of a result that does not depend on them.

    Examples
    --------
    >>> without(Settings(match=0.3, tpot_ms=12.0), Affects.TIMING) == Settings(match=0.3)
    True
    """
    names = frozenset(n for tag in tags for n in tagged(tag)) | frozenset(also)
    return s.model_copy(update=_defaults(names))
