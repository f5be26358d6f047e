"""The study card of station 08, as data.

The card's copy (mental model, how to study, proof of understanding, the primary source, the
review prompt, the build-evidence criteria) is kept here word for word from the study-card
seed, so the study view, the worksheet and the tests read the same text. Its design
exercise, `designOutline()`, is checked in app/study/design_outline.py.
"""

from __future__ import annotations

from dataclasses import dataclass

# The study memory's localStorage key (docs/route-memory.md, "The study key").
from app.contract.route import STUDY_KEY as STUDY_KEY

TITLE = "Speculative Decoding"
TRACK = "Inference & Serving · core"
SUBTITLE = (
    "Draft models, token verification, acceptance rates, tree speculation, latency, "
    "and quality preservation."
)
MENTAL_MODEL = (
    "A cheap draft proposes several tokens and the target model verifies them in parallel. "
    "Speedup depends on acceptance rate and verification cost while preserving the target "
    "distribution."
)
HOW_TO_STUDY = (
    "Begin by restating the mental model in your own words, then connect it to a concrete "
    "system you have built or operated. Name the mechanism, the constraint it addresses, and "
    "the trade-off it introduces. Use Fast Inference from Transformers via Speculative "
    "Decoding to check details, but close the source before writing your explanation. "
    "Retrieval is the learning step; rereading is only preparation.",
    "Next, compare Speculative Decoding with FlashAttention & Attention Kernels, GPU "
    "Utilization. Ask what changes in correctness, latency, resource use, operability, and "
    "failure recovery. Complete Design exercise: Speculative Decoding and preserve the "
    "command, input, output, and one failed attempt as evidence. Finish by explaining the "
    "idea without jargon to someone who has not studied the track.",
)
PROOF_OF_UNDERSTANDING = (
    "Explain the mechanism from first principles and identify the state it reads or changes.",
    "Give one situation where the concept is the right choice and one where it is not.",
    "Predict a realistic failure mode before running the drill, then compare the prediction "
    "with evidence.",
    "Connect the result to a roadmap or build artifact instead of treating the concept as "
    "isolated trivia.",
)
SOURCE_AUTHORS = "Yaniv Leviathan, Matan Kalman and Yossi Matias"
SOURCE_TITLE = "Fast Inference from Transformers via Speculative Decoding"
SOURCE_ID = "arXiv 2211.17192"
SOURCE_URL = "https://arxiv.org/abs/2211.17192"
DESIGN_EXERCISE = (
    "Draft models, token verification, acceptance rates, tree speculation, latency, and "
    "quality preservation. Implement designOutline() returning non-empty values for: "
    "draftStrategy, verification, acceptanceRate. Each value must name a concrete mechanism "
    "or decision."
)
EXPECTED_EVIDENCE = (
    "A design outline with draftStrategy, verification, acceptanceRate plus an explicit "
    "failure mode or trade-off."
)
REVIEW_PROMPT = (
    "Speculative decoding runs two models yet is faster, and the output distribution is "
    "unchanged. Explain both claims."
)
SYNTHESIS_TITLE = "Synthesize: Inference & Serving"
SYNTHESIS_TEXT = (
    "Build a production mental model for inference engines, memory, kernels, routing, "
    "hardware, and serving economics. Produce one working system, benchmark, or "
    "evidence-backed design that integrates the path."
)


@dataclass(frozen=True, slots=True)
class EvidenceLink:
    """One build-evidence criterion and the part of the station that demonstrates it."""

    criterion: str
    href: str
    link_text: str
    how: str


BUILD_EVIDENCE: tuple[EvidenceLink, ...] = (
    EvidenceLink(
        "Implements or precisely models the core mechanisms from all three milestones",
        "/station#step-05",
        "Step 05 · Evidence",
        "The witness models drafting, one target pass per block, rejection sampling and "
        "residual repair on a served request, token by token; beside the chain, its drafting "
        "control serves token trees, Medusa's typical acceptance (not lossless) and prompt "
        "lookup.",
    ),
    EvidenceLink(
        "Includes at least one injected failure or adversarial case and demonstrates recovery",
        "/station?preset=unsafe-shortcut&match=0.3&k=4&draft_cost=0.1&repair=off#step-06",
        "The unsafe shortcut, step 06 · Invariant",
        "Repair is switched off: record a prediction, read which gate fails, then switch "
        "repair back on and watch the distribution come back to p.",
    ),
    EvidenceLink(
        "Reports quality, latency, resource, reliability, or usability measurements relevant "
        "to the domain",
        "/station#step-07",
        "Step 07 · Next: the evaluation slice",
        "Target passes against plain decoding, measured and expected speedup, time at TPOT, "
        "and the exact and sampled distance to p.",
    ),
    EvidenceLink(
        "Ships a concise architecture note explaining decisions, trade-offs, and remaining risks",
        "/architecture.md",
        "The architecture note",
        "How the witness, the server and the page fit together, the decisions taken, and the "
        "risks left; the printable worksheet records one state's decisions and numbers.",
    ),
)
