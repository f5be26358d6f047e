"""bench/neural_passes.py, the tiny transformers' passes timed on this server: its measuring
function with a few repeats gives every figure, in the shapes the report and the JSON read.
Nothing is timed against a threshold: a timed assertion on a shared machine is flaky.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "neural_passes.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_neural_passes", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


neural_passes = _load()


@pytest.fixture(scope="module")
def figures() -> dict[str, Any]:
    measured: dict[str, Any] = neural_passes.measure(repeats=5, warmup=2)
    return measured


def test_every_pass_has_a_positive_median_and_ratio(figures: dict[str, Any]) -> None:
    widths = neural_passes.WIDTHS
    names = [f"target_{s}" for s in widths] + ["early_exit", "draft"]
    assert set(figures["ms"]) == set(names) == set(figures["ranges"])
    assert all(figures["ms"][name] > 0 for name in names)
    assert list(figures["v"]) == [str(s) for s in widths]
    assert set(figures["c"]) == {"early_exit", "draft"}
    ratios = [*figures["v"].values(), *figures["c"].values()]
    assert all(0 < r < float("inf") for r in ratios)
    for lo, hi in figures["ranges"].values():
        assert 0 < lo <= hi


def test_a_target_step_is_the_unit(figures: dict[str, Any]) -> None:
    assert figures["v"]["1"] == 1.0
    assert figures["ranges"]["target_1"] == [1.0, 1.0]
    assert (figures["prompt"], figures["repeats"], figures["warmup"]) == (64, 5, 2)
    assert figures["layers"] == {"target": 4, "early_exit": 1}


def test_the_report_and_the_json_carry_the_figures(figures: dict[str, Any], tmp_path: Path) -> None:
    prices = neural_passes.station_prices()
    assert all(row["1"] == 1.0 for row in prices.values())
    assert prices["roofline (H100)"]["5"] == pytest.approx(1.0)
    text = neural_passes.report(figures, prices)
    assert "v(16)" in text and "early-exit draft step" in text and "not memory-bound" in text
    out = tmp_path / "neural-passes.json"
    out.write_text(json.dumps(neural_passes.document(figures, prices)), encoding="utf-8")
    written = json.loads(out.read_text(encoding="utf-8"))
    assert {"measured", "env", "ms", "v", "c", "ranges", "station_prices"} <= set(written)
    assert {"cpu", "numpy", "python", "cpus"} <= set(written["env"])
    assert written["v"] == figures["v"]


def test_each_repeat_sees_the_same_cache() -> None:
    calls, reset = neural_passes._calls(neural_passes.tiny_pair(), 16)
    first = calls["target_5"]()
    reset()
    for name in ("early_exit", "target_16", "draft"):
        calls[name]()
        reset()
    assert np.array_equal(calls["target_5"](), first)
    # teeth: without the rollback the same pass lands five positions later and differs
    assert not np.allclose(calls["target_5"](), first)
