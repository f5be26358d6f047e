"""The render memo: an LRU that computes one miss at a time and never the same one twice."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from app.rendering.memo import Memo


class Recorder:
    """A slow pure function that records how many calls overlap."""

    def __init__(self) -> None:
        self.calls: list[tuple[object, ...]] = []
        self.running = 0
        self.most = 0
        self._lock = threading.Lock()

    def __call__(self, *key: object) -> str:
        with self._lock:
            self.calls.append(key)
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(0.02)
        with self._lock:
            self.running -= 1
        return f"rendered {key}"


def _hammer(memo: Memo[str], keys: list[int]) -> list[str]:
    with ThreadPoolExecutor(max_workers=16) as pool:
        return list(pool.map(memo, keys))


def test_it_remembers_and_forgets_the_oldest() -> None:
    f = Recorder()
    memo = Memo(f, 2, threading.Lock())
    assert memo("a") == memo("a") == "rendered ('a',)"
    memo("b")
    memo("a")  # a is now the most recent
    memo("c")  # so b is evicted
    assert len(memo) == 2
    memo("a")
    memo("b")
    assert [k[0] for k in f.calls] == ["a", "b", "c", "b"]


def test_concurrent_misses_run_one_at_a_time_and_each_key_once() -> None:
    f = Recorder()
    memo = Memo(f, 100, threading.Lock())
    keys = [i % 4 for i in range(32)]  # 32 requests, 4 states, all at once
    assert _hammer(memo, keys) == [f"rendered ({k},)" for k in keys]
    assert f.most == 1
    assert sorted(k[0] for k in f.calls) == [0, 1, 2, 3]


def test_teeth_without_a_shared_gate_misses_overlap() -> None:
    f = Recorder()

    class NoGate:  # a "lock" that lets everyone through
        def __enter__(self) -> None:
            return None

        def __exit__(self, *exc: object) -> None:
            return None

    memo = Memo(f, 100, NoGate())  # type: ignore[arg-type]
    _hammer(memo, list(range(16)))
    assert f.most > 1


def test_one_gate_serves_two_memos() -> None:
    f = Recorder()
    gate = threading.Lock()
    pages, steps = Memo(f, 100, gate), Memo(f, 100, gate)
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda i: (pages if i % 2 else steps)(i), range(16)))
    assert f.most == 1
