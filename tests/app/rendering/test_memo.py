"""The memo: an LRU that remembers pure results and never holds a lock while computing."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from app.rendering.memo import Memo


class Recorder:
    """A slow pure function that records its calls and how many overlap."""

    def __init__(self, delay: float = 0.0) -> None:
        self.calls: list[tuple[object, ...]] = []
        self.running = 0
        self.most = 0
        self.delay = delay
        self._lock = threading.Lock()

    def __call__(self, *key: object) -> str:
        with self._lock:
            self.calls.append(key)
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(self.delay)
        with self._lock:
            self.running -= 1
        return f"rendered {key}"


def test_it_remembers_and_forgets_the_oldest() -> None:
    f = Recorder()
    memo = Memo(f, 2)
    assert memo("a") == memo("a") == "rendered ('a',)"
    memo("b")
    memo("a")  # a is now the most recent
    memo("c")  # so b is evicted
    assert len(memo) == 2
    memo("a")
    memo("b")
    assert [k[0] for k in f.calls] == ["a", "b", "c", "b"]


def test_get_reads_without_computing() -> None:
    f = Recorder()
    memo = Memo(f, 4)
    assert memo.get("a") is None
    memo("a")
    assert memo.get("a") == "rendered ('a',)"
    assert [k[0] for k in f.calls] == ["a"]


def test_no_lock_is_held_while_computing() -> None:
    # Two slow misses from two threads overlap: the memo itself never serialises work (the
    # lanes do, app/rendering/lanes.py), so a slow key cannot block a cached read.
    f = Recorder(delay=0.05)
    memo = Memo(f, 100)
    with ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(memo, range(4))) == [f"rendered ({i},)" for i in range(4)]
    assert f.most > 1
