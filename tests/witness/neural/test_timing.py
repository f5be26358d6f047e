"""The tiny transformers' passes timed on this server (witness/neural/timing.py): the shape and
sanity of a timing, the process-wide accessor, the rounds' bookkeeping, and the roofline's
price for the same passes. Nothing is timed against a threshold: the timings are this
machine's; what is asserted holds for any timing (a pass over 16 positions does some sixteen
times a step's work, so it never costs less than one).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from witness.cost.measured import MeasuredRoofline
from witness.cost.roofline import roofline_pass_seconds
from witness.neural import timing
from witness.neural.model import tiny_pair
from witness.neural.timing import (
    FLOAT64,
    WIDTHS,
    K,
    RooflinePasses,
    TimedPasses,
    measure_passes,
    pass_calls,
    roofline_passes,
    time_rounds,
)


@pytest.fixture(scope="module")
def timed() -> TimedPasses:
    return measure_passes(repeats=3, warmup=1)


def machine(bandwidth: float, flops: float, cache: int | None = 32 * 2**20) -> MeasuredRoofline:
    """A measured roofline with these two numbers (the rest is not read)."""
    return MeasuredRoofline(8_192, 4_096, 5, "a test CPU", cache, (), bandwidth, flops, 1.0)


def test_a_timing_has_every_width_and_one_step_is_the_unit(timed: TimedPasses) -> None:
    assert timed.widths == WIDTHS == tuple(range(1, 17))
    assert len(timed.seconds) == len(timed.v) == 16
    assert all(t > 0 for t in timed.seconds)
    assert timed.v[0] == 1.0 == timed.v_at(1)
    assert timed.step_seconds == timed.seconds[0]
    assert timed.v_at(K + 1) == pytest.approx(timed.seconds[K] / timed.seconds[0])
    assert (timed.repeats, timed.prompt, timed.layers, timed.exit_layer) == (3, 64, 4, 1)


def test_a_pass_over_more_positions_costs_more_at_the_top_end(timed: TimedPasses) -> None:
    # Sixteen positions are some sixteen times a step's arithmetic: however noisy the machine,
    # the widest pass is dearer than one step (no figure beyond that: bench/ reports speed).
    assert timed.v[-1] > 1.0
    assert max(timed.v[-4:]) > max(timed.v[:2])


def test_each_draft_costs_a_positive_fraction_of_a_step(timed: TimedPasses) -> None:
    # The early exit runs one of the target's four layers, the draft one layer of the same width.
    assert 0 < timed.c_early_exit <= 1
    assert 0 < timed.c_draft <= 1
    assert timed.c_early_exit == timed.early_exit_seconds / timed.step_seconds
    assert timed.c_draft == timed.draft_seconds / timed.step_seconds


def test_a_timing_refuses_what_would_make_its_ratios_meaningless() -> None:
    good = dict(
        widths=(1, 2),
        seconds=(1e-3, 2e-3),
        early_exit_seconds=3e-4,
        draft_seconds=4e-4,
        repeats=1,
        prompt=64,
        layers=4,
        exit_layer=1,
    )
    assert TimedPasses(**good).v == (1.0, 2.0)  # type: ignore[arg-type]
    for bad in (
        {"widths": (2, 4)},  # no one-position step to divide by
        {"widths": (2, 1)},
        {"seconds": (1e-3,)},
        {"seconds": (0.0, 2e-3)},
        {"draft_seconds": 0.0},
    ):
        with pytest.raises(ValueError, match="widths|time"):
            TimedPasses(**{**good, **bad})  # type: ignore[arg-type]


def test_every_call_runs_once_a_round_and_the_cache_is_reset_after_each() -> None:
    ran: list[str] = []
    calls = {name: (lambda n=name: ran.append(n)) for name in ("a", "b", "c")}
    resets: list[int] = []
    times = time_rounds(calls, lambda: resets.append(len(ran)), repeats=4, warmup=2, seed=3)
    assert {name: len(t) for name, t in times.items()} == {"a": 4, "b": 4, "c": 4}
    assert sorted(ran) == sorted(["a", "b", "c"] * 6)
    assert resets == list(range(1, 19)), "a reset after every call, warm-up included"
    # Shuffled each round, from the seed: the rounds are not all in one order.
    rounds = [tuple(ran[i : i + 3]) for i in range(0, 18, 3)]
    assert len(set(rounds)) > 1
    with pytest.raises(ValueError, match="repeats"):
        time_rounds(calls, lambda: None, repeats=0, warmup=0)


def test_each_time_is_the_least_disturbed_round(monkeypatch: pytest.MonkeyPatch) -> None:
    """A round preempted by other work only adds time: the best round is the pass's cost."""
    rounds = {f"target_{s}": [9e-3, s * 1e-3, 7e-3] for s in (1, 2)}
    rounds |= {"early_exit": [5e-3, 3e-4, 4e-4], "draft": [4e-4, 4e-4, 6e-3]}
    monkeypatch.setattr(timing, "time_rounds", lambda *a, **k: rounds)
    t = measure_passes(repeats=3, warmup=0, widths=(1, 2))
    assert t.seconds == (1e-3, 2e-3)
    assert t.v == (1.0, 2.0)
    assert (t.c_early_exit, t.c_draft) == pytest.approx((0.3, 0.4))


def test_each_repeat_sees_the_same_cache_after_the_early_exit() -> None:
    calls, reset = pass_calls(tiny_pair(), 16, widths=(1, 5))
    first = calls["target_5"]()
    reset()
    # The early exit leaves the first layer a position ahead; the reset drops it too.
    calls["early_exit"]()
    reset()
    assert np.array_equal(calls["target_5"](), first)
    # teeth: without the reset the pass lands five positions later and differs
    assert not np.allclose(calls["target_5"](), first)


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The accessor's cache emptied, its measurement replaced by a counted stand-in."""
    made: list[int] = []
    stand_in = TimedPasses((1, 2), (1e-3, 2e-3), 3e-4, 4e-4, 1, 64, 4, 1)

    def measure() -> TimedPasses:
        made.append(1)
        return stand_in

    timing._timed_once.cache_clear()
    monkeypatch.setattr(timing, "measure_passes", measure)
    yield made
    timing._timed_once.cache_clear()


def test_the_accessor_times_once_per_process(fresh: list[int]) -> None:
    first = timing.timed_here()
    assert timing.timed_here() is first
    assert fresh == [1]
    m = machine(10e9, 100e9)
    here = timing.passes_here(m)
    assert here.timed is first
    assert here.roofline == roofline_passes(m, widths=first.widths)
    assert fresh == [1]


def test_the_roofline_prices_the_same_passes_from_the_measured_machine() -> None:
    m = machine(10.7e9, 120e9)
    r = roofline_passes(m)
    pair = tiny_pair()
    # Every parameter a target pass reads: all but the exit head's (the docs' 203 200 with it).
    exit_head = sum(p.size for name, p in pair.target.params.items() if name.startswith("exit_"))
    assert r.params + exit_head == 203_200
    assert r.weight_bytes == r.params * FLOAT64
    assert r.kv_bytes == 64 * 4 * 2 * 64 * FLOAT64  # the prompt's K and V, every layer
    assert (r.bandwidth, r.flops, r.cache_bytes) == (10.7e9, 120e9, 32 * 2**20)
    for s, t in zip(r.widths, r.seconds, strict=True):
        assert t == roofline_pass_seconds(
            r.params, s, bandwidth=10.7e9, flops=120e9, bytes_per_param=8.0, kv_bytes=r.kv_bytes
        )
    assert r.v[0] == 1.0


def test_on_a_cpu_the_roofline_of_a_model_this_small_is_flat() -> None:
    """The lesson's contrast: at a CPU's bandwidth and compute, reading 1.6 MB outlasts
    2 · 0.2 M · 16 operations, so the roofline says a pass over 16 positions costs one step."""
    r = roofline_passes(machine(10.7e9, 120e9))
    assert r.flat and r.compute_bound_width > 16
    assert r.v == (1.0,) * 16


def test_where_the_arithmetic_catches_up_the_roofline_rises() -> None:
    # teeth: a machine with little compute turns the same passes compute-bound at its knee.
    r = roofline_passes(machine(10.7e9, 5e9))
    assert not r.flat
    knee = r.compute_bound_width
    assert 1 < knee < 16
    assert all(v == 1.0 for s, v in zip(r.widths, r.v, strict=True) if s <= int(knee))
    assert r.v[-1] > 1.0
    assert list(r.v) == sorted(r.v)
    assert r.v[-1] == pytest.approx(16 / knee)


def test_the_committed_tokens_per_pass_are_the_logs_at_k() -> None:
    tokens = timing.committed_tokens_per_pass()
    assert tokens is not None and set(tokens) == {"early_exit", "draft"}
    # A verifying pass at k = 4 commits between 1 (the bonus alone) and k + 1 tokens.
    assert all(1 <= x <= K + 1 for x in tokens.values())


def test_the_missing_log_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(timing, "TRAIN_LOG", timing.TRAIN_LOG.with_name("no-such-log.json"))
    assert timing.committed_tokens_per_pass() is None


def test_a_roofline_timing_pair_is_hashable_for_the_render_cache(timed: TimedPasses) -> None:
    here = timing.NeuralPasses(timed, roofline_passes(machine(10e9, 100e9)))
    assert hash(here) == hash(timing.NeuralPasses(timed, roofline_passes(machine(10e9, 100e9))))
    assert isinstance(here.roofline, RooflinePasses)
