"""Prompt lookup: the n-gram match alone, then on the served request (no draft model)."""

from __future__ import annotations

import pytest

from witness import RequestCache, Settings, serve_request
from witness.methods.lookup import NGRAM_MAX, LookupMatch, lookup_draft
from witness.models.lm import tiny_models
from witness.serve.request import serve_path

CACHE = RequestCache()
REPEATS = "the model the model the model the"
DISTINCT = "the draft model proposes"  # no word twice: nothing to copy at first


# ------------------------------------------------------------------------- lookup_draft


def test_the_longest_ngram_wins_over_a_later_shorter_one() -> None:
    # "1 2" is seen at 0 (followed by 3); "2" alone is seen later, at 4 (followed by 5).
    m = lookup_draft([1, 2, 3, 9, 2, 5, 1, 2], 2)
    assert m == LookupMatch(ngram=(1, 2), start=0, continuation=(3, 9))
    assert NGRAM_MAX == 2


def test_a_unigram_when_no_bigram_matches() -> None:
    m = lookup_draft([5, 6, 7, 9, 6], 2)
    assert m == LookupMatch(ngram=(6,), start=1, continuation=(7, 9))


def test_the_latest_earlier_occurrence() -> None:
    m = lookup_draft([1, 2, 3, 1, 2, 4, 1, 2], 1)
    assert m is not None and m.start == 3 and m.continuation == (4,)
    m = lookup_draft([8, 8, 8, 8], 1)  # "8 8" at 0, 1 and 2 (the tail): the latest earlier
    assert m is not None and m.ngram == (8, 8) and m.start == 1 and m.continuation == (8,)


def test_the_continuation_never_runs_past_the_context() -> None:
    context = [1, 2, 3, 1, 2]
    m = lookup_draft(context, 16)
    assert m is not None and m.start == 0
    assert m.continuation == (3, 1, 2)  # to the end of the context, not beyond
    for limit in range(1, 6):
        m = lookup_draft(context, limit)
        assert m is not None and m.continuation == (3, 1, 2)[:limit]


def test_the_limit() -> None:
    assert lookup_draft([1, 2, 3, 1, 2], 0) is None
    assert lookup_draft([1, 2, 3, 1, 2], -3) is None
    m = lookup_draft([1, 2, 3, 4, 1, 2], 2)
    assert m is not None and m.continuation == (3, 4)


@pytest.mark.parametrize("context", [[], [4], [3, 4], [1, 2, 3]])
def test_nothing_to_match(context: list[int]) -> None:
    assert lookup_draft(context, 4) is None


def test_two_tokens_can_match_one() -> None:
    m = lookup_draft([3, 3], 4)
    assert m == LookupMatch(ngram=(3,), start=0, continuation=(3,))


def test_the_match_is_where_it_says() -> None:
    context = [4, 1, 2, 7, 7, 1, 2, 9, 4, 1, 2]
    for limit in (1, 2, 5):
        m = lookup_draft(context, limit)
        assert m is not None
        n = len(m.ngram)
        assert tuple(context[m.start : m.start + n]) == m.ngram == tuple(context[-n:])
        assert m.start + n < len(context)  # it ends before the last token
        assert m.continuation == tuple(context[m.start + n : m.start + n + limit])


# ------------------------------------------------------------------ the served request


def _lookup(**kw: object) -> Settings:
    return Settings(draft_source="lookup", **kw)  # type: ignore[arg-type]


def test_no_draft_passes_and_a_cost_without_c() -> None:
    traces = [
        serve_request(_lookup(prompt=REPEATS, draft_cost=c, tokens=30), cache=CACHE)
        for c in (0.0, 0.1, 1.0)
    ]
    for t in traces:
        assert t.totals.draft_passes == 0
        assert serve_path(_lookup(prompt=REPEATS, tokens=30), cache=CACHE).draft_passes == 0
    assert len({t.totals.cost_units for t in traces}) == 1
    assert len({t.totals.speedup_expected for t in traces}) == 1
    assert traces[0].totals.cost_units == traces[0].totals.target_passes
    assert traces[0].blocks == traces[1].blocks == traces[2].blocks


def test_a_repetitive_prompt_copies() -> None:
    s = _lookup(prompt=REPEATS, tokens=24, k=4)
    models = tiny_models()
    prompt, _ = models.encode(s.prompt)
    trace = serve_request(s, cache=CACHE)
    first = trace.blocks[0]
    assert first.depth > 0 and first.lookup is not None
    match = lookup_draft(prompt, min(s.k, s.tokens - 1))
    assert match is not None
    assert first.lookup.ngram == tuple(models.vocab[t] for t in match.ngram)
    assert first.lookup.start == match.start
    assert [lv.siblings[0].token for lv in first.levels] == list(match.continuation)[
        : len(first.levels)
    ]
    assert first.scored == 1 + first.depth
    assert any(b.depth > 0 for b in trace.blocks)


def test_no_match_is_a_plain_pass() -> None:
    trace = serve_request(_lookup(prompt=DISTINCT, tokens=12), cache=CACHE)
    first = trace.blocks[0]
    assert first.lookup is None and first.depth == 0 and first.levels == ()
    assert len(first.emitted_words) == 1 and first.scored == 1
    assert first.result.accepted == 0 and first.result.bonus_token is not None


def test_an_empty_prompt_has_nothing_to_copy() -> None:
    first = serve_request(_lookup(prompt="", tokens=3), cache=CACHE).blocks[0]
    assert first.lookup is None and first.depth == 0 and len(first.emitted_words) == 1


def test_verify_off_with_no_match_still_runs_the_target() -> None:
    s = _lookup(prompt=DISTINCT, tokens=12, verify=False)
    trace = serve_request(s, cache=CACHE)
    first = trace.blocks[0]
    assert first.lookup is None and first.depth == 0
    assert len(first.emitted_words) == 1 and first.scored == 1
    plain = sum(b.depth == 0 for b in trace.blocks)
    assert plain >= 1
    assert trace.totals.target_passes == plain  # only the plain passes ran the target
    assert serve_path(s, cache=CACHE).target_passes == plain
    assert sum(len(b.emitted_words) for b in trace.blocks) == s.tokens


def test_verify_off_copies_go_unchecked() -> None:
    trace = serve_request(_lookup(prompt=REPEATS, tokens=12, verify=False), cache=CACHE)
    copied = [b for b in trace.blocks if b.depth > 0]
    assert copied
    for b in copied:
        assert b.scored == 0 and not b.result.verified
        assert all(lv.accepted is None for lv in b.levels)
