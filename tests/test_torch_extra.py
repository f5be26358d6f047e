"""PyTorch is in the test set-up and never in the station.

`make test` installs the `train` extra (torch 2.13.0, the CPU build) so that the torch tests run;
`make serve` never installs it, and the running station never imports it: creating the app and
serving its pages leaves `torch` out of `sys.modules`. A stand-in torch leads the path in that
probe, so any attempt to import torch is seen, whether or not the real one is installed, and
the probe's teeth twin, which asks the training script for torch, sees it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import torch_extra

ROOT = Path(__file__).resolve().parents[1]
# The station's page with each pair of models, one of its fragments, and the liveness answer.
URLS = (
    "/",
    "/station?models=early-exit",
    "/station?models=small-draft",
    "/station/evidence?models=small-draft",
    "/healthz",
)
PROBE = """
import json, sys
from starlette.testclient import TestClient
from app.main import create_app
{extra}
with TestClient(create_app()) as client:
    statuses = [client.get(url).status_code for url in {urls!r}]
print(json.dumps({{"statuses": statuses, "torch": "torch" in sys.modules}}))
"""


def probe(tmp_path: Path, extra: str = "") -> dict[str, object]:
    """Create the app and serve URLS in a fresh interpreter, a stand-in torch on its path."""
    stand_in = tmp_path / "stand-in"
    (stand_in / "torch").mkdir(parents=True)
    (stand_in / "torch" / "__init__.py").write_text("__version__ = 'stand-in'\n")
    env = {
        **os.environ,
        "PYTHONPATH": str(stand_in),
        "STATION08_DATA_DIR": str(tmp_path / "data"),
    }
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(extra=extra, urls=URLS)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_creating_the_app_and_serving_its_pages_never_imports_torch(tmp_path: Path) -> None:
    assert probe(tmp_path) == {"statuses": [200] * len(URLS), "torch": False}


def test_teeth_the_probe_sees_a_torch_import(tmp_path: Path) -> None:
    extra = "import witness.neural.train as train; train._torch()"
    assert probe(tmp_path, extra) == {"statuses": [200] * len(URLS), "torch": True}


def _make_dry_run(target: str) -> str:
    """What `make -B -n target` would run: every command of its set-up, none of them run."""
    done = subprocess.run(
        ["make", "-B", "-n", target],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=True,
    )
    return done.stdout


def test_make_test_installs_the_train_extra_and_make_serve_does_not() -> None:
    assert "'.[test,train]'" in _make_dry_run("setup-test")
    serve = _make_dry_run("serve")
    assert "pip install" in serve and "train" not in serve and "torch" not in serve


def test_without_torch_a_test_skips_saying_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` fails as if absent
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"`train` extra.*make test"):
        torch_extra.torch_or_skip()


def test_without_torch_under_ci_a_test_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="set-up is broken"):
        torch_extra.torch_or_skip()
