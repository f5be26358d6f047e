"""`python -m witness`: each view prints what it claims, and bad options exit 2."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from witness import Settings, serve_request
from witness.cli import main
from witness.core.theory import acceptance_rate, expected_speedup, optimal_k
from witness.judge.evaluation import first_position
from witness.judge.expected import ensemble_of
from witness.judge.verdict import judged_trace, verdict_of

ROOT = Path(__file__).resolve().parents[2]


def _run(capsys, *argv: str) -> str:
    assert main(list(argv)) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    return captured.out


def test_json_view_is_the_served_request(capsys) -> None:
    out = _run(capsys, "json", "--seed", "9", "--k", "6", "--repair", "off")
    s = Settings(seed=9, k=6, repair=False)
    served = serve_request(s)
    expected = judged_trace(served, verdict_of(ensemble_of(s), s, served.check)).to_dict()
    assert json.loads(out) == expected
    assert expected["verdict"]["estimator"] == "served"  # repair off has no exact form


def test_trace_view_reports_the_request(capsys) -> None:
    s = Settings(match=0.55, k=6, tokens=20)
    trace = serve_request(s)
    out = _run(capsys, "trace", "--match", "0.55", "--k", "6", "--tokens", "20")
    assert f"text: {trace.text}" in out
    assert len(re.findall(r"^block +\d+ ", out, re.M)) == trace.totals.blocks
    assert len(re.findall(r"^   draft \d+ ", out, re.M)) == trace.totals.draft_passes
    assert f"target passes {trace.totals.target_passes} (plain decoding 20)" in out
    assert "-> target kept" in out
    rejects = sum(d.accepted is False for b in trace.blocks for d in b.drafts)
    assert out.count(" REJECT") == rejects
    out_biased = _run(capsys, "trace", "--repair", "off")
    assert "-> target NOT kept" in out_biased


def _sweep(out: str) -> tuple[int, list[tuple[int, float]], list[int]]:
    header = int(re.search(r"optimal k = (\d+)", out).group(1))
    rows = re.findall(r"^ *(\d+) +\S+ +([\d.]+) +\S+(  <- optimum)?$", out, re.M)
    marked = [int(k) for k, _, mark in rows if mark]
    return header, [(int(k), float(e)) for k, e, _ in rows], marked


@pytest.mark.parametrize(
    ("argv", "settings"),
    [
        ((), Settings()),
        (("--draft-cost", "0.02", "--match", "0.9"), Settings(draft_cost=0.02, match=0.9)),
        (("--draft-cost", "0.9", "--match", "0"), Settings(draft_cost=0.9, match=0.0)),
    ],
)
def test_sweep_marks_the_optimum(capsys, argv, settings) -> None:
    out = _run(capsys, "sweep", *argv)
    # The sweep's alpha is the station's: over every position the state's seeded requests draft.
    alpha = ensemble_of(settings).alpha
    best = optimal_k(alpha, settings.draft_cost, 16)
    header, rows, marked = _sweep(out)
    assert [k for k, _ in rows] == list(range(1, 17))
    assert header == best
    assert marked == [best]
    for k, shown in rows:
        assert shown == pytest.approx(expected_speedup(alpha, k, settings.draft_cost), abs=5e-4)
    assert ("does not pay" in out) == (alpha <= settings.draft_cost)


def test_sweep_optimum_moves_with_the_settings(capsys) -> None:
    # Teeth for the test above: the optimum is not a constant the table always marks.
    cheap, _, _ = _sweep(_run(capsys, "sweep", "--draft-cost", "0.02", "--match", "0.9"))
    dear, _, _ = _sweep(_run(capsys, "sweep", "--draft-cost", "0.9", "--match", "0"))
    assert cheap > dear == 1


def test_eval_view(capsys) -> None:
    out = _run(capsys, "eval", "--blocks", "20000")
    p, q = first_position(Settings())
    assert f"alpha at the first position {acceptance_rate(p, q):.3f}; 20000 blocks" in out
    verdicts = dict(re.findall(r"^(\w+) .*-> (keeps p|FAILS p)$", out, re.M))
    assert verdicts == {
        "lossless": "keeps p",
        "no_repair": "FAILS p",
        "no_verify": "FAILS p",
        # the methods beside the chain, by their exact law (prompt lookup's line has a note)
        "tree": "keeps p",
        "typical": "FAILS p",
    }
    assert re.search(r"^prompt lookup: .*-> keeps p", out, re.M)


def test_bad_option_exits_2_naming_the_range(capsys) -> None:
    assert main(["trace", "--k", "0"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "k must be an integer from 1 to 16" in captured.err
    assert main(["json", "--verify", "maybe", "--match", "7"]) == 2
    err = capsys.readouterr().err
    assert "verify must be true or false" in err
    assert "match must be a number from 0 to 1" in err


def _module(*argv: str) -> subprocess.CompletedProcess[str]:
    """``python -m witness`` in a fresh interpreter: the entry point, not `main`."""
    return subprocess.run(
        [sys.executable, "-m", "witness", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_module_entry_point_exit_codes() -> None:
    bad = _module("trace", "--k", "0")
    assert bad.returncode == 2
    assert "k must be an integer from 1 to 16" in bad.stderr
    assert bad.stdout == ""
    good = _module("json", "--tokens", "5")
    assert good.returncode == 0
    out = json.loads(good.stdout)
    verdict = out.pop("verdict")
    assert out == serve_request(Settings(tokens=5)).to_dict()
    # Beside the request, its state's verdict ensemble: the lossless chain judged exactly.
    exact = ensemble_of(Settings(tokens=5))
    assert verdict["estimator"] == "exact-given-text" and verdict["n"] == len(exact.seeds) == 32
    assert verdict["speedup"] == exact.speedup(0.1).mean
    assert verdict["ci_low"] < verdict["speedup"] < verdict["ci_high"]


def test_help_lists_every_range(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps to the terminal width
    for needle in ("an integer from 1 to 16", "a number from 0 to 1", "--draft-cost"):
        assert needle in out


def test_batch_view_prints_the_table_and_the_thresholds(capsys) -> None:
    from witness.cost.batching import batch_table

    out = _run(capsys, "batch", "--machine", "h100", "--match", "0.9")
    s = Settings(machine="h100", match=0.9)
    table = batch_table(s, ensemble_of(s).alpha)
    rows = [line for line in out.splitlines() if re.match(r"^ +\d+ ", line)]
    assert [int(r.split()[0]) for r in rows] == [p.batch for p in table.points]
    assert f"stops paying: from batch {table.stops_paying}" in out
    custom = _run(capsys, "batch")
    assert "machine custom" in custom and "changes nothing" in custom


def test_race_view_prints_every_policy(capsys) -> None:
    from witness.judge.adaptive import race

    out = _run(capsys, "race", "--draft-source", "adversary", "--match", "0")
    r = race(Settings(draft_source="adversary", match=0.0))
    for run in r.runs:
        line = next(x for x in out.splitlines() if x.startswith(run.policy))
        assert f" {run.target_passes} " in line and f"{run.cost:.2f}" in line
    assert "every policy keeps p" in out
    assert "no policy keeps p" in _run(capsys, "race", "--repair", "off")


def test_trace_on_a_machine_says_what_a_unit_is(capsys) -> None:
    out = _run(capsys, "trace", "--machine", "l4", "--batch", "200", "--tokens", "12")
    assert "priced on NVIDIA L4: Llama 3.1 8B with Llama 3.2 1B, batch 200" in out
    assert "priced on" not in _run(capsys, "trace", "--tokens", "12")
