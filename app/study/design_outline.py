"""The check of the study card's design exercise, `designOutline()`.

`design_outline_feedback` judges four answers (draft strategy, verification, acceptance
rate, and a failure mode or trade-off), each of which must name a concrete mechanism. The
check is deterministic keyword logic over a small table (`FIELDS`): an answer passes when at
least one of its field's patterns matches, and the feedback names what was found, or says
what is missing with examples of what would count. It does not understand the answer; it
only keeps "make it faster" apart from "a small draft model proposes k tokens". Known
limits, by design: a negated mention ("not a draft model") still counts as naming the
mechanism, and a correct answer in words the table does not know gets a "names no concrete
mechanism" message that lists words it would accept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

MAX_ANSWER = 2000  # characters read per answer; the textareas allow no more
MIN_WORDS = 3  # an answer with no mechanism and fewer words than this is "too short"


@dataclass(frozen=True, slots=True)
class Mechanism:
    """A concrete mechanism an answer may name, and the words that name it."""

    label: str
    pattern: re.Pattern[str]


def _m(label: str, *alternatives: str) -> Mechanism:
    return Mechanism(label, re.compile("|".join(alternatives), re.IGNORECASE))


@dataclass(frozen=True, slots=True)
class Field:
    """One field of `designOutline()`: its names, the mechanisms it accepts, and the hint."""

    key: str  # the query parameter and the Python keyword
    name: str  # the name in designOutline()
    label: str
    ask: str  # what to say when no mechanism is named...
    examples: str  # ...and examples of what would count
    mechanisms: tuple[Mechanism, ...]

    @property
    def missing(self) -> str:
        return f"{self.ask} ({self.examples})"


# The table of accepted mechanisms, per field. Patterns are plain alternations of words and
# short phrases (no nested quantifiers), so matching is linear in the answer's length.
FIELDS: tuple[Field, ...] = (
    Field(
        "draft_strategy",
        "draftStrategy",
        "Draft strategy",
        "say which draft proposes the tokens",
        "a small draft model, n-gram or prompt lookup, self-speculation with early exit, "
        "Medusa or EAGLE heads, a token tree…",
        (
            _m(
                "a small draft model",
                r"\bdraft(er)?[- ]models?\b",
                r"\b(small|smaller|tiny|cheap|cheaper|distilled|lightweight|compact|quantized)"
                r"\s+(\w+[- ])?(model|lm|llm|transformer|network|drafter)s?\b",
                r"\b\d+(\.\d+)?\s*[mb]\b[- ]?(param(eter)?s?\s+)?(model|draft|lm)",
                r"\bsame[- ]family\b",
            ),
            _m(
                "an n-gram / prompt-lookup draft",
                r"\bn[- ]?grams?\b",
                r"\b(bi|tri)grams?\b",
                r"\bprompt[- ]lookup\b",
                r"\blookahead\b",
                r"\b(retrieval|retrieved)\b",
                r"\bcop(y|ies|ying) (tokens )?(from )?(the )?(prompt|context|input)",
                r"\bcop(y|ies|ying|ied)\b.{0,40}\b(earlier|previous|prompt|context|input)\b",
                r"\b(n-?gram|lookup) (proposer|drafter|draft)\b",
                r"\bno draft model\b",
                r"\bsuffix (tree|array|automaton)\b",
            ),
            _m(
                "self-speculation (early exit, layer skipping)",
                r"\bself[- ]?specul\w*",
                r"\bearly[- ]exit\w*",
                r"\b(layer[- ]skip\w*|skip(ping|ped)? (some |the )?layers)\b",
                r"\bshallow(er)? (layers|copy|sub-?network)\b",
            ),
            _m(
                "extra decoding heads (Medusa, EAGLE)",
                r"\bmedusa\b",
                r"\beagle\b",
                r"\b(extra|additional|decoding|prediction|draft) heads?\b",
                r"\bmulti[- ]token prediction\b",
            ),
            _m(
                "tree speculation",
                r"\b(token |draft |speculation |candidate )?trees?\b",
                r"\bspecinfer\b",
                r"\bsequoia\b",
                r"\bsiblings?\b",
                r"\btop[- ]?k (tree|drafts?|candidates|siblings)\b",
                r"\b(wide|width[- ]\d|branching)\b.{0,30}\btree",
                r"\bseveral (candidate|draft) (sequences|continuations|branches)\b",
            ),
        ),
    ),
    Field(
        "verification",
        "verification",
        "Verification",
        "say how the target checks the drafts",
        "rejection sampling with residual repair, a greedy match against the target's "
        "argmax, one target pass over all k drafted tokens, a token tree's siblings checked "
        "in turn, Medusa's typical acceptance (fast, not lossless)…",
        (
            _m(
                "rejection sampling with residual repair",
                r"\brejection[- ]sampl\w*",
                r"\bspeculative sampling\b",
                r"\bresidual\b",
                r"\bmin\s*\(\s*1\s*,\s*p",
                r"\bp\s*(\(x\))?\s*/\s*q\b",
                r"\baccept\w* with probability\b",
                r"\bmax\s*\(\s*0\s*,\s*p\s*-\s*q",
                r"\bresampl\w* from\b",
            ),
            _m(
                "a greedy match against the target argmax",
                r"\bgreedy\b",
                r"\barg\s*max\b",
                r"\btop[- ]?1\b",
                r"\bexact(ly)?[- ]match\w*",
            ),
            _m(
                "typical acceptance (Medusa's threshold on p(x), not lossless)",
                r"\btypical[- ]accept\w*",
                r"\bposterior threshold\b",
                r"\bentropy[- ](based |dependent )?(threshold|bar|cut-?off)\b",
                r"\bthreshold on (the target'?s? )?p\b",
                r"\bp\s*\(x\)\s*(>|≥|>=|exceeds|clears|above)",
            ),
            _m(
                "tree verification (siblings checked in turn against the residual)",
                r"\b(tree|branch\w*|siblings?)\b.{0,40}\b(verif\w*|check\w*|test\w*|accept\w*)",
                r"\b(verif\w*|check\w*|test\w*)\b.{0,40}\b(tree|branch(es)?|siblings)\b",
                r"\brecursive rejection\b",
                r"\bmulti[- ](draft|candidate)\b",
            ),
            _m(
                "one target pass over all k drafted tokens",
                r"\b(one|single|1)\s+(batched\s+)?(target\s+)?(model\s+)?(forward\s+)?"
                r"(pass|call|step)\b",
                r"\bin parallel\b",
                r"\bparallel(ly)?\s+(verif\w*|scor\w*|check\w*)",
                r"\b(batched|batch)\s+verif\w*",
                r"\btree attention\b",
                r"\bverif\w* all (the )?(k )?(drafted |draft )?tokens\b",
            ),
        ),
    ),
    Field(
        "acceptance_rate",
        "acceptanceRate",
        "Acceptance rate",
        "give a figure or say how it is measured",
        "0.7 or 70 %; the fraction of drafted tokens accepted, the mean accepted length per "
        "target pass, α = 1 − TV(p, q)…",
        (
            _m(
                "an acceptance figure",
                r"(?<![\w.])0?\.\d+(?![\w.])",
                r"(?<![\w.])1\.0+(?![\w.])",
                r"\b\d{1,3}(\.\d+)?\s*(%|percent\b)",
                r"\b\d+\s+(out\s+)?of\s+(every\s+)?\d+\b",
            ),
            _m(
                "how it is measured",
                r"(\b(fraction|share|proportion|ratio|percent(age)?|number|count)|%)\s+of\s+"
                r"(the\s+)?(draft(ed)?|proposed|speculated|candidate)\s+tokens",
                r"\baccepted\s*(tokens\s*)?/\s*(drafted|proposed|draft)",
                r"\b(mean|average|expected)\s+(accepted|acceptance)\s+(length|tokens|prefix)",
                r"\b(accepted|acceptance)\s+length\b",
                r"\btokens\s+per\s+(target\s+)?(pass|step|call|forward)",
                r"\bblock efficiency\b",
                r"1\s*[-−–]\s*tv\b",
                r"\btotal[- ]variation\b",
                r"\btv\s*\(",
                r"[Σ∑]\s*min\s*\(|\bsum\w*\s+(of\s+)?min\s*\(",
                r"\b(logg|measur|track|monitor|count)\w*\b.*\baccept\w*",
                r"\baccept\w*\b.*\b(logg|measur|track|monitor|count)\w*",
            ),
        ),
    ),
    Field(
        "failure_mode",
        "failureMode",
        "Failure mode or trade-off",
        "say what breaks and why",
        "low acceptance makes it slower than plain decoding, a draft cost c near α, k past "
        "its optimum, skipping repair biases the output, typical acceptance is not lossless, "
        "a tree too wide for one pass, nothing to copy for prompt lookup, memory for the "
        "draft model, large batches…",
        (
            _m(
                "low acceptance makes it slower than plain decoding",
                r"\b(low|poor|falling|drops?|dropping)\s+(acceptance|agreement|match|α|alpha)",
                r"\b(acceptance|agreement|α|alpha)\s+(is\s+|rate\s+)?(drops|falls|low)\b",
                r"\b(mismatch\w*|disagree\w*|diverg\w*)\b",
                r"\b(wasted?|thrown away|discarded)\s+(draft|drafts|drafted|work|tokens|compute)",
                r"\brejected (early|often)\b",
                r"\b(different|new|unusual|out[- ]of[- ]distribution) (domain|language|prompts?)",
            ),
            _m(
                "draft cost near α",
                r"\bdraft(ing)?\s+(model\s+)?cost",
                r"\bcost of (the )?draft",
                r"\bc\s*(≥|>=|>|≈|~|near|close to)\s*(α|alpha)",
                r"(α|alpha)\s*(≤|<=|<)\s*c\b",
                r"\bbreak[- ]?even\b",
                r"\bdraft (is |model is )?too (slow|expensive|large|big)\b",
                r"\boverhead\b",
            ),
            _m(
                "k past its optimum",
                r"\bk\s+(is\s+)?(too|past|beyond|above)\s+(large|long|big|high|its|the)",
                r"\b(too\s+)?(long|large|big)\s+k\b",
                r"\b(optimal|optimum|best)\s+k\b",
                r"\bdraft length\b",
                r"\btoo many (draft(ed)? )?tokens\b",
                r"\b(longer|lengthen\w*) (k|drafts?)\b",
            ),
            _m(
                "skipping repair or verification biases the output",
                r"\b(skip\w*|without|no|drop\w*|omit\w*|disabl\w*|turn\w* off)\s+(the\s+)?"
                r"(residual|repair|verification|verify|verifier|target check)",
                r"\bbias\w*",
                r"\bdistribution\s+(shift\w*|drift\w*|chang\w*|is not kept|not kept|skew\w*)",
                r"\blossy\b",
                r"\b(quality|accuracy)\s+(loss|drop\w*|degrad\w*|regress\w*)",
                r"\bover-?weight\w*",
            ),
            _m(
                "typical acceptance is not lossless",
                r"\bnot lossless\b",
                r"\btypical[- ]accept\w*",
                r"\bno longer (keeps|preserves) (the )?(target'?s? )?distribution\b",
            ),
            _m(
                "a tree too wide or deep for one pass",
                r"\b(wide|wider|large|larger|big|bigger|deep|deeper) trees?\b",
                r"\btree (width|size|depth)\b",
                r"\b(too )?many (tree |drafted )?nodes\b",
                r"\bnodes? (scored|verified|checked) (in |per )",
            ),
            _m(
                "nothing to copy for prompt lookup",
                r"\bnothing to copy\b",
                r"\bno (earlier |previous |prior )?(match|occurrence|repeat\w*)",
                r"\b(non-?repetitive|not repetitive|novel|fresh) (text|prompts?|output|answers?)",
                r"\blookup (misses|fails|finds nothing)\b",
                r"\bsampl\w*\b.{0,30}\b(breaks?|diverg\w*)\b.{0,20}\bcop(y|ies)",
            ),
            _m(
                "memory for the draft model",
                r"\bmemory\b",
                r"\b(v?ram|hbm)\b",
                r"\bkv[- ]?cache\b",
                r"\bextra (weights|parameters)\b",
            ),
            _m(
                "batch-size effects",
                r"\bbatch\w*",
                r"\bthroughput\b",
                r"\bcompute[- ]bound\b",
                r"\butili[sz]ation\b",
                r"\bconcurren\w*",
                r"\b(high|heavy) load\b",
            ),
            _m(
                "latency variance",
                r"\b(tail|p9\d)\s+latency\b",
                r"\b(variance|jitter|unpredictable latency)\b",
            ),
            _m(
                "operating two models",
                r"\btwo models to (deploy|serve|keep|maintain|update)",
                r"\btokeni[sz]er\w*",
                r"\bversion skew\b",
            ),
        ),
    ),
)
BY_KEY = {f.key: f for f in FIELDS}

# Words that say what is wanted, not how: named back to the learner when nothing else is.
VAGUE = re.compile(
    r"\b(fast|faster|fastest|speed\w*|quick\w*|better|best|efficient\w*|optimi[sz]\w*|"
    r"improv\w*|good|great|somehow|magic|smart\w*|accurate|works?|fine|high|low)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class FieldFeedback:
    key: str
    name: str
    label: str
    answer: str
    ok: bool
    found: tuple[str, ...]  # labels of the mechanisms named
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "ok": self.ok,
            "found": list(self.found),
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class OutlineFeedback:
    draft_strategy: FieldFeedback
    verification: FieldFeedback
    acceptance_rate: FieldFeedback
    failure_mode: FieldFeedback

    @property
    def fields(self) -> tuple[FieldFeedback, ...]:
        return (self.draft_strategy, self.verification, self.acceptance_rate, self.failure_mode)

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self.fields)

    @property
    def summary(self) -> str:
        good = sum(f.ok for f in self.fields)
        if good == len(self.fields):
            return (
                "All four answers name a concrete mechanism. Keep the outline with one failed "
                "attempt as evidence, then test the failure mode on the station."
            )
        missing = ", ".join(f.name for f in self.fields if not f.ok)
        return (
            f"{good} of {len(self.fields)} answers name a concrete mechanism; "
            f"still missing: {missing}."
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "summary": self.summary,
            "fields": {f.name: f.to_dict() for f in self.fields},
        }


def judge_field(key: str, answer: str) -> FieldFeedback:
    """One answer against its field's mechanisms: ok, what was found, and the message."""
    field = BY_KEY[key]
    text = " ".join(answer.split())
    note = ""
    if len(text) > MAX_ANSWER:
        text = text[:MAX_ANSWER]
        note = f" (Only the first {MAX_ANSWER} characters were read.)"
    if not text:
        return FieldFeedback(
            key,
            field.name,
            field.label,
            "",
            False,
            (),
            f"{field.name} is empty: {field.missing}.",
        )
    found = tuple(m.label for m in field.mechanisms if m.pattern.search(text))
    if found:
        return FieldFeedback(
            key,
            field.name,
            field.label,
            text,
            True,
            found,
            f"{field.name} names a concrete mechanism: {'; '.join(found)}.{note}",
        )
    vague = sorted({w.lower() for w in VAGUE.findall(text)})
    if len(text.split()) < MIN_WORDS:
        problem = "is too short to name a mechanism"
    else:
        problem = "names no concrete mechanism"
    said = f"“{'”, “'.join(vague)}” says what you want, not how; " if vague else ""
    return FieldFeedback(
        key,
        field.name,
        field.label,
        text,
        False,
        (),
        f"{field.name} {problem}: {said}{field.missing}.{note}",
    )


def design_outline_feedback(
    draft_strategy: str, verification: str, acceptance_rate: str, failure_mode: str
) -> OutlineFeedback:
    """Check a `designOutline()` answer: does each field name a concrete mechanism?

    >>> fb = design_outline_feedback(
    ...     "a small draft model from the same family proposes k = 4 tokens",
    ...     "one target pass over all drafts, rejection sampling with residual repair",
    ...     "about 70% of drafted tokens accepted",
    ...     "make it faster",
    ... )
    >>> [f.ok for f in fb.fields]
    [True, True, True, False]
    >>> fb.failure_mode.message.startswith("failureMode names no concrete mechanism")
    True
    """
    return OutlineFeedback(
        judge_field("draft_strategy", draft_strategy),
        judge_field("verification", verification),
        judge_field("acceptance_rate", acceptance_rate),
        judge_field("failure_mode", failure_mode),
    )
