"""The input checks' fast paths (speed against the production reference) accept,
return and refuse exactly what the named checks did before them: the old checks are kept
here as the reference, and both are run on the same arrays. Nothing here is timed."""

from __future__ import annotations

from dataclasses import astuple
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import ArrayLike, NDArray

from witness.core.distributions import _sum_tolerance, as_distribution, token_ids
from witness.core.rule import verify_block, verify_unchecked


def reference_distribution(x: ArrayLike, name: str) -> NDArray[np.float64]:
    """`as_distribution` as it was before its fast path (commit 3e792ac)."""
    try:
        given = np.asarray(x)
    except ValueError as exc:
        raise ValueError(f"{name} must be rows of equal length (a rectangular array)") from exc
    if given.dtype.kind not in "biuf":
        raise ValueError(f"{name} must hold numbers, not {given.dtype}")
    arr = given.astype(np.float64)
    if arr.ndim == 0 or arr.shape[-1] == 0:
        raise ValueError(f"{name} must have at least one token on its last axis")
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise ValueError(f"{name} must hold finite, non-negative probabilities")
    tolerance = _sum_tolerance(given.dtype, arr.shape[-1])
    if arr.size and float(np.abs(arr.sum(axis=-1) - 1.0).max()) > tolerance:
        raise ValueError(f"{name} must sum to 1 along its last axis (within {tolerance:.0e})")
    return arr


def reference_ids(x: ArrayLike, name: str, vocab: int) -> NDArray[np.intp]:
    """`token_ids` as it was before its fast path (commit 3e792ac)."""
    raw = np.asarray(x)
    if raw.size and raw.dtype.kind not in "iu":
        raise ValueError(f"{name} must be integer token ids from 0 to {vocab - 1}, not {raw.dtype}")
    if raw.size and (int(raw.min()) < 0 or int(raw.max()) >= vocab):
        bad = int(raw.min()) if int(raw.min()) < 0 else int(raw.max())
        raise ValueError(f"{name} must be token ids from 0 to {vocab - 1} (got {bad})")
    return raw.astype(np.intp)


def outcome(check: Any, *args: Any) -> tuple[str, Any]:
    """What a check did: its refusal's words (or the first warning, which the test suite
    raises), or the array it returned."""
    try:
        out = check(*args)
    except ValueError as exc:
        return ("refused", str(exc))
    except RuntimeWarning as exc:  # a sum of 1e308s overflows, in both
        return ("warned", str(exc))
    return ("returned", (out.dtype.str, out.shape, out.tobytes()))


def same_as_reference(x: ArrayLike) -> None:
    assert outcome(as_distribution, x, "p_rows") == outcome(reference_distribution, x, "p_rows")


def same_ids(x: ArrayLike, vocab: int) -> None:
    assert outcome(token_ids, x, "draft", vocab) == outcome(reference_ids, x, "draft", vocab)


SPECIALS = [np.nan, np.inf, -np.inf, -0.0, 0.0, -1e-300, 5e-324, 1.0, -1.0, 1e308]


@st.composite
def rows(draw: st.DrawFn) -> NDArray[Any]:
    """Normalised rows (float64, float32 or float16), some nudged past or within the
    tolerance, some with a special value planted, some integer or bool."""
    k = draw(st.integers(0, 5))
    vocab = draw(st.integers(1, 90))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    dtype = draw(st.sampled_from([np.float64, np.float32, np.float16]))
    raw = rng.random((k, vocab)) ** draw(st.sampled_from([1, 8]))
    raw[raw.sum(axis=1) == 0] = 1.0
    arr = (raw / raw.sum(axis=1, keepdims=True)).astype(dtype)
    arr = arr.astype(dtype) * dtype(1 + draw(st.sampled_from([0, 1e-12, 1e-10, 2e-9, 1e-6])))
    if arr.size and draw(st.booleans()):
        with np.errstate(over="ignore"):  # 1e308 is inf in float32 and float16
            special = dtype(draw(st.sampled_from(SPECIALS)))
        arr.flat[draw(st.integers(0, arr.size - 1))] = special
    if draw(st.booleans()) and k:
        arr = arr[0]
    if draw(st.booleans()):
        arr = np.asfortranarray(arr)
    kind = draw(st.sampled_from(["float", "float", "int", "bool"]))
    if kind == "int":
        finite = np.nan_to_num(arr, nan=0, posinf=0, neginf=0)
        return np.clip(finite, -3, 3).round().astype(np.int64)
    if kind == "bool":
        return arr > 0.5
    return arr


@settings(max_examples=400, deadline=None)
@given(rows())
def test_as_distribution_returns_and_refuses_what_the_named_checks_did(x: NDArray[Any]) -> None:
    same_as_reference(x)


@pytest.mark.parametrize(
    "x",
    [
        [[0.5, np.nan], [0.5, 0.5]],
        [[0.5, np.inf], [0.5, 0.5]],
        [[1.5, -0.5], [0.5, 0.5]],
        [[-0.0, 1.0]],  # a negative zero is a zero: accepted
        [[1e308, 1e308]],  # finite, non-negative, but the sum overflows: "sum to 1"
        [[np.inf, -np.inf]],
        [[np.nan, 1.0]],
        [1.0 + 2e-9, 0.0],
        [1.0 + 5e-10, 0.0],
        [[0.25, 0.75]],
        np.zeros((0, 4)),
        np.zeros((3, 0)),
        np.float64(1.0),
        [[0.5, 0.5], [1.0]],
        [["a", "b"]],
        [[1, 0], [0, 1]],
        [[True, False]],
    ],
)
def test_as_distribution_edge_cases_match_the_named_checks(x: Any) -> None:
    same_as_reference(x)


def test_every_refusal_of_the_fast_path_keeps_its_words() -> None:
    words = {
        "p_rows must hold finite, non-negative probabilities": [[0.5, np.nan]],
        "p_rows must sum to 1 along its last axis (within 1e-09)": [[0.5, 0.6]],
        "p_rows must have at least one token on its last axis": np.zeros((2, 0)),
    }
    for message, x in words.items():
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            as_distribution(x, "p_rows")


def test_a_float32_tolerance_is_the_same_on_every_call() -> None:
    first = _sum_tolerance(np.dtype(np.float32), 630)
    assert _sum_tolerance(np.dtype(np.float32), 630) == first > 1e-9
    assert _sum_tolerance(np.dtype(np.float64), 630) == 1e-9
    assert _sum_tolerance(np.dtype(">f8"), 630) == 1e-9


@pytest.mark.parametrize("size", [1, 8, 64, 65, 1000])
@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint8, np.uint64, np.intp])
def test_token_ids_small_and_large_match_the_named_checks(size: int, dtype: type) -> None:
    rng = np.random.default_rng(size)
    top = min(int(np.iinfo(dtype).max), 300)
    for vocab in (1, 4, 256, 630):
        ids = rng.integers(0, top + 1, size=size).astype(dtype)
        same_ids(ids, vocab)
        if np.iinfo(dtype).min < 0:
            ids[size // 2] = -1
            same_ids(ids, vocab)


@pytest.mark.parametrize(
    "draft", [[], [3], [[1, 2], [0, 3]], np.int64(2), [2.9], [True], ["2"], [-5, 9], [9, -5]]
)
def test_token_ids_odd_inputs_match_the_named_checks(draft: Any) -> None:
    same_ids(draft, 4)


def reference_block(p: Any, q: Any, draft: Any, u: Any, u_repair: float) -> tuple[Any, ...]:
    """`verify_block` as it was before its fast path: copied rows, array ids, numpy checks."""
    pa, qa = reference_distribution(p, "p_rows"), reference_distribution(q, "q_rows")
    x = reference_ids(draft, "draft", pa.shape[-1])
    uu = np.asarray(u, dtype=np.float64)
    if not np.isfinite(uu).all() or (uu < 0).any() or (uu >= 1).any():
        raise ValueError("u must hold uniforms in [0, 1)")
    return astuple(verify_unchecked(pa, qa, x, uu, u_repair, verify=True, repair=True))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.sampled_from([4, 256, 630]))
def test_verify_block_emits_what_it_did_and_leaves_the_rows_as_they_were(
    seed: int, k: int, vocab: int
) -> None:
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(vocab, 0.3), size=k + 1)
    q = rng.dirichlet(np.full(vocab, 0.3), size=k)
    draft = np.array([rng.choice(vocab, p=row) for row in q])
    u, u_repair = rng.random(k), float(rng.random())
    before = (p.tobytes(), q.tobytes(), draft.tobytes(), u.tobytes())
    got = astuple(verify_block(p, q, draft, u, u_repair))
    assert (p.tobytes(), q.tobytes(), draft.tobytes(), u.tobytes()) == before
    assert got == reference_block(p, q, draft, u, u_repair)
    assert (
        astuple(verify_block(p.tolist(), q.tolist(), draft.tolist(), u.tolist(), u_repair)) == got
    )
    assert astuple(verify_block(p.astype(np.float32), q.astype(np.float32), draft, u, u_repair))


@pytest.mark.parametrize(
    ("u", "refused"),
    [
        ([0.0, 0.5], False),
        ([-0.0, 0.999], False),  # a negative zero is 0
        ([0.5, 1.0], True),
        ([np.nan, 0.5], True),
        ([0.5, np.nan], True),
        ([np.inf, 0.5], True),
        ([0.5, -np.inf], True),
        ([-1e-300, 0.5], True),
        ([0.5, np.nextafter(1.0, 0.0)], False),
    ],
)
def test_uniforms_are_refused_as_before(u: list[float], refused: bool) -> None:
    p, q = [[0.25, 0.75]] * 3, [[0.5, 0.5]] * 2
    if refused:
        with pytest.raises(ValueError, match=r"u must hold uniforms in \[0, 1\)"):
            verify_block(p, q, [0, 1], u, 0.5)
        with pytest.raises(ValueError, match=r"u must hold uniforms in \[0, 1\)"):
            reference_block(p, q, [0, 1], u, 0.5)
    else:
        assert astuple(verify_block(p, q, [0, 1], u, 0.5)) == reference_block(p, q, [0, 1], u, 0.5)
