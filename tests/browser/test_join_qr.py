"""The dashboard's QR scans to the join URL printed beside it, and that URL opens the class.

The QR is decoded by zxing-cpp from a screenshot of what the projector shows, as a phone's
camera reads it: in the light and the dark scheme (the code must stay dark on light, with its
quiet zone, whatever the page's colours), at the projector's 1024 x 768.
"""

from __future__ import annotations

import io
import re

import pytest
import segno
import zxingcpp
from PIL import Image
from playwright.sync_api import Page, expect

PROJECTOR = {"width": 1024, "height": 768}


def decoded(png: bytes) -> list[str]:
    """The text of every QR code zxing-cpp finds in the image."""
    return [found.text for found in zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_qr_on_the_projector_scans_to_the_join_url(page: Page, scheme: str) -> None:
    page.set_viewport_size(PROJECTOR)
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    page.goto("/class")
    page.get_by_test_id("open-class").click()
    expect(page).to_have_url(re.compile(r"/class/[A-Z2-9]{6}$"))
    code = page.get_by_test_id("class-code").inner_text()
    url = page.get_by_test_id("join-url").inner_text().strip()
    qr = page.get_by_test_id("join-qr").locator("svg[role=img]")
    assert decoded(qr.screenshot()) == [url]
    # What a phone would open: the decoded address itself, not one rebuilt from the code.
    learner = page.context.new_page()
    learner.goto(url)
    expect(learner.get_by_test_id("class-banner-code")).to_have_text(f"In class {code}")


def test_teeth_the_decoder_reads_what_is_drawn_not_what_is_expected() -> None:
    # The check above compares a decoding with the page's URL; it can fail only if the decoder
    # reports what is drawn. Another URL's code reads as that URL, and a blank image as none.
    other = io.BytesIO()
    segno.make("http://127.0.0.1:8000/join/WRONG2", error="m").save(other, kind="png", scale=4)
    assert decoded(other.getvalue()) == ["http://127.0.0.1:8000/join/WRONG2"]
    blank = io.BytesIO()
    Image.new("L", (200, 200), 255).save(blank, format="PNG")
    assert decoded(blank.getvalue()) == []
