"""The step-through's sentences: which one each sub-step says, and the values that fill it.

The words live in app/words/stepthrough.toml; here each sub-step picks its sentence (the
mode: accepted or rejected, greedy or sampled, repair on or off, the request cut short or
not) and formats the trace's numbers. They follow the live narration
(app/station/views/gates.py), so a learner who reads the evidence and one who walks the
step-through hear the same rule.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.station.views import fmt
from app.station.views.charts import focus_alpha, identity_text
from app.station.views.tree_chart import (
    below_phrase,
    copied_words,
    ending_sentence,
    first_at_each,
    method_name,
    sibling_test,
)
from app.words import Sentence, say
from witness import Settings
from witness.core.settings import drafted_width, tree_nodes
from witness.core.trace import BlockTrace, DraftStep, TreeLevel

LISTED = 6  # drafts named one by one in a narration; the table shows every one


def n_of(n: int, word: str, plural: str = "") -> str:
    """A count and its noun, '1 token' or '4 tokens' (``plural`` where an s will not do)."""
    return f"{n} {word}" if n == 1 else f"{n} {plural or word + 's'}"


def _where(block: BlockTrace) -> dict[str, object]:
    """The block's number and the words before it, which a draft sentence opens with."""
    return {"number": block.index + 1, "context": " ".join(block.context)}


def _listed(items: Sequence[str], total: int) -> str:
    """The first ``LISTED`` items, and how many more of ``total`` there are."""
    listed = ", ".join(items[:LISTED])
    if total <= LISTED:
        return listed
    return say("stepthrough.listing.more", listed=listed, more=total - LISTED)


def _draft_items(drafts: Sequence[DraftStep]) -> list[str]:
    return [say("stepthrough.listing.draft", word=d.word, q=fmt.prob(d.q)) for d in drafts]


def _cut(block: BlockTrace) -> str:
    """The mode of a sentence that says what the block emits: "cut" when the request
    needed fewer tokens than the block gave."""
    return "cut" if block.truncated else "whole"


def _needed(block: BlockTrace) -> dict[str, object]:
    """The value a "cut" sentence names: how many tokens the request still needed."""
    return {"needed": len(block.emitted_words)} if block.truncated else {}


def _emits(block: BlockTrace) -> Sentence:
    tokens = n_of(len(block.result.emitted), "token")
    return say(f"stepthrough.emits.{_cut(block)}", tokens=tokens, **_needed(block))


def _sampling(greedy: bool) -> Sentence:
    return say(f"stepthrough.mode.sampling.{'greedy' if greedy else 'sampled'}")


# --------------------------------------------------------------------------- a chain's block


def title(block: BlockTrace, kind: str, i: int) -> Sentence:
    if kind == "check":
        return say("stepthrough.title.check", number=i - 1, word=block.drafts[i - 2].word)
    if not block.drafts and kind == "draft":
        return say("stepthrough.title.plain.draft")
    if not block.drafts and kind == "bonus":
        return say("stepthrough.title.plain.token")
    if kind == "draft":
        return say("stepthrough.title.draft", tokens=n_of(len(block.drafts), "token"))
    return say(f"stepthrough.title.{kind}")


def narration(
    block: BlockTrace, verify: bool, repair: bool, greedy: bool, kind: str, i: int
) -> Sentence:
    """One sentence per sub-step, in the words of the live narration (gates.narration)."""
    drafts = block.drafts
    k = len(drafts)
    if k == 0:  # one token was left: a server drafts no further than the request goes
        return _one_left(block, kind)
    if kind == "draft":
        listed = _listed(_draft_items(drafts), k)
        return say(
            "stepthrough.narration.draft", **_where(block), tokens=n_of(k, "token"), listed=listed
        )
    if kind == "no_target":
        return say("stepthrough.no_target.chain", drafts=n_of(k, "draft"))
    if kind == "target":
        return say("stepthrough.narration.target", positions=k + 1, listed=_scored(drafts))
    if kind == "check":
        return _check_sentence(drafts[i - 2], k, greedy)
    if kind == "unchecked":
        drafted = n_of(k, "drafted token")
        return say(
            f"stepthrough.narration.unchecked.{_cut(block)}", drafts=drafted, **_needed(block)
        )
    return _ending_narration(block, kind)


def _scored(drafts: Sequence[DraftStep]) -> str:
    """Each draft's p against its q, as the one target pass computes them."""
    items = [
        say("stepthrough.listing.target", word=d.word, p=fmt.prob(d.p), q=fmt.prob(d.q))
        for d in drafts[:LISTED]
    ]
    return _listed(items, len(drafts))


def _ending_narration(block: BlockTrace, kind: str) -> Sentence:
    """The last sub-step of a verified chain: the bonus token, the repair or the resample."""
    word, emits = block.final_word, _emits(block)
    if kind == "bonus":
        k = len(block.drafts)
        drafts = n_of(k, "draft")
        return say(
            "stepthrough.narration.bonus", drafts=drafts, word=word, position=k + 1, emits=emits
        )
    r = block.result.first_rejection
    assert r is not None
    if kind == "repair":
        top = ", ".join(f"'{w}' {fmt.prob(x)}" for w, x in block.residual_top[:3])
        return say("stepthrough.narration.repair", draft=r + 1, top=top, word=word, emits=emits)
    return say("stepthrough.narration.resample", draft=r + 1, word=word, emits=emits)


def _one_left(block: BlockTrace, kind: str) -> Sentence:
    """A verified block that drafted nothing: one token was left to generate."""
    if kind == "draft":
        return say("stepthrough.narration.one_left.draft", **_where(block))
    if kind == "target":
        return say("stepthrough.narration.one_left.target")
    return say("stepthrough.narration.one_left.token", word=block.final_word)


def identity(block: BlockTrace, repair: bool) -> str:
    """One sentence: the stack min(p, q) + (1 − α)·residual = p at the rejected token, in
    its numbers (with repair off, that min(p, q) + (1 − α)·p is not p); "" without a focus."""
    if block.focus is None or not block.bars:
        return ""
    stack = identity_text(block.bars[0], focus_alpha(block), repair)
    mode = "repair" if repair else "no_repair"
    return say(f"stepthrough.identity.{mode}", stack=stack)


def _check_sentence(d: DraftStep, k: int, greedy: bool) -> Sentence:
    n = d.position + 1
    if greedy and d.accepted:
        return say("stepthrough.check.greedy.accepted", number=n, word=d.word)
    if greedy:
        return say("stepthrough.check.greedy.rejected", number=n, word=d.word, stop=_stop(n, k))
    u, ratio = f"{d.u:.2f}", f"{d.ratio:.2f}"
    if d.accepted:
        return say("stepthrough.check.sampled.accepted", number=n, word=d.word, u=u, ratio=ratio)
    return say(
        "stepthrough.check.sampled.rejected",
        number=n,
        word=d.word,
        u=u,
        ratio=ratio,
        stop=_stop(n, k),
    )


def _stop(n: int, k: int) -> Sentence:
    """What a rejection at draft ``n`` of ``k`` does to the drafts after it."""
    if k - n == 1:
        return say("stepthrough.check.stop.one", next=n + 1)
    if k - n > 1:
        return say("stepthrough.check.stop.many", first=n + 1, last=k)
    return say("stepthrough.check.stop.last")


def mode_text(verify: bool, repair: bool, greedy: bool) -> Sentence:
    mode = "lossless" if verify and repair else ("no_repair" if verify else "unverified")
    return say(f"stepthrough.mode.{mode}", sampling=_sampling(greedy))


def intro(block: BlockTrace, verify: bool, count: int) -> Sentence:
    mode = "verified" if verify else "unverified"
    tokens = n_of(len(block.drafts), "token")
    return say(f"stepthrough.intro.{mode}", number=block.index + 1, count=count, tokens=tokens)


# ------------------------------------------------- trees, typical acceptance, prompt lookup


def method_mode_text(s: Settings) -> Sentence:
    """The mode line of a tree, typical acceptance or prompt lookup, true in every mode."""
    sampling = _sampling(s.greedy)
    mode = _walk_mode(s)
    if mode == "lossless":
        return say("stepthrough.walk_mode.lossless", method=method_name(s), sampling=sampling)
    return say(f"stepthrough.walk_mode.{mode}", sampling=sampling)


def _walk_mode(s: Settings) -> str:
    if not s.verify:
        return "copied_unverified" if s.draft_source == "lookup" else "unverified"
    if s.acceptance == "typical":
        return "typical"
    return "lossless" if s.repair else "no_repair"


def _sizes(s: Settings, depth: int) -> str:
    return " + ".join(str(s.tree_width**d) for d in range(1, depth + 1))


def tree_draft_sentence(block: BlockTrace, s: Settings) -> Sentence:
    depth = block.depth
    if s.draft_source == "lookup":
        m = block.lookup
        assert m is not None
        return say(
            "stepthrough.walk_draft.copied",
            **_where(block),
            ngram=" ".join(m.ngram),
            start=m.start + 1,
            words=n_of(depth, "word"),
            copied=copied_words(block),
        )
    if s.tree_width == 1:
        return say(
            "stepthrough.walk_draft.chain",
            **_where(block),
            tokens=n_of(depth, "token"),
            listed=_listed(_draft_items(block.drafts), depth),
            passes=n_of(depth, "draft pass", "draft passes"),
        )
    return say(
        "stepthrough.walk_draft.tree",
        **_where(block),
        width=s.tree_width,
        depth=depth,
        nodes=tree_nodes(drafted_width(s), depth),
        sizes=_sizes(s, depth),
        passes=n_of(depth, "batched draft pass", "batched draft passes"),
        listed=_first_level(block, s),
    )


def _first_level(block: BlockTrace, s: Settings) -> str:
    """The siblings drafted at depth 1, with their q (q's most likely: their order says it)."""
    first = block.levels[0].siblings if block.levels else ()
    if s.drafting == "top":
        return say("stepthrough.listing.top", words=", ".join(f"'{sib.word}'" for sib in first))
    return ", ".join(
        say("stepthrough.listing.draft", word=sib.word, q=fmt.prob(sib.q)) for sib in first
    )


def tree_target_sentence(block: BlockTrace, s: Settings) -> Sentence:
    mode = "copied" if s.draft_source == "lookup" else "drafted"
    return say(f"stepthrough.walk_target.{mode}", scored=block.scored, drafted=block.scored - 1)


def residual_update(s: Settings, word: str) -> Sentence:
    """What a failed exact test does to the laws the next sibling is tested against."""
    if not s.repair:
        return say("stepthrough.walk_check.then.no_repair")
    if s.drafting == "top" or s.draft_source == "lookup":
        return say("stepthrough.walk_check.then.point_mass", word=word)
    if s.drafting == "distinct":
        return say("stepthrough.walk_check.then.distinct", word=word)
    return say("stepthrough.walk_check.then.sample")


def tree_check_sentence(
    block: BlockTrace, s: Settings, level: int, sibling: int, below: int
) -> Sentence:
    """One sibling's test at depth ``level`` (0-based), and what the walk does next."""
    lv = block.levels[level]
    sib = lv.siblings[sibling]
    typical = lv.threshold is not None
    test, _ = sibling_test(sib, lv.threshold)
    who = _who(lv, level, sibling)
    if sib.accepted:
        verdict = say(f"stepthrough.walk_check.verdict.{'typical' if typical else 'accepted'}")
        nxt = _walk_moves_on(block, level, sib.word)
        return say("stepthrough.walk_check.stood", who=who, verdict=verdict, test=test, next=nxt)
    verdict = say(f"stepthrough.walk_check.verdict.{'not_typical' if typical else 'rejected'}")
    if sibling + 1 < len(lv.siblings):
        then = (
            say("stepthrough.walk_check.then.same_bar") if typical else residual_update(s, sib.word)
        )
    else:
        then = say("stepthrough.walk_check.then.none_left", depth=level + 1)
    if below:
        return say(
            "stepthrough.walk_check.failed_over",
            who=who,
            verdict=verdict,
            test=test,
            below=below_phrase(s, below),
            then=then,
        )
    return say("stepthrough.walk_check.failed", who=who, verdict=verdict, test=test, then=then)


def _who(lv: TreeLevel, level: int, sibling: int) -> Sentence:
    """The sibling tested: its depth, and its place among its siblings where it has some."""
    width, word = len(lv.siblings), lv.siblings[sibling].word
    if width > 1:
        return say(
            "stepthrough.walk_check.who.sibling",
            depth=level + 1,
            sibling=sibling + 1,
            width=width,
            word=word,
        )
    return say("stepthrough.walk_check.who.only", depth=level + 1, word=word)


def _walk_moves_on(block: BlockTrace, level: int, word: str) -> Sentence:
    """Where the walk goes once ``word`` stood at depth ``level``: a leaf, or its children."""
    last_level = level == len(block.levels) - 1
    if last_level and block.result.first_rejection is None:
        return say("stepthrough.walk_check.next.leaf")
    children = len(block.levels[level + 1].siblings) if not last_level else 0
    return say(
        "stepthrough.walk_check.next.moves_on",
        depth=level + 1,
        word=word,
        children=n_of(children, "child", "children"),
        next_depth=level + 2,
    )


def tree_intro(block: BlockTrace, s: Settings, count: int) -> Sentence:
    at = {"number": block.index + 1, "count": count}
    if not block.levels:
        return say("stepthrough.walk_intro.nothing_drafted", **at)
    if not s.verify:
        return say("stepthrough.walk_intro.unverified", **at, first=first_at_each(block))
    return say(f"stepthrough.walk_intro.{_walk_end(s)}", **at)


def _walk_end(s: Settings) -> str:
    """How a verified walk can end besides a bonus: the argmax, the residual or p."""
    if s.acceptance == "typical":
        return "typical"
    return "repair" if s.repair else "no_repair"


def tree_unchecked_sentence(block: BlockTrace) -> Sentence:
    return say(
        f"stepthrough.walk_unchecked.{_cut(block)}",
        first=first_at_each(block).capitalize(),
        depths=n_of(len(block.levels), "depth"),
        **_needed(block),
    )


def tree_ending_sentence(block: BlockTrace, s: Settings) -> Sentence:
    return say(
        f"stepthrough.walk_ending.{_cut(block)}",
        ending=ending_sentence(block, s),
        tokens=n_of(len(block.result.emitted), "token"),
        **_needed(block),
    )


def lookup_plain(block: BlockTrace, kind: str) -> Sentence:
    """A prompt-lookup block that found nothing to copy: a plain target pass."""
    if kind == "draft":
        return say("stepthrough.narration.nothing_to_copy.draft", **_where(block))
    if kind == "target":
        return say("stepthrough.narration.nothing_to_copy.target")
    return say("stepthrough.narration.nothing_to_copy.token", word=block.final_word)
