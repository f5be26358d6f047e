"""The advanced drafting control in the Manipulation panel (app/station/views/controls.py DraftingView).

Its values, bounds and choices come from `witness.Settings`; its sentence of what the tree is
is checked at the ends of every range; every combination Settings refuses is shown beside
the right control, on a page that still renders; and the four settings travel in the URL.
"""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qsl, urlsplit

import pytest
from fastapi.testclient import TestClient

from app.station.views.controls import DRAFTING, deepest_k, depth_text, drafting_view, tree_text
from tests.app.forms import find, form_query
from tests.app.view_models import page_view, state_of
from witness import Settings
from witness.core.settings import (
    DISTINCT_WIDTH_MAX,
    TREE_NODES_MAX,
    choices,
    expected_text,
    field_bounds,
    tree_nodes,
)

WIDTH = field_bounds("tree_width")
K = field_bounds("k")
WIDTHS = range(WIDTH["min"], WIDTH["max"] + 1)


def text_of(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def slot(html: str, name: str) -> str:
    """The text of a control's error slot (what sits beside it)."""
    found = re.search(rf'<div [^>]*\bid="errslot-{name}"[^>]*>(.*?)</div>', html)
    assert found, name
    return text_of(found.group(1))


# --------------------------------------------------------------------------- values


def test_the_controls_carry_the_models_bounds_choices_and_help() -> None:
    d = drafting_view(Settings(), ())
    assert [c.name for c in d.controls] == list(DRAFTING)
    for c in d.controls:
        info = Settings.model_fields[c.name]
        assert (c.label, c.help, c.error) == (info.title, info.description, "")
        assert c.value == str(field_bounds(c.name)["default"])
    assert (d.width.min, d.width.max, d.width.step) == (str(WIDTH["min"]), str(WIDTH["max"]), "1")
    assert d.width.options == ()
    for c in d.controls[1:]:
        assert tuple(o.value for o in c.options) == choices(c.name)
        assert [o.value for o in c.options if o.checked] == [c.value]
        assert all(o.note for o in c.options)  # every choice says what it is
    assert not d.open  # the defaults: today's chain, the details closed


def test_the_choice_notes_name_what_each_gives_up() -> None:
    d = drafting_view(Settings(), ())
    notes = {o.value: o.note for c in d.controls[1:] for o in c.options}
    assert "not lossless" in notes["typical"] and "lossless" in notes["exact"]
    assert "no draft model" in notes["lookup"]


@pytest.mark.parametrize(
    "values",
    [{"tree_width": 2}, {"drafting": "top"}, {"acceptance": "typical"}, {"draft_source": "lookup"}],
)
def test_the_details_open_when_any_setting_differs_from_its_default(
    values: dict[str, object],
) -> None:
    assert drafting_view(Settings(**values), ()).open


# --------------------------------------------------------------------------- the tree's sentence


def _ends() -> list[tuple[int, int]]:
    out = []
    for w in WIDTHS:
        out += [(w, K["min"]), (w, deepest_k(w))]
    return out


@pytest.mark.parametrize(("width", "k"), _ends())
def test_the_tree_sentence_at_the_ends_of_each_range(width: int, k: int) -> None:
    s = Settings(tree_width=width, k=k)
    d = drafting_view(s, ())
    nodes = tree_nodes(width, k)
    assert nodes <= TREE_NODES_MAX
    summary, depth = tree_text(s), depth_text(width)
    assert (d.summary, d.depth_note) == (summary, depth)
    assert summary.values["scored"].key == "controls.tree.scored.verified"  # type: ignore[attr-defined]
    if width == 1:
        # One draft is "a draft", more are "drafts".
        assert summary.mode == ("chain_one" if k == 1 else "chain")
        assert summary.values["k"] == k
        assert f"{k} draft{'s' if k != 1 else ''} per full block" in summary
    else:
        terms = " + ".join(str(width**i) for i in range(1, k + 1))
        assert summary.mode == "tree"
        assert (summary.values["width"], summary.values["k"]) == (width, k)
        assert (summary.values["sum"], summary.values["nodes"]) == (terms, nodes)
        assert summary.values["nodes_max"] == TREE_NODES_MAX
        assert f"{terms} = {nodes} drafted nodes" in summary
    deepest = deepest_k(width)
    if deepest == K["max"]:
        assert depth.mode == "every"
        assert (depth.values["width"], depth.values["k_max"]) == (width, K["max"])
    else:
        assert depth.mode == "limited"
        assert (depth.values["width"], depth.values["deepest"]) == (width, deepest)
        assert depth.values["next"] == deepest + 1
        assert depth.values["next_nodes"] == tree_nodes(width, deepest + 1) > TREE_NODES_MAX
        assert f"k = {deepest + 1} would draft {tree_nodes(width, deepest + 1)}" in depth
        # The deepest k the sentence names is the one Settings allows, and no deeper.
        with pytest.raises(ValueError, match=f"k is at most {deepest}"):
            Settings(tree_width=width, k=deepest + 1)


def test_the_deepest_k_matches_the_witness() -> None:
    assert {w: deepest_k(w) for w in WIDTHS} == {1: K["max"], 2: 5, 3: 3, 4: 2}


def test_the_sentences_of_the_other_modes() -> None:
    off = drafting_view(Settings(tree_width=2, verify=False), ())
    assert "none scored: target verify is off" in off.summary
    assert "all scored" not in off.summary
    typical = drafting_view(Settings(acceptance="typical"), ())
    assert any(n.startswith("Typical acceptance is not lossless") for n in typical.notes)
    lookup = drafting_view(Settings(draft_source="lookup"), ())
    assert lookup.summary.startswith("No draft model: a chain of at most 4 copied words")
    assert any("copying costs nothing" in n for n in lookup.notes)
    distinct1 = drafting_view(Settings(drafting="distinct"), ())
    assert any("changes nothing until the width is 2" in n for n in distinct1.notes)
    # ... and that is true: at width 1 with exact acceptance the request is the chain's.
    from tests.app.view_models import trace_of

    assert trace_of(Settings(drafting="distinct")).totals == trace_of(Settings()).totals
    # One sibling drafted top is q's argmax, a draft of its own: said so, and it differs.
    top1 = drafting_view(Settings(drafting="top"), ())
    assert not any("changes nothing" in n for n in top1.notes)
    assert any("q's most likely token" in n for n in top1.notes)
    assert trace_of(Settings(drafting="top")).totals != trace_of(Settings()).totals


# --------------------------------------------------------------------------- refusals


def _refused() -> list[tuple[str, str, str]]:
    """(query, the field Settings names, a phrase of its message) for every refusal kind."""
    out = []
    for w in WIDTHS:
        if deepest_k(w) < K["max"]:
            out.append((f"tree_width={w}&k={deepest_k(w) + 1}", "tree_width", "k is at most"))
    for w in range(DISTINCT_WIDTH_MAX + 1, WIDTH["max"] + 1):
        out.append(
            (f"tree_width={w}&k=2&drafting=distinct", "drafting", "distinct drafting is checked")
        )
    for other in ("tree_width=2", "drafting=top", "drafting=distinct", "acceptance=typical"):
        out.append((f"{other}&draft_source=lookup", "draft_source", "prompt lookup drafts one"))
    out.append(("tree_width=9", "tree_width", expected_text("tree_width")))
    out.append(("drafting=beam", "drafting", expected_text("drafting")))
    out.append(("acceptance=lossy", "acceptance", expected_text("acceptance")))
    out.append(("draft_source=ngram", "draft_source", expected_text("draft_source")))
    return out


@pytest.mark.parametrize(("query", "field", "phrase"), _refused())
def test_every_refused_combination_is_shown_beside_its_control(
    client: TestClient, query: str, field: str, phrase: str
) -> None:
    view = page_view(f"/station?{query}")
    d = view.controls.drafting
    by_name = {c.name: c for c in d.controls}
    assert phrase in by_name[field].error
    assert "the default was used" in by_name[field].error
    assert all(not c.error for c in d.controls if c.name != field)
    assert d.open  # a refused value opens the details, so its message is seen
    assert getattr(view.settings, field) == field_bounds(field)["default"]
    for path in ("/station", "/station/evidence"):
        r = client.get(f"{path}?{query}")
        assert r.status_code == 422, (path, r.status_code)  # refused, never a 500
        assert phrase in slot(r.text, field), path
        for other in DRAFTING:
            if other != field:
                assert slot(r.text, other) == ""
    # The message is tied to its control for assistive technology.
    page = client.get(f"/station?{query}").text
    if field == "tree_width":
        (inp,) = find(page, id="in-tree_width")
        assert "errslot-tree_width" in inp.attrs["aria-describedby"].split()
    else:
        (box,) = find(page, data_testid=f"control-{field}")
        assert "errslot-" + field in box.attrs["aria-describedby"].split()


def test_the_refusal_keeps_the_settings_that_were_fine() -> None:
    # width 3 with k = 4 is too deep: the width falls back, k and drafting are kept.
    view = page_view("/station?tree_width=3&k=4&drafting=top")
    assert (view.settings.tree_width, view.settings.k, view.settings.drafting) == (1, 4, "top")


# --------------------------------------------------------------------------- the page and the URL


def test_the_control_is_in_the_instrument_form_with_live_htmx(client: TestClient) -> None:
    html = client.get("/station?tree_width=2").text
    (form,) = find(html, data_testid="instrument")
    assert form.attrs["action"] == "/station" and form.attrs["method"] == "get"
    (width,) = find(html, id="in-tree_width")
    assert width.attrs["type"] == "range" and width.attrs["value"] == "2"
    assert (width.attrs["min"], width.attrs["max"]) == (str(WIDTH["min"]), str(WIDTH["max"]))
    assert width.attrs["hx-get"] == "/station/evidence"
    assert width.attrs["hx-include"] == "closest form"
    for name in DRAFTING[1:]:
        radios = find(html, type="radio", name=name)
        assert tuple(r.attrs["value"] for r in radios) == choices(name)
        assert all(r.attrs["hx-get"] == "/station/evidence" for r in radios)
        for r in radios:
            assert find(html, **{"for": r.attrs["id"]})  # every radio is labelled
    (details,) = find(html, data_testid="drafting")
    assert details.tag == "details" and "open" in details.attrs
    words = text_of(html)
    assert "A tree 2 wide and 4 deep: 2 + 4 + 8 + 16 = 30 drafted nodes" in words
    closed = find(client.get("/station").text, data_testid="drafting")
    assert "open" not in closed[0].attrs


def test_the_evidence_fragment_refreshes_the_sentence_out_of_band(client: TestClient) -> None:
    frag = client.get("/station/evidence?tree_width=3&k=3").text
    (status,) = find(frag, id="drafting-status")
    assert status.attrs["hx-swap-oob"] == "innerHTML"
    assert "A tree 3 wide and 3 deep: 3 + 9 + 27 = 39 drafted nodes" in text_of(frag)
    for name in DRAFTING:  # each slot a part: left out when the page holds it as it is
        (s,) = find(frag, id=f"errslot-{name}")
        assert s.attrs["hx-swap-oob"] == "outerHTML" and "data-part" in s.attrs
    # The fragment never carries the inputs themselves: they stay under the learner's hands.
    assert not find(frag, id="in-tree_width")


@pytest.mark.parametrize(
    "changes",
    [
        {"tree_width": "2"},
        {"tree_width": "2", "drafting": "top"},
        {"tree_width": "2", "drafting": "distinct", "acceptance": "typical"},
        {"draft_source": "lookup", "k": "8"},
        {"tree_width": "4", "k": "2", "drafting": "top", "acceptance": "typical"},
    ],
)
def test_the_form_round_trips_through_the_url(client: TestClient, changes: dict[str, str]) -> None:
    page = client.get("/station").text
    action, query = form_query(page, "instrument", changes)
    r = client.get(f"{action}?{query}")
    assert r.status_code == 200
    view = page_view(f"{action}?{query}")
    expected = Settings(**{k: int(v) if v.isdigit() else v for k, v in changes.items()})
    assert view.settings == expected
    # The canonical URL spells each non-default drafting setting, and reads back the same.
    link = dict(parse_qsl(urlsplit(view.links.page).query))
    for name in DRAFTING:
        default = field_bounds(name)["default"]
        if getattr(expected, name) != default:
            assert link[name] == str(getattr(expected, name))
        else:
            assert name not in link
    assert state_of(view.links.page).settings == expected
    # The page drawn from that URL checks exactly what was sent.
    again = client.get(view.links.page).text
    for name in DRAFTING[1:]:
        (checked,) = [r for r in find(again, type="radio", name=name) if "checked" in r.attrs]
        assert checked.attrs["value"] == getattr(expected, name)


@pytest.mark.parametrize("tokens", [1, 2, 4])
def test_a_request_too_short_for_a_full_block_says_so(tokens: int) -> None:
    from tests.app.view_models import trace_of

    s = Settings(tokens=tokens, k=4)
    d = drafting_view(s, ())
    assert any("too short for a full block" in n for n in d.notes)
    deepest = max((b.depth for b in trace_of(s).blocks), default=0)
    assert deepest <= tokens - 1
    assert f"at most {tokens - 1} level" in " ".join(d.notes)
    assert not any("too short" in n for n in drafting_view(Settings(tokens=5, k=4), ()).notes)
