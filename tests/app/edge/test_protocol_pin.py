"""The station's protocol subclasses uvicorn's h11 protocol and reaches into its internals, so
it runs on the one uvicorn minor version it was written against: the installed uvicorn and
pyproject.toml's pin both name it. An upgrade fails here until app/edge/protocol.py is read
against the new version and `UVICORN_TESTED` moved with it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import uvicorn

from app.edge.protocol import UVICORN_TESTED

ROOT = Path(__file__).resolve().parents[3]


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def test_the_installed_uvicorn_is_the_minor_version_the_protocol_was_written_against() -> None:
    assert _minor(uvicorn.__version__) == UVICORN_TESTED


def test_pyproject_pins_uvicorn_to_that_minor_version() -> None:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (pin,) = [d for d in deps if re.match(r"uvicorn\b", d)]
    major, minor = (int(x) for x in UVICORN_TESTED.split("."))
    assert pin.replace(" ", "") == f"uvicorn>={major}.{minor},<{major}.{minor + 1}"


def test_teeth_another_minor_version_is_told_apart() -> None:
    assert _minor("0.56.0") != UVICORN_TESTED and _minor(f"{UVICORN_TESTED}.9") == UVICORN_TESTED
