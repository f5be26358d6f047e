"""Write (or check) every file generated from the route contract.

    python -m app.contract.generate          # write them
    python -m app.contract.generate --check  # exit 1, naming each file that is stale

From app/contract/route.py and witness/core/settings.py (through app/contract/schema.py):

- docs/route-memory.schema.json: the JSON Schema other stations rely on;
- static/js/contract.js: the constants the browser's modules import;
- static/vendor/route-memory-validator.js: the browser's validator, compiled from that schema
  by scripts/compile-validator.mjs (Ajv standalone code bundled by esbuild; needs `npm ci`);
- docs/settings.md: every setting of the server and of the instrument, from their models
  (app/contract/settings_doc.py);
- static/css/marks.css: a served token's marks and their alternative text
  (app/station/views/marks.py);
- docs/h200-fit.md: the H200 pass model's error at every timed pass (witness/cost/passes.py).

The schema, contract.js, settings.md and marks.css are committed, so the contract reads in the
repository as it is served. The validator is a build product, mostly Ajv's own run-time
code: like htmx, it is made at set-up into static/vendor/ (git-ignored) and never committed.
The output is deterministic (fixed key order, pinned npm versions), and `make setup`
regenerates them all.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.classes import contract as live_class
from app.classes.codes import CODE_SHAPE
from app.contract import route
from app.contract.schema import (
    STATION_URL_MAX,
    STATION_URL_PATTERN,
    TIMESTAMP_MAX,
    route_memory_schema,
    setting_schema,
)
from app.contract.settings_doc import settings_md
from app.rendering.parts import HEADER as PARTS_HEADER
from app.station.views.marks import marks_css
from witness.core.settings import Settings, field_bounds
from witness.cost.costing import passes
from witness.cost.passes import fit_report

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = Path("docs/route-memory.schema.json")
CONTRACT_JS = Path("static/js/contract.js")
VALIDATOR_JS = Path("static/vendor/route-memory-validator.js")
SETTINGS_MD = Path("docs/settings.md")
MARKS_CSS = Path("static/css/marks.css")
FIT_MD = Path("docs/h200-fit.md")
COMPILER = Path("scripts/compile-validator.mjs")
WIDTH = 100  # a JSON object or list that fits on one line of this width is written on one


def dump_json(node: Any, indent: int = 0, column: int | None = None) -> str:
    """JSON with short objects and lists on one line, longer ones one member a line.

    `indent` is the nesting's indentation, `column` where the value starts on its line.

    >>> print(dump_json({"a": [1, 2], "b": {"c": None}}))
    {"a": [1, 2], "b": {"c": null}}
    """
    flat = json.dumps(node, ensure_ascii=False, separators=(", ", ": "))
    start = indent if column is None else column
    if not isinstance(node, dict | list) or not node or start + len(flat) <= WIDTH:
        return flat
    pad = " " * (indent + 2)
    if isinstance(node, list):
        items = [pad + dump_json(v, indent + 2) for v in node]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    members = []
    for k, v in node.items():
        key = json.dumps(k, ensure_ascii=False)
        members.append(f"{pad}{key}: {dump_json(v, indent + 2, len(pad) + len(key) + 2)}")
    return "{\n" + ",\n".join(members) + "\n" + " " * indent + "}"


def schema_text() -> str:
    return dump_json(route_memory_schema()) + "\n"


def contract_js() -> str:
    def const(name: str, value: Any, why: str) -> str:
        return f"// {why}\nexport const {name} = {dump_json(value)};\n"

    settings = {
        name: {"kind": field_bounds(name)["kind"], **setting_schema(name)}
        for name in Settings.model_fields
    }
    parts = [
        "// GENERATED: do not edit. The route contract's constants for the browser, from\n"
        "// app/contract/route.py and witness/core/settings.py, written by\n"
        "// `python -m app.contract.generate` (`make setup` runs it; a test checks it is fresh).\n",
        const(
            "STATIONS",
            [list(s) for s in route.STATIONS],
            "The ten stations, in route order: [id, title].",
        ),
        const("STATION_ID", route.STATION_ID, "This station."),
        const(
            "ROUTE_ID",
            route.ROUTE_ID,
            "Object ids are route:<ROUTE_ID>/<station>#<station>-station.",
        ),
        const("OBJECT_ID", route.OBJECT_ID, "This station's object id."),
        const("KEY_PREFIX", route.KEY_PREFIX, "One localStorage key per station: KEY_PREFIX + id."),
        const("MEMORY_VERSION", route.MEMORY_VERSION, "The version of a route-memory entry."),
        const("EXPORT_KIND", route.EXPORT_KIND, "The kind of an exported route-memory file."),
        const("MAX_BYTES", route.MEMORY_MAX_BYTES, "The largest stored entry read, in characters."),
        const(
            "MAX_DEPTH",
            route.MEMORY_MAX_DEPTH,
            "The deepest nesting of objects and lists a stored entry may have.",
        ),
        const("STUDY_KEY", route.STUDY_KEY, "The study card's own key."),
        const("READS", list(route.READS), "The stations whose entries the carry-in checks."),
        const(
            "WORKLOAD",
            [[w.setting, w.checkpoint, w.optional] for w in route.WORKLOAD],
            "The Serving workload: [setting (query parameter), field of checkpoint.workload, "
            "optional: a Serving checkpoint may leave it out].",
        ),
        const(
            "SETTINGS",
            settings,
            "witness.Settings fields: kind and bounds (the v0 migration reads the kinds).",
        ),
        const("INTERVENTIONS", [i.value for i in route.Intervention], "Prediction interventions."),
        const("MODES", list(route.MODES), "How a block is checked."),
        const(
            "PARTS_HEADER",
            PARTS_HEADER,
            "The request header naming the page parts a fragment may leave out.",
        ),
        const("STATION_URL_PATTERN", STATION_URL_PATTERN, "A reopenable checkpoint link."),
        const("STATION_URL_MAX", STATION_URL_MAX, "The longest reopenable link."),
        const("TIMESTAMP_MAX", TIMESTAMP_MAX, "The longest date-time text accepted."),
        *class_consts(const),
    ]
    return "\n".join(parts)


def class_consts(const: Any) -> list[str]:
    """The live class's constants (app/classes/contract.py, app/classes/codes.py)."""
    presets = {
        p.id: {
            "number": p.number,
            "title": p.title,
            "shown": p.shown_title,
            "prompt": str(p.question),
            "url": p.url,
        }
        for p in live_class.CLASS_PRESETS
    }
    return [
        const("CLASS_KEY", live_class.CLASS_KEY, "A learner's class membership (localStorage)."),
        const("CLASS_VERSION", live_class.CLASS_VERSION, "The version of a class membership."),
        const(
            "CLASS_POLL_MS",
            live_class.LEARNER_POLL_MS,
            "How often a joined, visible station asks its class's state, in ms.",
        ),
        const("CLASS_CODE_PATTERN", f"^{CODE_SHAPE.pattern}$", "What a class code looks like."),
        const("LEARNER_ID_PATTERN", live_class.LEARNER_ID_PATTERN, "A learner's random id."),
        const(
            "CLASS_INTERVENTIONS",
            [i.value for i in live_class.CLASS_INTERVENTIONS],
            "What a class counts: the five interventions (a skip is not sent).",
        ),
        const(
            "CLASS_PRESETS",
            presets,
            "Each preset as a class question: its number, title, the title shown before the "
            "reveal, its prompt (what the learner's answers answer), and the station's link at it.",
        ),
    ]


class GenerateError(RuntimeError):
    """The validator could not be compiled (Node or node_modules missing, or Ajv refused)."""


def validator_js(schema: str, root: Path = ROOT) -> str:
    """The compiled validator for a schema's text (root holds node_modules and scripts/)."""
    node = shutil.which("node")
    if node is None:
        raise GenerateError("node is not installed (Node 20 is needed to compile the validator)")
    if (
        not (root / "node_modules" / "ajv").is_dir()
        or not (root / "node_modules" / "esbuild").is_dir()
    ):
        raise GenerateError("node_modules lacks ajv or esbuild: run `npm ci` (make setup does)")
    done = subprocess.run(
        [node, str(root / COMPILER)],
        input=schema,
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        raise GenerateError(f"{COMPILER} failed:\n{done.stderr}")
    return done.stdout


def outputs() -> dict[Path, str]:
    """Every generated file (relative path → text), freshly generated."""
    schema = schema_text()
    return {
        SCHEMA: schema,
        CONTRACT_JS: contract_js(),
        VALIDATOR_JS: validator_js(schema),
        SETTINGS_MD: settings_md(),
        MARKS_CSS: marks_css(),
        FIT_MD: fit_report(passes()),
    }


def stale(root: Path = ROOT, fresh: dict[Path, str] | None = None) -> list[Path]:
    """The generated files under root that differ from a fresh generation (or are missing)."""
    fresh = outputs() if fresh is None else fresh
    out = []
    for path, text in fresh.items():
        target = root / path
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            out.append(path)
    return out


def main(argv: Sequence[str] | None = None, root: Path = ROOT) -> int:
    """Generate with this checkout's tools; write (or check) the files under root."""
    parser = argparse.ArgumentParser(
        prog="python -m app.contract.generate", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    try:
        fresh = outputs()
    except GenerateError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    old = stale(root, fresh)
    if args.check:
        for path in old:
            print(f"stale: {path} (run `python -m app.contract.generate`)", file=sys.stderr)
        return 1 if old else 0
    for path in old:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(fresh[path], encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
