"""Where new work waits: three lanes, so an expensive request never starves a slider answer
or the projector.

Computing a new state is pure Python and numpy on small arrays: it holds the GIL, so two
computations in one process never run in parallel anyway. Left to the thread pool, a class's
worth of them ran forty at once; they shared the interpreter 5 ms at a time, each took forty
times as long, and every waiting request held one of the pool's threads. Forty
`/api/evaluation` requests at once also held forty evaluation slices in memory (RSS 969 MB →
2.6 GB) and a cached page waited for a free thread behind them.

So new work runs in a lane: an anyio capacity limiter of one thread per lane. A request
waiting in a lane holds no thread and no memory, only its place in the queue; a cached answer
never enters a lane at all. There are three lanes, because the work comes in two sizes and
one room:

- **interactive**: what a learner waits on while dragging a slider or stepping (an evidence
  fragment, the step-through, a page): tens of milliseconds;
- **heavy**: what is asked for once and may take seconds (the k sweep over sixteen requests,
  the evaluation slice, the race, the worksheet, the JSON API): a request with every range at
  its end (k = 16, 256 tokens) costs at most ~2.5 s of CPU here;
- **classroom**: a live class's pages (the projector's dashboard and its live part, the
  learners' join and sent pages), the reveal included. Anyone can fill the heavy lane with
  never-seen states; the projector must not wait behind them.

The lanes share the GIL, so while a heavy request runs, slider answers and the projector still
get their share of the interpreter instead of waiting seconds behind it. Each lane has its own
thread, not one borrowed from the default pool that synchronous routes share, so requests
stuck elsewhere (a silent database under the class routes) cannot leave a lane without a
thread. Each lane bounds its queue: past that, the request is answered at once with 503 and
Retry-After (`Busy`), not left to time out. Each worker process has its own lanes
(`STATION08_WORKERS`).

When a request's turn comes, the lane first asks whether its client is still there (`gone`):
a learner who reloaded, a phone that dropped off the network, a client that gave up waiting
(wrk after its timeout) has left a request nobody will read, and under a class's load
computing it would make everyone queued behind it wait longer. Such a request is dropped
(`Gone`) instead of rendered.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import ParamSpec, TypeVar

import anyio.to_thread
from anyio import CapacityLimiter

P = ParamSpec("P")
T = TypeVar("T")

# Queued requests per lane, per worker. A class of a hundred learners dragging at once stays
# well inside the interactive bound; a heavy request is seconds each, so eight waiting is
# already tens of seconds of work: the ninth is told to come back rather than wait for it.
INTERACTIVE_QUEUE = 512
HEAVY_QUEUE = 8
# A room of learners joining at once, and the projector polling: a render here is
# milliseconds once the reveal's requests are served.
CLASSROOM_QUEUE = 256
RETRY_AFTER_SECONDS = 2


class Busy(Exception):
    """A lane's queue is full: answer 503 with Retry-After instead of waiting."""

    def __init__(self, lane: str, waiting: int) -> None:
        super().__init__(
            f"The station is busy: {waiting} {lane} requests are already waiting."
            f" Try again in {RETRY_AFTER_SECONDS} seconds."
        )
        self.lane = lane
        self.waiting = waiting
        self.retry_after = RETRY_AFTER_SECONDS


class Gone(Exception):
    """The client left while its request waited: nothing was rendered, nothing is sent."""


@dataclass(slots=True)
class Lane:
    """One thread at a time, with at most ``queue`` requests waiting for it."""

    name: str
    queue: int
    _limiter: CapacityLimiter = field(init=False)  # the lane's turn, which requests queue for
    _thread: CapacityLimiter = field(init=False)  # the worker thread the turn's holder runs on

    def __post_init__(self) -> None:
        self._limiter = CapacityLimiter(1)
        self._thread = CapacityLimiter(1)

    @property
    def waiting(self) -> int:
        return self._limiter.statistics().tasks_waiting

    @property
    def busy(self) -> int:
        """Work running in the lane now: 0 or 1."""
        return self._limiter.statistics().borrowed_tokens

    async def run(self, work: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``work(*args, **kwargs)`` on this lane's thread, once it is free."""
        return await self.run_unless(None, lambda: work(*args, **kwargs))

    async def run_unless(
        self, gone: Callable[[], Awaitable[bool]] | None, work: Callable[[], T]
    ) -> T:
        """``work()`` on this lane's thread once it is free, unless ``gone()`` says then that
        nobody is waiting for it any more (`Gone`)."""
        if self.waiting >= self.queue:
            raise Busy(self.name, self.waiting)
        async with self._limiter:
            if gone is not None and await gone():
                raise Gone()
            # The lane's own thread token: never one of the default pool's, which the
            # synchronous routes share and can use up.
            return await anyio.to_thread.run_sync(work, limiter=self._thread)


@dataclass(slots=True)
class Lanes:
    """The app's three lanes (one set per app, made by `create_app`)."""

    interactive: Lane = field(default_factory=lambda: Lane("interactive", INTERACTIVE_QUEUE))
    heavy: Lane = field(default_factory=lambda: Lane("heavy", HEAVY_QUEUE))
    classroom: Lane = field(default_factory=lambda: Lane("classroom", CLASSROOM_QUEUE))

    def pick(self, heavy: bool, classroom: bool = False) -> Lane:
        if classroom:
            return self.classroom
        return self.heavy if heavy else self.interactive
