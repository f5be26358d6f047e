"""A float that may be infinite, as JSON can carry it: written null, and described so.

A speedup is unbounded where a request cost nothing (verify off at c = 0). JSON has no
infinity; pydantic writes inf as null, so a schema that said only "number" was false for
those answers (schemathesis found it on /api/race). The schema says "number or null", and
what null means.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import WithJsonSchema

MaybeInfinite = Annotated[
    float,
    WithJsonSchema(
        {
            "anyOf": [{"type": "number"}, {"type": "null"}],
            "description": "null: unbounded (infinite; a request that cost nothing)",
        }
    ),
]
