"""The study view (`/study`) and the printable worksheet (`/station/worksheet`).

Both are server-rendered and work without JavaScript. The study view shows the whole study
card and checks the design exercise in place (a GET form: the answers live in the URL); the
checklist and the learner's own writing are kept in the browser by static/js/study.js under
the study key of docs/route-memory.md. The worksheet takes the station's own query and prints
the numbers `live_view` computes for it, never recomputing them.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.rendering.pipeline import Context, Env, Page, Pipeline
from app.station.routes.pages import respond, status
from app.station.state.query import StationState
from app.station.views import fmt
from app.station.views.station import LiveView, live_view
from app.study import card as study
from app.study import design_outline
from witness import Settings
from witness.cost.costing import costing, price
from witness.methods.block import is_chain

router = APIRouter(include_in_schema=False)

DESIGN_PARAMS = tuple(f.key for f in design_outline.FIELDS)


@dataclass(frozen=True, slots=True)
class StudyAnswers:
    """The design exercise's answers in the query, and whether any was submitted."""

    answers: tuple[tuple[str, str], ...]
    submitted: bool


def _study(env: Env, key: StudyAnswers, _: object) -> Context:
    answers = dict(key.answers)
    feedback = design_outline.design_outline_feedback(**answers) if key.submitted else None
    variables = {"card": study, "design": design_outline, "answers": answers}
    return Context(variables | {"feedback": feedback})


STUDY = Page("study.html", _study)


@router.get("/study")
def study_view(request: Request) -> Response:
    """The study card; `draft_strategy`, `verification`, `acceptance_rate` and
    `failure_mode` (any of them) submit the design exercise and show its feedback."""
    params = dict(request.query_params.multi_items())  # the last of a repeated key wins
    key = StudyAnswers(
        tuple((k, params.get(k, "")) for k in DESIGN_PARAMS),
        any(k in params for k in DESIGN_PARAMS),
    )
    pipeline: Pipeline = request.app.state.pipeline
    return pipeline.respond(STUDY, key)


# --------------------------------------------------------------------------- worksheet


@dataclass(frozen=True, slots=True)
class Row:
    label: str
    value: str
    note: str = ""
    testid: str = ""
    wide: bool = False  # a sentence, not a number: given a whole line of the sheet


PREDICTION_QUESTION = (
    "Before the evidence: pick the intervention you would test first. Which do you expect to "
    "make this served request faster while keeping the target distribution (more than one "
    "may qualify)? Faster than now? Distribution kept?"
)
GATE_QUESTIONS = (
    "Which gate — correctness or savings — holds in this state? Name the number on this "
    "sheet that shows each.",
    "Switch sampling repair off at these settings: which gate fails, what happens to the "
    "exact TV to p, and does the speedup over the seeded requests change beyond noise? Why?",
    "Raise the draft cost c until speculation stops paying at this k. Using the break-even "
    "cost on this sheet, at about which c does the savings gate fail, and why is it below "
    "α, the break-even of k = 1?",
    "Can the savings gate hold while the correctness gate fails? Name the setting that does "
    "it and what the output distribution becomes.",
)


def settings_rows(view: LiveView) -> tuple[Row, ...]:
    s = view.settings
    return (
        Row("Draft-target match", fmt.setting(s.match)),
        Row("Draft length k", str(s.k)),
        _cost_row(s),
        Row("Target verify", fmt.on_off(s.verify)),
        Row("Sampling repair", fmt.on_off(s.repair)),
        Row("Greedy (temperature 0)", fmt.on_off(s.greedy)),
        Row("Request seed", str(s.seed)),
        Row(
            "Workload",
            f"{s.tokens} tokens",
            f"TTFT {s.ttft_ms:g} ms, TPOT {s.tpot_ms:g} ms, prompt “{s.prompt}”",
        ),
    ) + (
        (Row("Drafting", drafting_words(s)),)
        if not is_chain(s) or s.draft_source == "adversary"
        else ()
    )


def _cost_row(s: Settings) -> Row:
    """The slider's c, or on a machine what prices the passes (`witness.cost.costing`)."""
    cost = costing(s)
    if cost.machine is None or cost.pair is None:
        return Row("Draft cost c", fmt.setting(s.draft_cost))
    return Row(
        "Cost of a pass",
        f"c = {cost.c:.3f}, price per draft {price(s):.3f}",
        f"{cost.pair.label} on {cost.machine_label}, batch {s.batch}, context {s.context}",
    )


def drafting_words(s: Settings) -> str:
    """The method in a few words: 'a tree 2 wide (sample drafting), typical acceptance'."""
    if s.draft_source == "lookup":
        return "prompt lookup (no draft model), exact acceptance"
    shape = f"a tree {s.tree_width} wide ({s.drafting} drafting)" if s.tree_width > 1 else "a chain"
    if s.draft_source == "adversary":
        shape += " from the adversarial draft (the target's least likely word)"
    if s.drafting == "top" and s.tree_width == 1:
        shape = "a chain of q's most likely tokens"
    rule = "typical acceptance (not lossless)" if s.acceptance == "typical" else "exact acceptance"
    return f"{shape}, {rule}"


SHEET_NOTE = 48  # characters of a figure's note the printed sheet keeps


def evidence_rows(view: LiveView) -> tuple[Row, ...]:
    """The evidence panel's own figures and sentences; empty while no prediction is recorded."""
    e = view.evidence
    if e is None:
        return ()
    # One printed page: a figure's long note (the ensemble's interval, the formula's α) stays
    # on the station; the sheet keeps the short ones.
    rows = [
        Row(f.label, f.value, f.note if len(f.note) <= SHEET_NOTE else "", f"ws-figure-{i}")
        for i, f in enumerate(e.figures, 1)
    ]
    t, c, s = view.trace.totals, view.trace.check, view.settings
    rows.append(
        Row(
            "Station α",
            f"{e.alpha:.3f}",
            f"this request's own {t.mean_alpha:.3f}",
        )
    )
    if e.break_even_measured is not None and e.break_even_formula is not None:
        rows.append(
            Row(
                f"Break-even draft cost at k = {s.k}",
                f"{e.break_even_measured:.2f}",
                f"measured; formula {e.break_even_formula:.2f}; k = 1: c = α",
            )
        )
    rows.append(Row("Exact TV to p", fmt.distance(c.tv_max), e.exact_check, "ws-tv", True))
    rows.append(Row("First rejection", e.first_rejection, "", "ws-first-rejection", True))
    return tuple(rows)


def prediction_text(view: LiveView) -> str:
    if view.state.prediction is None:
        return "None recorded."
    if view.verdict is not None:
        return view.verdict.recorded
    return view.prediction.summary


def _worksheet(env: Env, state: StationState, _: object) -> Context:
    # The worksheet prints the live view's numbers; it draws neither the sweep nor the slice.
    view = live_view(state, env.settings, env.witness)
    variables = {
        "view": view,
        "prediction": prediction_text(view),
        "settings_rows": settings_rows(view),
        "evidence_rows": evidence_rows(view),
        "prediction_question": PREDICTION_QUESTION,
        "review_prompt": study.REVIEW_PROMPT,
        "gate_questions": GATE_QUESTIONS,
        "station_link": view.links.page,
    }
    return Context(variables, status(state))


WORKSHEET = Page("worksheet.html", _worksheet, heavy=True)  # printed once, never dragged


@router.get("/station/worksheet")
def worksheet(request: Request) -> Response:
    """A printable one-page worksheet of the station state in the query."""
    return respond(request, WORKSHEET)
