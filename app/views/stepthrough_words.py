"""The step-through's words: each sub-step's title and narration, the mode and the intro.

One sentence per sub-step, in the words of the live narration (app/views/gates.narration),
so a learner who reads the evidence and one who walks the step-through hear the same rule.
"""

from __future__ import annotations

from app.views import fmt
from app.views.charts import focus_alpha, identity_text
from witness.trace import BlockTrace, DraftStep

LISTED = 6  # drafts named one by one in a narration; the table shows every one


def title(block: BlockTrace, kind: str, i: int) -> str:
    if kind == "check":
        return f"Check draft {i - 1} '{block.drafts[i - 2].word}'"
    if not block.drafts and kind in ("draft", "bonus"):
        return "Nothing to draft (one token left)" if kind == "draft" else "The token from p"
    return {
        "draft": f"The draft proposes {n_of(len(block.drafts), 'token')}",
        "target": "One target pass",
        "no_target": "No target pass",
        "repair": "Repair from the residual",
        "resample": "Resample from p",
        "bonus": "Bonus token from p",
        "unchecked": "Emit the drafts unchecked",
    }[kind]


def narration(
    block: BlockTrace, verify: bool, repair: bool, greedy: bool, kind: str, i: int
) -> str:
    """One sentence per sub-step, in the words of the live narration (gates.narration)."""
    drafts = block.drafts
    k = len(drafts)
    if k == 0:  # one token was left: a server drafts no further than the request goes
        return _plain_pass(block, kind)
    if kind == "draft":
        listed = ", ".join(f"'{d.word}' (q {fmt.prob(d.q)})" for d in drafts[:LISTED])
        return (
            f"Block {block.index + 1}, after '{' '.join(block.context)}': the draft proposes "
            f"{n_of(k, 'token')} from q — {listed}{_more(k)}."
        )
    if kind == "no_target":
        drafts_text = n_of(k, "draft")
        return f"Target verify is off: no target pass runs, so nothing checks the {drafts_text}."
    if kind == "target":
        listed = ", ".join(
            f"'{d.word}' p {fmt.prob(d.p)} against q {fmt.prob(d.q)}" for d in drafts[:LISTED]
        )
        return (
            f"One target pass computes p at all {k + 1} positions at once: {listed}{_more(k)}, "
            "and p for a bonus token after them."
        )
    if kind == "check":
        return _check_sentence(drafts[i - 2], k, greedy)
    if kind == "unchecked":
        return (
            f"All {n_of(k, 'drafted token')} are emitted as drafted, for no target pass: "
            f"the output follows q, not p{_cut(block)}."
        )
    gives = _gives(block)
    if kind == "bonus":
        return (
            f"All {n_of(k, 'draft')} accepted: the bonus token '{block.final_word}' came from p "
            f"at position {k + 1}, computed in the same pass; {gives}."
        )
    r = block.result.first_rejection
    assert r is not None
    if kind == "repair":
        top = ", ".join(f"'{w}' {fmt.prob(x)}" for w, x in block.residual_top[:3])
        return (
            f"Repair: the residual max(0, p − q) at draft {r + 1} ({top}) gave "
            f"'{block.final_word}'; {gives}."
        )
    return (
        f"Repair is off: the target resampled p at draft {r + 1} and gave '{block.final_word}', "
        f"biased toward what the draft likes; {gives}."
    )


def _plain_pass(block: BlockTrace, kind: str) -> str:
    """A verified block that drafted nothing: one token was left to generate."""
    if kind == "draft":
        return (
            f"Block {block.index + 1}, after '{' '.join(block.context)}': one token is left to "
            "generate, so the draft proposes nothing (a block of j drafts emits up to j + 1 "
            "tokens, and a server drafts no further than the request goes)."
        )
    if kind == "target":
        return "One target pass computes p at the one position left, as plain decoding does."
    return (
        f"Nothing was drafted: the token '{block.final_word}' came from p, exactly as in plain "
        "decoding; the block emits 1 token for one target pass."
    )


def identity(block: BlockTrace, repair: bool) -> str:
    """One sentence: the stack min(p, q) + (1 − α)·residual = p at the rejected token, in
    its numbers (with repair off, that min(p, q) + (1 − α)·p is not p); "" without a focus."""
    if block.focus is None or not block.bars:
        return ""
    stack = identity_text(block.bars[0], focus_alpha(block), repair)
    if repair:
        return (
            f"The identity behind it, at the rejected {stack}; the same stack fills p at every "
            "token, so acceptance and repair together emit exactly p."
        )
    return (
        f"Without the residual the stack no longer equals p, at the rejected {stack}; "
        "min(p, q) + (1 − α)·p is the biased law repair-off emits, not p."
    )


def _check_sentence(d: DraftStep, k: int, greedy: bool) -> str:
    n = d.position + 1
    rest = k - n
    stop = "; the block stops here"
    if rest == 1:
        stop += f" and draft {n + 1} is thrown away"
    elif rest > 1:
        stop += f" and drafts {n + 1}–{k} are thrown away"
    if greedy:
        if d.accepted:
            return f"Draft {n} '{d.word}' accepted: it is the target's greedy choice (p = 1)."
        return (
            f"Draft {n} '{d.word}' rejected: the target's greedy choice is another token "
            f"(p = 0){stop}."
        )
    if d.accepted:
        return f"Draft {n} '{d.word}' accepted: u = {d.u:.2f} < p/q = {d.ratio:.2f}."
    return f"Draft {n} '{d.word}' rejected: u = {d.u:.2f} ≥ p/q = {d.ratio:.2f}{stop}."


def _gives(block: BlockTrace) -> str:
    emitted = n_of(len(block.result.emitted), "token")
    return f"the block emits {emitted} for one target pass{_cut(block)}"


def _cut(block: BlockTrace) -> str:
    if not block.truncated:
        return ""
    return f" (the request needed only {len(block.emitted_words)} of them)"


def n_of(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _more(k: int) -> str:
    return f" and {k - LISTED} more" if k > LISTED else ""


def mode_text(verify: bool, repair: bool, greedy: bool) -> str:
    sampling = "greedy (temperature 0)" if greedy else "sampling"
    if not verify:
        return f"Target verify off: nothing is checked ({sampling})."
    if not repair:
        return f"Verify on, repair off: a rejection resamples p ({sampling})."
    return f"Verify on, repair on: speculative {sampling}, lossless."


def intro(block: BlockTrace, verify: bool, count: int) -> str:
    k = len(block.drafts)
    if not verify:
        return (
            f"Block {block.index + 1} in {count} sub-steps: the draft proposes {n_of(k, 'token')}, "
            "no target pass checks them, and all are emitted."
        )
    return (
        f"Block {block.index + 1} in {count} sub-steps: the draft proposes {n_of(k, 'token')}, one "
        "target pass scores them all, each is checked in turn until the first rejection, and "
        "the block ends with a repair or a bonus token."
    )
