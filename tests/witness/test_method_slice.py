"""The evaluation slice's methods at the first position: exact laws, sampled verdicts, the
quick check of a state whose method is not the chain."""

from __future__ import annotations

import numpy as np
import pytest

from witness import RequestCache, Settings
from witness.judge.evaluation import first_position, first_token_check
from witness.judge.method_slice import method_checks, own_check, tree_settings
from witness.methods.sibling_laws import sibling_acceptance
from witness.methods.typical import typical_acceptance

N = 100_000
EXACT = 1e-12
REPEATS = "the model the model the model the"


def _by_method(s: Settings, blocks: int = N) -> dict[str, object]:
    return {c.method: c for c in method_checks(s, blocks, cache=RequestCache())}


def test_each_methods_exact_tv() -> None:
    checks = _by_method(Settings(), 2_000)
    assert checks["tree"].tv_exact <= EXACT and checks["tree"].lossless  # type: ignore[attr-defined]
    assert checks["typical"].tv_exact > 1e-3 and not checks["typical"].lossless  # type: ignore[attr-defined]
    assert checks["lookup"].tv_exact <= EXACT and checks["lookup"].lossless  # type: ignore[attr-defined]
    copying = _by_method(Settings(prompt=REPEATS), 2_000)["lookup"]
    assert copying.tv_exact <= EXACT and "copies" in copying.note  # type: ignore[attr-defined]


def test_the_tree_the_slice_checks() -> None:
    assert tree_settings(Settings()).tree_width == 2
    wide = tree_settings(Settings(tree_width=3, k=2, drafting="top"))
    assert (wide.tree_width, wide.drafting) == (3, "top")
    assert tree_settings(Settings(acceptance="typical")).acceptance == "exact"


SLICES = [
    Settings(),
    Settings(repair=False),
    Settings(verify=False),
    Settings(tree_width=3, k=3, drafting="top"),
    Settings(tree_width=2, drafting="distinct", match=0.3),
    Settings(prompt=REPEATS, match=0.9),
    Settings(prompt=REPEATS, repair=False),
]


@pytest.mark.slow
@pytest.mark.parametrize("s", SLICES, ids=lambda s: repr(s.model_dump(exclude_defaults=True)))
def test_the_sampled_verdicts_agree_with_the_exact_ones(s: Settings) -> None:
    for check in method_checks(s, N, cache=RequestCache()):
        assert check.blocks == N
        exact_keeps = check.tv_exact <= EXACT
        assert check.keeps_target == exact_keeps, check.label
        # Lossless by construction is lossless exactly (a lookup with nothing to copy is a
        # plain target pass, lossless whatever the switches).
        assert exact_keeps or not check.lossless, check.label
        if check.method != "lookup":
            assert check.lossless == (s.verify and s.repair and check.method == "tree")
        if check.speedup_expected is not None:
            # The sampled acceptance is the exact one, within four standard errors.
            a = check.acceptance_exact
            se = max(np.sqrt(a * (1 - a) / N), 1e-12)
            assert abs(check.acceptance - a) <= 4 * se, check.label


def test_the_acceptance_is_the_exact_one_with_repair_off() -> None:
    s = Settings(repair=False)
    p, q = first_position(s)
    tree = _by_method(s, 2_000)["tree"]
    assert tree.acceptance_exact == pytest.approx(  # type: ignore[attr-defined]
        sibling_acceptance(p, q, 2, repair=False), abs=1e-12
    )
    typical = _by_method(s, 2_000)["typical"]
    assert typical.acceptance_exact == pytest.approx(  # type: ignore[attr-defined]
        typical_acceptance(p, q, n=1), abs=1e-12
    )


STATES = [
    Settings(tree_width=2),
    Settings(tree_width=2, drafting="distinct"),
    Settings(tree_width=3, k=3, drafting="top"),
    Settings(acceptance="typical"),
    Settings(acceptance="typical", tree_width=2, drafting="distinct"),
    Settings(draft_source="lookup"),
    Settings(draft_source="lookup", prompt=REPEATS),
]


@pytest.mark.parametrize("s", STATES, ids=lambda s: repr(s.model_dump(exclude_defaults=True)))
def test_the_quick_check_follows_the_states_method(s: Settings) -> None:
    for mode, verify, repair in (
        ("lossless", True, True),
        ("no_repair", True, False),
        ("no_verify", False, True),
    ):
        quick = first_token_check(s, mode, 10_000)  # type: ignore[arg-type]
        own = own_check(s.model_copy(update={"verify": verify, "repair": repair}), 10_000)
        assert quick.mode == mode
        assert quick.tv_exact == own.tv_exact
        assert quick.tv_empirical == own.tv_empirical
        assert quick.keeps_target == own.keeps_target
        assert quick.chi_square == own.chi_square
    lossless = first_token_check(s, "lossless", 10_000)
    if s.acceptance == "typical":
        assert lossless.tv_exact > 1e-3  # the state's own method, not the chain's lossless rule
    else:
        assert lossless.tv_exact <= EXACT
