"""The contract's generated files are what Python says, and a stale one is caught.

docs/route-memory.schema.json, static/js/contract.js and static/vendor/route-memory-validator.js
are written by `python -m app.contract.generate` (at `make setup`) from app/contract/route.py
and witness/core/settings.py; the files on disk must equal a fresh generation.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from app.contract import generate, route
from app.contract.generate import (
    CONTRACT_JS,
    FIT_MD,
    MARKS_CSS,
    SCHEMA,
    SETTINGS_MD,
    VALIDATOR_JS,
    main,
    outputs,
    stale,
)
from app.contract.route import SETTINGS_ADDED_LATER
from app.contract.schema import route_memory_schema
from witness.core.settings import Settings, field_bounds

ROOT = generate.ROOT
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node comes with make setup")


@pytest.fixture(scope="module")
def fresh() -> dict[Path, str]:
    return outputs()


@needs_node
def test_the_generated_files_on_disk_equal_a_fresh_generation(fresh: dict[Path, str]) -> None:
    assert set(fresh) == {SCHEMA, CONTRACT_JS, VALIDATOR_JS, SETTINGS_MD, MARKS_CSS, FIT_MD}
    assert stale(ROOT, fresh) == [], "run `python -m app.contract.generate` and commit the result"


@needs_node
def test_generation_is_deterministic(fresh: dict[Path, str]) -> None:
    assert outputs() == fresh


def _copy_generated(tmp_path: Path, fresh: dict[Path, str]) -> None:
    for path, text in fresh.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")


@needs_node
@pytest.mark.parametrize(
    ("path", "old", "new"),
    [
        (
            SCHEMA,
            '"k": {"type": "integer", "minimum": 1, "maximum": 16}',
            '"k": {"type": "integer", "minimum": 1, "maximum": 17}',
        ),
        (CONTRACT_JS, '"maximum": 600000', '"maximum": 600001'),
        (SETTINGS_MD, "an integer from 1 to 16", "an integer from 1 to 17"),
        (VALIDATOR_JS, "10000", "10001"),
        (MARKS_CSS, '"✓" / "accepted"', '"✓" / "kept"'),
    ],
)
def test_teeth_a_file_with_one_bound_moved_is_reported_stale(
    fresh: dict[Path, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    path: Path,
    old: str,
    new: str,
) -> None:
    _copy_generated(tmp_path, fresh)
    assert main(["--check"], root=tmp_path) == 0
    text = fresh[path]
    assert old in text, f"the drift no longer applies to {path}"
    (tmp_path / path).write_text(text.replace(old, new, 1), encoding="utf-8")
    capsys.readouterr()
    assert main(["--check"], root=tmp_path) == 1
    assert f"stale: {path}" in capsys.readouterr().err
    assert stale(tmp_path, fresh) == [path]


@needs_node
def test_teeth_a_missing_file_is_stale_and_writing_repairs_it(
    fresh: dict[Path, str], tmp_path: Path
) -> None:
    _copy_generated(tmp_path, fresh)
    (tmp_path / CONTRACT_JS).unlink()
    assert main(["--check"], root=tmp_path) == 1
    assert main([], root=tmp_path) == 0
    assert stale(tmp_path, fresh) == []


def test_the_schema_file_is_the_python_schema_and_says_it_is_generated() -> None:
    on_disk = json.loads((ROOT / SCHEMA).read_text(encoding="utf-8"))
    assert on_disk == route_memory_schema()
    assert "python -m app.contract.generate" in on_disk["$comment"]
    assert "do not edit" in on_disk["$comment"]


def test_every_generated_js_file_says_so_in_its_first_lines() -> None:
    for path in (CONTRACT_JS, VALIDATOR_JS):
        head = "\n".join((ROOT / path).read_text(encoding="utf-8").splitlines()[:4])
        assert head.startswith("// GENERATED: do not edit.")
        assert "python -m app.contract.generate" in head


def test_the_validator_is_csp_safe_and_self_contained() -> None:
    """script-src 'self' without 'unsafe-eval': no eval, no new Function, no bare import."""
    text = (ROOT / VALIDATOR_JS).read_text(encoding="utf-8")
    assert not re.search(r"\beval\s*\(|new\s+Function\b|\bFunction\s*\(", text)
    assert not re.search(r"^\s*import\b", text, re.M), "the browser cannot resolve bare imports"
    # What is left of CommonJS is esbuild's own wrapper, never a call of Node's require.
    assert not re.search(r"(?<![\w.'\"])require\(", text)
    assert re.search(r"^export \{", text, re.M)


# --------------------------------------------------------------------------- field by field

TYPES = {
    "bool": "boolean",
    "int": "integer",
    "float": "number",
    "str": "string",
    "choice": "string",
}


def _defs() -> dict[str, Any]:
    defs: dict[str, Any] = route_memory_schema()["$defs"]
    return defs


def _assert_is_setting(node: dict[str, Any], name: str) -> None:
    b = field_bounds(name)
    assert node["type"] == TYPES[b["kind"]], name
    assert node.get("minimum") == b.get("ge"), name
    assert node.get("exclusiveMinimum") == b.get("gt"), name
    assert node.get("maximum") == b.get("le"), name
    assert node.get("exclusiveMaximum") == b.get("lt"), name
    assert node.get("maxLength") == b.get("max_length"), name
    assert node.get("minLength", 0) == b.get("min_length", 0), name
    assert node.get("enum") == (list(b["choices"]) if "choices" in b else None), name


def test_the_settings_block_is_what_settings_says_field_by_field() -> None:
    block = _defs()["speculativeCheckpoint"]["properties"]["settings"]
    assert list(block["properties"]) == list(Settings.model_fields)
    # Old checkpoints lack the settings added since; they must still load (as defaults).
    assert block["required"] == [n for n in Settings.model_fields if n not in SETTINGS_ADDED_LATER]
    assert set(SETTINGS_ADDED_LATER) <= set(Settings.model_fields)
    assert block["additionalProperties"] is False
    for name in Settings.model_fields:
        _assert_is_setting(block["properties"][name], name)


def test_the_serving_workload_bounds_are_the_settings_they_feed() -> None:
    workload = _defs()["servingCheckpoint"]["properties"]["workload"]
    for w in route.WORKLOAD:
        _assert_is_setting(workload["properties"][w.checkpoint], w.setting)
    assert set(workload["required"]) == {w.checkpoint for w in route.WORKLOAD if not w.optional}
    assert set(workload["properties"]) == {w.checkpoint for w in route.WORKLOAD} | {"notes"}


def test_the_lists_and_ids_come_from_the_route_module() -> None:
    defs = _defs()
    spec = defs["speculativeCheckpoint"]["properties"]
    assert defs["stationId"]["enum"] == [s for s, _ in route.STATIONS]
    assert spec["object"]["const"] == route.OBJECT_ID
    assert spec["prediction"]["oneOf"][1]["properties"]["intervention"]["enum"] == [
        i.value for i in route.Intervention
    ]
    assert spec["invariant"]["properties"]["mode"]["enum"] == list(route.MODES)
    _assert_is_setting(spec["speedupBoundary"]["properties"]["optimalK"], "k")
    assert defs["export"]["properties"]["entries"]["maxItems"] == len(route.STATIONS)
    assert defs["export"]["properties"]["kind"]["const"] == route.EXPORT_KIND
    assert defs["entry"]["properties"]["version"]["const"] == route.MEMORY_VERSION
    assert route.READS == tuple(route.CARRY_IN)


# --------------------------------------------------------------------------- no copies left

HAND_WRITTEN_JS = sorted(
    p
    for p in (ROOT / "static" / "js").glob("*.js")
    if p.name not in {CONTRACT_JS.name, VALIDATOR_JS.name}
)
TEMPLATES = sorted((ROOT / "templates").rglob("*.html"))
TITLES = [t for _, t in route.STATIONS]


def _literals() -> list[str]:
    """What a hand-written copy would contain: ids, keys, the large bounds, interventions."""
    large = {
        int(b["le"]) for n in Settings.model_fields if (b := field_bounds(n)).get("le", 0) >= 1000
    }
    return [
        route.OBJECT_ID,
        route.KEY_PREFIX,
        route.STUDY_KEY,
        route.EXPORT_KIND,
        f"{route.ROUTE_ID}/",
        *(str(n) for n in sorted(large)),
        *(f'"{i.value}"' for i in route.Intervention if i.value != "skip"),
    ]


def _found(literal: str, text: str) -> bool:
    if literal.isdigit():
        return re.search(rf"(?<![\w.]){literal}(?![\w.])", text) is not None
    return literal in text


def test_the_literals_checked_for_are_real() -> None:
    literals = _literals()
    assert {"600000", "2147483647", "10000"} <= set(literals)
    generated = (ROOT / CONTRACT_JS).read_text(encoding="utf-8")
    assert all(_found(lit, generated) for lit in literals)  # each would be found if copied
    assert len([t for t in TITLES if t in generated]) > 2  # so would the list of titles


@pytest.mark.parametrize(
    "path", [*HAND_WRITTEN_JS, *TEMPLATES], ids=lambda p: str(p.relative_to(ROOT))
)
def test_no_hand_written_copy_of_the_contract_remains(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    found = [lit for lit in _literals() if _found(lit, text)]
    assert not found, (
        f"{path.name} copies {found}: import it from contract.js (or route.* in a template)"
    )
    titles = [t for t in TITLES if t in text]
    assert len(titles) <= 2, f"{path.name} lists the stations by hand: {titles}"
