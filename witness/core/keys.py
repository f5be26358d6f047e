"""Counter-based uniforms keyed by (seed, block, position, stream).

Why not a stream generator: a learner who drags k from 4 to 5 must see the same first four
accept/reject decisions (common random numbers). With one consumed stream every draw after
the first changed one would shift. Here every draw is a pure function of its key, so each
block and position owns its uniforms whatever the other settings are.

The mixer is SplitMix64's finaliser (Steele, Lea and Flood, 2014), chained over the four key
parts. It is vectorised over numpy uint64 arrays, whose multiplication wraps modulo 2**64 by
design, and it gives the same bits on every platform.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from numpy.typing import ArrayLike, NDArray

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_TO_UNIT = 2.0**-53
# Per-part offsets, precomputed: scalar uint64 products would warn on their (intended) wrap.
_OFFSETS = tuple(np.uint64((0x9E3779B97F4A7C15 * i) % 2**64) for i in range(1, 5))


class Stream(IntEnum):
    """Which draw of a position a uniform is for; each has its own key space."""

    DRAFT = 0  # the draft samples x_i from q_i
    ACCEPT = 1  # u_i compared with p_i(x_i) / q_i(x_i)
    FINAL = 2  # the repair or bonus token that closes a block
    # Siblings j >= 1 at a position (token trees). Sibling 0 keeps DRAFT and ACCEPT, so
    # widening a chain into a tree keeps every decision the chain made (common random numbers).
    SIBLING_DRAFT = 3
    SIBLING_ACCEPT = 4
    # The target's own text, token by token (witness.models.texts): the texts an exact-given-text
    # ensemble averages over, keyed (seed, 0, position) so they never share a draft's draws.
    TEXT = 5


SIBLINGS_MAX = 4  # the widest tree node the station drafts (Settings.tree_width's maximum)
_SIBLING_STREAM = {Stream.DRAFT: Stream.SIBLING_DRAFT, Stream.ACCEPT: Stream.SIBLING_ACCEPT}


def _mix(z: NDArray[np.uint64]) -> NDArray[np.uint64]:
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def _as_u64(x: ArrayLike) -> NDArray[np.uint64]:
    arr = np.asarray(x)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"key parts must be integers, got {arr.dtype}")
    if arr.size and int(arr.min()) < 0:
        raise ValueError("key parts must be non-negative")
    # At least 1-d: numpy warns on overflow of 0-d uint64 scalars, never of arrays.
    return np.atleast_1d(arr.astype(np.uint64))


def uniforms(
    seed: ArrayLike, block: ArrayLike, position: ArrayLike, stream: Stream
) -> NDArray[np.float64]:
    """Uniforms in [0, 1), one per broadcast (seed, block, position) key, for one stream.

    Examples
    --------
    >>> a = uniforms(7, [0, 1], [[0], [1], [2]], Stream.ACCEPT)
    >>> a.shape
    (3, 2)
    >>> bool(uniforms(7, 1, 2, Stream.ACCEPT)[0] == a[2, 1])
    True
    >>> bool((0.0 <= a).all() and (a < 1.0).all())
    True
    """
    s, b, p = _as_u64(seed), _as_u64(block), _as_u64(position)
    np.broadcast_shapes(s.shape, b.shape, p.shape)  # fail early on shapes that cannot meet
    # Each key part is mixed at its own (small) shape and combined by broadcasting, so a
    # [blocks, positions] grid costs one full-size mix, not one per key part.
    h = _mix(_mix(s + _OFFSETS[0]) ^ _mix(_as_u64(int(stream)) + _OFFSETS[3]))
    h = _mix(h ^ _mix(b + _OFFSETS[1]))
    h = _mix(h ^ _mix(p + _OFFSETS[2]))
    # The top 53 bits give every double in [0, 1) on a 2**-53 grid; 1.0 is never produced.
    return (h >> np.uint64(11)).astype(np.float64) * _TO_UNIT


def block_uniforms(seed: int, n: int, k: int, stream: Stream) -> NDArray[np.float64]:
    """The [n, k] grid of keyed uniforms of blocks 0..n-1, positions 0..k-1 (read-only).

    They depend on the seed alone, not on p or q, so a `witness.models.cache.RequestCache` keeps
    them: a slider that moves the match reuses the grid of the previous answer instead of
    mixing 2 x n x k keys again.

    Examples
    --------
    >>> grid = block_uniforms(7, 3, 2, Stream.ACCEPT)
    >>> grid.shape, bool(grid[2, 1] == uniforms(7, 2, 1, Stream.ACCEPT)[0])
    ((3, 2), True)
    """
    grid = uniforms(seed, np.arange(n)[:, None], np.arange(k)[None, :], stream)
    grid.flags.writeable = False  # cached grids are shared by every request
    return grid


def sibling_uniforms(seed: int, n: int, k: int, width: int, stream: Stream) -> NDArray[np.float64]:
    """The [n, k, width] grid for ``width`` siblings at each of blocks 0..n-1, positions 0..k-1.

    Sibling 0 is `block_uniforms` itself (the chain's draw); sibling j >= 1 at position i is
    keyed ``i * SIBLINGS_MAX + j - 1`` in its own stream, so no key is shared and widening
    the tree from w to w + 1 siblings keeps the first w siblings' draws.

    Examples
    --------
    >>> grid = sibling_uniforms(7, 3, 2, 2, Stream.ACCEPT)
    >>> grid.shape, bool(grid[2, 1, 0] == block_uniforms(7, 3, 2, Stream.ACCEPT)[2, 1])
    ((3, 2, 2), True)
    """
    if not 1 <= width <= SIBLINGS_MAX or stream not in _SIBLING_STREAM:
        raise ValueError(f"width must be 1 to {SIBLINGS_MAX}, stream DRAFT or ACCEPT")
    grid = np.empty((n, k, width))
    grid[:, :, 0] = block_uniforms(seed, n, k, stream)
    if width > 1:
        keys = np.arange(k)[:, None] * SIBLINGS_MAX + np.arange(width - 1)[None, :]
        blocks = np.arange(n)[:, None, None]
        grid[:, :, 1:] = uniforms(seed, blocks, keys[None, :, :], _SIBLING_STREAM[stream])
    grid.flags.writeable = False
    return grid
