"""The live class's side of the contract: what the pages and the browser both rely on.

Python is the single source: static/js/contract.js carries these to the browser (written by
`python -m app.contract.generate`), so the learner's class script never copies a key, an
interval or a preset's link by hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.contract.route import STATION_ID, Intervention
from app.station.state.options import ViewOptions
from app.station.state.presets import PRESETS, Preset
from app.station.state.query import StationState
from app.words import say
from witness import Settings

# A learner's class membership, in this browser only: {v, code, learner, follow, question,
# sent}. The server keeps no learner identity beyond the random id the tally counts once.
CLASS_KEY = f"tsl.class.{STATION_ID}"
CLASS_VERSION = 1
# The learner's station asks the class's state this often while joined and visible; the
# dashboard's tally fragment polls every DASHBOARD_POLL_SECONDS (a prediction is on the
# projector within 2 s).
LEARNER_POLL_MS = 2000
DASHBOARD_POLL_SECONDS = 1
# The learner's id: 128 random bits from crypto.getRandomValues, as 32 lowercase hex digits.
LEARNER_ID_PATTERN = "^[0-9a-f]{32}$"
# The instructor's key lives in this HttpOnly cookie, scoped to its class's path.
HOST_COOKIE = "station08_host"
# A learner without JavaScript keeps "<code>.<learner id>" in this HttpOnly cookie instead of
# the localStorage membership (app/classes/learner.py).
LEARNER_COOKIE = "station08_learner"
# What a learner can predict on in class: the five interventions (a skip is not sent).
CLASS_INTERVENTIONS = tuple(i for i in Intervention if i is not Intervention.SKIP)


@dataclass(frozen=True, slots=True)
class ClassPreset:
    """One preset as a class question: its link, the title a learner may see before the
    reveal (a preset whose name gives the answer away is numbered until then), and its
    prompt, which asks what a learner's answer answers: one of the five changes, whether it
    is faster, whether the output keeps p."""

    id: str
    number: int  # 1-based, in the presets' order
    title: str
    shown_title: str  # before the reveal
    question: str  # the prompt (app/words/classes.toml [question])
    url: str
    explore: str  # the preset's own question to try on the station, after the reveal


def preset_url(preset: Preset) -> str:
    """The station at the preset on the default workload, opening at the prediction."""
    state = StationState(
        settings=Settings(**preset.values), prediction=None, block=None, options=ViewOptions()
    )
    return state.url(options=ViewOptions(preset=preset.id)) + "#step-03"


def _shown(preset: Preset, number: int) -> str:
    return f"Preset {number} (named at the reveal)" if preset.names_answer else preset.title


def prompt(preset: Preset) -> str:
    """The class's question at a preset: its situation, then what the answers answer."""
    return say("classes.question.ask", situation=say(f"classes.question.situation.{preset.id}"))


CLASS_PRESETS: tuple[ClassPreset, ...] = tuple(
    ClassPreset(
        p.id,
        n,
        p.title,
        _shown(p, n),
        prompt(p),
        preset_url(p),
        say("classes.question.explore", question=p.question),
    )
    for n, p in enumerate(PRESETS, start=1)
)
CLASS_PRESET_BY_ID = {p.id: p for p in CLASS_PRESETS}
