"""An LRU memo for CPU-bound work, which can make its misses queue at one gate.

Rendering a new state is pure Python and numpy on small arrays: it holds the GIL, so two
renders never run in parallel anyway. Left to the thread pool, a class's worth of new states
(100 connections, bench/http.py's slider.lua) ran forty renders at once; they shared the
interpreter 5 ms at a time, the event loop waited behind them for every send, and the
server managed ~50 answers a second with timeouts. One gate around the misses makes them
queue instead: each finishes in its own few milliseconds, the loop keeps answering cached
pages in between, and the same run gave ~1 100 answers a second. A thread that waited at the
gate for a state another thread was rendering finds it done and does not render it again.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class Memo(Generic[V]):
    """``compute(*key)`` remembered for the ``size`` keys used last.

    With a ``gate``, misses are computed one at a time (see above); without one (the witness's
    results, computed inside a gated render anyway) two threads may compute the same miss,
    which is harmless: the work is pure.
    """

    def __init__(
        self, compute: Callable[..., V], size: int, gate: threading.Lock | None = None
    ) -> None:
        self._compute, self._size = compute, size
        self._gate = gate if gate is not None else contextlib.nullcontext()
        self._values: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()  # guards the dict only, never held while computing

    def __call__(self, *key: Hashable) -> V:
        found = self._get(key)
        if found is not None:
            return found[0]
        with self._gate:
            found = self._get(key)  # rendered while this thread waited at the gate
            if found is not None:
                return found[0]
            value = self._compute(*key)
        with self._lock:
            self._values[key] = value
            while len(self._values) > self._size:
                self._values.popitem(last=False)
        return value

    def _get(self, key: Hashable) -> tuple[V] | None:
        with self._lock:
            if key not in self._values:
                return None
            self._values.move_to_end(key)
            return (self._values[key],)

    def __len__(self) -> int:
        return len(self._values)
