"""Shared by the browser tests: where things are, the recorded-prediction URL, the
browser monitor, axe and screenshots. Fixtures live in conftest.py; this module is plain
code, so test modules can import it (``from tests.browser.helpers import ...``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import (
    BrowserContext,
    ConsoleMessage,
    Dialog,
    Error,
    Page,
    Request,
    Response,
    expect,
)

from tests.browser.chromium import ROOT

AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
ARTIFACTS = ROOT / "test-artifacts"

# A recorded prediction (lengthen k from 4 to 8): the evidence is open under this query.
PREDICTED = "pred=lengthen_k&expect_faster=yes&expect_kept=yes&base=0.6,4,0.1,1,1,0&k=8"
PREDICTED_URL = f"/station?{PREDICTED}"

AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]

# What the live region says about one verification step, e.g.
# "Block 1. Draft 1 ',' accepted: u = 0.63 < p/q = 1.19. Draft 2 '.' rejected: ..."
NARRATION = re.compile(
    r"^Block \d+\. Draft \d+ '[^']+' (accepted|rejected): u = \d\.\d\d [<≥] p/q = \d+\.\d\d"
)


def is_evidence(response: Response) -> bool:
    """The htmx request for the evidence fragment (not a full page)."""
    return "/station/evidence" in response.url


# --------------------------------------------------------------------------- monitor


@dataclass
class BrowserMonitor:
    """What every page of every context did that a learner should never see."""

    origin: str
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    server_errors: list[str] = field(default_factory=list)
    allowed_console: list[re.Pattern[str]] = field(default_factory=list)
    allowed_server: list[re.Pattern[str]] = field(default_factory=list)

    def allow_console_error(self, pattern: str) -> None:
        """Let one specific, expected console error through (for the calling test only)."""
        self.allowed_console.append(re.compile(pattern))

    def allow_server_error(self, pattern: str) -> None:
        """Let a 5xx the calling test made itself (a routed, fake answer) through."""
        self.allowed_server.append(re.compile(pattern))

    def watch(self, context: BrowserContext) -> None:
        context.on("page", self._watch_page)
        for existing in context.pages:
            self._watch_page(existing)

    def _watch_page(self, page: Page) -> None:
        page.on("console", self._on_console)
        page.on("pageerror", self._on_page_error)
        page.on("dialog", self._on_dialog)
        page.on("request", self._on_request)
        page.on("response", self._on_response)

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.console_errors.append(message.text)

    def _on_page_error(self, error: Error) -> None:
        self.page_errors.append(f"{error.name}: {error.message}")

    def _on_dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def _on_request(self, request: Request) -> None:
        self.requests.append(request.url)

    def _on_response(self, response: Response) -> None:
        if response.status >= 500:
            self.server_errors.append(f"{response.status} {response.url}")

    def problems(self) -> list[str]:
        unexpected = [
            text
            for text in self.console_errors
            if not any(p.search(text) for p in self.allowed_console)
        ]
        foreign = [u for u in self.requests if origin_of(u) != self.origin]
        server = [
            e for e in self.server_errors if not any(p.search(e) for p in self.allowed_server)
        ]
        out = []
        for title, found in (
            ("console errors", unexpected),
            ("uncaught page errors", self.page_errors),
            ("dialogs (e.g. an injected alert)", self.dialogs),
            ("requests off the station's origin", foreign),
            ("5xx responses", server),
        ):
            if found:
                out.append(f"{len(found)} {title}:\n" + "\n".join(f"  - {x}" for x in found))
        return out


def origin_of(url: str) -> str:
    # A blob: URL made by the page (a chart export) belongs to the origin it is wrapped around.
    parts = urlsplit(url.removeprefix("blob:"))
    return f"{parts.scheme}://{parts.netloc}"


# --------------------------------------------------------------------------- axe


def axe(page: Page, state: str) -> None:
    """Run axe-core on the page as it stands and fail with every violation, readably.

    The page's CSP (script-src 'self') rightly refuses ``page.add_script_tag``'s inline
    script (and that refusal is a console error), so the axe source is evaluated through
    the DevTools protocol instead, which page CSP does not govern. No CSP bypass is used:
    a CSP violation by the station itself would still show up as a console error.
    """
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE_JS.read_text(encoding="utf-8"))
    result = page.evaluate(
        "async (tags) => await axe.run(document, {runOnly: {type: 'tag', values: tags}})",
        AXE_TAGS,
    )
    violations = result["violations"]
    if violations:
        lines = [f"axe-core found {len(violations)} violation(s) in state {state!r}:"]
        for v in violations:
            targets = ", ".join(" ".join(n["target"]) for n in v["nodes"][:3])
            more = f" (+{len(v['nodes']) - 3} more)" if len(v["nodes"]) > 3 else ""
            lines.append(f"  - {v['id']} [{v['impact']}] {v['help']}: {targets}{more}")
            summary = (v["nodes"][0].get("failureSummary") or "").replace("\n", " ")
            if summary:
                lines.append(f"      {summary[:300]}")
        raise AssertionError("\n".join(lines))


def screenshot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    # From the top, so the sticky step navigation sits where a learner first sees it.
    page.evaluate("() => window.scrollTo({top: 0, behavior: 'instant'})")
    page.screenshot(path=path, full_page=True)
    assert path.stat().st_size > 0
    return path


# --------------------------------------------------------------------------- storage


def seed_storage(page: Page, items: dict[str, str]) -> None:
    """Write raw localStorage values on the station's origin before the page under test loads."""
    page.goto("/healthz")
    page.evaluate(
        "items => { localStorage.clear(); for (const [k, v] of Object.entries(items)) localStorage.setItem(k, v); }",
        items,
    )


def storage_of(page: Page) -> dict[str, str]:
    stored: dict[str, str] = page.evaluate("() => Object.fromEntries(Object.entries(localStorage))")
    return stored


def open_fold(page: Page, *names: str) -> None:
    """Open folds and whys (templates/macros/fold.html) as a reader does, by a click on each
    one's summary; one already open is left open. A name is the part after `fold-`/`why-`."""
    for name in names:
        details = page.locator(f"details#fold-{name}, details#why-{name}")
        expect(details).to_be_attached()
        if not details.evaluate("d => d.open"):
            details.locator(":scope > summary").click()
        expect(details).to_have_js_property("open", True)
