"""The instrument's settings: one pydantic model whose bounds feed the sliders, the JSON API,
the command line and every validation message, so a range is written in exactly one place.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
)
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError

SEED_MAX = 2**31 - 1


class Settings(BaseModel):
    """Everything that decides one served request; the same settings give the same bytes."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    match: float = Field(
        0.6,
        ge=0.0,
        le=1.0,
        title="Draft-target match",
        description="Blend of the draft toward the target, q = m·p + (1 − m)·d; 1 makes q = p.",
        json_schema_extra={"step": 0.01},
    )
    k: int = Field(
        4,
        ge=1,
        le=16,
        title="Draft length k",
        description="Tokens the draft proposes per block, all verified in one target pass.",
        json_schema_extra={"step": 1},
    )
    draft_cost: float = Field(
        0.1,
        ge=0.0,
        le=1.0,
        title="Draft cost c",
        description="Cost of one draft pass as a fraction of one target pass.",
        json_schema_extra={"step": 0.01},
    )
    verify: bool = Field(True, title="Target verify", description="Check drafts with the target.")
    repair: bool = Field(
        True, title="Sampling repair", description="At a rejection, sample the residual, not p."
    )
    greedy: bool = Field(
        False, title="Greedy decoding", description="Temperature 0: both models take argmax."
    )
    seed: int = Field(
        8,
        ge=0,
        le=SEED_MAX,
        title="Request seed",
        description="Keys every uniform of the request; 'next request' adds one.",
        json_schema_extra={"step": 1},
    )
    tokens: int = Field(
        48,
        ge=1,
        le=256,
        title="Tokens to generate",
        description="Length of the served request's output.",
        json_schema_extra={"step": 1},
    )
    prompt: str = Field(
        "the draft model proposes",
        min_length=0,
        max_length=200,
        title="Prompt",
        description="Words the request starts from; words outside the corpus are skipped.",
    )
    tpot_ms: float = Field(
        30.0,
        gt=0.0,
        le=10_000.0,
        title="TPOT (ms)",
        description="Time per output token of one target pass, carried in from Serving.",
        json_schema_extra={"step": 0.1},
    )
    ttft_ms: float = Field(
        200.0,
        ge=0.0,
        le=600_000.0,
        title="TTFT (ms)",
        description="Time to first token (prefill), carried in from Serving; the same either way.",
        json_schema_extra={"step": 1},
    )

    @field_validator("*", mode="wrap")
    @classmethod
    def _name_the_range(
        cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo
    ) -> Any:
        # Pydantic's own message says "greater than or equal to 1"; a learner needs the whole
        # range and what they sent, so every failure is restated from the field's bounds.
        name = info.field_name or "?"
        error = PydanticCustomError(
            "settings_range",
            "{field} must be {expected} (got {value})",
            {"field": name, "expected": expected_text(name), "value": _shown(value)},
        )
        # Lax mode would read True as 1; a boolean is never a number on this instrument.
        if isinstance(value, bool) and field_bounds(name)["kind"] in ("int", "float"):
            raise error
        try:
            return handler(value)
        except ValidationError as exc:
            raise error from exc


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@cache
def _bounds(name: str) -> tuple[tuple[str, Any], ...]:
    return tuple(_read_bounds(name).items())


def field_bounds(name: str) -> dict[str, Any]:
    """The bounds of one field as plain values: kind, min, max, step, exclusive-min flag.

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
    extra = info.json_schema_extra
    if isinstance(extra, dict) and "step" in extra:
        out["step"] = extra["step"]
    out["min"] = out.get("ge", out.get("gt"))
    out["max"] = out.get("le", out.get("lt"))
    return out


def _kind(info: FieldInfo) -> Literal["bool", "int", "float", "str"]:
    kinds: dict[Any, Literal["bool", "int", "float", "str"]] = {
        bool: "bool",
        int: "int",
        float: "float",
        str: "str",
    }
    return kinds[info.annotation]


def expected_text(name: str) -> str:
    """Human range of a field, e.g. "an integer from 1 to 16"."""
    b = field_bounds(name)
    if b["kind"] == "bool":
        return "true or false"
    if b["kind"] == "str":
        return f"text of at most {b['max_length']} characters"
    noun = "an integer" if b["kind"] == "int" else "a number"
    if "gt" in b:
        return f"{noun} above {_num(b['min'])} and at most {_num(b['max'])}"
    return f"{noun} from {_num(b['min'])} to {_num(b['max'])}"


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"
