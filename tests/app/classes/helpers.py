"""What the live class's tests share: a settable clock, opening a class, the cookies."""

from __future__ import annotations

import re
from http.cookies import SimpleCookie

from fastapi.testclient import TestClient

from app.classes.service import ClassRoom

SAME = {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
LEARNERS = [f"{n:032x}" for n in range(1, 10)]


class Clock:
    """Time that moves only when a test moves it."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def classes(c: TestClient) -> ClassRoom:
    room: ClassRoom = c.app.state.classes  # type: ignore[attr-defined]
    return room


def open_class(c: TestClient) -> str:
    r = c.post("/class", headers=SAME, follow_redirects=False)
    assert r.status_code == 303, r.text
    code = r.headers["location"].removeprefix("/class/")
    assert re.fullmatch(r"[A-Z2-9]{6}", code)
    return code


def cookie_of(set_cookie: str) -> SimpleCookie:
    jar: SimpleCookie = SimpleCookie()
    jar.load(set_cookie)
    return jar
