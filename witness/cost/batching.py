"""Speculation against batch size: the table a serving system would use to pick k per batch.

Every number is the formula at an acceptance rate α with each batch priced as the settings
price passes (`witness.cost.costing`): the speedup at the settings' k, the best k for that batch
and its speedup, and the batch from which the settings' k, and then every k, stops paying.
The price per draft never falls as the batch grows (a verifying pass only gets nearer to
compute-bound), so each "stops paying" is a threshold, found by scanning every batch.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from witness.core.settings import Settings, field_bounds, max_depth
from witness.core.theory import expected_speedup, expected_tokens_per_pass
from witness.core.trace import plain
from witness.cost.costing import (
    costing,
    price,
    priced_optimum,
    prices_by_batch,
    prices_by_batch_and_k,
    scored_per_sequence,
)

BATCH_MAX = int(field_bounds("batch")["max"])
# The table's rows: powers of two through the batch's range.
BATCHES = tuple(2**i for i in range(BATCH_MAX.bit_length()) if 2**i <= BATCH_MAX)


@dataclass(frozen=True, slots=True)
class BatchPoint:
    batch: int
    plain_seconds: float  # one plain decoding step: a target pass over the batch
    verify_seconds: float  # the verifying pass of a full block at the settings' k
    price: float  # the price per draft at the settings' k, in plain steps
    speedup: float  # the formula at the settings' k
    best_k: int  # the formula's best k for this batch, within the k range
    best_speedup: float
    fits: bool  # both models' weights and the batch's KV cache fit in memory


@dataclass(frozen=True, slots=True)
class BatchTable:
    alpha: float
    k: int
    points: tuple[BatchPoint, ...]
    stops_paying: int | None  # the first batch at which the settings' k does not pay
    none_pays: int | None  # the first batch at which no k pays (α ≤ k = 1's price)
    fits_up_to: int  # the largest batch whose weights and KV cache fit in memory (0: none)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = plain(asdict(self))
        return out


def at_batch(s: Settings, batch: int) -> Settings:
    return s.model_copy(update={"batch": batch})


def speedup_at(s: Settings, alpha: float, batch: int, k: int | None = None) -> float:
    """The formula's speedup at ``batch`` and draft length ``k`` (the settings' own)."""
    depth = s.k if k is None else k
    return float(expected_speedup(alpha, depth, price(at_batch(s, batch), depth)))


def stops_paying(s: Settings, alpha: float) -> tuple[int | None, int | None]:
    """The first batch at which the settings' k no longer pays, and at which no k pays;
    None when it pays at every batch of the range (every batch priced at once)."""
    batches = np.arange(1, BATCH_MAX + 1)
    tokens = float(expected_tokens_per_pass(alpha, s.k))
    at_k = tokens / (s.k * prices_by_batch(s, batches) + 1.0) <= 1.0
    if costing(s).measured:
        # Measured prices can fall with k (`witness.cost.costing`): no k pays where none of
        # the k range's lengths does.
        ks = np.arange(1, max_depth(s.tree_width) + 1)
        per_k = np.asarray(expected_tokens_per_pass(alpha, ks))[:, None]
        grid = prices_by_batch_and_k(s, batches, ks)
        none = np.all(per_k <= ks[:, None] * grid + 1.0, axis=0)
    else:
        # No k pays where α is at most k = 1's price (`speculation_pays` at the k = 1 price).
        none = alpha <= prices_by_batch(s, batches, 1)
    return _first(batches, at_k), _first(batches, none)


def _first(batches: NDArray[np.int64], hit: NDArray[np.bool_]) -> int | None:
    return int(batches[np.argmax(hit)]) if hit.any() else None


def batch_table(s: Settings, alpha: float) -> BatchTable:
    """The formula against batch size for ``s`` on its machine (custom: every row alike).

    Each row's speedups are `expected_speedup` at that row's price, evaluated for all rows
    at once (one call per distinct k): the same numbers as one call per row, for a tenth of
    the calls, since a never-seen state (a new α) builds the whole table again."""
    k_max = max_depth(s.tree_width)
    rows = [at_batch(s, b) for b in BATCHES]
    costs = [costing(sb) for sb in rows]
    best_ks = np.array([priced_optimum(sb, alpha, k_max).k for sb in rows])
    at_k = np.asarray(expected_speedup(alpha, s.k, np.array([price(sb) for sb in rows])))
    best = np.empty(len(rows))
    for k in np.unique(best_ks):
        mine = best_ks == k
        c = np.array([price(sb, int(k)) for sb, m in zip(rows, mine, strict=True) if m])
        best[mine] = expected_speedup(alpha, int(k), c)
    points = tuple(
        BatchPoint(
            batch=b,
            plain_seconds=cost.plain_seconds,
            verify_seconds=(
                cost.seconds(cost.pair.target, scored_per_sequence(s))
                if cost.pair is not None
                else 0.0
            ),
            price=price(sb),
            speedup=float(at_k[i]),
            best_k=int(best_ks[i]),
            best_speedup=float(best[i]),
            fits=cost.fits,
        )
        for i, (b, sb, cost) in enumerate(zip(BATCHES, rows, costs, strict=True))
    )
    here, none = stops_paying(s, alpha)
    return BatchTable(alpha, s.k, points, here, none, largest_fitting_batch(s))


def largest_fitting_batch(s: Settings) -> int:
    """The largest batch in the range whose weights and KV cache fit in the machine's memory
    (the whole range with machine custom; 0 where even one sequence does not fit). The KV
    cache grows with the batch and the weights do not, so fitting is a threshold."""
    cost = costing(s)
    if cost.machine is None or cost.pair is None:
        return BATCH_MAX
    room = cost.machine.memory - cost.weights_bytes
    per_sequence = costing(at_batch(s, 1)).kv_bytes
    if room < 0:
        return 0
    if per_sequence == 0:
        return BATCH_MAX
    return min(BATCH_MAX, int(room // per_sequence))
