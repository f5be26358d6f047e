"""The KV cache of one model: per layer, the keys, values and output rows of the positions it holds.

Layers may hold different numbers of positions: the early-exit draft runs the target's first
layer ahead of the others, and the target's verifying pass then reuses those rows instead of
computing them again. So each layer keeps its own length, with the lengths never increasing
with depth, and the tokens the rows were computed for, so a pass that would reuse rows made for
other tokens fails instead of answering wrongly.

A rejection discards rows: `truncate(length)` keeps the first `length` positions of every
layer, `rollback(n)` drops the last `n` positions the whole model holds. Nothing is freed; the
next pass overwrites the discarded rows.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

_INITIAL_CAPACITY = 64


class KVCache:
    """Per layer: keys and values `[heads, positions, head_dim]`, outputs `[positions, d]`."""

    def __init__(self, n_layers: int, n_heads: int, head_dim: int, d_model: int) -> None:
        self.n_layers = n_layers
        self.lengths = [0] * n_layers
        self._shape = (n_heads, head_dim, d_model)
        self._capacity = 0
        self.keys: list[FloatArray] = []
        self.values: list[FloatArray] = []
        self.outputs: list[FloatArray] = []
        self.tokens: IntArray = np.zeros(0, dtype=np.int64)
        self._grow(_INITIAL_CAPACITY)

    @property
    def length(self) -> int:
        """Positions every layer holds: what the whole model has computed."""
        return min(self.lengths)

    @property
    def ahead(self) -> int:
        """Positions the first layer holds (more than `length` while an early exit drafts)."""
        return max(self.lengths)

    def rows(self, layer: int) -> int:
        """Positions `layer` holds."""
        return self.lengths[layer]

    def reserve(self, length: int) -> None:
        """Make room for `length` positions, doubling so appends stay amortised O(1)."""
        if length > self._capacity:
            capacity = self._capacity
            while capacity < length:
                capacity *= 2
            self._grow(capacity)

    def write(
        self, layer: int, start: int, keys: FloatArray, values: FloatArray, outputs: FloatArray
    ) -> None:
        """Append rows for positions `start, start + 1, ...` to `layer`, which holds `start`."""
        if start != self.lengths[layer]:
            raise ValueError(f"layer {layer} holds {self.lengths[layer]} positions, not {start}")
        end = start + outputs.shape[0]
        self.reserve(end)
        self.keys[layer][:, start:end] = keys
        self.values[layer][:, start:end] = values
        self.outputs[layer][start:end] = outputs
        self.lengths[layer] = end

    def truncate(self, length: int) -> None:
        """Keep at most the first `length` positions in every layer."""
        if length < 0:
            raise ValueError(f"cannot keep {length} positions")
        self.lengths = [min(held, length) for held in self.lengths]

    def rollback(self, n: int) -> None:
        """Drop the last `n` positions the whole model holds (a verifier's rejected drafts)."""
        if not 0 <= n <= self.length:
            raise ValueError(f"cannot roll back {n} of {self.length} positions")
        self.truncate(self.length - n)

    def place(self, start: int, tokens: IntArray) -> None:
        """Record the tokens of positions `start, ...`, checking any a layer holds rows for."""
        end = start + len(tokens)
        self.reserve(end)
        held = min(self.ahead, end)
        if held > start and not np.array_equal(self.tokens[start:held], tokens[: held - start]):
            raise ValueError("the cache holds rows for other tokens there: truncate it first")
        self.tokens[start:end] = tokens

    def _grow(self, capacity: int) -> None:
        heads, head_dim, d_model = self._shape

        def grown(old: FloatArray | None, shape: tuple[int, ...]) -> FloatArray:
            new = np.zeros(shape, dtype=np.float64)
            if old is not None:
                # Positions are axis 1 of keys and values, axis 0 of outputs.
                axis = len(shape) - 2
                index = (slice(None),) * axis + (slice(0, old.shape[axis]),)
                new[index] = old
            return new

        fresh = not self.keys
        self.keys = [
            grown(None if fresh else self.keys[i], (heads, capacity, head_dim))
            for i in range(self.n_layers)
        ]
        self.values = [
            grown(None if fresh else self.values[i], (heads, capacity, head_dim))
            for i in range(self.n_layers)
        ]
        self.outputs = [
            grown(None if fresh else self.outputs[i], (capacity, d_model))
            for i in range(self.n_layers)
        ]
        tokens = np.zeros(capacity, dtype=np.int64)
        tokens[: self.tokens.size] = self.tokens
        self.tokens = tokens
        self._capacity = capacity
