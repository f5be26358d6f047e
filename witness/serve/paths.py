"""The app's memo of served requests, and serving many at once: `ServedPaths`, `serve_paths`.

An ensemble (`witness.judge.ensemble`) serves one setting at dozens of seeds, and neighbouring
seeds' ensembles share all but one request; chains that differ only in the seed are served
by one call into the compiled chain (`witness.serve.chain.serve_chains`), the rest one by one.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from witness.core.settings import Settings
from witness.core.trace import ServedPath
from witness.methods.block import compiled_chain
from witness.models.cache import RequestCache
from witness.serve.chain import serve_chains
from witness.serve.request import serve_path


class ServedPaths:
    """One request's `ServedPath` per settings, the latest ``size`` kept: a ``path`` for
    `witness.judge.ensemble.serve_ensemble` that serves an ensemble's misses together.

    The app keeps one (neighbouring seeds' ensembles share all but one request); as a plain
    ``path(settings)`` it serves one request. Thread-safe: two threads may serve the same
    miss, which is harmless (it is pure).
    """

    def __init__(self, cache: RequestCache, size: int) -> None:
        self.cache, self._size = cache, size
        self._values: OrderedDict[Settings, ServedPath] = OrderedDict()
        self._lock = threading.Lock()  # guards the dict only, never held while serving

    def __call__(self, settings: Settings) -> ServedPath:
        return self.many([settings])[0]

    def many(self, requests: Sequence[Settings]) -> list[ServedPath]:
        """The paths of ``requests``, those not kept served together (`serve_paths`)."""
        with self._lock:
            found = {r: self._values[r] for r in requests if r in self._values}
            for r in found:
                self._values.move_to_end(r)
        missing = list(dict.fromkeys(r for r in requests if r not in found))
        if missing:
            new = dict(zip(missing, serve_paths(missing, cache=self.cache), strict=True))
            with self._lock:
                self._values.update(new)
                while len(self._values) > self._size:
                    self._values.popitem(last=False)
            found.update(new)
        return [found[r] for r in requests]

    def __len__(self) -> int:
        return len(self._values)


def serve_paths(requests: Sequence[Settings], *, cache: RequestCache) -> list[ServedPath]:
    """`serve_path` of each request; chains that differ only in the seed served by one call."""
    groups: dict[Settings, list[int]] = {}
    out: list[ServedPath | None] = [None] * len(requests)
    for j, r in enumerate(requests):
        if compiled_chain(r):
            groups.setdefault(r.model_copy(update={"seed": 0}), []).append(j)
        else:
            out[j] = serve_path(r, cache=cache)
    for key, members in groups.items():
        paths = serve_chains(key, [requests[j].seed for j in members], cache=cache)
        for j, path in zip(members, paths, strict=True):
            out[j] = path
    return [p for p in out if p is not None]
