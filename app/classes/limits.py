"""How much a class takes, and when to try again.

The limits are counted in the database, in fixed windows, inside the same transaction as the
submission they limit (`app.classes.store`), so they hold across every worker process and
every server sharing one database, and a refused request changes nothing. A class's count
is the sum of its learners' counts in the window (no row of its own that every submission
would have to update). A learner may
send `learner` submissions per window (a learner changing their mind, not a script); a class
`per_class` (200 learners all changing their mind several times within the window fits);
at most `opens` classes are opened per `open_window` seconds from one client address, or
from the whole server where an instructor key is set (a class costs a row and its
predictions until it expires: this bounds what an anonymous client can make us keep);
and a question holds at most `learners` predictions. The opening and learner caps hold
exactly under concurrent writers, each counted under a lock (`app.classes.store`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    window: int = 10  # seconds, for the learner and class counts
    learner: int = 20
    per_class: int = 2_400
    opens: int = 60
    open_window: int = 600
    learners: int = 1_000  # predictions one question of one class holds

    def window_of(self, now: float) -> int:
        """The fixed window `now` falls in: its start, in whole seconds."""
        return int(now // self.window) * self.window

    def retry_after(self, now: float) -> int:
        """Whole seconds until the current window ends (at least one)."""
        return max(1, math.ceil(self.window_of(now) + self.window - now))
