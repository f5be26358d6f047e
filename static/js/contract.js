// GENERATED: do not edit. The route contract's constants for the browser, from
// app/contract/route.py and witness/settings.py, written by
// `python -m app.contract.generate` (`make setup` runs it; a test checks it is fresh).

// The ten stations, in route order: [id, title].
export const STATIONS = [
  ["text-to-update", "Text to one update"],
  ["tokens-and-position", "Tokens and position"],
  ["attention-routing", "Attention routing"],
  ["rope-phase", "RoPE phase"],
  ["kv-memory", "KV memory"],
  ["long-context", "Long-context pressure"],
  ["serving", "Serving and decoding"],
  ["speculative-decoding", "Speculative decoding"],
  ["evaluation", "Evaluation and falsification"],
  ["capstone", "Capstone systems claim"]
];

// This station.
export const STATION_ID = "speculative-decoding";

// Object ids are route:<ROUTE_ID>/<station>#<station>-station.
export const ROUTE_ID = "ai-lab/transformers";

// This station's object id.
export const OBJECT_ID = "route:ai-lab/transformers/speculative-decoding#speculative-decoding-station";

// One localStorage key per station: KEY_PREFIX + id.
export const KEY_PREFIX = "tsl.route.";

// The version of a route-memory entry.
export const MEMORY_VERSION = 1;

// The kind of an exported route-memory file.
export const EXPORT_KIND = "tsl.route-memory.export";

// The largest stored entry read, in characters.
export const MAX_BYTES = 65536;

// The deepest nesting of objects and lists a stored entry may have.
export const MAX_DEPTH = 64;

// The study card's own key.
export const STUDY_KEY = "tsl.study.speculative-decoding";

// The stations whose entries the carry-in checks.
export const READS = ["serving", "long-context", "kv-memory"];

// The Serving workload: [setting (query parameter), field of checkpoint.workload, optional: a Serving checkpoint may leave it out].
export const WORKLOAD = [
  ["prompt", "prompt", true],
  ["ttft_ms", "ttftMs", false],
  ["tpot_ms", "tpotMs", false],
  ["tokens", "tokensToGenerate", false],
  ["batch", "batchSize", true],
  ["context", "contextTokens", true]
];

// witness.Settings fields: kind and bounds (the v0 migration reads the kinds).
export const SETTINGS = {
  "match": {"kind": "float", "type": "number", "minimum": 0, "maximum": 1},
  "k": {"kind": "int", "type": "integer", "minimum": 1, "maximum": 16},
  "draft_cost": {"kind": "float", "type": "number", "minimum": 0, "maximum": 1},
  "verify": {"kind": "bool", "type": "boolean"},
  "repair": {"kind": "bool", "type": "boolean"},
  "greedy": {"kind": "bool", "type": "boolean"},
  "seed": {"kind": "int", "type": "integer", "minimum": 0, "maximum": 2147483647},
  "tokens": {"kind": "int", "type": "integer", "minimum": 1, "maximum": 256},
  "prompt": {"kind": "str", "type": "string", "maxLength": 200},
  "tpot_ms": {"kind": "float", "type": "number", "exclusiveMinimum": 0, "maximum": 10000},
  "ttft_ms": {"kind": "float", "type": "number", "minimum": 0, "maximum": 600000},
  "tree_width": {"kind": "int", "type": "integer", "minimum": 1, "maximum": 4},
  "drafting": {"kind": "choice", "type": "string", "enum": ["sample", "distinct", "top"]},
  "acceptance": {"kind": "choice", "type": "string", "enum": ["exact", "typical"]},
  "draft_source": {"kind": "choice", "type": "string", "enum": ["model", "lookup", "adversary"]},
  "machine": {
    "kind": "choice",
    "type": "string",
    "enum": ["custom", "h100", "a100", "l4", "laptop"]
  },
  "pair": {
    "kind": "choice",
    "type": "string",
    "enum": ["llama-8b-1b", "llama-70b-8b", "t5-xxl-small"]
  },
  "batch": {"kind": "int", "type": "integer", "minimum": 1, "maximum": 512},
  "context": {"kind": "int", "type": "integer", "minimum": 0, "maximum": 131072}
};

// Prediction interventions.
export const INTERVENTIONS = ["raise_match", "lengthen_k", "cheapen_draft", "skip_verify", "skip_repair", "skip"];

// How a block is checked.
export const MODES = ["lossless", "no_repair", "no_verify"];

// A reopenable checkpoint link.
export const STATION_URL_PATTERN = "^/station(\\?[^#]*)?$";

// The longest reopenable link.
export const STATION_URL_MAX = 3057;

// The longest date-time text accepted.
export const TIMESTAMP_MAX = 40;
