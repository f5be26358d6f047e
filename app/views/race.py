"""The policy race panel: draft-length policies on one request, judged over many.

`witness.judge.adaptive` races five policies on one seeded request with position-keyed uniforms;
this turns the race and its seeded ensemble into a table, the two gates per policy and a
step chart of k per block (one small multiple per policy, each with its own marker and line
style, so colour is never the only cue). Every verdict comes from the ensemble, never from
the one request shown; every sentence is written for the mode it is in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from app.services import Witness
from app.state.query import StationState
from app.views import fmt
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
from witness.judge.ensemble import CONFIDENCE, RELATIVE_MARGIN, Estimate, paired_difference

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
    rule: str
    ks: str  # tokens drafted per block, in order
    blocks: str
    target_passes: str
    draft_passes: str
    cost: str
    speedup: str  # this request
    mean: str  # over the seeded requests
    interval: str
    verdict: str  # faster / slower / within noise / the same / unbounded
    correctness: str  # "keeps p", "does not keep p", …
    correctness_note: str
    savings: str  # the savings gate, in a sentence


@dataclass(frozen=True, slots=True)
class RacePoint:
    x: float
    y: float
    marker: str  # an SVG path for this point's marker
    label: str


@dataclass(frozen=True, slots=True)
class RaceChartRow:
    policy: str
    label: str
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
    summary: str


@dataclass(frozen=True, slots=True)
class RaceView:
    intro: str
    substitution: str  # "" when the request on screen is the one raced
    plain: str
    rows: tuple[RaceRow, ...]
    best: str
    keys_note: str
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
        plain=(
            f"Plain decoding: {s.tokens} target passes, one per token, cost {s.tokens} "
            "plain decoding steps (1.00×)."
        ),
        rows=rows,
        best=_best(race, ens),
        keys_note=(
            "These uniforms are keyed by output position, not by block, so the fixed-k run is "
            "not the request drawn above: the same law, other draws."
        ),
        chart=race_chart(race),
    )


# ----------------------------------------------------------------------------- sentences


def _intro(s: Settings, n: int) -> str:
    checked = (
        "Only how many tokens a block drafts changes; every drafted token is checked by the "
        "same rule."
        if s.verify
        else "With verify off nothing is checked: a policy only decides how many drafted "
        "tokens a block emits."
    )
    return (
        f"One seeded request (seed {s.seed}, {s.tokens} tokens, match {fmt.setting(s.match)}) "
        "served five ways with the same uniforms: each draw is keyed by the output position "
        "it decides, so two policies at the same position with the same context make the "
        f"same draw. {checked} No block drafts further than the request still needs. The "
        f"means and verdicts are over {n} seeded requests."
    )


def _substitution(race: Race) -> str:
    if not race.substituted:
        return ""
    s = race.settings
    if s.draft_source == "lookup":
        what = "prompt lookup, which copies its draft and has no q to threshold"
        chain = "the chain drafted by the draft model at the same match"
    elif s.acceptance == "typical":
        what = "typical acceptance"
        chain = "the chain with the exact rule at the same match and draft source"
    else:
        what = f"a token tree of width {s.tree_width}" if s.tree_width > 1 else "one top draft"
        chain = "the chain of the same match and draft source"
    return f"Your settings serve {what}; only the chain is raced here: {chain}."


def _rule(policy: Policy, race: Race) -> str:
    s = race.raced
    if policy == "fixed":
        return f"k = {s.k} every block"
    if policy == "heuristic":
        return (
            f"starts at k = {s.k}; +2 after a block whose drafts were all accepted, else −1 "
            f"(never below 1, at most {K_MAX}): Hugging Face transformers' default"
        )
    if policy == "confidence":
        return (
            f"drafts until the draft gives its own token q(x) < {CONFIDENCE_THRESHOLD} (that "
            f"token included), at most {K_MAX}"
        )
    if policy == "oracle":
        if not s.verify:
            return (
                f"hindsight: drafts up to the first token the target would reject, at most "
                f"{K_MAX}; with verify off nothing is rejected, so it drafts {K_MAX}"
            )
        return (
            "hindsight: drafts up to and including the first token the target will reject "
            f"(at most {K_MAX}), so no draft is wasted past a rejection; its output is fixed "
            f"k = {K_MAX}'s. No server can run it: it is a bound"
        )
    if not s.verify:
        return "the heuristic; with verify off nothing is checked, so it never stops"
    return (
        f"the heuristic, but while acceptance measured over its last {RECOVERY_WINDOW} blocks "
        f"stays below c = {fmt.setting(race.c)} (the k = 1 break-even) it takes plain decoding "
        f"steps, probing with k = 1 after {PROBE_AFTER} of them (the wait doubling, at most "
        f"{PROBE_MAX})"
    )


def _ks(r: PolicyRun) -> str:
    shown = ", ".join(str(d) for d in r.drafted[:KS_SHOWN])
    return shown + (", …" if r.blocks > KS_SHOWN else "")


def _blocks(r: PolicyRun) -> str:
    plain = r.plain_steps
    text = f"{r.blocks} block{'s' if r.blocks != 1 else ''}"
    if plain:
        text += f", {plain} with no draft (a plain target pass)"
    return text


def verdict(e: Estimate) -> str:
    """Against plain decoding (1×), over the seeded requests: the ensemble's rule (a change
    is called only when the interval excludes 1× and it is at least RELATIVE_MARGIN)."""
    if math.isinf(e.mean):
        return "unbounded"
    if e.low == e.high == 1.0:
        return "the same"
    if e.ci_low > 1.0 and e.mean >= 1.0 + RELATIVE_MARGIN:
        return "faster"
    if e.ci_high < 1.0 and e.mean <= 1.0 - RELATIVE_MARGIN:
        return "slower"
    return "within noise"


def _interval(e: Estimate) -> str:
    if math.isinf(e.mean):
        return "unbounded"
    return f"{e.ci_low:.2f}–{e.ci_high:.2f}×"


def _savings(e: Estimate, n: int, *, verify: bool) -> str:
    v = verdict(e)
    level = f"{CONFIDENCE:.0%}"
    if v == "unbounded":
        return (
            f"No target pass and free drafts on all {n} seeded requests: unbounded, and not "
            "speculation (nothing is checked)."
        )
    if v == "the same":
        return f"The same cost as plain decoding on all {n} seeded requests (1.00×)."
    said = {
        "faster": "Faster than plain decoding",
        "slower": "Slower than plain decoding",
        "within noise": "Within noise of plain decoding",
    }[v]
    out = (
        f"{said} over {n} seeded requests: mean {fmt.speedup(e.mean)} ({level} interval "
        f"{_interval(e)})."
    )
    if not verify:
        out += " With verify off no target pass is made: these are the draft's tokens, unchecked."
    return out


def _correctness(policy: Policy, race: Race, r: PolicyRun) -> tuple[str, str]:
    s = race.raced
    if race.lossless:
        note = (
            "It changes only how many tokens a block drafts; each drafted token is checked by "
            "the exact rule and a rejection is repaired from the residual."
        )
        if policy == "oracle":
            note += " Looking ahead only decides where to stop: its output is fixed k = 16's."
        return "keeps p", note
    mechanism = (
        "with verify off the drafted tokens are emitted unchecked, so the output follows the "
        "draft's q"
        if not s.verify
        else "with repair off a rejection is resampled from p instead of the residual"
    )
    if r.draft_passes == 0:
        return "keeps p here (nothing drafted)", (
            f"Not by the rule: {mechanism}, which loses p in general; this request drafted "
            "nothing, so every token is a plain sample from p."
        )
    if r.tv_max <= EXACT:
        return "keeps p here (not by the rule)", (
            f"{mechanism[0].upper()}{mechanism[1:]}, which loses p in general; at every "
            "position it drafted here the emitted law is p (exact distance 0)."
        )
    return "does not keep p", (
        f"{mechanism[0].upper()}{mechanism[1:]}: the emitted law is up to TV "
        f"{fmt.distance(r.tv_max)} from p at the positions it drafted."
    )


def _row(race: Race, r: PolicyRun, e: Estimate, n: int) -> RaceRow:
    correct, note = _correctness(r.policy, race, r)
    name = NAMES[r.policy] + (f" = {race.raced.k}" if r.policy == "fixed" else "")
    return RaceRow(
        policy=r.policy,
        name=name,
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


def _best(race: Race, ens: RaceEnsemble) -> str:
    """Which policy is best over the seeded requests, and whether that is more than noise
    against the runner-up (paired on the same seeds)."""
    n = len(ens.seeds)
    means = {p: ens.speedup(p).mean for p in (r.policy for r in race.runs)}
    if all(ens.speedup(p).low == ens.speedup(p).high == 1.0 for p in means):
        return (
            f"No policy drafts anything on these {n} requests (one token is one plain target "
            "pass): every policy is plain decoding."
        )
    if all(math.isinf(m) for m in means.values()):
        return (
            f"With verify off and a free draft no policy costs anything on these {n} requests: "
            "every speedup is unbounded, and none of it is speculation (nothing is checked)."
        )
    runnable = sorted((p for p in means if p != "oracle"), key=lambda p: -means[p])
    first, second = runnable[0], runnable[1]
    out = (
        f"Over the {n} seeded requests the highest mean a server can reach is "
        f"{_named(race, first)}'s, {fmt.speedup(means[first])}"
    )
    out += _against(ens, first, second, race) + "."
    if not any(verdict(ens.speedup(p)) in ("faster", "unbounded") for p in runnable):
        out += " None of them is faster than plain decoding here."
    oracle = ens.speedup("oracle").mean
    out += f" The hindsight oracle, which no server can run, reaches {fmt.speedup(oracle)}"
    if oracle > means[first]:
        return out + ": what knowing each rejection in advance would be worth."
    if not race.raced.verify:
        return out + ", no more: with verify off nothing is rejected, so it drafts 16 a block."
    return out + (
        ", no more: it saves only drafts past a rejection, and still pays a draft pass for "
        "every token the target rejects."
    )


def _named(race: Race, policy: Policy) -> str:
    return NAMES[policy] + (f" = {race.raced.k}" if policy == "fixed" else "")


def _against(ens: RaceEnsemble, first: Policy, second: Policy, race: Race) -> str:
    """The leader against the runner-up on the same seeds: the difference of their speedups
    (ratios of means) with the delta method's interval, as every comparison is judged."""
    a, b = np.asarray(ens.costs(first)), np.asarray(ens.costs(second))
    runner_up = ens.speedup(second).mean
    if not (math.isfinite(ens.speedup(first).mean) and math.isfinite(runner_up)):
        return ""
    if np.array_equal(a, b):
        return f", the same as {_named(race, second)}'s on every request"
    diff, half = paired_difference(ens.tokens, b, a)
    if diff - half > 0.0 and diff >= RELATIVE_MARGIN * runner_up:
        return (
            f", ahead of {_named(race, second)} by {diff:.2f}× on the same seeds "
            f"({CONFIDENCE:.0%} interval {diff - half:.2f}–{diff + half:.2f}×)"
        )
    return f", within noise of {_named(race, second)}'s {fmt.speedup(runner_up)}"


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
            what = "no draft: a plain target pass" if d == 0 else f"drafted {d}, accepted {a}"
            label = f"{_named(race, r.policy)}, block {b + 1} at token {start + 1}: {what}"
            points.append(RacePoint(x0, y, _marker(MARKERS[r.policy], x0, y), label))
            start += e
        ks = r.drafted
        label = (
            f"{_named(race, r.policy)}: {min(ks)}–{max(ks)} drafted over {r.blocks} blocks"
            if min(ks) != max(ks)
            else f"{_named(race, r.policy)}: {ks[0]} drafted in each of {r.blocks} blocks"
        )
        rows.append(
            RaceChartRow(
                policy=r.policy,
                label=label,
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
    summary = (
        f"Tokens drafted per block along the request's {s.tokens} output tokens, one row per "
        "policy (0 is a block with no draft: a plain target pass): "
        + "; ".join(row.label for row in rows)
        + "."
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
