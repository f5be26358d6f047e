"""The public API at its edges: what other tools hand it is refused by name, or
read exactly as meant; never a token id wrapped, rounded or silently verified."""

from __future__ import annotations

import numpy as np
import pytest

from witness import verify_block
from witness.core.distributions import as_distribution, token_ids

P = [[0.1, 0.2, 0.3, 0.4]] * 2
Q = [[0.4, 0.3, 0.2, 0.1]]


@pytest.mark.parametrize(
    ("draft", "words"),
    [
        ([-1], "draft must be token ids from 0 to 3 (got -1)"),  # was: token V−1, emitted −1
        ([4], "draft must be token ids from 0 to 3 (got 4)"),
        ([2.9], "draft must be integer token ids from 0 to 3, not float64"),  # was: token 2
        ([True], "draft must be integer token ids from 0 to 3, not bool"),
        (["2"], "draft must be integer token ids from 0 to 3"),
    ],
)
def test_a_draft_id_out_of_the_vocabulary_or_not_an_integer_is_refused(
    draft: list[object], words: str
) -> None:
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        verify_block(P, Q, draft, [0.0], 0.5)


def test_teeth_a_valid_draft_still_verifies() -> None:
    assert verify_block(P, Q, [2], [0.0], 0.5).emitted[0] == 2
    assert token_ids(np.array([3, 0], dtype=np.uint8), "draft", 4).tolist() == [3, 0]


def test_float32_rows_normalised_in_float32_are_accepted_and_used_in_float64() -> None:
    rng = np.random.default_rng(13)
    raw = rng.random((5, 630), dtype=np.float32)
    rows = raw / raw.sum(axis=1, keepdims=True, dtype=np.float32)
    off = float(np.abs(rows.sum(axis=1, dtype=np.float64) - 1.0).max())
    assert off > 1e-9  # the old float64 tolerance refused these
    out = as_distribution(rows, "p_rows")
    assert out.dtype == np.float64
    p, q = rows[:2], rows[2:3]
    assert verify_block(p, q, [7], [0.0], 0.5).emitted  # verified, not refused
    # Teeth: a float64 row off by as much is still refused, and a float32 row far off too.
    with pytest.raises(ValueError, match="p_rows must sum to 1"):
        as_distribution(rows.astype(np.float64) * (1 + 1e-6), "p_rows")
    with pytest.raises(ValueError, match="p_rows must sum to 1"):
        as_distribution(rows * np.float32(1.01), "p_rows")


@pytest.mark.parametrize(
    ("p", "q", "words"),
    [
        ([[0.5, np.nan], [0.5, 0.5]], [[0.5, 0.5]], "p_rows must hold finite"),
        ([[0.5, np.inf], [0.5, 0.5]], [[0.5, 0.5]], "p_rows must hold finite"),
        ([[1.5, -0.5], [0.5, 0.5]], [[0.5, 0.5]], "p_rows must hold finite, non-negative"),
        ([[0.5, 0.5], [1.0]], [[0.5, 0.5]], "p_rows must be rows of equal length"),
        ([[0.5, 0.5], [0.5, 0.5]], [[0.5, 0.5, 0.0]], "need p_rows"),
        ([[0.5, 0.5], [0.5, 0.5]], [["a", "b"]], "q_rows must hold numbers"),
        ([[0.5, 0.5]], [[0.5, 0.5]], "need p_rows"),  # k + 1 target rows for k drafts
    ],
)
def test_bad_rows_are_refused_naming_the_argument(
    p: list[list[object]], q: list[list[object]], words: str
) -> None:
    with pytest.raises(ValueError, match=words):
        verify_block(p, q, [0], [0.0], 0.5)


@pytest.mark.parametrize(
    ("u", "u_repair", "words"),
    [
        ([1.0], 0.5, "u must hold uniforms"),
        ([np.nan], 0.5, "u must hold uniforms"),
        ([0.1], 1.0, "u_repair must be a uniform"),
    ],
)
def test_uniforms_outside_zero_one_are_refused(u: list[float], u_repair: float, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        verify_block(P, Q, [0], u, u_repair)
