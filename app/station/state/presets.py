"""Classroom presets: one click or one URL each, with a hint and a question to try.

Each preset is a full instrument state, so its link reproduces exactly what the class sees;
`tests/app/station/views/test_classroom.py` checks that each one's evidence matches its hint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from witness import Settings

# A sentence of the corpus and the start of it again: prompt lookup finds the repeat.
LOOKUP_PROMPT = (
    "at the first rejection, the server must pick a new token to replace the rejected one. at the"
)


@dataclass(frozen=True, slots=True)
class Preset:
    id: str
    title: str
    hint: str
    question: str
    values: dict[str, Any]
    # The title or hint tells the outcome of an intervention the prediction (step 03) asks
    # about, so its chip waits until a prediction is recorded (app/station/views/classroom.py).
    names_answer: bool = False

    @property
    def settings(self) -> Settings:
        return Settings(**self.values)


PRESETS: tuple[Preset, ...] = (
    Preset(
        "well-matched",
        "Well-matched draft",
        "The draft agrees with the target most of the time: long accepted prefixes, several "
        "tokens per target pass.",
        "How many tokens does one target pass emit here, and what would lengthening k buy?",
        {"match": 0.9, "k": 5, "draft_cost": 0.05},
    ),
    Preset(
        "mismatched",
        "Mismatched draft",
        "The draft disagrees early and often: the residual repairs most blocks and the savings "
        "shrink, yet the output keeps p.",
        "Is the output still the target's distribution? Is it still faster than plain decoding?",
        {"match": 0.0, "k": 4, "draft_cost": 0.05},
    ),
    Preset(
        "draft-too-slow",
        "Draft too slow (c near α)",
        "The draft costs almost as much as the agreement saves: at k = 4 this is slower than "
        "plain decoding, and α is so close to c that even k = 1 barely breaks even.",
        "Which k, if any, makes this faster than plain decoding? Check the sweep.",
        {"match": 0.0, "k": 4, "draft_cost": 0.35},
        names_answer=True,
    ),
    Preset(
        "k-past-optimum",
        "k past its optimum",
        "Every extra draft is paid for, but most are thrown away after the first rejection: "
        "over the seeded requests k = 16 is slower than the formula's optimum k.",
        "Where is the optimum on the sweep, and why does the curve fall after it?",
        {"match": 0.6, "k": 16, "draft_cost": 0.1},
        names_answer=True,
    ),
    Preset(
        "unsafe-shortcut",
        "The unsafe shortcut (repair off)",
        "On a rejection the target resamples p instead of the residual: the speed hardly "
        "changes (a few percent at most, over the seeded requests), but the output "
        "over-weights what the draft likes.",
        "Which gate fails, and by how much? Does the sampled check catch it?",
        {"match": 0.3, "k": 4, "draft_cost": 0.1, "repair": False},
        names_answer=True,
    ),
    Preset(
        "verify-off",
        "Verify off",
        "No target pass at all: the fastest path there is, and plain draft-model sampling.",
        "What is the output distribution now, and what did the speedup cost?",
        {"match": 0.3, "k": 4, "draft_cost": 0.1, "verify": False},
        names_answer=True,
    ),
    Preset(
        "greedy",
        "Greedy decoding",
        "Temperature 0: a draft is accepted exactly when it is the target's argmax, so the "
        "output is identical token for token to plain greedy decoding.",
        "Identical token for token, or identical in distribution: which does sampling promise?",
        {"match": 0.2, "k": 4, "draft_cost": 0.1, "greedy": True},
    ),
    Preset(
        "p-equals-q",
        "p = q",
        "The draft is the target: nothing is ever rejected, the residual is never needed, and "
        "every full block emits k + 1 tokens (the last drafts only what is left).",
        "What limits the speedup when every draft is accepted?",
        {"match": 1.0, "k": 8, "draft_cost": 0.05},
        names_answer=True,
    ),
    Preset(
        "tree-of-two",
        "A tree of two",
        "Two siblings drawn from q at every node, four levels deep: 2 + 4 + 8 + 16 = 30 drafted "
        "nodes, all scored in one target pass. A rejected word gets a second chance from its "
        "sibling, so over the seeded requests this tree is faster than the chain of four, and "
        "the exact check still keeps p.",
        "How many tokens does one target pass emit now, and what did the 26 extra nodes cost?",
        {"match": 0.6, "k": 4, "draft_cost": 0.1, "tree_width": 2},
    ),
    Preset(
        "eagle-top-k",
        "EAGLE-style top-k tree",
        "The same tree, but the siblings are the draft's two most likely words instead of "
        "draws. A fixed guess is accepted with probability p(x) alone, so over the seeded "
        "requests this tree gains little, if anything, on the chain of four and is no faster "
        "than the sampled tree of two; the exact check still keeps p.",
        "Why does a deterministic guess pass the ratio test less often than a sampled one?",
        {"match": 0.6, "k": 4, "draft_cost": 0.1, "tree_width": 2, "drafting": "top"},
    ),
    Preset(
        "medusa-typical",
        "Medusa's shortcut (typical acceptance)",
        "The top-2 tree with Medusa's typical acceptance: a drafted word stands when the "
        "target finds it plausible enough, and nothing is resampled. Over the seeded requests "
        "it is faster than the same tree checked exactly, yet the output is far from the "
        "target's distribution (exact TV above 0.8).",
        "Which gate fails, and would a sampled check on this request catch it?",
        {
            "match": 0.6,
            "k": 4,
            "draft_cost": 0.1,
            "tree_width": 2,
            "drafting": "top",
            "acceptance": "typical",
        },
        names_answer=True,
    ),
    Preset(
        "prompt-lookup",
        "Prompt lookup on a repetitive request",
        "No draft model: each block copies what followed the last words earlier in the "
        "request. Greedy, on a prompt that repeats its own start, the answer first copies the "
        "prompt and later loops, and the loop is copied whole: 48 tokens in 22 target passes, "
        "2.18 per pass at no draft cost. The draft model does better here (4.71×), and "
        "sampled, the same prompt gets only 1.06 tokens per pass: barely faster than plain "
        "decoding.",
        "Which blocks did copying win, and why does sampling break the copies?",
        {
            "match": 0.6,
            "k": 8,
            "draft_cost": 0.1,
            "greedy": True,
            "tokens": 48,  # the hint's figures are this request's: the length is part of it
            "draft_source": "lookup",
            "prompt": LOOKUP_PROMPT,
        },
    ),
)
# The cost of a pass on a real machine, adaptive draft length and an injected failure.
PRESETS += (
    Preset(
        "batch-kills-win",
        "The batch that kills the win",
        "A well-matched Llama 3.1 8B / 3.2 1B pair on an H100, priced by the roofline, at "
        "batch 256. At batch 1 verifying five tokens costs one pass and speculation is well "
        "over 2× faster; here the verifying pass scores 1 280 tokens, is compute-bound and "
        "costs over four plain steps, so over the seeded requests speculation is slower than "
        "plain decoding. The output still keeps p.",
        "From which batch does k = 4 stop paying, and which k would a server use there?",
        {"match": 0.9, "k": 4, "machine": "h100", "pair": "llama-8b-1b", "batch": 256},
        names_answer=True,
    ),
    Preset(
        "long-context",
        "Long context helps speculation",
        "The same pair on an H100 at batch 128 with 2 048 tokens of context per sequence. "
        "Every pass now also reads the batch's KV cache, which keeps the verifying pass "
        "memory-bound: over the seeded requests speculation is faster here than at the same "
        "batch with no context.",
        "Why does reading more memory per pass make the drafts cheaper to check?",
        {
            "match": 0.9,
            "k": 4,
            "machine": "h100",
            "pair": "llama-8b-1b",
            "batch": 128,
            "context": 2048,
        },
        names_answer=True,
    ),
    Preset(
        "adaptive-k",
        "Adaptive k on a mixed request",
        "A request whose easy and hard stretches alternate: one fixed k drafts too far on the "
        "hard words and stops short on the easy ones. Race the draft-length policies on it "
        "(the evidence's policy race): every policy keeps p, and they differ only in how "
        "many drafts each block pays for.",
        "Which policy wastes the fewest draft passes, and is it the fastest?",
        {"match": 0.6, "k": 4, "draft_cost": 0.1, "tokens": 96},
    ),
    Preset(
        "adversary-recovery",
        "A draft that never agrees, and recovery",
        "An injected failure: the draft proposes the target's least likely word, which the "
        "target almost never takes (α ≈ 0.00002). Every full block pays k draft passes for "
        "one repaired token, "
        "and speculation is slower than plain decoding, though the output keeps p. In the "
        "policy race a recovery policy stops speculating and comes back to within 1% of "
        "plain-decoding speed: only the probes it sends, to see whether the draft has "
        "recovered, still cost c each.",
        "What does each block cost here, and what should a server do when acceptance stays "
        "below c?",
        # 96 tokens: long enough that the two blocks recovery needs to judge are a small share.
        {"match": 0.0, "k": 4, "draft_cost": 0.1, "draft_source": "adversary", "tokens": 96},
        names_answer=True,
    ),
)
BY_ID = {p.id: p for p in PRESETS}
