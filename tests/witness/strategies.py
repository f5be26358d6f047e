"""Hypothesis strategies for the witness: probability vectors, (p, q) pairs, draft lengths,
and whole verification blocks.

Vectors come from non-negative weights normalised by their sum, with exact zeros drawn on
purpose (a token q drafts that p never emits, disjoint supports, one-token vocabularies).
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

# Deterministic (derandomize) so a run is reproducible, no deadline on a shared 2-core box.
PROPERTY = settings(
    deadline=None,
    max_examples=200,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)

VOCAB_MAX = 12
vocab_sizes = st.integers(1, VOCAB_MAX)
ks = st.integers(1, 16)
alphas = st.floats(0.0, 1.0, allow_nan=False)
costs = st.floats(0.0, 1.0, allow_nan=False)
# Uniforms in [0, 1), with the edges of the grid the keyed uniforms live on.
unit = st.one_of(
    st.sampled_from([0.0, 0.5, 1.0 - 2.0**-53]),
    st.floats(0.0, 1.0, exclude_max=True, allow_nan=False),
)

_weight = st.one_of(
    st.just(0.0),  # exact zeros, often
    st.floats(1e-9, 1.0, allow_nan=False),
    st.integers(1, 100).map(float),
)


@st.composite
def distributions(draw: st.DrawFn, vocab: int | None = None) -> np.ndarray:
    """A probability vector over ``vocab`` tokens (drawn when None), zeros included."""
    v = draw(vocab_sizes) if vocab is None else vocab
    w = np.array(draw(st.lists(_weight, min_size=v, max_size=v)), dtype=np.float64)
    if w.sum() == 0.0:  # keep one token alive rather than filter the example away
        w[draw(st.integers(0, v - 1))] = 1.0
    return w / w.sum()


@st.composite
def pairs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    """(p, q) over one vocabulary: independent, identical, or one blended toward the other."""
    v = draw(vocab_sizes)
    p = draw(distributions(v))
    how = draw(st.sampled_from(["independent", "identical", "blend"]))
    if how == "identical":
        return p, p.copy()
    q = draw(distributions(v))
    if how == "blend":
        m = draw(st.floats(0.0, 1.0))
        q = m * p + (1.0 - m) * q
        q = q / q.sum()
    return p, q


@st.composite
def small_pairs(draw: st.DrawFn, vocab_max: int) -> tuple[np.ndarray, np.ndarray]:
    """Independent (p, q) over 1 to ``vocab_max`` tokens: few enough to enumerate every draft."""
    v = draw(st.integers(1, vocab_max))
    return draw(distributions(v)), draw(distributions(v))


@st.composite
def blocks(draw: st.DrawFn) -> dict[str, object]:
    """Arguments of one `verify_block` call: rows, a draft with q > 0, and uniforms.

    Rows are picked from a small pool of distributions so k = 16 stays a small example.
    """
    v = draw(vocab_sizes)
    k = draw(ks)
    pool = draw(st.lists(distributions(v), min_size=1, max_size=3))
    p_rows = np.array([pool[draw(st.integers(0, len(pool) - 1))] for _ in range(k + 1)])
    q_rows = np.array([pool[draw(st.integers(0, len(pool) - 1))] for _ in range(k)])
    # The draft may pick tokens that p gives 0: q drew them, so only q > 0 is required.
    draft = [draw(st.sampled_from(np.flatnonzero(row).tolist())) for row in q_rows]
    u = draw(st.lists(unit, min_size=k, max_size=k))
    return {
        "p_rows": p_rows,
        "q_rows": q_rows,
        "draft": np.array(draft),
        "u": np.array(u),
        "u_repair": draw(unit),
    }
