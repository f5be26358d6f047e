"""The policy race panel: draft-length policies on one request, judged over many.

`witness.judge.adaptive` races five policies on one seeded request with position-keyed uniforms;
this turns the race and its seeded ensemble into a table, the two gates per policy and a
step chart of k per block (one small multiple per policy, each with its own marker and line
style, so colour is never the only cue). Every verdict comes from the ensemble, never from
the one request shown, and the ranking of the policies from `witness.judge.ranking`: this
only picks the sentence for the mode each is in (its words are app/words/race.toml).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from app.station.services import Witness
from app.station.state.query import StationState
from app.station.views import fmt
from app.words import Sentence, say
from witness import Settings
from witness.judge.adaptive import (
    CONFIDENCE_THRESHOLD,
    K_MAX,
    PROBE_AFTER,
    PROBE_MAX,
    RECOVERY_WINDOW,
    Policy,
    PolicyRun,
    Race,
    RaceEnsemble,
)
from witness.judge.ensemble import CONFIDENCE, Estimate
from witness.judge.ranking import Ranking, Standing, rank, standing

EXACT = 1e-12  # an exact distance this small is 0 (as the evidence reads it)
KS_SHOWN = 12  # blocks listed in the table's k column before "…"
NAMES: dict[Policy, str] = {
    "fixed": "fixed k",
    "heuristic": "+2/−1 heuristic",
    "confidence": "confidence threshold",
    "oracle": "hindsight oracle",
    "recovery": "recovery",
}
# Marker and line style per policy: the chart's rows are told apart without colour.
MARKERS: dict[Policy, str] = {
    "fixed": "circle",
    "heuristic": "square",
    "confidence": "triangle",
    "oracle": "diamond",
    "recovery": "cross",
}
DASHES: dict[Policy, str] = {
    "fixed": "none",
    "heuristic": "6 3",
    "confidence": "2 3",
    "oracle": "8 3 2 3",
    "recovery": "4 2 1 2",
}
# Colours as well (inline, so a downloaded SVG keeps them), never alone.
COLOURS: dict[Policy, str] = {
    "fixed": "#1f5fbf",
    "heuristic": "#8a4b00",
    "confidence": "#1d6b3a",
    "oracle": "#6b2f8a",
    "recovery": "#a0153e",
}
WIDTH, ROW_HEIGHT, TOP = 640, 64, 8
LEFT, RIGHT = 52.0, 620.0
ROW_PLOT = 40.0  # the k axis of one row, 0 at its foot and 16 at its head


@dataclass(frozen=True, slots=True)
class RaceRow:
    policy: str
    name: str
    rule: Sentence
    ks: str  # tokens drafted per block, in order
    blocks: Sentence
    target_passes: str
    draft_passes: str
    cost: str
    speedup: str  # this request
    mean: str  # over the seeded requests
    interval: str
    verdict: str  # faster / slower / within noise / the same / unbounded
    correctness: Sentence  # "keeps p", "does not keep p", …
    correctness_note: Sentence
    savings: Sentence  # the savings gate, in a sentence


@dataclass(frozen=True, slots=True)
class RacePoint:
    x: float
    y: float
    marker: str  # an SVG path for this point's marker
    label: Sentence


@dataclass(frozen=True, slots=True)
class RaceChartRow:
    policy: str
    label: Sentence
    top: float
    foot: float
    head: float
    path: str
    dash: str
    marker: str
    colour: str
    points: tuple[RacePoint, ...]


@dataclass(frozen=True, slots=True)
class RaceTick:
    x: float
    label: str


@dataclass(frozen=True, slots=True)
class RaceChart:
    width: int
    height: int
    left: float
    right: float
    axis_y: float
    rows: tuple[RaceChartRow, ...]
    x_ticks: tuple[RaceTick, ...]
    k_max: int
    summary: Sentence


@dataclass(frozen=True, slots=True)
class RaceView:
    intro: Sentence
    substitution: str  # "" when the request on screen is the one raced
    plain: Sentence
    rows: tuple[RaceRow, ...]
    best: Sentence
    keys_note: Sentence
    chart: RaceChart


@dataclass(frozen=True, slots=True)
class RaceLinks:
    page: str  # the whole page with the race drawn inline (no JavaScript needed)
    fragment: str  # the panel alone, for htmx


@dataclass(frozen=True, slots=True)
class RacePanel:
    revealed: bool  # a prediction is recorded: the evidence (and the race) may be shown
    race: RaceView | None  # None: the button that runs the race
    links: RaceLinks
    problems: tuple[str, ...]  # the fragment's refused values (the page shows its own)
    # The URL asks for the race (race=1) but this answer does not draw it (an evidence
    # fragment after a slider move): the placeholder fetches it as soon as it is swapped in.
    asked: bool = False


@dataclass(frozen=True, slots=True)
class RaceFragment:
    race: RacePanel


def race_links(state: StationState) -> RaceLinks:
    asked = replace(state.options, race=True)
    page = state.url(options=asked, block=None)
    return RaceLinks(f"{page}#race", state.url("/station/race", options=asked, block=None))


def race_panel(state: StationState, witness: Witness, *, draw: bool) -> RacePanel:
    """The panel on a page: drawn when asked (``?race=1``) and ``draw`` (whole pages only:
    an evidence fragment never waits for the race), else the button that runs it."""
    revealed = state.prediction is not None
    view = None
    if revealed and draw and state.options.race:
        view = race_view(*witness.race(state.settings))
    return RacePanel(revealed, view, race_links(state), (), asked=state.options.race)


def race_fragment(state: StationState, witness: Witness) -> RaceFragment:
    """The panel alone (`GET /station/race`): evidence, so behind the prediction too."""
    revealed = state.prediction is not None
    view = race_view(*witness.race(state.settings)) if revealed else None
    problems = tuple(p.message for p in state.problems)
    return RaceFragment(RacePanel(revealed, view, race_links(state), problems))


def race_view(race: Race, ens: RaceEnsemble) -> RaceView:
    s = race.raced
    n = len(ens.seeds)
    rows = tuple(_row(race, r, ens.speedup(r.policy), n) for r in race.runs)
    return RaceView(
        intro=_intro(s, n),
        substitution=_substitution(race),
        plain=say("race.plain.one_per_token", tokens=str(s.tokens)),
        rows=rows,
        best=best_sentence(race, rank(ens)),
        keys_note=say("race.keys_note.by_position"),
        chart=race_chart(race),
    )


# ----------------------------------------------------------------------------- sentences


def _intro(s: Settings, n: int) -> Sentence:
    checked = say(f"race.intro.checked.{'verified' if s.verify else 'unverified'}")
    return say(
        "race.intro.seeded",
        seed=str(s.seed),
        tokens=str(s.tokens),
        match=fmt.setting(s.match),
        checked=checked,
        n=str(n),
    )


def _substitution(race: Race) -> str:
    """What the settings serve and the chain raced instead ("" when the chain is theirs)."""
    if not race.substituted:
        return ""
    served = _served(race.settings)
    width = {"width": str(race.settings.tree_width)} if served == "tree" else {}
    what = say(f"race.substitution.what.{served}", **width)
    chain = say(f"race.substitution.chain.{CHAIN_RACED[served]}")
    return say("race.substitution.raced", what=what, chain=chain)


# The chain a method is raced as, by what the settings serve: a tree or one top draft keeps
# its match and draft source; prompt lookup (no q) takes the draft model.
CHAIN_RACED = {
    "lookup": "lookup",
    "typical": "typical",
    "tree": "same_source",
    "top": "same_source",
}


def _served(s: Settings) -> str:
    """What the settings serve that is not the chain (a mode of ``race.substitution.what``)."""
    if s.draft_source == "lookup":
        return "lookup"
    if s.acceptance == "typical":
        return "typical"
    return "tree" if s.tree_width > 1 else "top"


def _rule(policy: Policy, race: Race) -> Sentence:
    s, k_max = race.raced, str(K_MAX)
    if policy == "fixed":
        return say("race.rule.fixed", k=str(s.k))
    if policy == "heuristic":
        return say("race.rule.heuristic", k=str(s.k), k_max=k_max)
    if policy == "confidence":
        return say("race.rule.confidence", threshold=str(CONFIDENCE_THRESHOLD), k_max=k_max)
    if policy == "oracle":
        if not s.verify:
            return say("race.rule.oracle_unverified", k_max=k_max)
        return say("race.rule.oracle", k_max=k_max)
    if not s.verify:
        return say("race.rule.recovery_unverified")
    return say(
        "race.rule.recovery",
        window=str(RECOVERY_WINDOW),
        c=fmt.setting(race.c),
        probe_after=str(PROBE_AFTER),
        probe_max=str(PROBE_MAX),
    )


def _ks(r: PolicyRun) -> str:
    shown = ", ".join(str(d) for d in r.drafted[:KS_SHOWN])
    return shown + (", …" if r.blocks > KS_SHOWN else "")


def _blocks(r: PolicyRun) -> Sentence:
    blocks = say(f"race.blocks.{'one' if r.blocks == 1 else 'many'}", count=str(r.blocks))
    if not r.plain_steps:
        return blocks
    return say("race.blocks.with_plain", blocks=blocks, plain=str(r.plain_steps))


# The table's word for a policy's standing against plain decoding (also its CSS class, with
# spaces as hyphens).
VERDICTS: dict[Standing, str] = {
    "faster": "faster",
    "slower": "slower",
    "within_noise": "within noise",
    "same": "the same",
    "unbounded": "unbounded",
}


def verdict(e: Estimate) -> str:
    """Against plain decoding (1×), over the seeded requests, as the table words it
    (`witness.judge.ranking.standing` decides)."""
    return VERDICTS[standing(e)]


def _interval(e: Estimate) -> str:
    if math.isinf(e.mean):
        return "unbounded"
    return f"{e.ci_low:.2f}–{e.ci_high:.2f}×"


def _savings(e: Estimate, n: int, *, verify: bool) -> Sentence:
    mode = standing(e)
    if mode in ("unbounded", "same"):
        return say(f"race.savings.{mode}", n=str(n))
    level = f"{CONFIDENCE:.0%}"
    out = say(
        f"race.savings.{mode}",
        n=str(n),
        mean=fmt.speedup(e.mean),
        level=level,
        interval=_interval(e),
    )
    return out if verify else say("race.savings.unchecked", savings=out)


def _correctness(policy: Policy, race: Race, r: PolicyRun) -> tuple[Sentence, Sentence]:
    """The policy's correctness gate: its label and the note under it."""
    if race.lossless:
        keeps = say("race.correctness.note.keeps")
        if policy == "oracle":
            keeps = say("race.correctness.note.keeps_oracle", keeps=keeps, k_max=str(K_MAX))
        return say("race.correctness.label.keeps"), keeps
    switch = "unverified" if not race.raced.verify else "no_repair"
    mechanism = say(f"race.correctness.mechanism.{switch}")
    values: dict[str, str]
    if r.draft_passes == 0:
        mode, values = "nothing_drafted", {"mechanism": mechanism}
    elif r.tv_max <= EXACT:
        mode, values = "not_by_rule", {"mechanism": _opening(mechanism)}
    else:
        mode = "lost"
        values = {"mechanism": _opening(mechanism), "tv": fmt.distance(r.tv_max)}
    label = say(f"race.correctness.label.{mode}")
    return label, say(f"race.correctness.note.{mode}", **values)


def _opening(words: str) -> str:
    """``words`` opening a sentence: its first letter capitalised."""
    return words[:1].upper() + words[1:]


def _row(race: Race, r: PolicyRun, e: Estimate, n: int) -> RaceRow:
    correct, note = _correctness(r.policy, race, r)
    return RaceRow(
        policy=r.policy,
        name=_named(race, r.policy),
        rule=_rule(r.policy, race),
        ks=_ks(r),
        blocks=_blocks(r),
        target_passes=str(r.target_passes),
        draft_passes=str(r.draft_passes),
        cost=f"{r.cost:.1f}",
        speedup=fmt.speedup(r.speedup),
        mean=fmt.speedup(e.mean),
        interval=_interval(e),
        verdict=verdict(e),
        correctness=correct,
        correctness_note=note,
        savings=_savings(e, n, verify=race.raced.verify),
    )


def best_sentence(race: Race, rk: Ranking) -> Sentence:
    """Which policy is best over the seeded requests, as the ranking (`witness.judge.ranking`)
    found it: the leader, its lead over the runner-up, and what the hindsight oracle adds."""
    if rk.mode != "ranked":
        return say(f"race.best.{rk.mode}", n=str(rk.n))
    leader = _leader(race, rk)
    oracle = _oracle(race, rk)
    return say(
        f"race.best.{'ranked_none_faster' if rk.none_faster else 'ranked'}",
        leader=leader,
        oracle=oracle,
    )


def _leader(race: Race, rk: Ranking) -> Sentence:
    named, mean = _named(race, rk.leader), fmt.speedup(rk.leader_mean)
    if rk.gap == "uncompared":
        return say("race.best.leader.alone", n=str(rk.n), leader=named, mean=mean)
    against = _against(race, rk)
    return say("race.best.leader.compared", n=str(rk.n), leader=named, mean=mean, against=against)


def _against(race: Race, rk: Ranking) -> Sentence:
    """The leader against the runner-up on the same seeds (the ranking's gap)."""
    runner_up = _named(race, rk.runner_up)
    if rk.gap == "same":
        return say("race.best.against.same", runner_up=runner_up)
    if rk.gap == "within_noise":
        mean = fmt.speedup(rk.runner_up_mean)
        return say("race.best.against.within_noise", runner_up=runner_up, runner_up_mean=mean)
    assert rk.difference is not None
    assert rk.interval is not None
    low, high = rk.interval
    return say(
        "race.best.against.ahead",
        runner_up=runner_up,
        difference=f"{rk.difference:.2f}",
        level=f"{CONFIDENCE:.0%}",
        low=f"{low:.2f}",
        high=f"{high:.2f}",
    )


def _oracle(race: Race, rk: Ranking) -> Sentence:
    oracle = fmt.speedup(rk.oracle_mean)
    if rk.oracle_beats_leader:
        return say("race.best.oracle.beats", oracle=oracle)
    if not race.raced.verify:
        return say("race.best.oracle.no_more_unverified", oracle=oracle, k_max=str(K_MAX))
    return say("race.best.oracle.no_more", oracle=oracle)


def _named(race: Race, policy: Policy) -> str:
    return NAMES[policy] + (f" = {race.raced.k}" if policy == "fixed" else "")


# --------------------------------------------------------------------------------- chart


def _marker(kind: str, x: float, y: float) -> str:
    r = 3.5
    if kind == "circle":
        return f"M{x - r:.1f},{y:.1f}a{r},{r} 0 1,0 {2 * r},0a{r},{r} 0 1,0 {-2 * r},0Z"
    if kind == "square":
        return f"M{x - r:.1f},{y - r:.1f}h{2 * r}v{2 * r}h{-2 * r}Z"
    if kind == "triangle":
        return f"M{x:.1f},{y - r - 0.5:.1f}l{r + 0.5},{2 * r}h{-2 * r - 1}Z"
    if kind == "diamond":
        h = r + 0.5
        return f"M{x:.1f},{y - h:.1f}l{h},{h}l{-h},{h}l{-h},{-h}Z"
    # a cross, drawn as two strokes
    return f"M{x - r:.1f},{y - r:.1f}l{2 * r},{2 * r}M{x - r:.1f},{y + r:.1f}l{2 * r},{-2 * r}"


def race_chart(race: Race) -> RaceChart:
    s = race.raced
    span = RIGHT - LEFT

    def x_at(t: int) -> float:
        return round(LEFT + span * t / max(s.tokens, 1), 1)

    rows = []
    for i, r in enumerate(race.runs):
        top = TOP + i * ROW_HEIGHT
        head, foot = top + 16.0, top + 16.0 + ROW_PLOT

        def y_at(k: int, head: float = head) -> float:
            return round(head + ROW_PLOT * (1 - k / K_MAX), 1)

        parts: list[str] = []
        points: list[RacePoint] = []
        start = 0
        for b, (d, a, e) in enumerate(zip(r.drafted, r.accepted, r.emitted, strict=True)):
            x0, x1, y = x_at(start), x_at(start + e), y_at(d)
            parts.append(f"V{y:.1f}" if b else f"M{x0:.1f},{y:.1f}")
            parts.append(f"H{x1:.1f}")
            label = _point_label(race, r.policy, b, start, d, a)
            points.append(RacePoint(x0, y, _marker(MARKERS[r.policy], x0, y), label))
            start += e
        rows.append(
            RaceChartRow(
                policy=r.policy,
                label=_row_label(race, r),
                top=top,
                foot=foot,
                head=head,
                path="".join(parts),
                dash=DASHES[r.policy],
                marker=MARKERS[r.policy],
                colour=COLOURS[r.policy],
                points=tuple(points),
            )
        )
    axis_y = TOP + len(rows) * ROW_HEIGHT + 4
    step = max(1, -(-s.tokens // 8))
    ticks = tuple(RaceTick(x_at(t), str(t)) for t in range(0, s.tokens + 1, step))
    summary = say(
        "race.chart.summary", tokens=str(s.tokens), rows="; ".join(row.label for row in rows)
    )
    return RaceChart(
        width=WIDTH,
        height=int(axis_y + 36),
        left=LEFT,
        right=RIGHT,
        axis_y=axis_y,
        rows=tuple(rows),
        x_ticks=ticks,
        k_max=K_MAX,
        summary=summary,
    )


def _point_label(race: Race, policy: Policy, b: int, start: int, d: int, a: int) -> Sentence:
    """A block's marker, read aloud: where it starts and what it drafted."""
    where = {"policy": _named(race, policy), "block": str(b + 1), "token": str(start + 1)}
    if d == 0:
        return say("race.chart.point.plain", **where)
    return say("race.chart.point.drafted", **where, drafted=str(d), accepted=str(a))


def _row_label(race: Race, r: PolicyRun) -> Sentence:
    """A policy's row: the range of k it drafted, or the one k of every block."""
    ks, named, blocks = r.drafted, _named(race, r.policy), str(r.blocks)
    if min(ks) != max(ks):
        return say(
            "race.chart.row.varied",
            policy=named,
            low=str(min(ks)),
            high=str(max(ks)),
            blocks=blocks,
        )
    return say("race.chart.row.steady", policy=named, k=str(ks[0]), blocks=blocks)
