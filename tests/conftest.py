"""Settings every test shares.

Hypothesis runs under one profile: derandomized, so every run draws the same examples (a
property test is seeded like every other statistical test here), and with no deadline. The
deadline is a timing assertion, which this project keeps out of tests (speed is measured in
bench/): on a loaded 2-core machine a first call that warms scipy took 390 ms against
Hypothesis's default 200 ms and failed a correct test as "flaky". A test may still set its
own settings on top of the profile.
"""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("station08", deadline=None, derandomize=True)
settings.load_profile("station08")
