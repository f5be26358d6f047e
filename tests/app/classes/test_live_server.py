"""200 learners over real HTTP: a real uvicorn with two worker processes on a free port (as
`make serve` runs it, `app.edge.protocol`'s flags), 200 threads each on its own connection
submitting at once, then 80 of them changing their mind and 40 repeating themselves at once;
the tally the server answers equals what was sent. On SQLite and on PostgreSQL: two workers
share one class only through the database."""

from __future__ import annotations

import http.client
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.classes.records import PREDICTABLE, QUESTIONS
from app.edge.protocol import UVICORN_FLAGS

ROOT = Path(__file__).resolve().parents[3]
LEARNERS = 200

Sent = dict[str, tuple[str, bool | None, bool | None]]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[int]:
    env = {**os.environ, "STATION08_DATA_DIR": str(tmp_path)}
    env.pop("STATION08_DATABASE_URL", None)
    if request.param == "postgres":
        cluster = request.getfixturevalue("postgres")
        cluster.admin("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
        env["STATION08_DATABASE_URL"] = cluster.url
    port = _free_port()
    command = [sys.executable, "-m", "uvicorn", "--factory", "app.main:create_app",
               "--host", "127.0.0.1", "--port", str(port), "--workers", "2",
               "--log-level", "error", "--no-access-log", *UVICORN_FLAGS]  # fmt: skip
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                call(port, "GET", "/healthz")
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    proc.kill()
                    raise AssertionError(proc.communicate()[1].decode(errors="replace")) from None
                time.sleep(0.2)
        yield port
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def call(port: int, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        data = None if body is None else json.dumps(body)
        conn.request(method, path, data, {"Content-Type": "application/json"})
        r = conn.getresponse()
        return r.status, json.loads(r.read() or b"null")
    finally:
        conn.close()


def submit_at_once(port: int, code: str, sent: Sent) -> list[int]:
    barrier = threading.Barrier(len(sent))
    statuses: list[int] = []
    lock = threading.Lock()

    def one(who: str, prediction: tuple[str, bool | None, bool | None]) -> None:
        intervention, faster, kept = prediction
        body = {"learner": who, "question": QUESTIONS[0], "intervention": intervention}
        body |= {"faster": faster, "kept": kept}
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.connect()  # connected before the barrier: the requests leave together
        barrier.wait()
        try:
            conn.request("POST", f"/api/classes/{code}/predictions", json.dumps(body),
                         {"Content-Type": "application/json"})  # fmt: skip
            r = conn.getresponse()
            r.read()
            with lock:
                statuses.append(r.status)
        finally:
            conn.close()

    threads = [threading.Thread(target=one, args=item) for item in sent.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return statuses


def test_200_learners_submitting_at_once_are_each_counted_once(server: int) -> None:
    status, opened = call(server, "POST", "/api/classes", {})
    assert status == 201
    code = opened["code"]
    rng = random.Random(200)
    options = [True, False, None]
    first: Sent = {
        f"learner-{i:03d}-{rng.getrandbits(48):012x}": (
            rng.choice(PREDICTABLE),
            rng.choice(options),
            rng.choice(options),
        )
        for i in range(LEARNERS)
    }
    changed: Sent = {
        who: (rng.choice(PREDICTABLE), rng.choice(options), rng.choice(options))
        for who in rng.sample(sorted(first), 80)
    }
    repeated: Sent = {who: first[who] for who in rng.sample(sorted(set(first) - set(changed)), 40)}

    assert submit_at_once(server, code, first) == [200] * LEARNERS
    assert submit_at_once(server, code, {**changed, **repeated}) == [200] * 120
    final = {**first, **changed}

    status, tally = call(server, "GET", f"/api/classes/{code}/tally")
    assert status == 200
    assert tally["answered"] == LEARNERS
    assert tally["interventions"] == {
        i: sum(v[0] == i for v in final.values()) for i in PREDICTABLE
    }

    def split(values: list[bool | None]) -> dict[str, int]:
        return {
            "yes": values.count(True), "no": values.count(False), "unsaid": values.count(None)
        }  # fmt: skip

    assert tally["faster"] == split([v[1] for v in final.values()])
    assert tally["kept"] == split([v[2] for v in final.values()])
    for i in PREDICTABLE:
        mine = [v for v in final.values() if v[0] == i]
        assert tally["by_intervention"][i] == {
            "faster": split([v[1] for v in mine]),
            "kept": split([v[2] for v in mine]),
        }
    assert call(server, "GET", f"/api/classes/{code}")[1]["answered"] == LEARNERS
