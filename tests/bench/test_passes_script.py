"""bench/passes.py, the re-measuring script for the H200 figures, without a GPU: its shape table
gives the committed parameter counts, its writer the committed rows' keys, its plans the
committed rows' points and the docstring's quick run, and without torch, or with torch and no
CUDA device (the CPU build that `make test` installs), it exits 2 saying which.

The committed figures are read from witness/cost/h200/ (or, before they are there, from the
shared folder they were measured into); a test that needs them skips when neither is there.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.torch_extra import torch_or_skip

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "passes.py"
COMMITTED = ROOT / "witness" / "cost" / "h200"
SHARED = Path("/work/shared/data/h200-passes")


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_passes", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while building
    spec.loader.exec_module(module)
    return module


passes = _load()


def committed(name: str) -> dict[str, Any]:
    for folder in (COMMITTED, SHARED):
        if (folder / name).is_file():
            loaded: dict[str, Any] = json.loads((folder / name).read_text(encoding="utf-8"))
            return loaded
    pytest.skip(f"{name} is neither in witness/cost/h200/ nor in {SHARED}")


def test_loading_the_script_does_not_import_torch() -> None:
    assert "torch" not in vars(passes)
    code = f"import runpy, sys; runpy.run_path({str(SCRIPT)!r}); print('torch' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip() == "False"


def test_parameter_counts_from_the_shapes_are_the_committed_ones() -> None:
    params = committed("passes.json")["params"]
    assert {name: passes.param_count(shape) for name, shape in passes.SHAPES.items()} == params
    assert params == {
        "llama-3.1-8b": 8_030_261_248,
        "llama-3.2-1b": 1_235_814_400,
        "llama-3.1-70b": 70_553_706_496,
    }


def test_a_tied_model_counts_its_embeddings_once() -> None:
    one_b = passes.SHAPES["llama-3.2-1b"]
    untied = passes.Shape(**{**{f: getattr(one_b, f) for f in one_b.__slots__}, "tied": False})
    assert passes.param_count(untied) - passes.param_count(one_b) == 128_256 * 2_048


@pytest.mark.parametrize("name", ["passes-grid.json", "passes-compiled.json"])
def test_the_writer_writes_the_committed_format(name: str, tmp_path: Path) -> None:
    figures = committed(name)
    run = passes.Run("llama-3.1-8b", "own", 1, 512, (1, 5), eager=False)
    rows = [
        passes.make_row(run, 1, None, (7.0, 6.9), 0.4),
        passes.make_row(run, 5, (19.0, 18.0), (7.6, 7.5), 0.5),
    ]
    env = {"torch": "2.11.0+cu130", "device": "cuda", "gpu": "NVIDIA H200", "sms": 132}
    out = tmp_path / name
    passes.write(out, passes.document(env, rows, 12.5, measured="2026-12-04"))
    written = json.loads(out.read_text(encoding="utf-8"))

    # the same keys, in the same order, on every row
    assert {tuple(row) for row in figures["rows"]} == {tuple(row) for row in written["rows"]}
    assert set(figures) <= set(written)
    assert list(written["env"]) == list(figures["env"])
    assert written["env"]["transformers"] is None and written["env"]["memory_gb"] is None
    assert written["params"] == figures["params"]
    assert written["measured"] == "2026-12-04" and written["method"].strip()
    assert "\n" not in written["method"]
    assert written["rows"][0]["eager_ms"] is None and written["rows"][1]["graph_min_ms"] == 7.5


def test_the_first_run_s_rows_are_the_writer_s_less_the_wall_time() -> None:
    figures = committed("passes.json")
    own = {tuple(row) for row in figures["rows"] if row["way"] == "own"}
    assert own == {tuple(key for key in passes.ROW_KEYS if key != "wall_s")}


def _points(rows: list[dict[str, Any]]) -> list[tuple[str, str, int, int, int]]:
    return [(r["model"], r["way"], r["batch"], r["context"], r["s"]) for r in rows]


@pytest.mark.parametrize(
    ("mode", "name"),
    [("main", "passes.json"), ("grid", "passes-grid.json"), ("compiled", "passes-compiled.json")],
)
def test_each_plan_measures_the_committed_points(mode: str, name: str) -> None:
    rows = [row for row in committed(name)["rows"] if row["way"] != "hf"]  # not re-measured
    assert passes.points(passes.plan(mode)) == _points(rows)
    eager = {point for point, row in zip(_points(rows), rows, strict=True) if row["eager_ms"]}
    assert eager == {
        (r.model, r.way, r.batch, r.context, s)
        for r in passes.plan(mode)
        if r.eager
        for s in r.widths
    }


def test_the_plans_are_what_the_docstring_says() -> None:
    doc = passes.__doc__
    pair = ("llama-3.1-8b", "llama-3.2-1b")
    main = passes.plan("main")
    assert {(r.model, r.batch, r.context) for r in main} == {
        (m, b, c) for m in pair for b, c in ((1, 512), (8, 512), (32, 512), (1, 8192))
    }
    assert {r.widths for r in main} == {(1, 2, 3, 4, 5, 6, 8, 12, 16)}
    assert (
        "s = 1, 2, 3, 4, 5, 6, 8, 12, 16" in doc
        and "(1, 512), (8, 512), (32, 512), (1, 8192)" in doc
    )

    grid = passes.plan("grid")
    assert not any(r.eager for r in grid) and {r.widths for r in grid} == {(1, 2, 3, 5, 9, 17)}
    cells = {(b, 512) for b in (1, 2, 4, 8, 16, 32, 64)} | {
        (b, c) for b in (1, 8, 32) for c in (2048, 8192)
    }
    assert [(r.model, r.batch, r.context) for r in grid][-1] == ("llama-3.1-70b", 8, 512)
    assert {(r.model, r.batch, r.context) for r in grid[:-1]} == {
        (m, b, c) for m in pair for b, c in cells
    }
    assert len(grid[:-1]) == 26 and "s = 1, 2, 3, 5, 9, 17" in doc

    compiled = passes.plan("compiled")
    assert compiled[0] == passes.Run("llama-3.1-70b", "own", 1, 512, (1, 2, 5, 9, 16))
    assert compiled[1:] == [
        passes.Run(m, "own-compiled", 1, 512, (1, 5)) for m in (*pair, "llama-3.1-70b")
    ]

    quick = passes.points(passes.plan("quick"))
    assert sorted(quick) == sorted(
        (m, w, 1, 512, s) for m in pair for w in ("own", "own-compiled") for s in (1, 5)
    )
    assert "--quick" in doc and "batch 1, context\n              512, s = 1, 5" in doc


def test_models_keeps_only_the_named_models() -> None:
    kept = passes.plan("compiled", ["llama-3.2-1b"])
    assert kept == [passes.Run("llama-3.2-1b", "own-compiled", 1, 512, (1, 5))]
    with pytest.raises(ValueError, match="unknown mode"):
        passes.plan("fast")


def test_without_torch_it_exits_2_saying_so(tmp_path: Path) -> None:
    # a torch that cannot be imported shadows any real one, so this holds wherever it runs
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text(
        "raise ModuleNotFoundError('No module named torch', name='torch')\n"
    )
    out = tmp_path / "passes-quick.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(out), "--quick"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "torch" in lines[0] and "not installed" in lines[0]
    assert not out.exists()


def test_with_torch_and_no_cuda_device_it_exits_2_saying_so(tmp_path: Path) -> None:
    torch = torch_or_skip()
    out = tmp_path / "passes-quick.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(out), "--quick"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        # hides any CUDA device, so this holds on a machine with one too
        env={"PATH": "/usr/bin:/bin", "CUDA_VISIBLE_DEVICES": ""},
        timeout=120,
    )
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert lines == [
        f"bench/passes.py: needs a CUDA device, and torch {torch.__version__} sees none"
    ]
    assert not out.exists()


def test_a_pass_over_s_tokens_scores_as_s_passes_of_one() -> None:
    torch = torch_or_skip()
    shape = passes.Shape(2, 64, 128, 4, 2, 16, 300, tied=True)
    context, s = 10, 5
    model = passes.Decoder(torch, shape, 2, context + s, device="cpu")
    model.prefill(context)
    ids = torch.randint(0, shape.vocab, (2, s))
    with torch.inference_mode():
        whole = model.forward(ids, context)
        one_by_one = torch.cat([model.forward(ids[:, i : i + 1], context + i) for i in range(s)], 1)
    assert whole.shape == (2, s, shape.vocab)
    assert torch.allclose(whole, one_by_one, atol=1e-4)
