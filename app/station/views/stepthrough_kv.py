"""The step-through's verifying pass and KV caches, for a request the tiny transformers served.

The rule is `witness.neural.speculate`'s. At a block's start both caches hold every committed
token but the last; that pending token is fed first. The draft feeds the pending token and
d1..d(k−1), one forward each (dk is never fed to it); the target's verifying pass is one
forward over the pending token and d1..dk: k + 1 distributions and k + 1 new rows per layer.
After the block each cache keeps the rows of the tokens the request keeps, all but the new
last one, and discards the rest. So counted from the pending token, a cache keeps as many
of its new rows as the block emits tokens: j + 1 after a rejection at draft j + 1 (the
repaired token has no row yet), k + 1 for the target when every draft stood (the bonus token
is the next pending one) and fewer when the request ends inside the block.

The separate draft never fed dk, so after a block that accepted every draft it is one row
behind and feeds dk before the next block's pending token. The early exit's rows are the
target's first-layer rows: the verifying pass reuses them, computes that layer only for dk,
and one rollback trims both, so it is never behind. With verify off no verifying pass runs.

The n-grams have no forward pass and no cache; a request they served gets none of this.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.station.views.stepthrough_words import LISTED, n_of
from app.words import Sentence, say
from witness.core.trace import BlockTrace, RequestTrace
from witness.neural.model import DRAFT, TARGET

# Shape and words as well as colour: a kept row is ticked, a discarded one struck and crossed.
KEPT_MARK = {True: "✓", False: "✕"}
KEPT_TEXT = {True: "kept", False: "discarded"}


def _layers(first: int, last: int) -> str:
    return f"layer {first}" if first == last else f"layers {first}–{last}"


EXIT_LAYERS = _layers(1, TARGET.exit_layer)  # where the early exit's rows live
DEEPER_LAYERS = _layers(TARGET.exit_layer + 1, TARGET.n_layers)  # what only the target runs


@dataclass(frozen=True, slots=True)
class PassCell:
    """One position of the verifying pass: the token fed and the distribution it yields."""

    position: int  # 1-based, within the pass
    word: str
    role: str  # "pending", "draft 2"
    yields: str  # "p for draft 1", "p for a bonus token"
    layer_one: str  # the early exit: whether the first layer was reused or computed; "" else


@dataclass(frozen=True, slots=True)
class VerifyPass:
    positions: int
    caption: Sentence
    cells: tuple[PassCell, ...]
    sentence: Sentence
    layers: Sentence


@dataclass(frozen=True, slots=True)
class KvRow:
    word: str
    role: str  # "pending", "draft 3", "left from block 2"
    kept: bool
    status: str  # "kept" or "discarded": said in words, never by colour alone
    mark: str  # ✓ or ✕


@dataclass(frozen=True, slots=True)
class KvLane:
    key: str  # target, draft
    name: Sentence
    rows: tuple[KvRow, ...]
    kept: int
    discarded: int
    count: Sentence  # "3 kept, 2 discarded"


@dataclass(frozen=True, slots=True)
class KvView:
    heading: Sentence
    lanes: tuple[KvLane, ...]
    summary: Sentence  # the count sentence, both caches in one
    notes: tuple[Sentence, ...]


def models_of(trace: RequestTrace) -> str:
    """Which models served the trace ("ngram" where the trace predates the setting)."""
    return str(trace.settings.get("models", "ngram"))


def has_caches(trace: RequestTrace) -> bool:
    return models_of(trace) in ("early-exit", "small-draft")


def pending_word(block: BlockTrace) -> str:
    """The last committed token before the block: the one its caches have no row for yet."""
    return block.context[-1] if block.context else ""


def _quoted(words: Sequence[str]) -> str:
    """'a', 'b', 'c' (the first LISTED, and how many more)."""
    listed = ", ".join(f"'{w}'" for w in words[:LISTED])
    if len(words) <= LISTED:
        return listed
    return say("stepthrough.listing.more", listed=listed, more=len(words) - LISTED)


# --------------------------------------------------------------------------- the pass


def pass_of(trace: RequestTrace, block: BlockTrace) -> VerifyPass | None:
    """The target's one forward over the pending token and the block's k drafts."""
    if not has_caches(trace):
        return None
    early = models_of(trace) == "early-exit"
    k = len(block.drafts)
    fed = [pending_word(block), *(d.word for d in block.drafts)]
    positions = k + 1
    cells = []
    for i, word in enumerate(fed):
        role = say("stepthrough.kv.role.pending") if i == 0 else _draft_role(i)
        if k == 0:
            yields = say("stepthrough.kv.yields.token")
        elif i < k:
            yields = say("stepthrough.kv.yields.draft", number=i + 1)
        else:
            yields = say("stepthrough.kv.yields.bonus")
        # The early exit fed the pending token and d1..d(k−1) through the first layer while
        # drafting; only dk's first-layer row is new to this pass.
        layer_one = ""
        if early:
            mode = "reused" if i < k else "computed"
            layer_one = say(f"stepthrough.kv.layer_one.{mode}", layer=EXIT_LAYERS)
        cells.append(PassCell(i + 1, word, role, yields, layer_one))
    pending = pending_word(block)
    if k == 0:
        sentence = say("stepthrough.kv.pass.one", pending=pending)
    else:
        sentence = say(
            "stepthrough.kv.pass.many",
            positions=positions,
            pending=pending,
            drafts=n_of(k, "draft"),
        )
    return VerifyPass(
        positions=positions,
        caption=say("stepthrough.kv.pass.caption", number=block.index + 1, positions=positions),
        cells=tuple(cells),
        sentence=sentence,
        layers=_pass_layers(early, fed, positions),
    )


def _draft_role(number: int) -> Sentence:
    return say("stepthrough.kv.role.draft", number=number)


def _pass_layers(early: bool, fed: Sequence[str], positions: int) -> Sentence:
    if not early:
        return say(
            "stepthrough.kv.pass_layers.small_draft", layers=TARGET.n_layers, positions=positions
        )
    if positions == 1:
        return say("stepthrough.kv.pass_layers.one", layers=TARGET.n_layers)
    return say(
        "stepthrough.kv.pass_layers.early_exit",
        layer=EXIT_LAYERS,
        deeper=DEEPER_LAYERS,
        reused=_quoted(fed[:-1]),
        last=fed[-1],
        positions=positions,
    )


# --------------------------------------------------------------------------- the caches


def left_behind(trace: RequestTrace, block: BlockTrace) -> str | None:
    """The token the separate draft never fed in the block before, which it feeds first in
    this one: the previous block's last draft, where that block accepted every draft."""
    if models_of(trace) != "small-draft" or block.index == 0 or not block.drafts:
        return None
    before = trace.blocks[block.index - 1]
    result = before.result
    if result.verified and before.drafts and result.first_rejection is None:
        return before.drafts[-1].word
    return None


def kept_from_pending(block: BlockTrace) -> int:
    """Rows a cache keeps from the pending token on: every token the request keeps from the
    block is committed, and all but the last have rows (the last is the next pending one)."""
    return len(block.emitted_words)


def kv_view(trace: RequestTrace, block: BlockTrace, verify: bool) -> KvView | None:
    """Both caches' new rows after the block, kept and discarded, and the count sentence."""
    if not has_caches(trace):
        return None
    early = models_of(trace) == "early-exit"
    keep = kept_from_pending(block)
    pending = pending_word(block)
    k = len(block.drafts)
    lanes = []
    if verify:
        fed = [(pending, say("stepthrough.kv.role.pending"))]
        fed += [(d.word, _draft_role(i + 1)) for i, d in enumerate(block.drafts)]
        name = say("stepthrough.kv.lane.target", layers=TARGET.n_layers)
        lanes.append(_lane("target", name, fed, keep))
    behind = left_behind(trace, block)
    drafted: list[tuple[str, Sentence]] = []
    if k:
        drafted = [(pending, say("stepthrough.kv.role.pending"))]
        drafted += [(d.word, _draft_role(i + 1)) for i, d in enumerate(block.drafts[:-1])]
    if behind is not None:
        drafted.insert(0, (behind, say("stepthrough.kv.role.behind", number=block.index)))
    if early:
        name = say("stepthrough.kv.lane.early_exit", layer=EXIT_LAYERS)
    else:
        name = say("stepthrough.kv.lane.small_draft", layers=DRAFT.n_layers)
    lanes.append(_lane("draft", name, drafted, keep + (behind is not None)))
    return KvView(
        heading=say("stepthrough.kv.heading", number=block.index + 1),
        lanes=tuple(lanes),
        summary=_summary(trace, block, lanes, verify),
        notes=_notes(trace, block, early, verify, behind),
    )


def _lane(key: str, name: Sentence, fed: Sequence[tuple[str, str]], keep: int) -> KvLane:
    """A cache's new rows, in the order they were fed: the first ``keep`` kept."""
    rows = tuple(
        KvRow(word, role, i < keep, KEPT_TEXT[i < keep], KEPT_MARK[i < keep])
        for i, (word, role) in enumerate(fed)
    )
    kept = sum(r.kept for r in rows)
    discarded = len(rows) - kept
    count = (
        say("stepthrough.kv.count.rows", kept=kept, discarded=discarded)
        if rows
        else say("stepthrough.kv.count.none")
    )
    return KvLane(key, name, rows, kept, discarded, count)


def _summary(
    trace: RequestTrace, block: BlockTrace, lanes: Sequence[KvLane], verify: bool
) -> Sentence:
    by_key = {lane.key: lane for lane in lanes}
    if verify:
        target = _count("target", by_key["target"])
    else:
        target = say("stepthrough.kv.target.none")
    draft_lane = by_key["draft"]
    last = block.drafts[-1].word if block.drafts else ""
    # The separate draft never fed dk: after a block that kept every draft it starts the
    # next one a row behind (the early exit's dk row is the verifying pass's own).
    behind_now = (
        models_of(trace) == "small-draft"
        and verify
        and bool(block.drafts)
        and block.result.first_rejection is None
        and block.index + 1 < len(trace.blocks)
    )
    if not draft_lane.rows:
        draft = say("stepthrough.kv.draft.idle")
    elif behind_now:
        draft = say(
            "stepthrough.kv.draft.behind",
            rows=n_of(len(draft_lane.rows), "new row"),
            word=last,
            next=block.index + 2,
        )
    else:
        draft = _count("draft", draft_lane)
    return say("stepthrough.kv.summary", number=block.index + 1, target=target, draft=draft)


def _count(who: str, lane: KvLane) -> Sentence:
    rows = n_of(len(lane.rows), "new row")
    if lane.discarded:
        return say(
            f"stepthrough.kv.{who}.rollback", rows=rows, kept=lane.kept, discarded=lane.discarded
        )
    return say(f"stepthrough.kv.{who}.all", rows=rows)


def _notes(
    trace: RequestTrace, block: BlockTrace, early: bool, verify: bool, behind: str | None
) -> tuple[Sentence, ...]:
    notes = []
    if early:
        fed = [pending_word(block), *(d.word for d in block.drafts)]
        if not verify:
            notes.append(
                say(
                    "stepthrough.kv.note.early_exit_unverified",
                    layer=EXIT_LAYERS,
                    deeper=DEEPER_LAYERS,
                )
            )
        elif len(fed) == 1:
            notes.append(say("stepthrough.kv.note.early_exit_idle", layer=EXIT_LAYERS))
        else:
            notes.append(
                say(
                    "stepthrough.kv.note.early_exit",
                    layer=EXIT_LAYERS,
                    reused=_quoted(fed[:-1]),
                    last=fed[-1],
                )
            )
    if behind is not None:
        notes.append(say("stepthrough.kv.note.behind", previous=block.index, word=behind))
    if block.truncated:
        notes.append(
            say(
                "stepthrough.kv.note.cut",
                needed=n_of(len(block.emitted_words), "token"),
                number=block.index + 1,
            )
        )
    return tuple(notes)


def ngram_note(trace: RequestTrace) -> str:
    """One sentence for the n-grams' block ending: they have no cache to keep or roll back."""
    return "" if has_caches(trace) else say("stepthrough.kv.note.ngram")
