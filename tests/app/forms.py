"""A small HTML reader for tests: find elements by attribute, and submit a form as a browser would."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urlencode

# A recorded prediction (lengthen k from 4 to 8): the evidence is open under this query.
PREDICTED = "pred=lengthen_k&expect_faster=yes&expect_kept=yes&base=0.6,4,0.1,1,1,0&k=8"


class Element:
    def __init__(self, tag: str, attrs: dict[str, str]) -> None:
        self.tag, self.attrs = tag, attrs


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self.forms: list[tuple[Element, list[Element]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        el = Element(tag, {k: v or "" for k, v in attrs})
        self.elements.append(el)
        if tag == "form":
            self.forms.append((el, []))
        elif tag in ("input", "select", "textarea", "button") and self.forms:
            self.forms[-1][1].append(el)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)


def parse(html: str) -> _Collector:
    c = _Collector()
    c.feed(html)
    return c


def find(html: str, **attrs: str) -> list[Element]:
    """Elements whose attributes include all of ``attrs`` (data_testid -> data-testid)."""
    want = {k.replace("_", "-"): v for k, v in attrs.items()}
    return [e for e in parse(html).elements if all(e.attrs.get(k) == v for k, v in want.items())]


def out_of_band(html: str) -> set[str]:
    """The ids of the elements ``html`` swaps out of band (whatever the swap's style)."""
    return {e.attrs["id"] for e in parse(html).elements if "hx-swap-oob" in e.attrs}


def form_query(html: str, testid: str, changes: dict[str, str] | None = None) -> tuple[str, str]:
    """(action, query string) a browser would send when submitting the form, with edits."""
    for form, fields in parse(html).forms:
        if form.attrs.get("data-testid") != testid:
            continue
        pairs: list[tuple[str, str]] = []
        for f in fields:
            name = f.attrs.get("name")
            if not name or f.tag == "button":
                continue
            if f.attrs.get("type") == "radio" and "checked" not in f.attrs:
                continue
            pairs.append((name, f.attrs.get("value", "")))
        for name, value in (changes or {}).items():
            pairs = [(n, v) for n, v in pairs if n != name] + [(name, value)]
        return form.attrs["action"], urlencode(pairs)
    raise AssertionError(f"no form with data-testid={testid}")
