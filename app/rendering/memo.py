"""An LRU memo for pure, CPU-bound work: the app's renders and witness results.

It only remembers. Who computes a miss, and when, is the caller's business: the app runs its
new renders in lanes, one at a time each (app/rendering/lanes.py), so two threads rarely ask
for the same miss at once; when they do, both compute it, which is harmless (it is pure) and
keeps this free of any lock held while computing.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class Memo(Generic[V]):
    """``compute(*key)`` remembered for the ``size`` keys used last."""

    def __init__(self, compute: Callable[..., V], size: int) -> None:
        self._compute, self._size = compute, size
        self._values: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()  # guards the dict only, never held while computing

    def __call__(self, *key: Hashable) -> V:
        found = self._get(key)
        if found is not None:
            return found[0]
        value = self._compute(*key)
        with self._lock:
            self._values[key] = value
            while len(self._values) > self._size:
                self._values.popitem(last=False)
        return value

    def get(self, *key: Hashable) -> V | None:
        """The value kept for ``key``, or None; never computes."""
        found = self._get(key)
        return None if found is None else found[0]

    def _get(self, key: Hashable) -> tuple[V] | None:
        with self._lock:
            if key not in self._values:
                return None
            self._values.move_to_end(key)
            return (self._values[key],)

    def __len__(self) -> int:
        return len(self._values)
