"""PyTorch in the tests: the optional `train` extra, which `make test`'s set-up installs and
`make serve`'s never does (the station never imports torch).

A test that needs torch gets it from `torch_or_skip()`. Outside make, where the extra may be
absent, the test skips, saying how to run it. Under CI (`CI` set), whose `make test` installs
the extra, a missing torch fails instead: a broken set-up must not pass as a skip.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

import pytest

SKIP_REASON = (
    "PyTorch is the optional `train` extra, which `make test` installs; outside make, "
    "pip install -e '.[train]' (torch 2.13.0, the CPU build) runs this"
)


def torch_or_skip() -> Any:
    """The torch module; without it, skip the calling test or module (fail under CI)."""
    try:
        return importlib.import_module("torch")
    except ModuleNotFoundError as exc:
        if exc.name != "torch":
            raise
    if os.environ.get("CI"):
        pytest.fail(
            "torch is missing under CI, whose `make test` installs the `train` extra: "
            "the test set-up is broken",
            pytrace=False,
        )
    pytest.skip(SKIP_REASON, allow_module_level=True)
