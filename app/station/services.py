"""The app's witness results, kept by what each depends on: one `Witness` per app.

`create_app` makes one and keeps it on ``app.state.witness``; every view and route asks it,
so a fresh app (a test, a worker process) starts with empty caches and nothing is shared
through module globals. Settings are frozen and hashable; each method reduces them, here and
only here, to the fields its result depends on, so a change the result cannot see (the draft
cost for a slice, k for the sweep) is a hit. The reductions are built from what each field
of `Settings` declares it affects (`witness.core.settings.Affects`): a new setting joins the
right keys by its declaration.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

from app.rendering.memo import Memo
from witness import RequestCache, RequestTrace, Settings, serve_request
from witness.core.modes import Mode, mode_of
from witness.core.settings import Affects, without
from witness.cost.costing import costing
from witness.judge.adaptive import Race, RaceEnsemble, race, race_ensemble
from witness.judge.ensemble import Comparison, Ensemble, compare, serve_ensemble
from witness.judge.evaluation import EvaluationSlice, FirstTokenCheck, evaluate, first_token_check
from witness.judge.expected import exact_applies, exact_ensemble, texts_for
from witness.judge.sweep import (
    KSweep,
    MeasuredPoint,
    WidthMeasure,
    measure_k,
    sweep_from,
    width_sweep,
)
from witness.methods.block import chain_twin, is_chain
from witness.models.texts import Texts
from witness.serve.accounting import totals
from witness.serve.paths import ServedPaths

# The live evidence samples a quick slice of the current mode; the full three-mode slice
# (100 000 blocks each) is the Next panel's job. 10 000 blocks keep a slider move in budget.
QUICK_SLICE_BLOCKS = 10_000
SLICE_BLOCKS = 100_000
# Entries per cache: a trace is ~50-100 KB of small objects, a slice a few KB.
TRACES, QUICK_CHECKS, SWEEPS, SLICES, ENSEMBLES = 256, 256, 128, 64, 256
# An exact ensemble is 32 floats a field (~5 kB), its texts ~50 kB (four [32, 48] arrays):
# a class drags match and k over a few prompts and seeds, so texts are few and reused.
EXACT_ENSEMBLES, TEXTS = 2048, 64
RACES = 64  # a race and its ensemble: five policies' blocks, a few kB
PATHS = 4096  # a path is its α per drafted position: at most 256 floats, ~6 kB


@dataclass(frozen=True, slots=True)
class BesideChain:
    chain: Ensemble  # the chain twin's requests, served on the method's seeds
    comparison: Comparison  # the method against the twin: before = the chain, after = it


class Witness:
    def __init__(self, cache: RequestCache | None = None) -> None:
        # Below the results, the witness's own per-context laws and keyed-uniform grids,
        # shared by every request the app serves: the same contexts recur within a request,
        # across the sixteen requests of a sweep, and when k moves at one match.
        self.cache = cache if cache is not None else RequestCache()
        c = self.cache
        # A request's blocks do not depend on its price (the draft cost, the machine, the
        # workload's timings): they are served once per unpriced state and priced per state.
        self._served: Memo[RequestTrace] = Memo(partial(serve_request, cache=c), TRACES)
        self._traces: Memo[RequestTrace] = Memo(self._priced, TRACES)
        self._quick: Memo[FirstTokenCheck] = Memo(
            partial(_first_token_check, cache=c), QUICK_CHECKS
        )
        self._sweeps: Memo[tuple[MeasuredPoint, ...]] = Memo(partial(measure_k, cache=c), SWEEPS)
        self._widths: Memo[tuple[WidthMeasure, ...]] = Memo(partial(width_sweep, cache=c), SWEEPS)
        # One request's passes, kept per seed: neighbouring seeds' ensembles share all but one,
        # and an ensemble's missing chain requests are served together (`witness.serve.paths`).
        self._paths = ServedPaths(c, PATHS)
        self._ensembles: Memo[Ensemble] = Memo(partial(serve_ensemble, path=self._paths), ENSEMBLES)
        # The lossless chain's verdicts: the target's texts, drawn once per prompt, length,
        # temperature and seed, then the exact expectation given them at each (match, k).
        self._texts: Memo[Texts] = Memo(texts_for, TEXTS)
        self._exact: Memo[Ensemble] = Memo(self._exact_ensemble, EXACT_ENSEMBLES)
        self._slices: Memo[EvaluationSlice] = Memo(partial(_evaluate, cache=c), SLICES)
        self._races: Memo[tuple[Race, RaceEnsemble]] = Memo(partial(_race, cache=c), RACES)

    def trace(self, settings: Settings) -> RequestTrace:
        """The served request: dragging back over a value costs nothing, and a price-only
        change (c, the machine, the batch) re-prices the blocks it already served."""
        return self._traces(settings)

    def _priced(self, settings: Settings) -> RequestTrace:
        served = self._served(_unpriced(settings))
        # With nothing drafted the totals' mean α is the first position's: the same either way.
        priced = totals(settings, served.blocks, served.totals.mean_alpha)
        return replace(served, settings=settings.model_dump(), totals=priced)

    def quick_check(self, settings: Settings) -> FirstTokenCheck:
        """The quick sampled check of the current mode: it reads the first position only, so
        the cost, the workload's timings and the length do not change it."""
        return self._quick(quick_key(settings), mode_of(settings.verify, settings.repair))

    def ensemble(self, settings: Settings, *, served: bool = False) -> Ensemble:
        """The state's ensemble, from which every verdict is drawn: exact given the target's
        texts for the lossless chain (`exact_applies`), else seeded requests served. Neither
        depends on the draft cost or the workload's timings, only their price does.

        ``served`` asks for served requests even where the exact estimator applies: the side
        of a comparison whose other side has no exact form."""
        key = _unpriced(settings)
        if exact_applies(key) and not served:
            return self._exact(key)
        return self._ensembles(key)

    def _exact_ensemble(self, key: Settings) -> Ensemble:
        texts = self._texts(DEFAULTS.model_copy(update={n: getattr(key, n) for n in TEXT}))
        return exact_ensemble(key, texts)

    def judged(self, before: Settings, after: Settings) -> tuple[Ensemble, Ensemble]:
        """Two states' ensembles on one estimator: exact when both sides have the exact
        form, else both served on the same seeds (never one of each)."""
        served = not (exact_applies(before) and exact_applies(after))
        return self.ensemble(before, served=served), self.ensemble(after, served=served)

    def compare(self, before: Settings, after: Settings) -> Comparison:
        """Is ``after`` faster than ``before``, over the same seeds and one estimator?"""
        was, now = self.judged(before, after)
        return compare(was, costing(before), now, costing(after))

    def beside_chain(self, settings: Settings) -> BesideChain | None:
        """A tree, typical acceptance or prompt lookup beside its chain twin (`chain_twin`):
        the twin's requests served on the same seeds, and whether the method is faster, on
        that one estimator. None for the chain itself."""
        if is_chain(settings):
            return None
        twin = chain_twin(settings)
        return BesideChain(self.ensemble(twin, served=True), self.compare(twin, settings))

    def sweep(self, settings: Settings) -> KSweep:
        """Speedup against k: the measured requests do not depend on the instrument's own k
        or cost; the formula's curve takes the state's α and cost."""
        # Every k is measured: the key's k is the first one.
        key = _unpriced(settings).model_copy(update={"k": 1})
        widths = self._widths(_unpriced(settings))
        return sweep_from(self._sweeps(key), self.ensemble(settings).alpha, settings, widths)

    def slice(self, settings: Settings) -> EvaluationSlice:
        """The evaluation slice runs every mode, and its timings are not part of it."""
        return self._slices(without(settings, Affects.TIMING, also=("verify", "repair")))

    def race(self, settings: Settings) -> tuple[Race, RaceEnsemble]:
        """The draft-length policies raced on the request, and over its seeded requests. The
        machine and pair price the passes and set recovery's break-even, so only the
        workload's timings are left out of the key."""
        return self._races(without(settings, Affects.TIMING))

    def sizes(self) -> dict[str, int]:
        """How many results each cache holds (for the benchmarks and the tests)."""
        return {
            "traces": len(self._traces),
            "served": len(self._served),
            "quick_checks": len(self._quick),
            "sweeps": len(self._sweeps),
            "widths": len(self._widths),
            "slices": len(self._slices),
            "ensembles": len(self._ensembles),
            "exact_ensembles": len(self._exact),
            "texts": len(self._texts),
            "paths": len(self._paths),
            **self.cache.sizes(),
        }


# What prices a request's passes and reads its clock, never changes them (`Affects`).
PRICE = (Affects.DRAFT_PRICE, Affects.PASS_PRICE, Affects.TIMING)
# The quick check reads the first drafted position alone (its mode is keyed apart).
FIRST_POSITION_ONLY = ("tokens", "verify", "repair")
# The target's own texts are decided by the models, the prompt, the length, the temperature
# and the seed alone (`witness.models.texts`): whatever the match or k.
TEXT = ("models", "prompt", "tokens", "greedy", "seed")
DEFAULTS = Settings()


def quick_key(settings: Settings) -> Settings:
    """What the quick check of ``settings`` depends on (its mode aside): the method at the
    first drafted position, nothing of the length, the switches or the price."""
    return without(settings, *PRICE, also=FIRST_POSITION_ONLY)


def _unpriced(settings: Settings) -> Settings:
    """The settings without what only prices a request, the draft cost included."""
    return without(settings, *PRICE)


def _first_token_check(key: Settings, mode: Mode, *, cache: RequestCache) -> FirstTokenCheck:
    return first_token_check(key, mode, QUICK_SLICE_BLOCKS, cache=cache)


def _race(key: Settings, *, cache: RequestCache) -> tuple[Race, RaceEnsemble]:
    return race(key), race_ensemble(key)  # the compiled chain keeps no laws: no cache


def _evaluate(key: Settings, *, cache: RequestCache) -> EvaluationSlice:
    return evaluate(key, blocks=SLICE_BLOCKS, cache=cache)
