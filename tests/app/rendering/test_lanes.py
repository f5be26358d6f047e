"""The lanes new work waits in: one thread each (their own, not the default pool's), a
bounded queue, and lanes that overlap."""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable
from functools import partial

import anyio
import pytest

from app.rendering.lanes import Busy, Lane, Lanes
from tests.loops import on_own_thread


class Overlap:
    """Slow work that records the most calls running at once."""

    def __init__(self, delay: float = 0.02) -> None:
        self.running = self.most = 0
        self.delay = delay
        self._lock = threading.Lock()

    def __call__(self, x: int) -> int:
        with self._lock:
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(self.delay)
        with self._lock:
            self.running -= 1
        return x * 2


async def _all(lane: Lane, work: Overlap, n: int) -> list[int]:
    out: list[int] = []

    async def one(i: int) -> None:
        out.append(await lane.run(work, i))

    async with anyio.create_task_group() as tg:
        for i in range(n):
            tg.start_soon(one, i)
    return sorted(out)


def test_a_lane_runs_one_at_a_time_and_answers_every_request() -> None:
    work = Overlap()
    assert on_own_thread(anyio.run, _all, Lane("interactive", 64), work, 12) == [
        2 * i for i in range(12)
    ]
    assert work.most == 1


@pytest.mark.parametrize("other", ["interactive", "classroom"])
def test_teeth_work_in_two_lanes_overlaps(other: str) -> None:
    # The point of separate lanes: a heavy request never makes a slider answer, or the
    # projector, wait for it.
    work = Overlap(delay=0.05)
    lanes = Lanes()

    async def both() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_all, lanes.heavy, work, 2)
            tg.start_soon(_all, getattr(lanes, other), work, 2)

    on_own_thread(anyio.run, both)
    assert work.most == 2


def test_a_full_queue_is_told_busy_at_once() -> None:
    work = Overlap(delay=0.2)
    lane = Lane("heavy", 2)
    outcomes: list[str] = []
    refusals: list[Busy] = []

    async def one(i: int) -> None:
        try:
            await lane.run(work, i)
            outcomes.append("done")
        except Busy as busy:
            refusals.append(busy)
            outcomes.append("busy")

    async def burst() -> None:
        async with anyio.create_task_group() as tg:
            for i in range(6):
                tg.start_soon(one, i)
                await anyio.sleep(0.01)  # in order: one runs, two wait, the rest are refused

    on_own_thread(anyio.run, burst)
    assert outcomes.count("done") == 3 and outcomes.count("busy") == 3
    assert all("heavy" in str(b) and b.retry_after > 0 for b in refusals)


def test_lanes_pick_by_weight() -> None:
    lanes = Lanes()
    assert lanes.pick(True) is lanes.heavy and lanes.pick(False) is lanes.interactive


@pytest.mark.parametrize("heavy", [False, True])
def test_an_exception_in_the_work_reaches_the_caller(heavy: bool) -> None:
    def broken() -> None:
        raise ZeroDivisionError("the work's own error")

    with pytest.raises(ZeroDivisionError):
        on_own_thread(anyio.run, Lanes().pick(heavy).run, broken)


def test_the_classroom_lane_is_picked_whatever_the_weight() -> None:
    lanes = Lanes()
    assert lanes.pick(True, classroom=True) is lanes.classroom
    assert lanes.pick(False, classroom=True) is lanes.classroom


async def _with_the_default_pool_held(run: Callable[[], Awaitable[object]]) -> bool:
    """Whether ``run()`` finishes within a second while every token of anyio's default
    thread pool is held by work that waits (as synchronous routes stuck on a silent
    database would hold them)."""
    limiter = anyio.to_thread.current_default_thread_limiter()
    limiter.total_tokens = 1
    release = threading.Event()
    finished = False
    async with anyio.create_task_group() as tg:
        tg.start_soon(partial(anyio.to_thread.run_sync, release.wait, abandon_on_cancel=True))
        await anyio.sleep(0.05)  # the stuck work holds the pool's one token
        with anyio.move_on_after(1.0):
            await run()
            finished = True
        release.set()
    return finished


def test_a_lane_keeps_its_thread_when_the_default_pool_is_used_up() -> None:
    lane = Lane("classroom", 8)
    assert on_own_thread(anyio.run, _with_the_default_pool_held, partial(lane.run, int, 3))


def test_teeth_work_on_the_default_pool_waits_behind_stuck_routes() -> None:
    plain = partial(anyio.to_thread.run_sync, partial(int, 3))
    assert not on_own_thread(anyio.run, _with_the_default_pool_held, plain)
