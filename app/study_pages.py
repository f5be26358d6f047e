"""The study view and the printable worksheet (filled in by the study-card work)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(include_in_schema=False)
