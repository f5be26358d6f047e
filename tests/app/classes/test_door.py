"""The instructor closes the door: a locked class refuses learners new to it (and only them),
and a removed learner's predictions go, so they are new again. On both backends (the store),
through the JSON API, and through the dashboard's forms without JavaScript."""

from __future__ import annotations

import hashlib

import pytest
from fastapi.testclient import TestClient

from app.classes.contract import HOST_COOKIE, LEARNER_COOKIE
from app.classes.errors import NotHost
from app.classes.limits import Limits
from app.classes.pages import ANSWER_LABELS
from app.classes.records import QUESTIONS
from app.classes.refusals import AmbiguousLearner, ClassLocked, UnknownLearner
from tests.app.classes.conftest import Backend
from tests.app.classes.helpers import SAME, classes, open_class

BASE = "http://station.test"


def learner(i: int) -> str:
    """A learner id as a browser draws it (32 hex digits), each with its own short id."""
    return hashlib.sha256(str(i).encode()).hexdigest()[:32]


# --- the store, on SQLite and PostgreSQL ------------------------------------------------------


def test_a_locked_class_refuses_only_learners_new_to_it(store: Backend) -> None:
    room = store.room()
    c = room.open(BASE, "10.0.0.1")
    room.submit(c.code, learner(1), QUESTIONS[0], "raise_match")
    assert room.lock(c.code, c.host_key).locked
    with pytest.raises(ClassLocked, match=f"Class {c.code} is closed to new learners"):
        room.submit(c.code, learner(2), QUESTIONS[0], "raise_match")
    # Those in may change their answer, and answer the next question too.
    room.submit(c.code, learner(1), QUESTIONS[0], "lengthen_k")
    assert room.tally(c.code).interventions == {
        **dict.fromkeys(room.tally(c.code).interventions, 0),
        "lengthen_k": 1,
    }
    room.next_question(c.code, c.host_key)
    room.submit(c.code, learner(1), QUESTIONS[1], "skip_verify")
    with pytest.raises(ClassLocked):
        room.submit(c.code, learner(2), QUESTIONS[1], "skip_verify")
    assert room.find(c.code).locked  # type: ignore[union-attr]
    assert not room.unlock(c.code, c.host_key).locked
    assert room.submit(c.code, learner(2), QUESTIONS[1], "skip_verify").answered == 2


def test_a_removed_learner_is_gone_from_every_question_and_new_again(store: Backend) -> None:
    room = store.room()
    c = room.open(BASE, "10.0.0.1")
    room.submit(c.code, learner(1), QUESTIONS[0], "raise_match")
    room.submit(c.code, learner(2), QUESTIONS[0], "raise_match")
    room.set_question(c.code, c.host_key, QUESTIONS[1])
    room.submit(c.code, learner(1), QUESTIONS[1], "cheapen_draft")
    room.lock(c.code, c.host_key)
    info, gone = room.remove_learner(c.code, c.host_key, learner(1))
    assert gone == 2 and info.answered == 0
    assert room.tally(c.code, QUESTIONS[0]).answered == 1  # learner 2's stays
    with pytest.raises(ClassLocked):  # removed, so new: refused while locked
        room.submit(c.code, learner(1), QUESTIONS[1], "cheapen_draft")
    with pytest.raises(UnknownLearner, match="no learner with that id"):
        room.remove_learner(c.code, c.host_key, learner(1))
    with pytest.raises(UnknownLearner):
        room.remove_learner(c.code, c.host_key, "<b>not an id</b>")
    room.unlock(c.code, c.host_key)
    assert room.submit(c.code, learner(1), QUESTIONS[1], "cheapen_draft").answered == 1


def test_the_dashboard_s_short_id_removes_one_learner_or_says_it_is_ambiguous(
    store: Backend,
) -> None:
    room = store.room()
    c = room.open(BASE, "10.0.0.1")
    twins = ("abcdefgh" + "1" * 24, "abcdefgh" + "2" * 24)
    for twin in twins:
        room.submit(c.code, twin, QUESTIONS[0], "raise_match")
    room.submit(c.code, learner(1), QUESTIONS[0], "raise_match")
    with pytest.raises(AmbiguousLearner, match="short id abcdefgh"):
        room.remove_short(c.code, c.host_key, "abcdefgh")
    for bad in ("abcdefg", "abcd%gh_", "zzzzzzzz"):
        with pytest.raises(UnknownLearner):
            room.remove_short(c.code, c.host_key, bad)
    info, gone = room.remove_short(c.code, c.host_key, learner(1)[:8])
    assert gone == 1 and info.answered == 2


def test_locking_listing_and_removing_need_the_host_key(store: Backend) -> None:
    room = store.room()
    c = room.open(BASE, "10.0.0.1")
    room.submit(c.code, learner(1), QUESTIONS[0], "raise_match")
    for act in (
        lambda k: room.lock(c.code, k),
        lambda k: room.unlock(c.code, k),
        lambda k: room.remove_learner(c.code, k, learner(1)),
        lambda k: room.learners(c.code, k, 10),
    ):
        for key in ("", "wrong"):
            with pytest.raises(NotHost):
                act(key)
    assert not room.find(c.code).locked  # type: ignore[union-attr]
    assert room.tally(c.code).answered == 1


def test_the_instructor_s_list_puts_the_current_question_s_answers_first(store: Backend) -> None:
    room = store.room(limits=Limits())
    c = room.open(BASE, "10.0.0.1")
    for i in (5, 3):
        room.submit(c.code, learner(i), QUESTIONS[0], "raise_match")
    room.set_question(c.code, c.host_key, QUESTIONS[1])
    room.submit(c.code, learner(4), QUESTIONS[1], "lengthen_k", True, False)
    listed = room.learners(c.code, c.host_key, 10)
    assert listed.total == 3
    assert [(x.learner, x.intervention, x.faster, x.kept) for x in listed.listed] == [
        (learner(4), "lengthen_k", True, False),
        (learner(3), None, None, None),
        (learner(5), None, None, None),
    ]
    assert listed.listed[0].short == learner(4)[:8]
    short = room.learners(c.code, c.host_key, 2)
    assert short.total == 3 and len(short.listed) == 2


# --- the JSON API -----------------------------------------------------------------------------


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_the_api_locks_unlocks_and_removes(app_client: TestClient) -> None:
    c = classes(app_client).open("http://testserver", "10.0.0.1")
    send = f"/api/classes/{c.code}/predictions"
    first = {"learner": learner(1), "question": QUESTIONS[0], "intervention": "raise_match"}
    assert app_client.post(send, json=first).status_code == 200
    assert app_client.post(f"/api/classes/{c.code}/lock").status_code == 403
    r = app_client.post(f"/api/classes/{c.code}/lock", headers=bearer(c.host_key))
    assert r.status_code == 200 and r.json()["locked"] is True
    assert app_client.get(f"/api/classes/{c.code}").json()["locked"] is True
    new = app_client.post(send, json=first | {"learner": learner(2)})
    assert new.status_code == 423
    assert new.json()["detail"].startswith(f"Class {c.code} is closed to new learners")
    assert app_client.post(send, json=first | {"intervention": "lengthen_k"}).status_code == 200

    gone = f"/api/classes/{c.code}/learners/{learner(1)}"
    assert app_client.delete(gone).status_code == 403
    assert app_client.delete(gone, headers=bearer("wrong")).status_code == 403
    assert (
        app_client.delete(
            gone, headers=bearer(c.host_key) | {"Origin": "http://evil.example"}
        ).status_code
        == 403
    )
    r = app_client.delete(gone, headers=bearer(c.host_key))
    assert r.status_code == 200 and r.json() == {"code": c.code, "removed": 1, "answered": 0}
    again = app_client.delete(gone, headers=bearer(c.host_key))
    assert again.status_code == 404 and "no learner with that id" in again.json()["detail"]
    bad = app_client.delete(f"/api/classes/{c.code}/learners/bad", headers=bearer(c.host_key))
    assert bad.status_code == 422
    assert app_client.post(send, json=first).status_code == 423  # removed: new again

    r = app_client.post(f"/api/classes/{c.code}/unlock", headers=bearer(c.host_key))
    assert r.status_code == 200 and r.json()["locked"] is False
    assert app_client.post(send, json=first).status_code == 200
    unknown = app_client.post("/api/classes/ABCDEF/lock", headers=bearer(c.host_key))
    assert unknown.status_code == 404


def test_the_api_documents_the_door(app_client: TestClient) -> None:
    paths = app_client.get("/openapi.json").json()["paths"]
    assert "423" in paths["/api/classes/{code}/predictions"]["post"]["responses"]
    assert {"post"} <= set(paths["/api/classes/{code}/lock"])
    assert {"post"} <= set(paths["/api/classes/{code}/unlock"])
    assert "404" in paths["/api/classes/{code}/learners/{learner}"]["delete"]["responses"]


# --- the pages, without JavaScript ------------------------------------------------------------


def test_the_dashboard_locks_lists_and_removes_with_plain_forms(app_client: TestClient) -> None:
    code = open_class(app_client)  # this client holds the host cookie
    room = classes(app_client)
    room.submit(code, learner(7), QUESTIONS[0], "skip_repair")
    room.submit(code, learner(8), QUESTIONS[0], "raise_match")
    page = app_client.get(f"/class/{code}")
    assert 'data-testid="lock"' in page.text and 'data-testid="class-locked"' not in page.text
    assert "Door, tally and learners (2)" in page.text
    assert learner(7) not in page.text  # a short id only: nothing that could send as them
    assert f'data-testid="learner-{learner(7)[:8]}"' in page.text
    answer = f'data-testid="learner-answer-{learner(7)[:8]}">{ANSWER_LABELS["skip_repair"]}<'
    assert answer in page.text

    r = app_client.post(f"/class/{code}/lock", headers=SAME, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/class/{code}"
    page = app_client.get(f"/class/{code}")
    assert 'data-testid="unlock"' in page.text and 'data-testid="class-locked"' in page.text

    def remove() -> int:
        form = {"learner": learner(7)[:8]}
        posted = app_client.post(
            f"/class/{code}/remove", data=form, headers=SAME, follow_redirects=False
        )
        return posted.status_code

    assert remove() == 303
    page = app_client.get(f"/class/{code}")
    assert (
        "Door, tally and learners (1)" in page.text and f"learner-{learner(7)[:8]}" not in page.text
    )
    assert remove() == 303  # pressed twice (another tab): the list shows it gone, no error

    r = app_client.post(f"/class/{code}/unlock", headers=SAME, follow_redirects=False)
    assert r.status_code == 303
    assert not room.find(code).locked  # type: ignore[union-attr]


def test_a_viewer_sees_the_door_closed_and_cannot_open_it(app_client: TestClient) -> None:
    code = open_class(app_client)
    app_client.post(f"/class/{code}/lock", headers=SAME, follow_redirects=False)
    viewer = TestClient(app_client.app)
    page = viewer.get(f"/class/{code}")
    assert 'data-testid="class-locked"' in page.text
    assert 'data-testid="unlock"' not in page.text and "class-learners" not in page.text
    r = viewer.post(f"/class/{code}/unlock", headers=SAME, follow_redirects=False)
    assert r.status_code == 403
    r = viewer.post(f"/class/{code}/remove", data={"learner": learner(1)}, headers=SAME)
    assert r.status_code == 403
    cross = app_client.post(
        f"/class/{code}/unlock", headers={"Origin": "http://evil.example"}, follow_redirects=False
    )
    assert cross.status_code == 403 and classes(app_client).find(code).locked  # type: ignore[union-attr]


def test_a_learner_new_to_a_locked_class_is_told_it_is_closed(app_client: TestClient) -> None:
    code = open_class(app_client)
    app_client.post(f"/class/{code}/lock", headers=SAME, follow_redirects=False)
    learner_client = TestClient(app_client.app)
    joining = learner_client.get(f"/join/{code}")
    assert 'data-testid="joining-locked"' in joining.text
    assert "closed to new learners" in joining.text
    learner_client.cookies.set(LEARNER_COOKIE, f"{code}.{learner(3)}", path="/class")
    r = learner_client.post(
        "/class/predict",
        data={"question": QUESTIONS[0], "intervention": "raise_match", "faster": "", "kept": ""},
        headers=SAME,
    )
    assert r.status_code == 423
    assert "Class closed" in r.text and "closed to new learners" in r.text
    assert HOST_COOKIE not in learner_client.cookies
