"""The token tree of one block, drawn: every level the verification walk reached.

A tree (SpecInfer, Sequoia, EAGLE-2), typical acceptance (Medusa) and prompt lookup record
one `witness.core.trace.TreeLevel` per depth the walk reached. This draws them top to bottom:
the siblings at each depth, which one stood (✓), each one rejected with its test in numbers
(u against p′/q′, or p(x) against typical acceptance's bar), the ones never tested, and under
every sibling that did not stand, the subtree the target scored but the walk never reached.
The walk ends in a box: the repair from the last residual, the bonus at a leaf, typical
acceptance's argmax, or the drafts emitted unchecked.

Every coordinate is computed here and every sentence picked here (templates only draw; the
words are app/words/tree.toml), and the same facts are a table (`TreeChart.rows`) and a
caption (`TreeChart.summary`), so nothing is said by the picture alone. Outcomes differ by
mark, outline pattern and words as well as colour.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.station.views.charts import exact
from app.words import Sentence, say
from witness import Settings
from witness.core.settings import drafted_width, tree_nodes
from witness.core.trace import BlockTrace, SiblingStep, TreeLevel

WIDTH = 640
GUTTER = 74.0  # the depth labels' column
TOP = 8.0  # above the first row
BOX_HEIGHT = 46.0
ROW_GAP = 40.0  # under a row: the unreached subtrees' notes, then the links to the children
ROW = BOX_HEIGHT + ROW_GAP
BOX_GAP = 8.0
ENDING_HEIGHT = 46.0
CHAR_PX = 6.6  # rough width of one 12 px character
SMALL_CHAR_PX = 5.6  # and of one 10 px character

MARK = {"accepted": "✓", "rejected": "✗", "untested": "–", "unchecked": "?"}
ENDING_MARK = {
    "repair": "R",
    "resample": "R",
    "bonus": "+",
    "unused": "+",
    "argmax": "A",
    "unchecked": "?",
}


@dataclass(frozen=True, slots=True)
class Node:
    """One sibling: its box, its words, its test and what lies under it."""

    depth: int  # 1-based
    number: int  # 1-based sibling
    word: str
    outcome: str  # accepted, rejected, untested, unchecked
    mark: str
    label: str  # "✓ ','" for the box's first line
    test: str  # the test in full: "u = 0.88 ≥ p′/q′ = 0.16"
    test_short: str  # the box's second line: "u 0.88 ≥ 0.16"
    below: int  # nodes under it (0 at the deepest level)
    below_text: str  # "6 nodes under it: scored, never reached" ("" when none or it stood)
    below_short: str  # the note under its box: "6 scored, never reached"
    x: float
    y: float
    width: float
    height: float
    centre: float
    title: str  # everything about it, read as the box's title


@dataclass(frozen=True, slots=True)
class Level:
    depth: int
    label: str  # "depth 1"
    chance: str  # "P(accept) 0.94": the exact chance one sibling stands here
    y: float
    nodes: tuple[Node, ...]
    bus_y: float  # the horizontal line its children hang from ("" when no children drawn)


@dataclass(frozen=True, slots=True)
class Link:
    x1: float
    y1: float
    x2: float
    y2: float


@dataclass(frozen=True, slots=True)
class EndingBox:
    kind: str  # repair, resample, bonus, unused, argmax, unchecked
    mark: str
    text: Sentence  # the box's line
    detail: str  # its second line: the law the token was drawn from ("" when none)
    sentence: Sentence  # the same in full, for the caption and the list
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True, slots=True)
class TreeRow:
    """One sibling as the table under the picture reads it."""

    depth: int
    number: int
    word: str
    p: str
    q: str
    test: str
    outcome: str
    outcome_kind: str  # accepted, rejected, unchecked (untested or not checked)
    below: str


@dataclass(frozen=True, slots=True)
class TreeChart:
    title: Sentence
    summary: str  # the caption: what was drafted, scored, walked, and how it ended
    source: str  # prompt lookup: what was copied and from where ("" otherwise)
    method: Sentence  # "token tree, 2 siblings per node (SpecInfer sampling)" etc.
    width: int
    height: int
    gutter: float
    levels: tuple[Level, ...]
    links: tuple[Link, ...]
    ending: EndingBox
    rows: tuple[TreeRow, ...]
    drafted: int  # nodes drafted (the whole tree, or the copied tokens)
    scored: int  # tokens the target scored in its one pass (0 with verify off)
    walked: int  # nodes drawn (the siblings at every level reached)
    unreached: int  # nodes scored (or drafted) and never reached by the walk
    threshold_kind: str  # "u" (exact) or "bar" (typical): what the test column compares


def method_name(s: Settings) -> Sentence:
    """The method in words, with the system that serves it."""
    if s.draft_source == "lookup":
        return say("tree.method.lookup")
    if s.tree_width == 1:
        shape = say("tree.method.shape.chain")
    else:
        drafting = say(f"tree.method.drafting.{s.drafting}")
        shape = say("tree.method.shape.tree", width=str(s.tree_width), drafting=drafting)
    rule = say(f"tree.method.rule.{'typical' if s.acceptance == 'typical' else 'exact'}")
    return say("tree.method.drafted", shape=shape, rule=rule)


def versus(a: float, b: float) -> tuple[str, str]:
    """``a`` and ``b`` with two decimals, or more until unequal values print unequal."""
    digits = 2
    while f"{a:.{digits}f}" == f"{b:.{digits}f}" and a != b and digits < 8:
        digits += 1
    return f"{a:.{digits}f}", f"{b:.{digits}f}"


def ratio(sib: SiblingStep) -> float:
    """p′/q′ of a sibling (q′ > 0 for anything drafted)."""
    return sib.p / sib.q if sib.q > 0 else float("inf")


def sibling_test(sib: SiblingStep, threshold: float | None) -> tuple[str, str]:
    """The test a sibling met, in full and short; ("", "") when it was never tested."""
    if sib.accepted is None:
        return "", ""
    outcome = "accepted" if sib.accepted else "rejected"
    if threshold is not None:  # typical acceptance: p(x) against the bar, no uniform
        p, bar = _apart_prob(sib.p, threshold)
        full = say(f"tree.test.typical.{outcome}", p=p, bar=bar)
        return full, say(f"tree.test.typical_short.{outcome}", p=p, bar=bar)
    assert sib.u is not None
    u, r = versus(sib.u, ratio(sib))
    full = say(f"tree.test.exact.{outcome}", u=u, ratio=r)
    return full, say(f"tree.test.exact_short.{outcome}", u=u, ratio=r)


def _apart_prob(a: float, b: float) -> tuple[str, str]:
    digits = 2
    while exact(a, digits) == exact(b, digits) and a != b and digits < 8:
        digits += 1
    return exact(a, digits), exact(b, digits)


def outcome_word(outcome: str) -> Sentence:
    """A sibling's outcome (accepted, rejected, untested, unchecked) as the table says it."""
    return say(f"tree.outcome.{outcome}")


def outcome_of(sib: SiblingStep, verified: bool) -> str:
    if not verified:
        return "unchecked"
    if sib.accepted is None:
        return "untested"
    return "accepted" if sib.accepted else "rejected"


def below_count(s: Settings, block: BlockTrace, level: int) -> int:
    """Nodes under one sibling at 0-based depth ``level`` of a tree ``block.depth`` deep."""
    return tree_nodes(drafted_width(s), block.depth - 1 - level)  # lookup: width 1, a chain


def tree_chart(block: BlockTrace, s: Settings, prompt_words: int | None = None) -> TreeChart:
    """The walk of ``block`` (its ``levels`` must be non-empty) under settings ``s``;
    ``prompt_words``: the request's prompt length, to say where a lookup's copy came from."""
    assert block.levels, "tree_chart draws a block with levels"
    verified = block.result.verified
    width = s.tree_width if s.draft_source != "lookup" else 1
    box_w = min(150.0, (WIDTH - GUTTER - BOX_GAP * (width - 1)) / width)
    levels: list[Level] = []
    links: list[Link] = []
    rows: list[TreeRow] = []
    unreached = 0
    for i, lv in enumerate(block.levels):
        y = TOP + i * ROW
        nodes = tuple(_node(s, block, lv, sib, i, y, box_w, verified, width) for sib in lv.siblings)
        for n, sib in zip(nodes, lv.siblings, strict=True):
            rows.append(_row(n, sib, lv.threshold))
            if n.outcome != "accepted" and not (not verified and n.number == 1):
                unreached += n.below
        bus = y + BOX_HEIGHT + ROW_GAP / 2 + 6
        levels.append(Level(i + 1, f"depth {i + 1}", _chance(lv, s), y, nodes, round(bus, 2)))
        walked_to = _walked(lv, verified)
        nxt = i + 1 < len(block.levels)
        if walked_to is not None and nxt:
            parent = nodes[walked_to]
            kids = [_box_x(j, box_w) + box_w / 2 for j in range(len(block.levels[i + 1].siblings))]
            top_next = TOP + (i + 1) * ROW
            links.append(Link(parent.centre, y + BOX_HEIGHT, parent.centre, bus))
            links.append(Link(min(kids + [parent.centre]), bus, max(kids + [parent.centre]), bus))
            links.extend(Link(round(x, 2), bus, round(x, 2), top_next) for x in kids)
    ending = _ending(block, s, len(block.levels), box_w)
    last = levels[-1]
    stood = _walked(block.levels[-1], verified)
    if stood is not None:
        start = last.nodes[stood].centre
        links.append(Link(start, last.y + BOX_HEIGHT, start, ending.y))
    else:  # every sibling failed: the ending hangs from the whole level, down the gutter
        mid, rail = round(last.y + BOX_HEIGHT / 2, 2), GUTTER - 5
        links.append(Link(rail, mid, GUTTER, mid))
        links.append(Link(rail, mid, rail, ending.y + ENDING_HEIGHT / 2))
        links.append(Link(rail, ending.y + ENDING_HEIGHT / 2, GUTTER, ending.y + ENDING_HEIGHT / 2))
    walked = sum(len(lv.siblings) for lv in block.levels)
    drafted = (
        block.depth if s.draft_source == "lookup" else tree_nodes(drafted_width(s), block.depth)
    )
    chart_rows = tuple(rows)
    return TreeChart(
        title=say("tree.chart.title", block=str(block.index + 1)),
        summary=_summary(block, s, drafted, walked, unreached, ending),
        source=lookup_source(block, prompt_words),
        method=method_name(s),
        width=WIDTH,
        height=int(ending.y + ENDING_HEIGHT + 4),
        gutter=GUTTER,
        levels=tuple(levels),
        links=tuple(links),
        ending=ending,
        rows=chart_rows,
        drafted=drafted,
        scored=block.scored,
        walked=walked,
        unreached=unreached,
        threshold_kind="bar" if s.acceptance == "typical" else "u",
    )


def _walked(lv: TreeLevel, verified: bool) -> int | None:
    """The sibling the walk went on from (sibling 1 when nothing checked)."""
    if not verified:
        return 0
    return lv.accepted


def _box_x(j: int, box_w: float) -> float:
    return round(GUTTER + j * (box_w + BOX_GAP), 2)


def _chance(lv: TreeLevel, s: Settings) -> str:
    if s.draft_source == "lookup":
        return f"p(x) {lv.alpha:.2f}"
    return f"P(one) {lv.alpha:.2f}"


def _fit(text: str, width: float) -> str:
    room = max(4, int((width - 10) / CHAR_PX))
    return text if len(text) <= room else text[: room - 1] + "…"


def _fit_small(text: str, shorter: str, width: float) -> str:
    """The 10 px note under a box: ``shorter`` ('6 never reached') when it does not fit."""
    room = int((width - 12) / SMALL_CHAR_PX)
    if len(text) <= room:
        return text
    return shorter if len(shorter) <= room else _fit(shorter, width)


def _node(
    s: Settings,
    block: BlockTrace,
    lv: TreeLevel,
    sib: SiblingStep,
    i: int,
    y: float,
    box_w: float,
    verified: bool,
    width: int,
) -> Node:
    outcome = outcome_of(sib, verified)
    if not verified and sib.index == 0:
        outcome = "unchecked"
    test, short = sibling_test(sib, lv.threshold)
    if outcome in ("untested", "unchecked"):
        untested = "unchecked_first" if outcome == "unchecked" and sib.index == 0 else outcome
        test = say(f"tree.node.test.{untested}")
        short = say(f"tree.node.test_short.{untested}")
    below = below_count(s, block, i)
    stood = outcome == "accepted" or (not verified and sib.index == 0)
    below_text, below_short = _below_notes(s, below, verified, box_w) if not stood else ("", "")
    x = _box_x(sib.index, box_w)
    label = f"{MARK[outcome]} '{sib.word}'"
    where = {"depth": str(i + 1), "number": str(sib.index + 1), "width": str(width)}
    facts: list[str] = [
        say("tree.node.where", **where, word=sib.word, outcome=outcome_word(outcome))
    ]
    if test and outcome in ("accepted", "rejected"):
        facts.append(test)
    if below_text:
        facts.append(below_text)
    return Node(
        depth=i + 1,
        number=sib.index + 1,
        word=sib.word,
        outcome=outcome,
        mark=MARK[outcome],
        label=_fit(label, box_w),
        test=test,
        test_short=_fit(short, box_w),
        below=below,
        below_text=below_text,
        below_short=below_short,
        x=x,
        y=round(y, 2),
        width=round(box_w, 2),
        height=BOX_HEIGHT,
        centre=round(x + box_w / 2, 2),
        title=say("tree.node.title", facts="; ".join(facts)),
    )


def _below_notes(s: Settings, below: int, verified: bool, box_w: float) -> tuple[str, str]:
    """What lies under a sibling that did not stand, in full and as the note under its box
    (fitted to it); ("", "") when nothing does."""
    if not below:
        return "", ""
    what = "scored" if verified else "drafted"
    text = say(f"tree.below.text.{what}", phrase=below_phrase(s, below))
    short = say(f"tree.below.short.{what}", count=str(below))
    shorter = say(f"tree.below.shorter.{what}", count=str(below))
    return text, _fit_small(short, shorter, box_w)


def _row(n: Node, sib: SiblingStep, threshold: float | None) -> TreeRow:
    kind = n.outcome if n.outcome in ("accepted", "rejected") else "unchecked"
    return TreeRow(
        depth=n.depth,
        number=n.number,
        word=n.word,
        p=exact(sib.p, 3),
        q=exact(sib.q, 3),
        test=n.test if n.outcome in ("accepted", "rejected") else "—",
        outcome=outcome_word(n.outcome),
        outcome_kind=kind,
        below=n.below_text or "—",
    )


def ending_kind(block: BlockTrace, s: Settings) -> str:
    """How the walk ended: repair, resample, bonus, unused (a bonus the request did not
    need), argmax (typical acceptance, no sibling typical) or unchecked (verify off)."""
    r = block.result
    if not r.verified:
        return "unchecked"
    if r.first_rejection is None:
        return "unused" if block.truncated else "bonus"
    if s.acceptance == "typical":
        return "argmax"
    return "repair" if s.repair else "resample"


def ending_sentence(block: BlockTrace, s: Settings) -> Sentence:
    """The walk's ending in one sentence, true in every mode."""
    kind = ending_kind(block, s)
    final = block.final_word
    if kind == "unchecked":
        emitted = " ".join(f"'{w}'" for w in block.emitted_words)
        return say("tree.ending.unchecked", first=first_at_each(block), emitted=emitted)
    if kind in ("bonus", "unused"):
        return say(f"tree.ending.{kind}", final=final)
    failed, depth = failed_words(block, s), str(len(block.levels))
    if kind == "argmax":
        return say("tree.ending.argmax", failed=failed, depth=depth, final=final)
    top = _law(block.levels[-1].law_top[:3])
    return say(f"tree.ending.{kind}", failed=failed, depth=depth, final=final, top=top)


def _law(top: tuple[tuple[str, float], ...]) -> str:
    """The most likely tokens of a law with their probabilities: "'the' 0.412, 'a' 0.108"."""
    return ", ".join(f"'{w}' {exact(x, 3)}" for w, x in top)


def first_at_each(block: BlockTrace) -> Sentence:
    """What verify off emits at each depth: the first sibling, the drafted or copied token."""
    if any(len(lv.siblings) > 1 for lv in block.levels):
        return say("tree.first_at_each.sibling")
    return say(f"tree.first_at_each.{'copied' if block.lookup is not None else 'drafted'}")


def failed_words(block: BlockTrace, s: Settings) -> Sentence:
    """Who failed at the walk's last depth: 'Every sibling', 'The draft ','', 'The copied
    token ','' (typical: 'No sibling', 'The draft ',' never')."""
    sibs = block.levels[-1].siblings
    typical = s.acceptance == "typical"
    if len(sibs) > 1:
        return say(f"tree.failed.{'no_sibling' if typical else 'every_sibling'}")
    if s.draft_source == "lookup":  # a copied chain is checked exactly, never typically
        return say("tree.failed.copied", word=sibs[0].word)
    return say(f"tree.failed.{'draft_never' if typical else 'draft'}", word=sibs[0].word)


def _ending(block: BlockTrace, s: Settings, depth: int, box_w: float) -> EndingBox:
    kind = ending_kind(block, s)
    final = {} if kind == "unchecked" else {"final": block.final_word}
    text = say(f"tree.box.{kind}", **final)
    law = block.levels[-1].law_top[:4] if kind in ("repair", "resample") else ()
    detail = _fit(say(f"tree.box.law.{kind}", law=_law(law)), WIDTH - GUTTER) if law else ""
    return EndingBox(
        kind=kind,
        mark=ENDING_MARK[kind],
        text=text,
        detail=detail,
        sentence=ending_sentence(block, s),
        x=GUTTER,
        y=round(TOP + depth * ROW, 2),
        width=round(WIDTH - GUTTER, 2),
        height=ENDING_HEIGHT,
    )


def counted(n: int, noun: str) -> Sentence:
    """``n`` of a noun of ``tree.count`` ('1 draft', '3 drafts')."""
    return say(f"tree.count.{noun}.{'one' if n == 1 else 'many'}", count=str(n))


def below_phrase(s: Settings, below: int) -> Sentence:
    """What lies under a sibling that did not stand: its subtree, or in a chain (width 1,
    prompt lookup) the drafts after it."""
    if s.tree_width == 1:
        noun = "copied_token" if s.draft_source == "lookup" else "draft"
        return say("tree.below.phrase.chain", count=counted(below, noun))
    return say("tree.below.phrase.tree", count=counted(below, "node"))


def copied_words(block: BlockTrace) -> str:
    """The copied words the walk met: all of them, or the first ones and '…'."""
    met = [f"'{sib.word}'" for lv in block.levels for sib in lv.siblings]
    words = ", ".join(met)
    return words if len(met) >= block.depth else say("tree.copied.starting", words=words)


def lookup_source(block: BlockTrace, prompt_words: int | None = None) -> str:
    """Prompt lookup's source: the words matched, where they were seen, what was copied.

    ``start`` counts words of the prompt and the text so far; ``prompt_words`` (the prompt's
    length, when known) says which of the two the earlier occurrence is in."""
    m = block.lookup
    if m is None:
        return ""
    if prompt_words is None:
        seen = "unknown"
    else:
        seen = "prompt" if m.start < prompt_words else "generated"
    where = say(f"tree.lookup.where.{seen}", word=str(m.start + 1))
    return say(
        "tree.lookup.source",
        ngram=" ".join(m.ngram),
        where=where,
        count=str(block.depth),
        copied=copied_words(block),
    )


def _summary(
    block: BlockTrace, s: Settings, drafted: int, walked: int, unreached: int, ending: EndingBox
) -> str:
    verified = block.result.verified
    parts = [_drafted_sentence(block, s, drafted)]
    if verified:
        parts.append(say("tree.summary.scored", scored=str(block.scored), drafted=str(drafted)))
    else:
        parts.append(say("tree.summary.unscored"))
    parts.append(_walk_sentence(block, s, walked, unreached))
    for i, lv in enumerate(block.levels):
        parts.append(_level_sentence(i, lv, verified))
        if s.draft_source != "lookup" and 0 < len(lv.siblings) < s.tree_width:
            parts.append(
                say(
                    "tree.summary.few_siblings",
                    drawn=str(len(lv.siblings)),
                    width=str(s.tree_width),
                    depth=str(i + 1),
                )
            )
    parts.append(ending.sentence)
    return " ".join(parts)


def _drafted_sentence(block: BlockTrace, s: Settings, drafted: int) -> Sentence:
    """What the block drafted (or copied), and in how many draft passes."""
    if s.draft_source == "lookup":
        return say("tree.summary.copied", tokens=counted(drafted, "token"))
    depth = block.depth
    return say(
        "tree.summary.drafted",
        siblings=counted(s.tree_width, "sibling"),
        depth=str(depth),
        nodes=str(drafted),
        sizes=" + ".join(str(s.tree_width**d) for d in range(1, depth + 1)),
        passes=counted(depth, "draft_pass"),
    )


def _walk_sentence(block: BlockTrace, s: Settings, walked: int, unreached: int) -> Sentence:
    """How far the walk reached, and what it left unreached under the siblings that fell."""
    shape = "tree" if s.draft_source != "lookup" and s.tree_width > 1 else "chain"
    values: dict[str, object] = {
        "reached": str(len(block.levels)),
        "depths": counted(block.depth, "depth"),
    }
    if shape == "tree":
        values["walked"] = str(walked)
    if not unreached:
        return say(f"tree.walk.{shape}", **values)
    what = "scored" if block.result.verified else "drafted"
    values["unreached"] = say(f"tree.walk.unreached.{what}", count=str(unreached))
    return say(f"tree.walk.{shape}_unreached", **values)


def _level_sentence(i: int, lv: TreeLevel, verified: bool) -> Sentence:
    bits = []
    for sib in lv.siblings:
        outcome = outcome_word(outcome_of(sib, verified))
        test, _ = sibling_test(sib, lv.threshold)
        if test:
            bits.append(say("tree.level.sibling.tested", word=sib.word, outcome=outcome, test=test))
        else:
            bits.append(say("tree.level.sibling.untested", word=sib.word, outcome=outcome))
    return say("tree.level.walk", depth=str(i + 1), siblings="; ".join(bits))
