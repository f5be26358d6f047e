// GENERATED: do not edit. The route contract's constants for the browser, from
// app/contract/route.py and witness/core/settings.py, written by
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
  "prompt": {
    "kind": "str",
    "type": "string",
    "maxLength": 200,
    "pattern": "^[^\\x00-\\x1f\\x7f-\\x9f\\uFFFD]*$"
  },
  "tpot_ms": {
    "kind": "float",
    "type": "number",
    "exclusiveMinimum": 0,
    "maximum": 10000,
    "not": {"exclusiveMinimum": 0, "exclusiveMaximum": 2.2250738585072014e-308}
  },
  "ttft_ms": {"kind": "float", "type": "number", "minimum": 0, "maximum": 600000},
  "tree_width": {"kind": "int", "type": "integer", "minimum": 1, "maximum": 4},
  "drafting": {"kind": "choice", "type": "string", "enum": ["sample", "distinct", "top"]},
  "acceptance": {"kind": "choice", "type": "string", "enum": ["exact", "typical"]},
  "draft_source": {"kind": "choice", "type": "string", "enum": ["model", "lookup", "adversary"]},
  "models": {"kind": "choice", "type": "string", "enum": ["ngram", "early-exit", "small-draft"]},
  "machine": {
    "kind": "choice",
    "type": "string",
    "enum": ["custom", "h200", "h100", "a100", "l4", "laptop"]
  },
  "stack": {"kind": "choice", "type": "string", "enum": ["graphs", "compiled", "eager", "roofline"]},
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

// The request header naming the page parts a fragment may leave out.
export const PARTS_HEADER = "X-Station-Parts";

// A reopenable checkpoint link.
export const STATION_URL_PATTERN = "^/station(\\?[^#]*)?$";

// The longest reopenable link.
export const STATION_URL_MAX = 3091;

// The longest date-time text accepted.
export const TIMESTAMP_MAX = 40;

// A learner's class membership (localStorage).
export const CLASS_KEY = "tsl.class.speculative-decoding";

// The version of a class membership.
export const CLASS_VERSION = 1;

// How often a joined, visible station asks its class's state, in ms.
export const CLASS_POLL_MS = 2000;

// What a class code looks like.
export const CLASS_CODE_PATTERN = "^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6}$";

// A learner's random id.
export const LEARNER_ID_PATTERN = "^[0-9a-f]{32}$";

// What a class counts: the five interventions (a skip is not sent).
export const CLASS_INTERVENTIONS = ["raise_match", "lengthen_k", "cheapen_draft", "skip_verify", "skip_repair"];

// Each preset as a class question: its number, title, the title shown before the reveal, its prompt (what the learner's answers answer), and the station's link at it.
export const CLASS_PRESETS = {
  "well-matched": {
    "number": 1,
    "title": "Well-matched draft",
    "shown": "Well-matched draft",
    "prompt": "The draft agrees with the target most of the time (match 0.9, k = 5, c = 0.05). Which one change would you make here, will it make this faster, and will the output still keep the target's distribution?",
    "url": "/station?match=0.9&k=5&draft_cost=0.05&preset=well-matched#step-03"
  },
  "mismatched": {
    "number": 2,
    "title": "Mismatched draft",
    "shown": "Mismatched draft",
    "prompt": "The draft disagrees with the target early and often (match 0, k = 4, c = 0.05). Which one change would you make here, will it make this faster, and will the output still keep the target's distribution?",
    "url": "/station?match=0&draft_cost=0.05&preset=mismatched#step-03"
  },
  "draft-too-slow": {
    "number": 3,
    "title": "Draft too slow (c near α)",
    "shown": "Preset 3 (named at the reveal)",
    "prompt": "A draft that agrees little with the target costs 0.35 of a target pass (match 0, k = 4). Which one change would you make here, will it make this faster, and will the output still keep the target's distribution?",
    "url": "/station?match=0&draft_cost=0.35&preset=draft-too-slow#step-03"
  },
  "k-past-optimum": {
    "number": 4,
    "title": "k past its optimum",
    "shown": "Preset 4 (named at the reveal)",
    "prompt": "A fairly well-matched draft drafts 16 tokens per block (match 0.6, c = 0.1). Which one change would you make here, will it make this faster, and will the output still keep the target's distribution?",
    "url": "/station?k=16&preset=k-past-optimum#step-03"
  },
  "unsafe-shortcut": {
    "number": 5,
    "title": "The unsafe shortcut (repair off)",
    "shown": "Preset 5 (named at the reveal)",
    "prompt": "Read the switches before you predict (match 0.3, k = 4, c = 0.1). Which one change would you make here, will it make this faster, and will the output still keep the target's distribution?",
    "url": "/station?match=0.3&repair=off&preset=unsafe-shortcut#step-03"
  },
  "verify-off": {
    "number": 6,
    "title": "Verify off",
    "shown": "Preset 6 (named at the reveal)",
    "prompt": "Read the switches before you predict (match 0.3, k = 4, c = 0.1). Which one change would you make here, will it make this faster, and will the output still keep the target's distribution?",
    "url": "/station?match=0.3&verify=off&preset=verify-off#step-03"
  },
  "greedy": {
    "number": 7,
    "title": "Greedy decoding",
    "shown": "Greedy decoding",
    "prompt": "The station decodes greedily, at temperature 0 (match 0.2, k = 4, c = 0.1). Which one change would you make here, will it make this faster, and will the output still keep the target's distribution?",
    "url": "/station?match=0.2&greedy=on&preset=greedy#step-03"
  },
  "p-equals-q": {
    "number": 8,
    "title": "p = q",
    "shown": "Preset 8 (named at the reveal)",
    "prompt": "Read the match before you predict (k = 8, c = 0.05). Which one change would you make here, will it make this faster, and will the output still keep the target's distribution?",
    "url": "/station?match=1&k=8&draft_cost=0.05&preset=p-equals-q#step-03"
  },
  "tree-of-two": {
    "number": 9,
    "title": "A tree of two",
    "shown": "A tree of two",
    "prompt": "Two drafted siblings at every node, four levels deep, are checked in one target pass (match 0.6, c = 0.1). Which one change would you make here, will it make this faster, and will the output still keep the target's distribution?",
    "url": "/station?tree_width=2&preset=tree-of-two#step-03"
  },
  "eagle-top-k": {
    "number": 10,
    "title": "EAGLE-style top-k tree",
    "shown": "EAGLE-style top-k tree",
    "prompt": "The tree's siblings are the draft's two most likely words, not draws (match 0.6, c = 0.1). Which one change would you make here, will it make this faster, and will the output still keep the target's distribution?",
    "url": "/station?tree_width=2&drafting=top&preset=eagle-top-k#step-03"
  },
  "medusa-typical": {
    "number": 11,
    "title": "Medusa's shortcut (typical acceptance)",
    "shown": "Preset 11 (named at the reveal)",
    "prompt": "A top-2 tree is checked by an acceptance rule other than the ratio test (match 0.6, c = 0.1). Which one change would you make here, will it make this faster, and will the output still keep the target's distribution?",
    "url": "/station?tree_width=2&drafting=top&acceptance=typical&preset=medusa-typical#step-03"
  },
  "prompt-lookup": {
    "number": 12,
    "title": "Prompt lookup on a repetitive request",
    "shown": "Prompt lookup on a repetitive request",
    "prompt": "No draft model: each block copies what followed the last words earlier in the request (greedy, k = 8). Which one change would you make here, will it make this faster, and will the output still keep the target's distribution?",
    "url": "/station?k=8&greedy=on&prompt=at+the+first+rejection%2C+the+server+must+pick+a+new+token+to+replace+the+rejected+one.+at+the&draft_source=lookup&preset=prompt-lookup#step-03"
  },
  "batch-kills-win": {
    "number": 13,
    "title": "The batch that kills the win",
    "shown": "Preset 13 (named at the reveal)",
    "prompt": "A well-matched Llama 3.1 8B / 3.2 1B pair on an H100 serves a batch of 256 sequences (k = 4). Which one change would you make here, will it make this faster, and will the output still keep the target's distribution?",
    "url": "/station?match=0.9&machine=h100&batch=256&preset=batch-kills-win#step-03"
  },
  "long-context": {
    "number": 14,
    "title": "Long context helps speculation",
    "shown": "Preset 14 (named at the reveal)",
    "prompt": "The same pair on an H100 at batch 128, with 2 048 tokens of context per sequence (k = 4). Which one change would you make here, will it make this faster, and will the output still keep the target's distribution?",
    "url": "/station?match=0.9&machine=h100&batch=128&context=2048&preset=long-context#step-03"
  },
  "adaptive-k": {
    "number": 15,
    "title": "Adaptive k on a mixed request",
    "shown": "Adaptive k on a mixed request",
    "prompt": "A request whose easy and hard stretches alternate, at one fixed k = 4 (match 0.6, c = 0.1). Which one change would you make here, will it make this faster, and will the output still keep the target's distribution?",
    "url": "/station?tokens=96&preset=adaptive-k#step-03"
  },
  "adversary-recovery": {
    "number": 16,
    "title": "A draft that never agrees, and recovery",
    "shown": "Preset 16 (named at the reveal)",
    "prompt": "A draft from an unusual source drafts 4 tokens per block (c = 0.1). Which one change would you make here, will it make this faster, and will the output still keep the target's distribution?",
    "url": "/station?match=0&tokens=96&draft_source=adversary&preset=adversary-recovery#step-03"
  }
};
