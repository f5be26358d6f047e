"""The step-through's view model (filled in by the step-through work)."""

from __future__ import annotations

from typing import Any


def stepthrough_view(*args: Any) -> None:
    return None
