"""The app's witness results: one cache per app, each keyed by what its result depends on."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.config import AppSettings
from app.main import create_app
from app.station.services import PRICE, Witness, quick_key
from witness import Settings
from witness.core.settings import Affects, affects, without


def test_a_fresh_app_starts_with_empty_caches() -> None:
    first, second = create_app(settings=AppSettings()), create_app(settings=AppSettings())
    assert first.state.witness is not second.state.witness
    with TestClient(first) as c:
        assert c.get("/station?pred=skip&match=0.42").status_code == 200
    assert first.state.witness.sizes()["traces"] >= 1
    assert all(n == 0 for n in second.state.witness.sizes().values())


def test_each_result_is_kept_by_what_it_depends_on() -> None:
    w = Witness()
    s = Settings(match=0.5)
    # The quick check reads the first position only: the cost and the timings do not change it.
    assert w.quick_check(s) is w.quick_check(s.model_copy(update={"draft_cost": 0.4, "tpot_ms": 9}))
    assert w.quick_check(s) is not w.quick_check(s.model_copy(update={"repair": False}))
    # The sweep's served requests cover every k and are priced afterwards: neither the
    # instrument's k nor the cost is part of their key (only the formula's α follows k).
    w.sweep(s)
    served = w.sizes()["sweeps"]
    w.sweep(s.model_copy(update={"k": 12}))
    w.sweep(s.model_copy(update={"draft_cost": 0.3, "tpot_ms": 9}))
    assert w.sizes()["sweeps"] == served == 1
    # An ensemble's requests do not depend on the cost or the timings either.
    assert w.ensemble(s) is w.ensemble(s.model_copy(update={"draft_cost": 0.3, "ttft_ms": 9}))
    assert w.ensemble(s) is not w.ensemble(s.model_copy(update={"k": 12}))
    # The lossless chain's texts depend on neither the match nor k: one draw serves both.
    texts = w.sizes()["texts"]
    w.ensemble(s.model_copy(update={"match": 0.8, "k": 7}))
    assert w.sizes()["texts"] == texts == 1
    # A served ensemble's next seed shares all but one request with this one.
    served = s.model_copy(update={"repair": False})
    w.ensemble(served)
    paths = w.sizes()["paths"]
    w.ensemble(served.model_copy(update={"seed": s.seed + 1}))
    assert w.sizes()["paths"] == paths + 1
    # A trace depends on everything.
    assert w.trace(s) is w.trace(Settings(match=0.5))
    assert w.trace(s) is not w.trace(s.model_copy(update={"tpot_ms": 9}))


def test_teeth_the_key_really_reduces() -> None:
    """Without the reduction a moved cost would miss the quick-check cache."""
    w = Witness()
    s = Settings(match=0.5)
    w.quick_check(s)
    w.quick_check(s.model_copy(update={"draft_cost": 0.4}))
    assert w.sizes()["quick_checks"] == 1
    w.trace(s)
    w.trace(s.model_copy(update={"draft_cost": 0.4}))
    assert w.sizes()["traces"] == 2


def test_a_price_only_change_reprices_the_served_blocks() -> None:
    """c, the machine, the batch, the context and the timings price a request; they never
    change its blocks, so the app serves the blocks once and prices them per state, and the
    result is exactly what `serve_request` gives for that state."""
    from witness import serve_request

    w = Witness()
    priced = [
        Settings(),
        Settings(draft_cost=0.37),
        Settings(machine="h100", batch=200, context=4096, tpot_ms=11.0, ttft_ms=40.0),
        Settings(machine="laptop", pair="t5-xxl-small", draft_cost=0.9),
    ]
    for s in priced:
        assert w.trace(s) == serve_request(s)
    assert w.sizes()["served"] == 1 and w.sizes()["traces"] == len(priced)
    # Teeth: what changes the blocks is served again.
    for s in (Settings(k=5), Settings(tokens=1), Settings(tokens=1, machine="l4")):
        assert w.trace(s) == serve_request(s)
    assert w.sizes()["served"] == 3


# Another valid value of every setting: a new setting must be given one here, and with it
# the test below checks that its declaration puts it in the right keys.
OTHER: dict[str, object] = {
    "match": 0.35,
    "k": 6,
    "draft_cost": 0.3,
    "verify": False,
    "repair": False,
    "greedy": True,
    "seed": 11,
    "tokens": 20,
    "prompt": "the target",
    "tpot_ms": 12.0,
    "ttft_ms": 50.0,
    "tree_width": 2,
    "drafting": "distinct",
    "acceptance": "typical",
    "draft_source": "adversary",
    "machine": "h100",
    "pair": "llama-70b-8b",
    "batch": 8,
    "context": 4096,
    "stack": "eager",
    "models": "small-draft",
}


def test_every_setting_has_another_value_here() -> None:
    assert set(OTHER) == set(Settings.model_fields)


@pytest.mark.parametrize("name", sorted(OTHER))
def test_a_setting_joins_the_keys_its_declaration_names(name: str) -> None:
    """The served request is kept by what changes it (a request setting) and re-priced for
    the rest; the race ignores the clock alone; the quick check ignores the length and
    switches too."""
    s = Settings(tokens=12)
    t = Settings.model_validate({**s.model_dump(), name: OTHER[name]})
    tag = affects(name)
    w = Witness()
    w.trace(s), w.trace(t)
    assert w.sizes()["served"] == (2 if tag is Affects.REQUEST else 1)
    assert w.sizes()["traces"] == 2  # the priced answer is each state's own
    first = name in ("tokens", "verify", "repair")
    assert (quick_key(s) == quick_key(t)) is (tag is not Affects.REQUEST or first)
    assert (without(s, Affects.TIMING) == without(t, Affects.TIMING)) is (tag is Affects.TIMING)


def test_teeth_a_setting_declared_for_the_wrong_tag_lands_in_the_wrong_keys() -> None:
    # Were the match declared a price, two matches would share one served request.
    s, t = Settings(match=0.2), Settings(match=0.7)
    assert without(s, *PRICE) != without(t, *PRICE)
    assert without(s, *PRICE, Affects.REQUEST) == without(t, *PRICE, Affects.REQUEST)
