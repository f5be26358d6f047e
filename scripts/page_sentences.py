"""What the station says in 40 varied states, panel by panel: `python scripts/page_sentences.py`.

Renders the full page and the evidence fragment for every preset, every mode and the ends of
every range (in process, through the app itself), and writes each element's visible text
under the id of the element that holds it. Run it on two trees and pass both files to
`--compare` to list every sentence that changed: a refactor that keeps behaviour lists none.

    python scripts/page_sentences.py --out /tmp/before.json       # on the old tree
    python scripts/page_sentences.py --out /tmp/after.json        # on the new tree
    python scripts/page_sentences.py --compare /tmp/before.json /tmp/after.json
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# The recorded prediction each state is seen after: a skip shows the evidence without a
# comparison, lengthen_k adds the before/after comparison against its base.
SKIP = {"pred": "skip"}

STATES: dict[str, dict[str, str]] = {
    "defaults": {},
    "greedy": {"greedy": "on"},
    "verify-off": {"verify": "off"},
    "repair-off": {"repair": "off"},
    "p-equals-q": {"match": "1"},
    "alpha-near-0": {"match": "0", "draft_source": "adversary"},
    "match-0": {"match": "0"},
    "match-0.005": {"match": "0.005"},
    "k-1": {"k": "1"},
    "k-16": {"k": "16"},
    "draft-free": {"draft_cost": "0"},
    "draft-dear": {"draft_cost": "1"},
    "verify-off-draft-free": {"verify": "off", "draft_cost": "0"},
    "tokens-1": {"tokens": "1"},
    "tokens-256-k16": {"tokens": "256", "k": "16"},
    "seed-max": {"seed": "999999"},
    "tree-2": {"tree_width": "2"},
    "tree-4-top": {"tree_width": "4", "drafting": "top", "k": "2"},
    "typical": {"acceptance": "typical"},
    "lookup": {"draft_source": "lookup"},
    "greedy-adversary": {"greedy": "on", "draft_source": "adversary"},
    "batch-256-h100": {"machine": "h100", "pair": "llama-8b-1b", "batch": "256"},
    "context-long": {"context": "32768"},
    "tpot-ttft-ends": {"tpot_ms": "1", "ttft_ms": "0"},
    "greedy-repair-off": {"greedy": "on", "repair": "off"},
    "lengthen-k": {
        "pred": "lengthen_k",
        "expect_faster": "yes",
        "expect_kept": "yes",
        "base": "0.6,4,0.1,1,1,0",
        "k": "8",
    },
    "skip-repair-predicted": {
        "pred": "skip_repair",
        "expect_faster": "yes",
        "expect_kept": "no",
        "base": "0.3,4,0.1,1,1,0",
        "match": "0.3",
        "repair": "off",
    },
}


def preset_states() -> dict[str, dict[str, str]]:
    from app.station.state.presets import PRESETS
    from app.station.state.query import StationState

    out = {}
    for p in PRESETS:
        q = StationState(settings=p.settings, prediction=None, block=None).query()
        out[f"preset-{p.id}"] = dict(q)
    return out


def _marks() -> dict[str, tuple[str, str]]:
    """A token's mark drawn by CSS, as a reader gets it: style -> (glyph, label)."""
    try:
        from app.station.views.marks import MARKS
    except ImportError:  # a tree that writes the marks into the HTML
        return {}
    return {m.style: (m.glyph, m.label) for m in MARKS.values()}


class _Text(HTMLParser):
    """Visible text, each run under the nearest enclosing element's id, and in page order.
    A token's mark drawn by the stylesheet is read as its glyph and, outside the legend,
    its label: what the eye and a screen reader get from it."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str | None, str]] = []
        self.skip = 0
        self.out: dict[str, list[str]] = {}
        self.flat: list[str] = []
        self.marks = _marks()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.VOID:
            return
        if tag in ("script", "style", "template"):
            self.skip += 1
        a = dict(attrs)
        self.stack.append((tag, a.get("id"), a.get("class") or ""))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        while self.stack:
            t, _, classes = self.stack.pop()
            if t in ("script", "style", "template"):
                self.skip -= 1
            if t == "span" and "tok" in classes.split():
                self._mark(classes)
            if t == tag:
                break

    def _mark(self, classes: str) -> None:
        styles = [c[5:] for c in classes.split() if c.startswith("tok--")]
        mark = next((self.marks[s] for s in reversed(styles) if s in self.marks), None)
        if mark is None:
            return
        in_legend = any("legend" in c.split() for _, _, c in self.stack)
        self._say(mark[0])
        if not in_legend:
            self._say(f"({mark[1]})")

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        self._say(re.sub(r"\s+", " ", data).strip())

    def _say(self, text: str) -> None:
        if not text:
            return
        where = next((i for _, i, _ in reversed(self.stack) if i), "(page)")
        self.out.setdefault(where, []).append(text)
        self.flat.append(text)


def sentences(html: str) -> dict[str, str]:
    """Each element's text by id, and the whole text in page order under "(in order)"."""
    p = _Text()
    p.feed(html)
    return {"(in order)": " ".join(p.flat), **{k: " ".join(v) for k, v in p.out.items()}}


def snapshot() -> dict[str, dict[str, str]]:
    import os
    import tempfile

    from fastapi.testclient import TestClient

    os.environ["STATION08_DATA_DIR"] = tempfile.mkdtemp(prefix="station08-sentences-")
    from app.config import AppSettings
    from app.main import create_app

    app = create_app(settings=AppSettings())

    states = {**{k: {**SKIP, **v} if "pred" not in v else v for k, v in STATES.items()}}
    states.update({k: {**SKIP, **v} for k, v in preset_states().items()})
    out: dict[str, dict[str, str]] = {}
    with TestClient(app) as client:
        for name, query in states.items():
            qs = urlencode(query)
            page = client.get(f"/station?{qs}")
            frag = client.get(f"/station/evidence?{qs}", headers={"HX-Request": "true"})
            if page.status_code != 200 or frag.status_code != 200:
                raise SystemExit(f"{name}: {page.status_code}/{frag.status_code} for ?{qs}")
            texts = {f"page#{k}": v for k, v in sentences(page.text).items()}
            texts.update({f"fragment#{k}": v for k, v in sentences(frag.text).items()})
            texts["fragment bytes"] = str(len(frag.content))
            out[name] = texts
    return out


def compare(before: dict, after: dict, by_id: bool = False) -> int:
    """Word differences of each state's page and fragment read in order (by element id with
    ``by_id``: where a difference lies, though a part moved to an element of its own shows
    there as a difference too)."""
    changed = 0
    for state in sorted(set(before) | set(after)):
        a, b = before.get(state, {}), after.get(state, {})
        for where in sorted(set(a) | set(b)):
            if where == "fragment bytes" or a.get(where) == b.get(where):
                continue
            if by_id == where.endswith("#(in order)"):
                continue
            changed += 1
            print(f"== {state} :: {where}")
            words_a = (a.get(where) or "").split(" ")
            words_b = (b.get(where) or "").split(" ")
            for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, words_a, words_b).get_opcodes():
                if op != "equal":
                    print(f"   - {' '.join(words_a[i1:i2])}\n   + {' '.join(words_b[j1:j2])}")
    sizes = [
        (s, before[s].get("fragment bytes"), after[s].get("fragment bytes"))
        for s in after
        if s in before
    ]
    print(f"{changed} changed texts over {len(after)} states")
    for s, x, y in sizes:
        print(f"   {s:32s} fragment {x:>7s} → {y:>7s} bytes")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out", type=Path, help="write the snapshot here (JSON)")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--by-id", action="store_true", help="compare element by element")
    args = ap.parse_args()
    if args.compare:
        before, after = (json.loads(p.read_text()) for p in args.compare)
        return compare(before, after, args.by_id)
    snap = snapshot()
    text = json.dumps(snap, indent=1, ensure_ascii=False, sort_keys=True)
    if args.out:
        args.out.write_text(text)
        print(f"{len(snap)} states → {args.out}")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
