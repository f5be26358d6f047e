"""The route contract: the ids, keys and lists other stations, the browser and the docs rely on.

Python is their single source. What the browser needs of them (static/js/contract.js, the
route-memory validator) and the JSON Schema in docs/ are generated from this module and from
`witness.Settings` by `python -m app.contract.generate`, which `make setup` runs; a test proves
the generated files equal a fresh generation.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

ROUTE_ID = "ai-lab/transformers"
STATIONS = (
    ("text-to-update", "Text to one update"),
    ("tokens-and-position", "Tokens and position"),
    ("attention-routing", "Attention routing"),
    ("rope-phase", "RoPE phase"),
    ("kv-memory", "KV memory"),
    ("long-context", "Long-context pressure"),
    ("serving", "Serving and decoding"),
    ("speculative-decoding", "Speculative decoding"),
    ("evaluation", "Evaluation and falsification"),
    ("capstone", "Capstone systems claim"),
)
STATION_ID = "speculative-decoding"
STATION_NUMBER = [s for s, _ in STATIONS].index(STATION_ID) + 1
OBJECT_ID = f"route:{ROUTE_ID}/{STATION_ID}#{STATION_ID}-station"
# Route memory: one localStorage entry per station under KEY_PREFIX + station id.
KEY_PREFIX = "tsl.route."
MEMORY_VERSION = 1
# Settings a checkpoint saved before they existed lacks; a missing one reads as its default,
# so those checkpoints still load (the schema leaves these, and only these, optional).
SETTINGS_ADDED_LATER = (
    "tree_width",
    "drafting",
    "acceptance",
    "draft_source",
    "machine",
    "pair",
    "batch",
    "context",
    "stack",
    "models",
)
EXPORT_KIND = "tsl.route-memory.export"
# The largest stored entry the browser reads (characters); an export file may hold one per
# station. Anything larger is kept aside as damaged, never parsed.
MEMORY_MAX_BYTES = 64 * 1024
# The deepest nesting of objects and lists an entry may have (an entry needs four levels).
# JSON.parse takes far deeper text, but writing it out again (JSON.stringify with an indent, as
# Export does) overflows the browser's stack; an entry nested deeper is kept aside as damaged.
MEMORY_MAX_DEPTH = 64
STUDY_KEY = f"tsl.study.{STATION_ID}"
# The stations whose checkpoints this one reads (carry-in), in the order the page checks them.
READS = ("serving", "long-context", "kv-memory")


@dataclass(frozen=True, slots=True)
class CarryRow:
    """How the carry-in panel names one station it reads (not derivable from its title)."""

    label: str  # the row's heading
    slug: str  # the element id is carry-<slug>
    name: str  # "Checking saved <name> history…"


CARRY_IN = {
    "serving": CarryRow("Prior route object", "serving", "Serving"),
    "long-context": CarryRow("Long-context history", "long-context", "Long Context"),
    "kv-memory": CarryRow("KV history", "kv", "KV"),
}


class Intervention(StrEnum):
    """The five interventions a learner may predict on, plus the recorded skip."""

    RAISE_MATCH = "raise_match"
    LENGTHEN_K = "lengthen_k"
    CHEAPEN_DRAFT = "cheapen_draft"
    SKIP_VERIFY = "skip_verify"
    SKIP_REPAIR = "skip_repair"
    SKIP = "skip"


# The three ways a block can be checked (witness.serve.request.Mode), as checkpoints record them.
MODES = ("lossless", "no_repair", "no_verify")


@dataclass(frozen=True, slots=True)
class WorkloadField:
    """One field of the workload Serving hands over: its setting and its checkpoint name."""

    setting: str  # the witness Settings field (and query parameter)
    checkpoint: str  # the field of the Serving checkpoint's `workload`
    label: str
    unit: str = ""
    optional: bool = False  # a Serving checkpoint may leave it out


# In the order a page's URL lists them (memory=…), which the canonical query keeps.
WORKLOAD = (
    WorkloadField("prompt", "prompt", "Prompt", optional=True),
    WorkloadField("ttft_ms", "ttftMs", "TTFT", " ms"),
    WorkloadField("tpot_ms", "tpotMs", "TPOT", " ms"),
    WorkloadField("tokens", "tokensToGenerate", "Tokens to generate"),
    # Added with the cost of a pass: a Serving checkpoint saved before them has
    # neither, and still loads; the station then keeps its own batch and context.
    WorkloadField("batch", "batchSize", "Batch size", optional=True),
    WorkloadField("context", "contextTokens", "Context", " tokens", optional=True),
)
WORKLOAD_FIELDS = tuple(w.setting for w in WORKLOAD)
