"""The study card: the design-exercise check, the study view, and the printable worksheet."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
from fastapi.testclient import TestClient

from app.station.state.query import parse_state
from app.study.card import BUILD_EVIDENCE, PROOF_OF_UNDERSTANDING, REVIEW_PROMPT, STUDY_KEY
from app.study.design_outline import FIELDS, design_outline_feedback, judge_field
from tests.app.forms import PREDICTED, find, form_query
from tests.app.view_models import live_of

DOCS = Path(__file__).resolve().parents[3] / "docs"
SEED = Path(__file__).resolve().parents[3] / "seeds" / "004_0f1e7016ae099bd4.txt"

GOOD = {
    "draft_strategy": "A small draft model from the same family (68M parameters) proposes k = 4 tokens.",
    "verification": "The target scores all k drafted tokens in one forward pass; rejection sampling with residual repair on the first rejection.",
    "acceptance_rate": "About 70% of drafted tokens are accepted on chat traffic.",
    "failure_mode": "When acceptance drops on code prompts, draft cost near α makes it slower than plain decoding.",
}


def text_of(html: str) -> str:
    """The page's visible words, tags stripped and whitespace folded."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


# --------------------------------------------------------------------------- the check


@pytest.mark.parametrize(
    "answers",
    [
        GOOD,
        {
            "draft_strategy": "Prompt lookup: n-gram matches copied from the context, no second model.",
            "verification": "Greedy: accept each draft while it equals the target argmax, all in a single target pass.",
            "acceptance_rate": "Mean accepted length per target pass, logged per request.",
            "failure_mode": "Under large batches the GPU is already compute-bound, so the extra verification work lowers throughput.",
        },
        {
            "draft_strategy": "Self-speculation: early exit after layer 8 of the target drafts the tokens.",
            "verification": "Speculative sampling: accept with probability min(1, p/q), else resample from the residual max(0, p - q).",
            "acceptance_rate": "α = 1 − TV(p, q), estimated offline on a held-out slice: 0.8.",
            "failure_mode": "Skipping the residual repair is lossy: it biases the output toward what the draft likes.",
        },
        {
            "draft_strategy": "EAGLE-style extra decoding heads propose a token tree.",
            "verification": "Tree attention verifies every branch in parallel.",
            "acceptance_rate": "3 out of 4 drafted tokens accepted.",
            "failure_mode": "Trade-off: memory for the extra weights and a longer k past its optimum wastes drafts.",
        },
        {
            "draft_strategy": "use a draft model to make it faster",
            "verification": "the target model checks the k drafts in parallel",
            "acceptance_rate": "0.65",
            "failure_mode": "a mismatched draft is rejected early and the work is wasted",
        },
    ],
    ids=["small-model", "prompt-lookup", "self-speculation", "tree", "terse-but-concrete"],
)
def test_realistic_good_outlines_pass(answers: dict[str, str]) -> None:
    fb = design_outline_feedback(**answers)
    assert [f.ok for f in fb.fields] == [True] * 4, [f.message for f in fb.fields]
    assert fb.ok
    for f in fb.fields:
        assert f.found, f.name
        assert f.message.startswith(f"{f.name} names a concrete mechanism: ")
    assert fb.summary.startswith("All four answers name a concrete mechanism")


def test_the_found_mechanisms_are_the_ones_named() -> None:
    fb = design_outline_feedback(**GOOD)
    assert fb.draft_strategy.found == ("a small draft model",)
    assert "rejection sampling with residual repair" in fb.verification.found
    assert "one target pass over all k drafted tokens" in fb.verification.found
    assert fb.acceptance_rate.found == ("an acceptance figure", "how it is measured")
    assert "draft cost near α" in fb.failure_mode.found


WHAT_IS_MISSING = {
    "draft_strategy": "say which draft proposes the tokens",
    "verification": "say how the target checks the drafts",
    "acceptance_rate": "give a figure or say how it is measured",
    "failure_mode": "say what breaks and why",
}


@pytest.mark.parametrize("key", [f.key for f in FIELDS])
def test_an_empty_answer_is_named_for_its_field_only(key: str) -> None:
    answers = dict(GOOD, **{key: "   "})
    fb = design_outline_feedback(**answers)
    bad = [f for f in fb.fields if not f.ok]
    assert [f.key for f in bad] == [key]
    name = bad[0].name
    assert bad[0].message.startswith(f"{name} is empty: {WHAT_IS_MISSING[key]} (")
    assert not fb.ok
    assert fb.summary.endswith(f"still missing: {name}.")


@pytest.mark.parametrize("key", [f.key for f in FIELDS])
@pytest.mark.parametrize(
    ("answer", "problem", "vague"),
    [
        ("make it faster", "names no concrete mechanism", "faster"),
        ("better", "is too short to name a mechanism", "better"),
        ("we will optimise it somehow for good results", "names no concrete mechanism", "good"),
        ("it depends", "is too short to name a mechanism", ""),
    ],
)
def test_a_vague_answer_gets_named_feedback(
    key: str, answer: str, problem: str, vague: str
) -> None:
    fb = judge_field(key, answer)
    assert not fb.ok
    assert fb.found == ()
    assert fb.message.startswith(f"{fb.name} {problem}: ")
    assert WHAT_IS_MISSING[key] in fb.message
    if vague:
        assert f"“{vague}”" in fb.message
        assert "says what you want, not how" in fb.message
    else:
        assert "says what you want" not in fb.message


@pytest.mark.parametrize(
    ("key", "answer"),
    [
        ("draft_strategy", "the target model itself, but faster"),
        ("verification", "the target model looks at them"),
        ("acceptance_rate", "a high acceptance rate"),
        ("failure_mode", "it might not work in production"),
    ],
)
def test_an_answer_that_only_names_the_field_is_not_enough(key: str, answer: str) -> None:
    fb = judge_field(key, answer)
    assert not fb.ok, fb.found
    assert WHAT_IS_MISSING[key] in fb.message


def test_each_field_is_judged_on_its_own_table() -> None:
    # A perfect answer in the wrong box does not count: "70%" is no draft strategy.
    swapped = design_outline_feedback(
        GOOD["acceptance_rate"], GOOD["draft_strategy"], GOOD["failure_mode"], GOOD["verification"]
    )
    assert [f.ok for f in swapped.fields] == [False, False, False, False]
    assert judge_field("acceptance_rate", "70%").ok
    assert not judge_field("draft_strategy", "70%").ok


def test_feedback_serialises_and_is_frozen() -> None:
    fb = design_outline_feedback(GOOD["draft_strategy"], "", GOOD["acceptance_rate"], "fast")
    d = fb.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert list(d["fields"]) == ["draftStrategy", "verification", "acceptanceRate", "failureMode"]
    assert d["ok"] is False
    assert d["fields"]["draftStrategy"] == {
        "name": "draftStrategy",
        "label": "Draft strategy",
        "ok": True,
        "found": ["a small draft model"],
        "message": "draftStrategy names a concrete mechanism: a small draft model.",
    }
    assert d["fields"]["verification"]["message"].startswith("verification is empty")
    with pytest.raises(AttributeError):
        fb.draft_strategy.ok = False  # type: ignore[misc]


def test_a_very_long_answer_is_read_up_to_the_limit() -> None:
    fb = judge_field("draft_strategy", "word " * 1000 + "a small draft model")
    assert not fb.ok
    assert "Only the first 2000 characters were read" in fb.message


# --------------------------------------------------------------------------- /study


def test_the_study_view_has_every_part_of_the_card(client: TestClient) -> None:
    r = client.get("/study")
    assert r.status_code == 200
    assert "<title>Study card · Speculative decoding — Transformer Systems Lab</title>" in r.text
    html, words = r.text, text_of(r.text)
    seed = " ".join(SEED.read_text(encoding="utf-8").split())
    for part in (
        "A cheap draft proposes several tokens and the target model verifies them in parallel. "
        "Speedup depends on acceptance rate and verification cost while preserving the target distribution.",
        "How to study Speculative Decoding",
        "Next, compare Speculative Decoding with FlashAttention & Attention Kernels, GPU Utilization.",
        "Proof of understanding",
        "Learn from primary sources",
        "Practice and explain it back",
        "Design exercise: Speculative Decoding",
        "Review prompts",
        "Synthesize: Inference & Serving",
    ):
        assert part in words, part
        assert part in seed, part  # copied verbatim from the study-card seed
    # The checklist: four items, each a labelled checkbox.
    boxes = find(html, type="checkbox", name="proof")
    assert len(boxes) == 4 == len(PROOF_OF_UNDERSTANDING)
    for i, item in enumerate(PROOF_OF_UNDERSTANDING):
        assert boxes[i].attrs["id"] == f"proof-{i}"
        assert f'<label for="proof-{i}">{item}</label>' in html
        assert item in seed
    # The primary source, as text and as a plain link (nothing is fetched from it).
    assert (
        "Yaniv Leviathan, Matan Kalman and Yossi Matias, “Fast Inference from Transformers via "
        "Speculative Decoding”, arXiv 2211.17192." in words
    )
    assert find(html, href="https://arxiv.org/abs/2211.17192")
    assert not re.search(r'(src|srcset|action)="https?://', html)
    assert not re.search(r'<link[^>]+href="https?://', html)
    # The review prompt labels its own textarea; the explanation has one too.
    assert REVIEW_PROMPT in words
    assert REVIEW_PROMPT in seed
    assert '<label class="study__label" for="review-answer" data-testid="review-prompt">' in html
    assert find(html, id="review-answer", data_testid="review")
    assert find(html, id="explanation", data_testid="explanation")
    assert f'data-key="{STUDY_KEY}"' in html
    # The way back, and the study page's own script and stylesheet.
    assert find(html, href="/station", data_testid="back-to-station")
    assert find(html, type="module", src="/static/js/study.js")
    assert find(html, rel="stylesheet", href="/static/css/study.css")


def test_every_control_has_a_label_and_headings_are_in_order(client: TestClient) -> None:
    html = client.get("/study?draft_strategy=x").text
    controls = [e for e in find(html) if e.tag in ("input", "textarea", "select")]
    assert len(controls) == 4 + 2 + 4
    for c in controls:
        assert f'for="{c.attrs["id"]}"' in html, c.attrs
    levels = [int(h[1]) for h in re.findall(r"<(h[1-6])\b", html)]
    assert levels[0] == 1 and levels.count(1) == 1
    assert all(b - a <= 1 for a, b in zip(levels, levels[1:], strict=False)), levels
    assert 'style="' not in html and "<script>" not in html  # the CSP allows neither


def test_the_build_evidence_bullets_link_to_pages_that_exist(client: TestClient) -> None:
    html = client.get("/study").text
    seed = SEED.read_text(encoding="utf-8")
    links = [e for e in find(html) if e.attrs.get("data-testid", "").startswith("evidence-link-")]
    assert len(links) == 4 == len(BUILD_EVIDENCE)
    for link, item in zip(links, BUILD_EVIDENCE, strict=True):
        assert f"- {item.criterion}" in seed
        assert item.criterion in text_of(html)
        href = unescape(link.attrs["href"])
        assert href == item.href
        parts = urlsplit(href)
        assert not parts.netloc, href  # same origin
        r = client.get(parts.path + (f"?{parts.query}" if parts.query else ""))
        assert r.status_code == 200, href
    failure = urlsplit(BUILD_EVIDENCE[1].href)
    assert failure.fragment == "step-06"
    state = parse_state(parse_qsl(failure.query))
    assert state.settings.repair is False and not state.problems


def test_the_design_form_checks_the_outline_in_place_without_javascript(client: TestClient) -> None:
    page = client.get("/study").text
    assert 'data-testid="feedback-' not in page  # nothing judged before the form is sent
    action, query = form_query(
        page,
        "design-form",
        {
            "draft_strategy": GOOD["draft_strategy"],
            "verification": "",
            "acceptance_rate": "high",
            "failure_mode": GOOD["failure_mode"],
        },
    )
    assert action == "/study#design"
    r = client.get(f"{urlsplit(action).path}?{query}")
    assert r.status_code == 200
    html = r.text
    for key, ok in (
        ("draft_strategy", True),
        ("verification", False),
        ("acceptance_rate", False),
        ("failure_mode", True),
    ):
        (fb,) = find(html, data_testid=f"feedback-{key}")
        assert fb.attrs["class"] == f"feedback feedback--{'ok' if ok else 'missing'}"
        (area,) = find(html, id=f"d-{key}")
        assert area.tag == "textarea"
        assert area.attrs["aria-describedby"] == f"d-{key}-help d-{key}-feedback"
        assert fb.attrs["id"] == f"d-{key}-feedback"
        assert ("aria-invalid" in area.attrs) is (not ok)
    words = text_of(html)
    assert "✗ Missing: verification is empty: say how the target checks the drafts" in words
    assert (
        "✗ Missing: acceptanceRate is too short to name a mechanism: “high” says what you want"
        in words
    )
    assert "✓ Named: draftStrategy names a concrete mechanism: a small draft model." in words
    assert (
        "2 of 4 answers name a concrete mechanism; still missing: verification, acceptanceRate."
        in words
    )
    # The answers stay in their boxes, escaped.
    assert f">{GOOD['draft_strategy']}</textarea>" in html


def test_the_design_form_escapes_what_it_echoes(client: TestClient) -> None:
    evil = "</textarea><script>alert(1)</script><img src=x onerror=alert(2)>"
    r = client.get("/study?" + urlencode({"draft_strategy": evil}))
    assert r.status_code == 200
    assert "<script>alert(1)" not in r.text
    assert "<img src=x" not in r.text
    assert "&lt;/textarea&gt;&lt;script&gt;" in r.text


def test_the_study_key_is_documented_with_its_shape() -> None:
    text = (DOCS / "route-memory.md").read_text(encoding="utf-8")
    section = text.split("## The study key", 1)[1]
    assert f"`{STUDY_KEY}`" in section
    assert f"`{STUDY_KEY}.backup.<ISO time>`" in section
    example = json.loads(re.findall(r"```json\n(.*?)```", section, re.S)[0])
    assert list(example) == ["version", "checked", "explanation", "review", "savedAt"]
    assert example["version"] == 1
    assert all(isinstance(i, int) and 0 <= i < 4 for i in example["checked"])


# --------------------------------------------------------------------------- worksheet


def test_the_worksheet_prints_the_numbers_the_station_computes(client: TestClient) -> None:
    r = client.get(f"/station/worksheet?{PREDICTED}")
    assert r.status_code == 200
    assert "<title>Worksheet · Speculative decoding — Transformer Systems Lab</title>" in r.text
    view = live_of(PREDICTED)
    assert view.evidence is not None and view.invariant is not None and view.verdict is not None
    t = view.trace.totals
    html, words = r.text, text_of(r.text)
    assert "You predicted: Lengthen the draft (k), expecting faster and distribution kept." in words
    # Target passes against plain decoding, and both speedups, as the station shows them.
    assert re.search(
        rf'data-testid="ws-figure-1">{t.target_passes} <small>plain decoding needs {t.baseline_target_passes}</small>',
        html,
    )
    assert (t.target_passes, t.baseline_target_passes) == (14, 48)
    figures = {f.label: f.value for f in view.evidence.figures}
    one = "Speedup of this one request"
    assert f"{one} {figures[one]}" in words
    assert f"Speedup by the formula {figures['Speedup by the formula']}" in words
    assert figures[one] == f"{t.speedup_measured:.2f}×"
    assert f"Station α {view.evidence.alpha:.3f}" in words
    assert f"Break-even draft cost at k = 8 {view.evidence.break_even_measured:.2f}" in words
    assert f"First rejection {view.evidence.first_rejection}" in words
    assert view.invariant.correctness.sentence in words
    assert view.invariant.savings.sentence in words
    assert view.verdict.sentence in words
    # The settings, including the workload.
    for label, value in (
        ("Draft-target match", "0.60"),
        ("Draft length k", "8"),
        ("Draft cost c", "0.10"),
        ("Target verify", "on"),
        ("Sampling repair", "on"),
        ("Greedy (temperature 0)", "off"),
        ("Request seed", "8"),
        ("Workload", "48 tokens"),
    ):
        assert f"<dt>{label}</dt><dd>{value}" in html, label
    # The questions: prediction, review prompt, and four about the gates, with lines to write on.
    (questions,) = re.findall(r'data-testid="ws-questions">(.*?)</ol>', html, re.S)
    assert questions.count("<li>") == 6
    assert REVIEW_PROMPT in text_of(questions)
    assert "pick the intervention you would test first" in questions
    assert questions.count('class="write-lines"') == 6
    assert find(html, href=view.links.page, data_testid="back-to-station")


def test_the_worksheet_without_a_prediction_keeps_the_evidence_behind_it(
    client: TestClient,
) -> None:
    r = client.get("/station/worksheet?k=6")
    assert r.status_code == 200
    words = text_of(r.text)
    assert "Your prediction None recorded." in words
    assert 'data-testid="ws-evidence-locked"' in r.text
    assert 'data-testid="ws-evidence"' not in r.text
    assert "Draft length k 6" in words


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ("k=99", "k", "k must be an integer from 1 to 16 (got &#39;99&#39;)"),
        ("pred=guess", "pred", "pred must be one of"),
        ("match=abc&pred=lengthen_k", "match", "match must be a number from 0 to 1"),
        ("colour=blue", "colour", "colour is not a setting of this station"),
    ],
)
def test_a_bad_value_shows_the_stations_problems_with_422(
    client: TestClient, query: str, field: str, message: str
) -> None:
    r = client.get(f"/station/worksheet?{query}")
    assert r.status_code == 422
    station = client.get(f"/station?{query}")
    assert station.status_code == 422
    (problems,) = re.findall(
        r'<div class="problems" role="alert" data-testid="problems">.*?</div>', r.text, re.S
    )
    assert problems in station.text  # the very list the station shows
    assert f"<code>{field}</code>: {message}" in problems
    assert 'data-testid="ws-questions"' in r.text  # the sheet still renders on the defaults


# --------------------------------------------------------------------------- the station's methods


@pytest.mark.parametrize(
    ("answers", "found"),
    [
        (
            {
                "draft_strategy": "A Sequoia-style token tree: two siblings drafted at every node, four levels deep.",
                "verification": "The target scores the whole tree in one pass; each node's siblings are checked in turn against the residual.",
                "acceptance_rate": "Tokens per target pass, logged per request: about 3.7.",
                "failure_mode": "A tree too wide: 30 nodes scored per pass cost more than one token's pass.",
            },
            {
                "draft_strategy": "tree speculation",
                "verification": "tree verification (siblings checked in turn against the residual)",
                "failure_mode": "a tree too wide or deep for one pass",
            },
        ),
        (
            {
                "draft_strategy": "Medusa heads propose a top-k tree of candidates.",
                "verification": "Typical acceptance: keep a drafted token when p(x) clears an entropy-based threshold.",
                "acceptance_rate": "The fraction of drafted tokens accepted, measured on a held-out slice.",
                "failure_mode": "Typical acceptance is not lossless: the output leans toward the draft.",
            },
            {
                "draft_strategy": "extra decoding heads (Medusa, EAGLE)",
                "verification": "typical acceptance (Medusa's threshold on p(x), not lossless)",
                "failure_mode": "typical acceptance is not lossless",
            },
        ),
        (
            {
                "draft_strategy": "No draft model: copy the words that followed the last two words earlier in the prompt.",
                "verification": "Rejection sampling against p in a single target pass.",
                "acceptance_rate": "2.18 tokens per target pass on a repetitive request.",
                "failure_mode": "On novel text there is nothing to copy, so every pass emits one token.",
            },
            {
                "draft_strategy": "an n-gram / prompt-lookup draft",
                "verification": "rejection sampling with residual repair",
                "failure_mode": "nothing to copy for prompt lookup",
            },
        ),
    ],
    ids=["token-tree", "typical-acceptance", "prompt-lookup-copying"],
)
def test_the_stations_drafting_methods_count_as_mechanisms(
    answers: dict[str, str], found: dict[str, str]
) -> None:
    fb = design_outline_feedback(**answers)
    assert fb.ok, [f.message for f in fb.fields]
    by_key = {f.key: f for f in fb.fields}
    for key, label in found.items():
        assert label in by_key[key].found, (key, by_key[key].found)


def test_typical_acceptance_is_not_called_a_greedy_match() -> None:
    fb = judge_field("verification", "typical acceptance, as in Medusa")
    assert fb.ok
    assert fb.found == ("typical acceptance (Medusa's threshold on p(x), not lossless)",)
    # ... and the vague answers are still refused.
    assert not judge_field("verification", "the tree looks fine").ok
    assert not judge_field("draft_strategy", "copy it somehow").ok


def test_the_worksheet_says_what_prices_the_passes_on_a_machine(client: TestClient) -> None:
    from witness import Settings
    from witness.cost.costing import costing, price

    custom = text_of(client.get(f"/station/worksheet?{PREDICTED}").text)
    assert "Draft cost c" in custom and "Cost of a pass" not in custom
    query = "machine=l4&pair=llama-70b-8b&batch=8&context=512&draft_source=adversary"
    sheet = text_of(client.get(f"/station/worksheet?{PREDICTED}&{query}").text)
    s = Settings(machine="l4", pair="llama-70b-8b", batch=8, context=512, draft_source="adversary")
    assert f"c = {costing(s).c:.3f}, price per draft {price(s):.3f}" in sheet
    assert "Llama 3.1 70B with Llama 3.1 8B on NVIDIA L4, batch 8, context 512" in sheet
    assert "Draft cost c" not in sheet
    # The adversary is a chain, yet not the draft model: the sheet names it.
    assert "a chain from the adversarial draft" in sheet
