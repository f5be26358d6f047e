"""A live class in real browsers: one instructor and three learners.

The instructor opens a class; learners join by code (the /join form) and by the QR's URL;
each records a prediction on the station; the projector's tally follows within 2 s by
polling, without a reload; the reveal sets the evidence beside the predictions; Next question
moves the learners who follow, and not the one who unticked it. Plus: axe on the class
pages, the dashboard on one 1024 x 768 screen, the dashboard and a learner without
JavaScript, and a damaged membership that never breaks the station.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from app.classes.contract import CLASS_KEY, CLASS_PRESETS
from tests.browser.chromium import live_station
from tests.browser.helpers import BrowserMonitor, axe, screenshot, seed_storage, storage_of

PROJECTOR = {"width": 1024, "height": 768}
FIRST, SECOND = CLASS_PRESETS[0], CLASS_PRESETS[1]
# The tally must follow within 2 s of a learner's prediction reaching the class.
WITHIN = 2_000

NewContext = Callable[..., BrowserContext]


def open_class(new_context: NewContext) -> tuple[Page, str]:
    instructor = new_context().new_page()
    instructor.set_viewport_size(PROJECTOR)
    instructor.goto("/class")
    axe(instructor, "/class")
    instructor.get_by_test_id("open-class").click()
    expect(instructor).to_have_url(re.compile(r"/class/[A-Z2-9]{6}$"))
    code = instructor.get_by_test_id("class-code").inner_text()
    assert instructor.url.endswith(f"/class/{code}")  # the key is not in the address
    return instructor, code


def predict(page: Page, intervention: str, faster: str, kept: str) -> None:
    page.locator(f"#pred-{intervention}").check()
    page.locator(f"#ef-{faster}").check()
    page.locator(f"#ek-{kept}").check()
    page.get_by_test_id("record-prediction").click()
    expect(page.get_by_test_id("class-banner-status")).to_have_text(
        "Your prediction is in the class tally. You can change it until the reveal."
    )


def fits(page: Page) -> None:
    height, width = page.evaluate(
        "() => [document.scrollingElement.scrollHeight, document.scrollingElement.scrollWidth]"
    )
    assert height <= PROJECTOR["height"] and width <= PROJECTOR["width"], (height, width)


def answered(page: Page) -> Callable[[str], None]:
    def check(text: str) -> None:
        expect(page.get_by_test_id("class-answered")).to_have_text(text, timeout=WITHIN)

    return check


def test_a_class_predicts_sees_its_tally_reveals_and_moves_on(new_context: NewContext) -> None:
    instructor, code = open_class(new_context)
    expect(instructor.get_by_test_id("class-answered")).to_have_text("Nobody has answered yet.")
    expect(instructor.get_by_test_id("join-url")).to_have_text(re.compile(rf"/join/{code}$"))
    expect(instructor.get_by_test_id("join-qr").locator("svg[role=img]")).to_be_visible()
    axe(instructor, "the dashboard")
    fits(instructor)
    # The tally must change by polling, not by reloading the page.
    instructor.evaluate("() => { window.stillHere = true; }")
    tally = answered(instructor)

    # Learner A joins by typing the code (in lower case) into /join.
    a = new_context().new_page()
    a.goto("/join")
    axe(a, "/join")
    a.get_by_test_id("join-code").fill(code.lower())
    a.get_by_test_id("join-submit").click()
    expect(a).to_have_url(re.compile(rf"preset={FIRST.id}"))
    expect(a.get_by_test_id("class-banner-code")).to_have_text(f"In class {code}")
    expect(a.get_by_test_id("class-banner-question")).to_have_text(FIRST.shown_title)
    expect(a.get_by_test_id("class-banner-prompt")).to_have_text(FIRST.question)
    expect(a.get_by_test_id("class-follow")).to_be_checked()
    membership = json.loads(storage_of(a)[CLASS_KEY])
    assert membership["code"] == code and membership["follow"] is True
    assert re.fullmatch(r"[0-9a-f]{32}", membership["learner"])

    # Learners B and C open the QR's URL.
    b = new_context().new_page()
    b.goto(f"/join/{code}")
    expect(b).to_have_url(re.compile(rf"preset={FIRST.id}"))
    c = new_context().new_page()
    c.goto(f"/join/{code}")
    expect(c.get_by_test_id("class-banner-code")).to_have_text(f"In class {code}")
    assert json.loads(storage_of(c)[CLASS_KEY])["learner"] != membership["learner"]

    predict(a, "lengthen_k", "yes", "yes")
    tally("1 learner has answered.")
    predict(b, "lengthen_k", "no", "yes")
    tally("2 learners have answered.")
    predict(c, "skip_repair", "yes", "no")
    tally("3 learners have answered.")
    expect(instructor.get_by_test_id("bar-lengthen_k")).to_have_attribute("data-count", "2")
    expect(instructor.get_by_test_id("bar-lengthen_k")).to_contain_text("2 of 3 (67%)")
    expect(instructor.get_by_test_id("bar-skip_repair")).to_contain_text("1 of 3 (33%)")
    expect(instructor.get_by_test_id("bar-kept-yes")).to_contain_text("2 of 3")
    assert instructor.evaluate("() => window.stillHere === true")
    axe(instructor, "the dashboard with a tally")
    fits(instructor)

    # B changes their mind: counted once, still three answers.
    b.goto(f"{FIRST.url}")
    predict(b, "raise_match", "yes", "yes")
    expect(instructor.get_by_test_id("bar-raise_match")).to_have_attribute(
        "data-count", "1", timeout=WITHIN
    )
    tally("3 learners have answered.")
    expect(instructor.get_by_test_id("bar-lengthen_k")).to_have_attribute("data-count", "1")

    instructor.get_by_test_id("reveal").click()
    reveal = instructor.get_by_test_id("class-reveal")
    expect(reveal).to_be_visible(timeout=30_000)
    for key in ("lengthen_k", "raise_match", "skip_repair"):
        expect(instructor.get_by_test_id(f"reveal-{key}")).to_be_visible()
        expect(instructor.get_by_test_id(f"reveal-station-{key}")).to_contain_text(
            re.compile(r"^The station: (faster|slower|within noise|no change|it ran|its speed)")
        )
    expect(instructor.get_by_test_id("reveal-kept-skip_repair")).to_have_text(
        re.compile(r"^The one learner who chose it expected the distribution not kept; it was")
    )
    expect(instructor.get_by_test_id("reveal-cheapen_draft")).to_have_count(0)
    axe(instructor, "the dashboard revealed")
    fits(instructor)
    screenshot(instructor, "live-class-revealed.png")
    expect(a.get_by_test_id("class-banner-status")).to_have_text(
        "The answers are in: the instructor has revealed the evidence.", timeout=6_000
    )

    # C stops following; Next question moves A and B to the next preset, and not C.
    c.get_by_test_id("class-follow").uncheck()
    assert json.loads(storage_of(c)[CLASS_KEY])["follow"] is False
    c_url = c.url
    instructor.get_by_test_id("next-question").click()
    expect(instructor.get_by_test_id("class-question-title")).to_have_text(SECOND.shown_title)
    expect(instructor.get_by_test_id("class-answered")).to_have_text("Nobody has answered yet.")
    for learner in (a, b):
        expect(learner).to_have_url(re.compile(rf"preset={SECOND.id}"), timeout=6_000)
        expect(learner.get_by_test_id("class-banner-question")).to_have_text(SECOND.shown_title)
        expect(learner.get_by_test_id("class-banner-prompt")).to_have_text(SECOND.question)
    expect(c.get_by_test_id("class-banner-status")).to_have_text(
        "This page is not the class's question: open it to predict for the class.",
        timeout=6_000,
    )
    assert c.url == c_url
    expect(c.get_by_test_id("class-open-question")).to_have_attribute("href", SECOND.url)

    # A leaves: the membership is gone and the station goes on alone.
    a.get_by_test_id("class-leave").click()
    expect(a.get_by_test_id("class-left")).to_have_text(
        f"You left class {code}. The station works on its own."
    )
    assert CLASS_KEY not in storage_of(a)
    a.reload()
    expect(a.get_by_test_id("class-banner")).to_be_hidden()
    expect(a.get_by_test_id("record-prediction")).to_be_visible()


def test_the_dashboard_fits_a_projector_with_five_interventions_revealed(
    new_context: NewContext,
) -> None:
    instructor, code = open_class(new_context)
    choices = ["raise_match", "lengthen_k", "cheapen_draft", "skip_verify", "skip_repair"]
    for n in range(10):
        r = instructor.request.post(
            f"/api/classes/{code}/predictions",
            data={
                "learner": f"{n + 1:032x}",
                "question": FIRST.id,
                "intervention": choices[n % 5],
                "faster": n % 3 == 0,
                "kept": n % 2 == 0,
            },
        )
        assert r.ok, r.text()
    expect(instructor.get_by_test_id("class-answered")).to_have_text(
        "10 learners have answered.", timeout=WITHIN
    )
    fits(instructor)
    # From the keyboard: Reveal is a plain form button.
    instructor.get_by_test_id("reveal").focus()
    instructor.keyboard.press("Enter")
    expect(instructor.get_by_test_id("class-reveal").locator("li.reveal__row")).to_have_count(
        5, timeout=30_000
    )
    fits(instructor)
    axe(instructor, "the dashboard, five interventions revealed")
    instructor.emulate_media(color_scheme="dark")
    axe(instructor, "the dashboard revealed, dark scheme")
    fits(instructor)


def test_a_hidden_tally_shows_the_count_only_until_the_reveal_and_a_phone_reads_the_question(
    new_context: NewContext,
) -> None:
    """The instructor hides the tally: the projector keeps the answered count, draws no bars,
    and the reveal shows everything. The learner on a 390 px phone reads the question's text
    in the banner, on screen, with most of the screen left for the station."""
    instructor, code = open_class(new_context)
    instructor.get_by_test_id("class-learners").locator("summary").click()
    instructor.get_by_test_id("hide-tally").click()
    expect(instructor.get_by_test_id("class-tally-hidden")).to_be_visible()
    expect(instructor.get_by_test_id("class-tally")).to_have_count(0)
    phone = new_context().new_page()
    phone.set_viewport_size({"width": 390, "height": 844})
    phone.goto(f"/join/{code}")
    expect(phone).to_have_url(re.compile(rf"preset={FIRST.id}"))
    prompt = phone.get_by_test_id("class-banner-prompt")
    expect(prompt).to_have_text(FIRST.question)
    expect(prompt).to_be_in_viewport()
    banner = phone.get_by_test_id("class-banner").bounding_box()
    assert banner is not None and banner["height"] < 844 / 2, banner
    predict(phone, "lengthen_k", "yes", "yes")
    answered(instructor)("1 learner has answered.")
    expect(instructor.get_by_test_id("class-tally")).to_have_count(0)
    expect(instructor.get_by_test_id("bar-lengthen_k")).to_have_count(0)
    fits(instructor)
    instructor.get_by_test_id("reveal").click()
    expect(instructor.get_by_test_id("reveal-lengthen_k")).to_be_visible(timeout=30_000)
    expect(instructor.get_by_test_id("class-tally-hidden")).to_have_count(0)


def test_without_javascript_a_refresh_shows_the_current_tally(new_context: NewContext) -> None:
    instructor, code = open_class(new_context)
    viewer = new_context(java_script_enabled=False).new_page()
    viewer.goto(f"/class/{code}")
    expect(viewer.get_by_test_id("class-answered")).to_have_text("Nobody has answered yet.")
    r = instructor.request.post(
        f"/api/classes/{code}/predictions",
        data={"learner": "f" * 32, "question": FIRST.id, "intervention": "cheapen_draft"},
    )
    assert r.ok, r.text()
    viewer.reload()
    expect(viewer.get_by_test_id("class-answered")).to_have_text("1 learner has answered.")
    expect(viewer.get_by_test_id("bar-cheapen_draft")).to_contain_text("1 of 1 (100%)")
    expect(viewer.get_by_test_id("bar-faster-unsaid")).to_contain_text("1 of 1")
    # Without the instructor's cookie there is nothing to press; the instructor's own page
    # reveals with a plain form, no script needed.
    expect(viewer.get_by_test_id("reveal")).to_have_count(0)
    host = instructor.context
    plain = new_context(java_script_enabled=False)
    plain.add_cookies(host.cookies())
    page = plain.new_page()
    page.goto(f"/class/{code}")
    page.get_by_test_id("reveal").click()
    expect(page.get_by_test_id("reveal-cheapen_draft")).to_be_visible(timeout=30_000)


def test_without_javascript_a_learner_joins_predicts_and_sends(
    new_context: NewContext, monitor: BrowserMonitor
) -> None:
    # The answer to a question the class has left is a 409 page on purpose.
    monitor.allow_console_error(
        r"^Failed to load resource: the server responded with a status of 409"
    )
    instructor, code = open_class(new_context)
    learner = new_context(java_script_enabled=False).new_page()
    learner.goto(f"/join/{code}")
    join = learner.get_by_test_id("joining-noscript-join")
    expect(join).to_be_visible()
    join.click()
    expect(learner).to_have_url(re.compile(rf"preset={FIRST.id}"))
    # The station's page is the same for everyone: the form appears beside a prediction.
    expect(learner.get_by_test_id("class-send")).to_have_count(0)
    learner.locator("#pred-skip_repair").check()
    learner.locator("#ef-no").check()
    learner.locator("#ek-no").check()
    learner.get_by_test_id("record-prediction").click()
    send = learner.get_by_test_id("class-send-submit")
    expect(send).to_be_visible()
    form = {
        name: learner.locator(f"[data-testid=class-send] input[name={name}]").get_attribute("value")
        for name in ("question", "intervention", "faster", "kept", "back")
    }
    send.click()
    expect(learner.get_by_test_id("class-sent")).to_contain_text(f"in class {code}'s tally")
    expect(learner.get_by_test_id("class-sent-said")).to_contain_text("Faster: no")
    expect(instructor.get_by_test_id("class-answered")).to_have_text(
        "1 learner has answered.", timeout=WITHIN
    )
    expect(instructor.get_by_test_id("bar-skip_repair")).to_contain_text("1 of 1 (100%)")
    # Back on the station as it was left: the prediction is still recorded there.
    learner.get_by_test_id("class-sent-back").click()
    assert learner.url.endswith(form["back"] or "?")
    # The instructor moves on: sending the old question says where the class is now.
    instructor.get_by_test_id("next-question").click()
    learner.get_by_test_id("class-send-submit").click()
    expect(learner.get_by_test_id("class-sent")).to_contain_text("moved on")
    learner.get_by_test_id("class-sent-go").click()
    expect(learner).to_have_url(re.compile(rf"preset={SECOND.id}"))
    # axe needs a script, so the answer page is audited in a browser with JavaScript and the
    # same cookie, the same form posted from the station (<noscript> is not parsed there).
    audited = new_context()
    audited.add_cookies(learner.context.cookies())
    page = audited.new_page()
    page.goto(SECOND.url)
    page.evaluate(
        """fields => {
          const form = Object.assign(document.createElement("form"),
            {method: "post", action: "/class/predict"});
          for (const [name, value] of Object.entries(fields)) {
            form.append(Object.assign(document.createElement("input"),
              {type: "hidden", name, value}));
          }
          document.body.append(form);
          form.submit();
        }""",
        form | {"question": SECOND.id},
    )
    expect(page.get_by_test_id("class-sent")).to_contain_text(f"in class {code}'s tally")
    axe(page, "a prediction sent without JavaScript")


GOOD = {"v": 1, "code": "ABC234", "learner": "a" * 32, "follow": True, "question": "", "sent": ""}
DAMAGED = {
    "truncated": '{"v": 1, "code": "<img src=x onerror=alert(1)>"',
    "a list": "[]",
    "a newer version": json.dumps(GOOD | {"v": 2}),
    "a script for a code": json.dumps(GOOD | {"code": "<img src=x onerror=alert(1)>"}),
    "a short learner id": json.dumps(GOOD | {"learner": "abc"}),
    "an unknown question": json.dumps(GOOD | {"question": "no-such-preset"}),
    "an extra field": json.dumps(GOOD | {"name": "Ada"}),
    "follow as text": json.dumps(GOOD | {"follow": "yes"}),
    "oversized": json.dumps(GOOD | {"sent": "x" * 5000}),
}


@pytest.mark.parametrize("blob", DAMAGED.values(), ids=DAMAGED.keys())
def test_a_damaged_membership_is_removed_and_the_station_works_alone(page: Page, blob: str) -> None:
    seed_storage(page, {CLASS_KEY: blob})
    page.goto(FIRST.url)
    expect(page.get_by_test_id("class-damaged")).to_be_visible()
    assert CLASS_KEY not in storage_of(page)
    expect(page.get_by_test_id("record-prediction")).to_be_visible()
    page.reload()
    expect(page.get_by_test_id("class-banner")).to_be_hidden()


def test_an_unknown_code_is_a_clear_page(page: Page, monitor: BrowserMonitor) -> None:
    monitor.allow_console_error(
        r"^Failed to load resource: the server responded with a status of 404"
    )
    page.goto("/join?code=zzzzzz")
    expect(page).to_have_url(re.compile(r"/join/ZZZZZZ$"))
    expect(page.get_by_test_id("class-refused")).to_have_text(
        re.compile(r"^There is no open class with code ZZZZZZ")
    )
    axe(page, "an unknown code")


def test_a_membership_of_a_class_that_has_ended_is_removed_with_a_note(
    page: Page, monitor: BrowserMonitor
) -> None:
    """A well-formed membership is kept and polled (the validator is not just refusing all);
    the class is gone, so the station says so and goes on alone."""
    monitor.allow_console_error(
        r"^Failed to load resource: the server responded with a status of 404"
    )
    seed_storage(page, {CLASS_KEY: json.dumps(GOOD | {"question": FIRST.id})})
    page.goto(FIRST.url)
    expect(page.get_by_test_id("class-ended")).to_have_text(
        "Class ABC234 has ended (or expired). The station works on its own."
    )
    assert CLASS_KEY not in storage_of(page)


def test_the_api_s_host_url_makes_this_browser_the_instructor_without_sending_the_key(
    new_context: NewContext, monitor: BrowserMonitor
) -> None:
    """The key from POST /api/classes rides after '#': no request this browser makes carries
    it in an address, the address bar and the history drop it, and the dashboard is the
    instructor's. Teeth: the old ?key= address is caught by the same recorder, and is not
    taken."""
    monitor.allow_console_error(  # a wrong key's answer is a 403 page on purpose
        r"^Failed to load resource: the server responded with a status of 403"
    )
    api = new_context().request
    r = api.post("/api/classes", data={})
    assert r.status == 201, r.text()
    opened = r.json()
    key, code = opened["host_key"], opened["code"]

    context = new_context()
    addresses: list[str] = []
    context.on("request", lambda req: addresses.append(req.url))
    page = context.new_page()
    page.goto(opened["host_url"])
    expect(page).to_have_url(re.compile(rf"/class/{code}$"))
    expect(page.get_by_test_id("reveal")).to_be_visible()
    assert addresses and not [a for a in addresses if key in a], addresses
    assert key not in page.content()
    page.go_back()  # and the history holds no address with it (Chromium replaces the entry)
    assert key not in page.url, page.url

    # Without the '#': the form, from the keyboard; a wrong key is said beside the field.
    other = new_context().new_page()
    other.goto(f"/class/{code}/host")
    axe(other, "the key's handover page")
    other.get_by_test_id("host-key").fill("not-the-key")
    other.keyboard.press("Enter")
    expect(other.get_by_test_id("host-problem")).to_contain_text("not this class")
    axe(other, "the handover page, a wrong key")
    other.get_by_test_id("host-key").fill(key)
    other.keyboard.press("Enter")
    expect(other.get_by_test_id("reveal")).to_be_visible()

    # Teeth: a key in the query does reach an address (so the check above can fail), and
    # the page refuses it with a note instead of taking it.
    old = new_context()
    seen: list[str] = []
    old.on("request", lambda req: seen.append(req.url))
    stale = old.new_page()
    stale.goto(f"/class/{code}/host?key={key}")
    assert [a for a in seen if key in a]
    expect(stale.get_by_test_id("host-from-query")).to_be_visible()
    expect(stale).to_have_url(re.compile(rf"/class/{code}/host$"))  # dropped from the bar
    stale.goto(f"/class/{code}")
    expect(stale.get_by_test_id("reveal")).to_have_count(0)


def test_the_instructor_locks_the_class_and_removes_a_learner(
    new_context: NewContext, monitor: BrowserMonitor
) -> None:
    """Lock: a learner new to the class is told it is closed, one already in still changes
    their answer; Remove: the learner's answer leaves the tally and the list. All from the
    keyboard, and the dashboard stays on one projector screen."""
    monitor.allow_console_error(  # the class refuses a new learner with 423 on purpose
        r"^Failed to load resource: the server responded with a status of 423"
    )
    instructor, code = open_class(new_context)
    a = new_context().new_page()
    a.goto(f"/join/{code}")
    expect(a).to_have_url(re.compile(rf"preset={FIRST.id}"))
    predict(a, "lengthen_k", "yes", "yes")
    answered(instructor)("1 learner has answered.")

    fits(instructor)
    fold = instructor.get_by_test_id("class-learners").locator("summary")
    fold.focus()
    instructor.keyboard.press("Enter")
    instructor.get_by_test_id("lock").focus()
    instructor.keyboard.press("Enter")
    expect(instructor.get_by_test_id("class-locked")).to_be_visible()
    expect(instructor.get_by_test_id("join-qr")).to_have_count(0)  # nobody new can join
    fits(instructor)
    axe(instructor, "the dashboard, locked")

    late = new_context().new_page()
    late.goto(f"/join/{code}")
    expect(late.get_by_test_id("joining-locked")).to_contain_text("closed to new learners")
    axe(late, "joining a locked class")
    late.get_by_test_id("joining-open").click()
    expect(late).to_have_url(re.compile(rf"preset={FIRST.id}"))
    late.locator("#pred-raise_match").check()
    late.get_by_test_id("record-prediction").click()
    expect(late.get_by_test_id("class-banner-status")).to_have_text(
        re.compile(rf"^Class {code} is closed to new learners"), timeout=6_000
    )
    # A learner already in changes their answer.
    a.goto(FIRST.url)
    predict(a, "raise_match", "no", "yes")
    expect(instructor.get_by_test_id("bar-raise_match")).to_have_attribute(
        "data-count", "1", timeout=WITHIN
    )

    # Remove A from the list (reloaded: the list is not polled).
    instructor.reload()
    learners = instructor.get_by_test_id("class-learners")
    learners.locator("summary").focus()
    instructor.keyboard.press("Enter")
    expect(learners.locator(".learner")).to_have_count(1)
    expect(learners.locator(".learner__answer")).to_have_text("Raise draft-target match")
    axe(instructor, "the dashboard's learners")
    learners.locator(".learner__remove").focus()
    instructor.keyboard.press("Enter")
    expect(instructor.get_by_test_id("class-answered")).to_have_text("Nobody has answered yet.")
    expect(instructor.get_by_test_id("class-learners")).to_contain_text(
        "Door, tally and learners (0)"
    )
    instructor.get_by_test_id("class-learners").locator("summary").click()
    instructor.get_by_test_id("unlock").click()
    expect(instructor.get_by_test_id("class-locked")).to_have_count(0)
    expect(instructor.get_by_test_id("join-qr").locator("svg[role=img]")).to_be_visible()


@pytest.fixture(scope="module")
def keyed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A second station whose classes take an instructor key."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("STATION08_")}
    env["STATION08_DATA_DIR"] = str(tmp_path_factory.mktemp("keyed-class-data"))
    env["STATION08_INSTRUCTOR_KEY"] = INSTRUCTOR_KEY
    with live_station(env, tmp_path_factory.mktemp("keyed") / "uvicorn.log") as url:
        yield url


INSTRUCTOR_KEY = "the instructor's own key"


def test_with_an_instructor_key_the_opening_page_asks_for_it(
    browser: Browser, keyed_server: str
) -> None:
    """On a server that sets STATION08_INSTRUCTOR_KEY: a password field, a wrong key said
    beside it (403, no class), the right one opens the class; from the keyboard. Its own
    context, since the session's monitor watches the other server's origin."""
    context = browser.new_context(base_url=keyed_server, viewport={"width": 1024, "height": 768})
    errors: list[str] = []
    context.on("weberror", lambda e: errors.append(str(e.error)))
    try:
        page = context.new_page()
        page.goto("/class")
        field = page.get_by_test_id("instructor-key")
        expect(field).to_have_attribute("type", "password")
        axe(page, "/class with an instructor key")
        field.fill("a guess")
        field.press("Enter")
        expect(page.get_by_test_id("open-problem")).to_contain_text(
            "not this server's instructor key"
        )
        expect(field).to_have_attribute("aria-invalid", "true")
        axe(page, "/class, a wrong instructor key")
        page.get_by_test_id("instructor-key").fill(INSTRUCTOR_KEY)
        page.get_by_test_id("instructor-key").press("Enter")
        expect(page).to_have_url(re.compile(r"/class/[A-Z2-9]{6}$"))
        expect(page.get_by_test_id("reveal")).to_be_visible()
        assert INSTRUCTOR_KEY not in page.content()
    finally:
        context.close()
    assert errors == []
