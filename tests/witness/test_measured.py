"""The measured roofline (witness/cost/measured.py): the shape of a measurement, the model fitted
to it, the once-per-process accessor, and the CLI's table. Timings are not asserted (they
are this machine's); what is asserted holds for any timing."""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator

import pytest

from witness import cli
from witness.cost import measured
from witness.cost.measured import (
    WIDTHS,
    MeasuredPoint,
    MeasuredRoofline,
    format_roofline,
    measure_roofline,
    summarise,
)
from witness.cost.roofline import roofline_pass_seconds

SMALL = {"rows": 256, "cols": 128, "repeats": 2}


@pytest.fixture(scope="module")
def small() -> MeasuredRoofline:
    return measure_roofline(**SMALL)


def test_a_measurement_has_every_width_with_consistent_numbers(small: MeasuredRoofline) -> None:
    assert [p.width for p in small.points] == list(WIDTHS) == [1, 2, 4, 8, 16, 32, 64]
    assert small.points[0].ratio == 1.0
    one = small.points[0].seconds
    for p in small.points:
        assert p.seconds > 0
        assert p.ratio == pytest.approx(p.seconds / one)
        # GB/s is W's bytes over the time; GFLOP/s is 2 · rows · cols · width over it.
        assert p.gb_per_s * 1e9 * p.seconds == pytest.approx(256 * 128 * 4)
        assert p.gflop_per_s * 1e9 * p.seconds == pytest.approx(2 * 256 * 128 * p.width)
    assert (small.rows, small.cols) == (256, 128)
    assert small.repeats == 2
    assert "numpy" in small.machine


def test_the_model_is_the_roofline_fitted_to_the_run(small: MeasuredRoofline) -> None:
    one = small.points[0]
    assert small.bandwidth == pytest.approx(256 * 128 * 4 / one.seconds)
    assert small.flops / 1e9 == pytest.approx(max(p.gflop_per_s for p in small.points))
    models = [p.model_seconds for p in small.points]
    assert models == sorted(models), "the model's time never falls as the pass widens"
    # It meets the measurement at one vector and at the fastest width, by construction...
    assert one.model_seconds == pytest.approx(one.seconds)
    fastest = max(small.points, key=lambda p: p.gflop_per_s)
    assert fastest.model_seconds == pytest.approx(fastest.seconds)
    # ...and is exactly witness.cost.roofline's formula with those two numbers, 4 bytes a weight.
    for p in small.points:
        assert p.model_seconds == roofline_pass_seconds(
            256 * 128, p.width, bandwidth=small.bandwidth, flops=small.flops, bytes_per_param=4.0
        )
    assert small.compute_bound_width == pytest.approx(small.flops * 4 / (2 * small.bandwidth))


def test_the_real_default_is_a_matrix_beyond_the_caches() -> None:
    defaults = inspect.signature(measure_roofline).parameters
    rows, cols = defaults["rows"].default, defaults["cols"].default
    assert rows * cols * 4 >= 128 * 2**20
    assert tuple(defaults["widths"].default) == (1, 2, 4, 8, 16, 32, 64)


@pytest.mark.parametrize("widths", [(), (2, 4), (1, 0)])
def test_widths_must_start_at_one(widths: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="widths must start at 1"):
        measure_roofline(rows=8, cols=8, widths=widths, repeats=1)


def _points(*ratios: float) -> list[MeasuredPoint]:
    return [MeasuredPoint(2**i, r * 1e-3, r, 1.0, 1.0, 1e-3) for i, r in enumerate(ratios)]


def test_the_sentence_says_what_the_numbers_show() -> None:
    flat = summarise(_points(1.0, 1.0, 1.05, 1.1, 1.2, 1.3, 1.4))
    assert flat.startswith("64 vectors cost 1.40× one vector: one pass over many tokens")
    rising = summarise(_points(1.0, 1.0, 1.05, 1.1, 1.2, 2.5, 5.0))
    assert "flat up to 16 vectors (1.20×), then rising" in rising
    assert "12.8× less than 64 one-vector passes" in rising
    stepped = summarise(_points(1.0, 3.7, 3.8, 3.9, 4.5, 6.2, 9.0))
    assert "not flat on this server, the step comes at once (2 vectors cost 3.70× one" in stepped
    assert "from 2 to 64 vectors the time grows 2.43×" in stepped
    # A pass that costs as much as separate passes is not dressed up as a saving.
    worst = summarise(_points(1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0))
    assert "less than" not in worst
    assert "as much as 64 separate passes" in worst


@pytest.fixture
def fresh_cache(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """measured_here with a small measurement and an empty cache, restored afterwards."""
    calls: list[int] = []

    def small_measure() -> MeasuredRoofline:
        calls.append(1)
        return measure_roofline(**SMALL)

    measured._measured_once.cache_clear()
    monkeypatch.setattr(measured, "measure_roofline", small_measure)
    yield calls
    measured._measured_once.cache_clear()


def test_measured_here_measures_once_per_process(fresh_cache: list[int]) -> None:
    first = measured.measured_here()
    assert measured.measured_here() is first
    assert fresh_cache == [1]


def test_cli_prints_the_table_and_the_sentence(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, small: MeasuredRoofline
) -> None:
    monkeypatch.setattr(cli, "measured_here", lambda: small)
    assert cli.main(["roofline"]) == 0
    out = capsys.readouterr().out
    assert "Measured on this server (not part of the deterministic witness)" in out
    assert re.search(r"width +ms +x one +GB/s +GFLOP/s +model ms", out)
    rows = re.findall(r"^ +(\d+) +[\d.]+ +([\d.]+) +[\d.]+ +[\d.]+ +[\d.]+$", out, re.M)
    assert [int(w) for w, _ in rows] == list(WIDTHS)
    assert rows[0][1] == "1.00"
    assert small.summary() in out
    assert format_roofline(small) in out
