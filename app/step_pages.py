"""The step-through of one verification step (filled in by the step-through work)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(include_in_schema=False)
