"""`python -m witness` for instructors: a request trace, a k sweep table, JSON, or the roofline.

Every Settings field is an option with its range in the help, taken from the model:

    python -m witness trace --match 0.55 --k 6
    python -m witness sweep --draft-cost 0.2
    python -m witness eval --repair off
    python -m witness json --seed 9 > trace.json
    python -m witness roofline    # measured on this machine, not deterministic (measured.py)
    python -m witness batch --machine h100 --match 0.9    # the best k per batch size
    python -m witness race --draft-source adversary --match 0    # draft-length policies
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from pydantic import ValidationError

from witness.core.settings import Settings, expected_text, field_bounds
from witness.core.trace import BlockTrace, RequestTrace
from witness.cost.batching import BATCH_MAX, BatchTable, batch_table
from witness.cost.costing import costing, scored_per_sequence
from witness.cost.measured import format_roofline, measured_here
from witness.judge.adaptive import Race, RaceEnsemble, race, race_ensemble
from witness.judge.evaluation import evaluate
from witness.judge.expected import ensemble_of
from witness.judge.sweep import sweep_k
from witness.judge.verdict import judged_trace, verdict_of
from witness.serve.request import serve_request

MARK = {"accepted": "", "repaired": "*", "bonus": "+", "unchecked": "?"}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m witness",
        description="Speculative decoding, one served request at a time (deterministic).",
    )
    parser.add_argument(
        "view",
        choices=["trace", "sweep", "eval", "json", "roofline", "batch", "race"],
        nargs="?",
        default="trace",
    )
    for name, info in Settings.model_fields.items():
        kind = field_bounds(name)["kind"]
        help_text = f"{info.title}: {expected_text(name)} (default {info.default!r})"
        if kind == "bool":
            help_text = f"{info.title}: on or off (default {'on' if info.default else 'off'})"
        if kind == "choice":
            kind = "name"
        parser.add_argument(
            "--" + name.replace("_", "-"), dest=name, metavar=kind.upper(), help=help_text
        )
    parser.add_argument("--blocks", type=int, default=100_000, help="blocks per mode for 'eval'")
    return parser


def _priced(trace: RequestTrace) -> list[str]:
    """On a machine, what a unit is: the passes' prices (`witness.cost.costing`)."""
    s = Settings(**trace.settings)
    cost, scored = costing(s), scored_per_sequence(s)
    if cost.machine is None or cost.pair is None:
        return []
    return [
        f"priced on {cost.machine_label}: {cost.pair.label}, batch {s.batch}, context "
        f"{s.context}; a unit is a plain step of {cost.plain_seconds * 1e3:.3f} ms, c = "
        f"{cost.c:.3f}, a verifying pass of {scored} tokens {cost.verify(scored):.3f} units"
    ]


def _fmt(x: float | None, unit: str = "") -> str:
    return "unbounded" if x is None else f"{x:.3f}{unit}"


def format_trace(trace: RequestTrace) -> str:
    t, c = trace.totals, trace.check
    lines = [f"prompt: {' '.join(trace.prompt_words)}", ""]
    for b in trace.blocks:
        lines.append(f"block {b.index:>2}  after '{' '.join(b.context)}'")
        if b.lookup is not None:
            lines.append(f"   copied after '{' '.join(b.lookup.ngram)}' (seen at {b.lookup.start})")
        if b.levels:
            lines += _levels(b)
        for d in () if b.levels else b.drafts:
            verdict = {True: "accept", False: "REJECT", None: "-"}[d.accepted]
            lines.append(
                f"   draft {d.position + 1} {d.word!r:<14} p={d.p:.3f} q={d.q:.3f} "
                f"p/q={d.ratio:.3f} u={d.u:.3f} {verdict}"
            )
        if b.result.repair_token is not None and b.levels:
            top = ", ".join(f"{w} {r:.2f}" for w, r in b.residual_top)
            lines.append(
                f"   every sibling failed -> {b.final_word!r}" + (f" from [{top}]" if top else "")
            )
        elif b.result.repair_token is not None:
            top = ", ".join(f"{w} {r:.2f}" for w, r in b.residual_top)
            lines.append(f"   residual [{top}] -> repair {b.final_word!r}")
        elif b.result.bonus_token is not None and b.depth == 0:
            what = (
                "nothing copied"
                if trace.settings["draft_source"] == "lookup"
                else "nothing drafted"
            )
            lines.append(f"   {what}: a plain target pass -> {b.final_word!r} from p")
        elif b.result.bonus_token is not None:
            lines.append(f"   all accepted -> bonus {b.final_word!r} from p")
        emitted = " ".join(
            w + MARK[k] for w, k in zip(b.emitted_words, b.emitted_kinds, strict=True)
        )
        lines.append(f"   emits: {emitted}")
    if t.scored_per_pass is not None and any(b.levels for b in trace.blocks):
        lines.append(
            f"\ndrafted {t.drafted_tokens} tokens; "
            f"the target scored {t.scored_per_pass:.1f} per pass"
        )
    lines += [
        "",
        f"text: {trace.text}",
        f"tokens {t.tokens} | target passes {t.target_passes} "
        f"(plain decoding {t.baseline_target_passes})"
        f" | draft passes {t.draft_passes} | cost {t.cost_units:.2f} units",
        *_priced(trace),
        f"speedup measured {_fmt(t.speedup_measured, 'x')} "
        f"| expected {_fmt(t.speedup_expected, 'x')}"
        f" at mean alpha {t.mean_alpha:.3f}",
        f"time {t.ms_speculative:.0f} ms vs {t.ms_baseline:.0f} ms plain",
        f"distribution: mode {c.mode}, exact TV to p max {c.tv_max:.2e}"
        f" -> {'target kept' if c.keeps_target else 'target NOT kept'}",
        "marks: * repaired from the residual, + bonus from p, ? unchecked draft",
    ]
    return "\n".join(lines)


def format_race(r: Race, seeded: RaceEnsemble) -> str:
    """Each draft-length policy on the request and over its seeded requests (docs/adaptive.md)."""
    n = len(seeded.seeds)
    lines = [
        ("the chain raced for these settings; " if r.substituted else "")
        + f"{'every policy keeps p' if r.lossless else 'no policy keeps p (verify or repair off)'}"
        f"; recovery's break-even c = {r.c:.3f}",
        f"{'policy':<11} {'target':>6} {'draft':>6} {'cost':>7} {'this':>7} "
        f"{f'mean of {n}':>11}  99% interval",
    ]
    for run in r.runs:
        est = seeded.speedup(run.policy)
        lines.append(
            f"{run.policy:<11} {run.target_passes:>6} {run.draft_passes:>6} {run.cost:>7.2f} "
            f"{_fmt(run.speedup, 'x'):>7} {est.mean:>10.3f}x  {est.ci_low:.3f}-{est.ci_high:.3f}"
        )
    return "\n".join(lines)


def format_batch(s: Settings, table: BatchTable) -> str:
    """The best k per batch size on the settings' machine, by the formula at the station's α."""
    cost = costing(s)
    if cost.machine is None or cost.pair is None:
        return (
            "machine custom: every target pass costs one whatever it scores, so the batch "
            "changes nothing (choose --machine h200, h100, a100, l4 or laptop)"
        )
    lines = [
        f"{cost.pair.label} on {cost.machine_label}, context {s.context}, "
        f"alpha {table.alpha:.3f} (the station's, over its ensemble), k = {table.k}",
        f"{'batch':>5} {'plain ms':>9} {'verify ms':>9} {'price':>7} {'at k':>7} "
        f"{'best k':>6} {'best':>7} {'fits':>5}",
    ]
    for p in table.points:
        lines.append(
            f"{p.batch:>5} {p.plain_seconds * 1e3:>9.3f} {p.verify_seconds * 1e3:>9.3f} "
            f"{p.price:>7.3f} {p.speedup:>6.3f}x {p.best_k:>6} {p.best_speedup:>6.3f}x "
            f"{'yes' if p.fits else 'no':>5}"
        )
    here = "never" if table.stops_paying is None else f"from batch {table.stops_paying}"
    none = "never" if table.none_pays is None else f"from batch {table.none_pays}"
    lines.append(f"k = {table.k} stops paying: {here}; no k pays: {none}")
    fits = table.fits_up_to
    if fits < BATCH_MAX:
        lines.append(f"fits in memory: {'no batch' if fits == 0 else f'batches up to {fits}'}")
    return "\n".join(lines)


def _levels(b: BlockTrace) -> list[str]:
    """A tree's (typical acceptance's, a lookup's) levels, one line per sibling tested."""
    lines = []
    for level in b.levels:
        bar = f" (typical bar {level.threshold:.3f})" if level.threshold is not None else ""
        lines.append(f"   level {level.position + 1}: alpha {level.alpha:.3f}{bar}")
        for sib in level.siblings:
            if sib.accepted is None:
                verdict, test = "not tested", ""
            elif level.threshold is not None:
                verdict = "accept" if sib.accepted else "REJECT"
                test = f" p={sib.p:.3f} vs bar"
            else:
                verdict = "accept" if sib.accepted else "REJECT"
                test = f" p'={sib.p:.3f} q'={sib.q:.3f} u={sib.u:.3f}"
            lines.append(f"     sibling {sib.index + 1} {sib.word!r:<14}{test} {verdict}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    given = {
        name: getattr(args, name)
        for name in Settings.model_fields
        if getattr(args, name) is not None
    }
    try:
        settings = Settings(**given)
    except ValidationError as exc:
        for err in exc.errors():
            print(f"error: {err['msg']}", file=sys.stderr)
        return 2
    if args.view == "trace":
        print(format_trace(serve_request(settings)))
    elif args.view == "json":
        served = serve_request(settings)
        verdict = verdict_of(ensemble_of(settings), settings, served.check)
        print(json.dumps(judged_trace(served, verdict).to_dict(), indent=2))
    elif args.view == "roofline":
        print(format_roofline(measured_here()))
    elif args.view == "race":
        print(format_race(race(settings), race_ensemble(settings)))
    elif args.view == "batch":
        print(format_batch(settings, batch_table(settings, ensemble_of(settings).alpha)))
    elif args.view == "sweep":
        sweep = sweep_k(settings)
        print(
            f"alpha {sweep.alpha:.3f}, draft cost {sweep.draft_cost:g}: "
            f"optimal k = {sweep.optimal_k}"
            + ("" if sweep.pays else " (speculation does not pay: alpha <= c)")
        )
        print(f"{'k':>3} {'measured':>9} {'expected':>9} {'tok/pass':>9}")
        # (a wide tree stops at the deepest k its width allows)
        for pt in sweep.points:
            mark = "  <- optimum" if pt.k == sweep.optimal_k else ""
            print(
                f"{pt.k:>3} {_fmt(pt.speedup_measured):>9} {pt.speedup_expected:>9.3f} "
                f"{_fmt(pt.tokens_per_pass):>9}{mark}"
            )
        if sweep.widths:
            print(f"\nthis request as a tree of each width at k = {settings.k}:")
            print(f"{'width':>5} {'measured':>9} {'expected':>9} {'tok/pass':>9} {'scored':>7}")
            for w in sweep.widths:
                print(
                    f"{w.width:>5} {_fmt(w.speedup_measured):>9} {_fmt(w.speedup_expected):>9} "
                    f"{_fmt(w.tokens_per_pass):>9} {_fmt(w.scored_per_pass):>7}"
                )
    else:
        ev = evaluate(settings, blocks=args.blocks)
        print(f"alpha at the first position {ev.alpha:.3f}; {ev.modes[0].blocks} blocks per mode")
        for m in ev.modes:
            print(
                f"{m.mode:<10} chi2 p={m.chi_square.p_value:.3g} TV sampled {m.tv_empirical:.4f}"
                f" exact {m.tv_exact:.4f} speedup {_fmt(m.speedup_measured, 'x')}"
                f" -> {'keeps p' if m.keeps_target else 'FAILS p'}"
            )
        for mc in ev.methods:
            print(
                f"{mc.label}: chi2 p={mc.chi_square.p_value:.3g} TV sampled "
                f"{mc.tv_empirical:.4f} exact {mc.tv_exact:.4f} acceptance "
                f"{mc.acceptance_exact:.3f} formula {_fmt(mc.speedup_expected, 'x')}"
                f" -> {'keeps p' if mc.tv_exact <= 1e-12 else 'FAILS p'}"
                + (f" ({mc.note})" if mc.note else "")
            )
    return 0
