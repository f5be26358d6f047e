"""The browser's route-memory checks agree with the JSON Schema, case by case.

The browser validates with static/vendor/route-memory-validator.js, compiled from
docs/route-memory.schema.json by Ajv (`python -m app.contract.generate`), and
static/js/memory.js turns its errors into sentences for the learner. Two things could still
go wrong: the compiled code could judge differently from Python's jsonschema (a format check,
a keyword), or memory.js could lose an error on its way to a sentence. Here both sides judge
the same systematic set of documents: the contract's valid examples and a checkpoint the
server computes, then every mutation of them that one edit makes (each field deleted,
replaced by a value of every other JSON type, pushed past its range or length, or joined by
an unknown field). The JS runs in Node, the modules exactly as the page imports them.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from fastapi.testclient import TestClient

from app.contract import generate
from app.contract.route import SETTINGS_ADDED_LATER
from app.main import create_app
from tests.app.forms import PREDICTED

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = json.loads((ROOT / "docs" / "route-memory.schema.json").read_text(encoding="utf-8"))
# The date-time format is checked for real: rfc3339-validator is a test dependency.
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker())
NODE = shutil.which("node")

REPLACEMENTS: tuple[Any, ...] = (
    None,
    True,
    "text",
    "x" * 2001,
    0,
    -1,
    0.5,
    1.5,
    257,
    10**9,
    [],
    {},
    "2026-11-29",  # a date without a time is not a date-time
    "2026-11-29T09:30:00Z",
    "2026-11-29T09:30:00.123456+05:30",
    "2026-11-29t09:30:00z",
    "2026-02-30T00:00:00Z",  # Date.parse rolls this over into March
    "2024-02-29T23:59:59Z",
    "2026-13-01T00:00:00Z",
    # Where ajv-formats' own "date-time" is looser than RFC 3339 (and than rfc3339-validator).
    "2026-11-29 09:30:00Z",
    "2026-11-29T09:30:00+0530",
    "2026-11-29T09:30:00",
    "2016-12-31T23:59:60Z",
    "0000-01-01T00:00:00Z",
    "2026-11-29T24:00:00Z",
    "/station?k=3",
    "javascript:alert(1)",
    # What the server refuses in a prompt and a time, and the browser must refuse too.
    "a\x00b",
    "tab\there",
    "\x85",
    "\ufffd",
    "plain words, é and 中文",
    1e-320,
    5e-324,
    2.2250738585072014e-308,  # the smallest normal number: allowed
)


def _schema_edges(node: Any) -> Iterator[Any]:
    """Values at and just past every bound the schema states, so a range drift shows."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
                yield from (value, value - 1, value + 1, value - 0.5, value + 0.5)
            elif key == "maxLength":
                yield from ("x" * value, "x" * (value + 1))
            else:
                yield from _schema_edges(value)
    elif isinstance(node, list):
        for item in node:
            yield from _schema_edges(item)


EDGES: tuple[Any, ...] = tuple(
    {json.dumps(v): v for v in (*REPLACEMENTS, *_schema_edges(SCHEMA))}.values()
)


def _examples() -> list[dict[str, Any]]:
    text = (ROOT / "docs" / "route-memory.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```json\n(.*?)```", text, re.S)
    return [json.loads(b) for b in blocks if '"checkpoint"' in b and '"…"' not in b]


def _paths(doc: Any, at: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield (*at, k)
            yield from _paths(v, (*at, k))


def _edit(doc: dict[str, Any], path: tuple[str, ...], value: Any, *, delete: bool = False) -> Any:
    out = copy.deepcopy(doc)
    parent = out
    for k in path[:-1]:
        parent = parent[k]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return out


def _mutations(doc: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    yield "as is", doc
    yield "unknown top-level field", {**doc, "extra": 1}
    for path in _paths(doc):
        where = ".".join(path)
        yield f"{where} deleted", _edit(doc, path, None, delete=True)
        for value in EDGES:
            yield f"{where} = {json.dumps(value)[:30]}", _edit(doc, path, value)
        parent_path = path[:-1]
        if parent_path:
            parent = doc
            for k in parent_path:
                parent = parent[k]
            if isinstance(parent, dict):
                bigger = {**parent, "zz_unknown": 1}
                yield f"{'.'.join(parent_path)} + unknown field", _edit(doc, parent_path, bigger)


JS = ROOT / "static" / "js"


def _js_problems(docs: list[Any], module: Path = JS / "memory.js") -> list[list[str]]:
    assert NODE is not None
    script = (
        f"import {{ entryProblems }} from {json.dumps(module.as_uri())};"
        "let input = '';"
        "process.stdin.on('data', (d) => (input += d));"
        "process.stdin.on('end', () => {"
        "  const out = JSON.parse(input).map((doc) => entryProblems(doc));"
        "  process.stdout.write(JSON.stringify(out));"
        "});"
    )
    done = subprocess.run(
        [NODE, "--input-type=module", "--no-warnings", "-e", script],
        input=json.dumps(docs),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result: list[list[str]] = json.loads(done.stdout)
    return result


@pytest.fixture(scope="module")
def bases() -> list[dict[str, Any]]:
    with TestClient(create_app()) as client:
        computed = client.get(f"/api/checkpoint?{PREDICTED}").json()
    return [*_examples(), computed]


Judged = list[tuple[str, Any, bool]]  # (what was edited, the document, the schema's verdict)


@pytest.fixture(scope="module")
def judged(bases: list[dict[str, Any]]) -> Judged:
    cases = [
        (f"{base['station']}: {name}", doc) for base in bases for name, doc in _mutations(base)
    ]
    return [(name, doc, VALIDATOR.is_valid(doc)) for name, doc in cases]


def _disagreements(judged: Judged, module: Path) -> list[str]:
    assert len(judged) > 500  # the set is systematic, not a handful
    assert any(ok for *_, ok in judged) and not all(ok for *_, ok in judged)
    out = []
    browser = _js_problems([doc for _, doc, _ in judged], module)
    for (name, _, schema_ok), problems in zip(judged, browser, strict=True):
        if schema_ok != (problems == []):
            verdict = "accepts" if schema_ok else "rejects"
            out.append(f"{name}: the schema {verdict} it, the browser says {problems[:2]}")
    return out


needs_node = pytest.mark.skipif(NODE is None, reason="node comes with `make setup` (npm)")


@needs_node
def test_the_browser_validator_and_the_schema_agree_on_every_one_edit_mutation(
    judged: Judged,
) -> None:
    disagreements = _disagreements(judged, JS / "memory.js")
    assert not disagreements, "\n".join(disagreements[:40])


def _field_of(name: str) -> str:
    """The field a mutation edited, as the learner's sentence should name it."""
    where = name.split(": ", 1)[1]
    for sep in (" deleted", " + unknown field", " = "):
        if sep in where:
            return where.split(sep)[0]
    return ""


@needs_node
def test_every_rejection_is_said_in_words_naming_the_field(judged: Judged) -> None:
    rejected = [(name, doc) for name, doc, ok in judged if not ok]
    unnamed = []
    for (name, _), problems in zip(rejected, _js_problems([d for _, d in rejected]), strict=True):
        field = _field_of(name)
        said = " ".join(problems)
        if field and field.split(".")[-1] not in said or field.count(".") and field not in said:
            unnamed.append(f"{name}: {problems[:3]}")
        assert all(isinstance(p, str) and p and "undefined" not in p for p in problems), name
    assert not unnamed, "\n".join(unnamed[:40])


def _drifted_memory(
    tmp_path: Path,
    *,
    schema: str | None = None,
    validator: str | None = None,
    memory: tuple[str, str] | None = None,
) -> Path:
    """memory.js beside its two generated modules, one of the three drifted."""
    out, vendor = tmp_path / "js", tmp_path / "vendor"
    out.mkdir()
    vendor.mkdir()
    for name in ("memory.js", "contract.js"):
        shutil.copy(JS / name, out / name)
    checker = vendor / "route-memory-validator.js"
    shutil.copy(ROOT / generate.VALIDATOR_JS, checker)
    if schema is not None:
        checker.write_text(generate.validator_js(schema), encoding="utf-8")
    if validator is not None:
        checker.write_text(validator, encoding="utf-8")
    if memory is not None:
        source = (JS / "memory.js").read_text(encoding="utf-8")
        assert memory[0] in source, f"the drift {memory[0]!r} no longer applies to memory.js"
        (out / "memory.js").write_text(source.replace(memory[0], memory[1]), encoding="utf-8")
    return out / "memory.js"


@needs_node
def test_teeth_a_validator_compiled_from_a_schema_with_one_bound_moved_is_caught(
    judged: Judged, tmp_path: Path
) -> None:
    text = generate.schema_text()
    old = '"k": {"type": "integer", "minimum": 1, "maximum": 16}'
    assert old in text
    drifted = text.replace(old, old.replace("16", "17"))
    assert _disagreements(judged, _drifted_memory(tmp_path, schema=drifted))


@needs_node
def test_teeth_dates_checked_by_date_parse_are_caught(judged: Judged, tmp_path: Path) -> None:
    root = tmp_path / "tools"
    shutil.copytree(ROOT / "scripts", root / "scripts")
    (root / "node_modules").symlink_to(ROOT / "node_modules")
    formats = root / "scripts" / "rfc3339.cjs"
    old = "function dateTime(text) {"
    source = formats.read_text(encoding="utf-8")
    assert old in source
    formats.write_text(
        source.replace(old, old + " return !Number.isNaN(Date.parse(text));"), encoding="utf-8"
    )
    validator = generate.validator_js(generate.schema_text(), root)
    assert _disagreements(judged, _drifted_memory(tmp_path, validator=validator))


@needs_node
@pytest.mark.parametrize(
    ("drift", "old", "new"),
    [
        (
            "unknown fields not said",
            'if (keyword === "additionalProperties") {',
            'if (keyword === "additionalProperties") { return null;',
        ),
        ("oneOf type errors dropped", "if (same[0] !== err) return null;", "return null;"),
        ("the validator's verdict ignored", "validateEntry(entry) ? [] :", "true ? [] :"),
    ],
)
def test_teeth_a_sentence_mapping_that_loses_errors_is_caught(
    judged: Judged, tmp_path: Path, drift: str, old: str, new: str
) -> None:
    assert _disagreements(judged, _drifted_memory(tmp_path, memory=(old, new))), drift


@needs_node
def test_a_checkpoint_saved_before_the_drafting_settings_still_loads(
    bases: list[dict[str, Any]],
) -> None:
    """A learner's checkpoint from before the methods beside the chain has no tree_width, drafting, acceptance or
    draft_source: the schema and the browser both accept it (nothing saved is lost), while
    a checkpoint missing an older setting is still refused, so the test can fail."""
    computed = copy.deepcopy(bases[-1])
    settings = computed["checkpoint"]["settings"]
    old = copy.deepcopy(computed)
    for name in SETTINGS_ADDED_LATER:
        del old["checkpoint"]["settings"][name]
    assert set(SETTINGS_ADDED_LATER) <= set(settings)
    broken = copy.deepcopy(old)
    del broken["checkpoint"]["settings"]["k"]
    assert VALIDATOR.is_valid(old) and not VALIDATOR.is_valid(broken)
    assert _js_problems([old, broken]) == [[], _js_problems([broken])[0]]
    assert _js_problems([broken])[0]
    # A bad choice is refused by name, like any bad value.
    bad = copy.deepcopy(computed)
    bad["checkpoint"]["settings"]["drafting"] = "greedy"
    assert not VALIDATOR.is_valid(bad) and _js_problems([bad])[0]
