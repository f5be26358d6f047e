"""The step-through's words: each sub-step's title and narration, the mode and the intro.

One sentence per sub-step, in the words of the live narration (app/views/gates.narration),
so a learner who reads the evidence and one who walks the step-through hear the same rule.
"""

from __future__ import annotations

from app.views import fmt
from app.views.charts import focus_alpha, identity_text
from app.views.tree_chart import (
    below_phrase,
    copied_words,
    ending_sentence,
    first_at_each,
    method_name,
    sibling_test,
)
from witness import Settings
from witness.core.settings import drafted_width, tree_nodes
from witness.core.trace import BlockTrace, DraftStep

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


# ------------------------------------------------- trees, typical acceptance, prompt lookup


def method_mode_text(s: Settings) -> str:
    """The mode line of a tree, typical acceptance or prompt lookup, true in every mode."""
    sampling = "greedy (temperature 0)" if s.greedy else "sampling"
    name = method_name(s)
    if not s.verify:
        what = "copied" if s.draft_source == "lookup" else "drafted"
        return (
            f"Target verify off: nothing is checked; the {what} tokens are emitted as they "
            f"are ({sampling})."
        )
    if s.acceptance == "typical":
        return (
            f"Verify on, typical acceptance: a sibling stands when p(x) clears the bar, and "
            f"nothing is resampled (so the repair switch changes nothing); not lossless "
            f"({sampling})."
        )
    if not s.repair:
        return (
            "Verify on, repair off: p′ is never updated, and a depth where every sibling "
            f"fails resamples p ({sampling})."
        )
    return f"Verify on, repair on: {name}; speculative {sampling}, lossless."


def _sizes(s: Settings, depth: int) -> str:
    return " + ".join(str(s.tree_width**d) for d in range(1, depth + 1))


def tree_draft_sentence(block: BlockTrace, s: Settings) -> str:
    after = f"Block {block.index + 1}, after '{' '.join(block.context)}'"
    depth = block.depth
    first = block.levels[0].siblings if block.levels else ()
    if s.draft_source == "lookup":
        m = block.lookup
        assert m is not None
        return (
            f"{after}: prompt lookup finds the last words '{' '.join(m.ngram)}' earlier (at "
            f"word {m.start + 1} of the prompt and text so far) and copies the "
            f"{n_of(depth, 'word')} that followed them, {copied_words(block)}. No draft "
            "model runs; a copied token's q is one-hot (q′ = 1)."
        )
    listed = ", ".join(f"'{sib.word}' (q {fmt.prob(sib.q)})" for sib in first)
    if s.drafting == "top":
        listed = "q's most likely, " + ", ".join(f"'{sib.word}'" for sib in first)
    if s.tree_width == 1:
        drafts = ", ".join(f"'{d.word}' (q {fmt.prob(d.q)})" for d in block.drafts[:LISTED])
        return (
            f"{after}: the draft proposes {n_of(depth, 'token')} from q — {drafts}"
            f"{_more(depth)}, in {depth} draft pass{'es' if depth != 1 else ''}."
        )
    nodes = tree_nodes(drafted_width(s), depth)
    return (
        f"{after}: the draft drafts the whole tree, {s.tree_width} siblings at every node, "
        f"{depth} deep: {nodes} nodes ({_sizes(s, depth)}) in {depth} batched draft "
        f"pass{'es' if depth != 1 else ''}, one per level. At depth 1: {listed}."
    )


def tree_target_sentence(block: BlockTrace, s: Settings) -> str:
    drafted = block.scored - 1
    what = "copied tokens" if s.draft_source == "lookup" else "drafted nodes"
    return (
        f"One target pass scores {block.scored} tokens at once, the {drafted} {what} and the "
        "last word before them: p is known at every node, and for a bonus token after any "
        "leaf."
    )


def residual_update(s: Settings, word: str) -> str:
    """What a failed exact test does to the laws the next sibling is tested against."""
    if not s.repair:
        return "repair is off, so p′ stays p for the next sibling"
    if s.drafting == "top" or s.draft_source == "lookup":
        return (
            f"residual updated: p′ ← normalised max(0, p′ − q′), with q′ the point mass at "
            f"'{word}': p′ without '{word}'"
        )
    if s.drafting == "distinct":
        return (
            f"residual updated: p′ ← normalised max(0, p′ − q′), and q′ ← q′ without "
            f"'{word}', renormalised"
        )
    return "residual updated: p′ ← normalised max(0, p′ − q′), with q′ = q"


def tree_check_sentence(
    block: BlockTrace, s: Settings, level: int, sibling: int, below: int
) -> str:
    """One sibling's test at depth ``level`` (0-based), and what the walk does next."""
    lv = block.levels[level]
    sib = lv.siblings[sibling]
    width = len(lv.siblings)
    who = (
        f"Depth {level + 1}, sibling {sibling + 1} of {width} '{sib.word}'"
        if width > 1
        else f"Depth {level + 1} '{sib.word}'"
    )
    test, _ = sibling_test(sib, lv.threshold)
    last_level = level == len(block.levels) - 1
    if sib.accepted:
        verdict = "typical" if lv.threshold is not None else "accepted"
        if last_level and block.result.first_rejection is None:
            nxt = "it is the deepest level drafted: the walk reached a leaf"
        else:
            children = len(block.levels[level + 1].siblings) if not last_level else 0
            nxt = (
                f"depth {level + 1} stands at '{sib.word}'; the walk moves on to its "
                f"{children} {'child' if children == 1 else 'children'} at depth {level + 2}"
            )
        return f"{who} {verdict}: {test}; {nxt}."
    verdict = "not typical" if lv.threshold is not None else "rejected"
    unreached = f"; {below_phrase(s, below)} scored, never reached" if below else ""
    if sibling + 1 < width:
        then = (
            "the next sibling meets the same bar"
            if lv.threshold is not None
            else residual_update(s, sib.word)
        )
        return f"{who} {verdict}: {test}{unreached}; {then}."
    return f"{who} {verdict}: {test}{unreached}; no sibling is left at depth {level + 1}."


def tree_intro(block: BlockTrace, s: Settings, count: int) -> str:
    n = block.index + 1
    if not block.levels:
        return (
            f"Block {n} in {count} sub-steps: nothing was drafted, and one target pass gives "
            "a token from p, as plain decoding does."
        )
    if not s.verify:
        return (
            f"Block {n} in {count} sub-steps: the draft drafts, no target pass checks it, "
            f"and {first_at_each(block)} at every depth is emitted."
        )
    how = "p(x) against the bar" if s.acceptance == "typical" else "u against p′/q′"
    if s.acceptance == "typical":
        end = "the target's argmax when none clears the bar, or a bonus"
    elif s.repair:
        end = "a token from the last residual, or a bonus"
    else:
        end = "a token resampled from p (repair off), or a bonus"
    return (
        f"Block {n} in {count} sub-steps: the draft drafts, one target pass scores it all, "
        f"the walk tests each depth's siblings in turn ({how}) until one stands, and the "
        f"block ends with {end}."
    )


def tree_unchecked_sentence(block: BlockTrace) -> str:
    k = len(block.levels)
    return (
        f"{first_at_each(block).capitalize()} at each of the {n_of(k, 'depth')} is emitted "
        f"as drafted, for no target pass: the output follows the draft, not p{_cut(block)}."
    )


def tree_ending_sentence(block: BlockTrace, s: Settings) -> str:
    return f"{ending_sentence(block, s)} The block emits {_gives_tail(block)}."


def _gives_tail(block: BlockTrace) -> str:
    return f"{n_of(len(block.result.emitted), 'token')} for one target pass{_cut(block)}"


def lookup_plain(block: BlockTrace, kind: str) -> str:
    """A prompt-lookup block that found nothing to copy: a plain target pass."""
    if kind == "draft":
        return (
            f"Block {block.index + 1}, after '{' '.join(block.context)}': prompt lookup finds "
            "no earlier occurrence of the last words, so there is nothing to copy."
        )
    if kind == "target":
        return "One target pass computes p at the one position, as plain decoding does."
    return (
        f"Nothing was copied: the token '{block.final_word}' came from p, exactly as in plain "
        "decoding; the block emits 1 token for one target pass."
    )
