"""Parts of the page a slider's fragment refreshes out of band, sent only when they changed.

The evidence fragment refreshes every part of the page that shows the state (the readout,
the gates, the share link, the presets, ...), yet on most ticks most of them come out byte
for byte as the browser already shows them. Each such part is included through the `part`
filter, which stamps its root element with a digest of its own HTML (``data-part``) and
marks where it begins and ends. The browser names the digests on its page in one request
header (static/js/station.js); the pipeline cuts the parts the browser already holds out of
the answer (`Encoded.without`). A part is left out only when the browser holds exactly its
HTML, so nothing on screen is ever left behind, and no panel has to declare what it reads.
A browser without JavaScript never sends the header and always gets whole pages.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from markupsafe import Markup

# The request header naming the digests the page holds (generated into static/js/contract.js).
HEADER = "X-Station-Parts"
# A page has a few dozen parts at most; a longer header is not the station's and is ignored.
MAX_HELD = 64

_START, _END = "<!--part ", "<!--/part-->"
# A digest: 16 hex digits (64 bits of BLAKE2b), so two different parts never share one in
# practice; only the browser's own screen is at stake if they did.
_DIGEST = re.compile(r"[0-9a-f]{16}")
_MARK = re.compile(r"<!--part ([0-9a-f]{16})-->|<!--/part-->")
_TAG = re.compile(r"<[A-Za-z][A-Za-z0-9-]*")


def digest(html: str) -> str:
    return hashlib.blake2b(html.encode(), digest_size=8).hexdigest()


def part(html: str, oob: bool = False) -> Markup:
    """The Jinja filter: ``html`` (one element) stamped with its digest, and out of band
    (``hx-swap-oob="outerHTML"``) when ``oob``. The digest is of the element as the
    template wrote it, so a page and a fragment that draw the same part agree on it."""
    h = digest(html)
    tag = _TAG.search(html)
    if tag is None:
        raise ValueError("a part is one element: no start tag in it")
    oob_attr = ' hx-swap-oob="outerHTML"' if oob else ""
    stamped = f'{html[: tag.end()]} data-part="{h}"{oob_attr}{html[tag.end() :]}'
    return Markup(f"{_START}{h}-->{stamped}{_END}")


@dataclass(frozen=True, slots=True)
class Span:
    digest: str
    start: int  # byte offsets in the UTF-8 text, markers removed
    end: int


def unmark(text: str) -> tuple[bytes, tuple[Span, ...]]:
    """The text as sent (UTF-8, without the markers) and where each part lies in it."""
    out: list[bytes] = []
    spans: list[Span] = []
    at, size, open_ = 0, 0, None
    for m in _MARK.finditer(text):
        chunk = text[at : m.start()].encode()
        out.append(chunk)
        size += len(chunk)
        at = m.end()
        if m.group(1) is not None:
            if open_ is not None:
                raise ValueError("parts do not nest")
            open_ = (m.group(1), size)
        elif open_ is not None:
            spans.append(Span(open_[0], open_[1], size))
            open_ = None
    out.append(text[at:].encode())
    return b"".join(out), tuple(spans)


def held(header: str) -> frozenset[str]:
    """The digests a request says its page holds (the header's words that are digests)."""
    words = header.split()
    if len(words) > MAX_HELD:
        return frozenset()
    return frozenset(w for w in words if _DIGEST.fullmatch(w))


def cut(body: bytes, spans: tuple[Span, ...], drop: frozenset[str]) -> bytes:
    """``body`` without the parts whose digest is in ``drop``."""
    out, at = [], 0
    for s in spans:
        if s.digest in drop:
            out.append(body[at : s.start])
            at = s.end
    out.append(body[at:])
    return b"".join(out)
