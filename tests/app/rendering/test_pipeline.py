"""The one render pipeline: each (page, key, variant) rendered once, sent gzipped or plain."""

from __future__ import annotations

import gzip

from app.config import AppSettings
from app.rendering.lanes import Lanes
from app.rendering.pipeline import Context, Env, Page, Pipeline, encode
from app.rendering.templating import make_templates
from app.station.services import Witness

ENV = Env(AppSettings(), Witness())


class Counting:
    """A context builder that counts its calls."""

    def __init__(self) -> None:
        self.calls: list[object] = []

    def __call__(self, env: Env, key: object, variant: object) -> Context:
        self.calls.append((key, variant))
        return Context({"fields": [], "defaults": None}, 201, (("X-Key", str(key)),))


def test_each_key_and_variant_is_rendered_once() -> None:
    build = Counting()
    page = Page("serving.html", build)
    pipeline = Pipeline(make_templates(), ENV, Lanes())
    a = pipeline.render(page, "a")
    assert pipeline.render(page, "a") is a
    assert pipeline.render(page, "a", True) is not a
    pipeline.render(page, "b")
    assert build.calls == [("a", None), ("a", True), ("b", None)]
    assert a.status == 201 and dict(a.headers) == {"X-Key": "a"}


def test_teeth_a_pipeline_of_size_one_renders_again() -> None:
    build = Counting()
    page = Page("serving.html", build)
    pipeline = Pipeline(make_templates(), ENV, Lanes(), size=1)
    pipeline.render(page, "a")
    pipeline.render(page, "b")
    pipeline.render(page, "a")
    assert len(build.calls) == 3


def test_a_render_is_kept_gzipped_and_reads_back_as_the_text() -> None:
    text = "<p>α · ✓ — the same text</p>" * 50
    kept = encode(text)
    assert gzip.decompress(kept.gzipped).decode() == text == kept.plain.decode()
    assert len(kept.gzipped) < len(text.encode()) / 5
