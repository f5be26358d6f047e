"""A live class at 200 learners, over real HTTP, against the same server's /healthz.

Starts the real server as `make serve` does (uvicorn, `app.main:create_app`, the station's
protocol `app.edge.protocol.UVICORN_FLAGS`, one worker per core unless `--workers`, no access log)
in a subprocess on a free 127.0.0.1 port, with its class database in a fresh temporary
directory (SQLite; `--database-url postgresql://…` for PostgreSQL), then in the same run:

1. The reference: `--learners` clients (200), each on its own keep-alive connection, ask
   /healthz `--rounds` times (5) at once; requests per second, and the p50 / p99 of one more
   client asking /healthz meanwhile.
2. The class: one class opened; the same clients each submit `--rounds` predictions (a
   learner changing their mind), all at once; submissions per second, non-200 answers by
   status; and one more client asking the class's tally meanwhile (p50 / p99). Ratios:
   submissions/s over /healthz req/s, tally p50 / p99 over /healthz p50 / p99 under load.
3. The tally afterwards equals each learner's last prediction (else MISMATCH).

The learners' rate limit (20 per 10 s) allows the default rounds; the class's (2 400 per
10 s) allows 200 x 5. Figures are printed, never fatal: exit 0 unless the server could not
be started. Run from the repo root: `.venv/bin/python bench/classes.py [--workers N]`.
"""

from __future__ import annotations

import sys
from pathlib import Path

# bench/http.py would shadow http.client: drop this folder from the path, as it does.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import argparse  # noqa: E402
import http.client  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from contextlib import closing  # noqa: E402

ROOT = _HERE.parent
sys.path.insert(0, str(ROOT))
from app.classes.records import PREDICTABLE, QUESTIONS  # noqa: E402
from app.config import AppSettings, worker_count  # noqa: E402
from bench.serving import (  # noqa: E402
    HOST,
    free_port,
    pct,
    start_server,
    stop_server,
    wait_healthy,
)

JSON = {"Content-Type": "application/json"}


def request(conn: http.client.HTTPConnection, method: str, path: str, body: object = None) -> int:
    conn.request(method, path, None if body is None else json.dumps(body), JSON)
    r = conn.getresponse()
    r.read()
    return r.status


def crowd(
    port: int, clients: int, work: Callable[[int, http.client.HTTPConnection], list[int]]
) -> tuple[float, list[int]]:
    """`clients` threads, each connected before they all start together, doing `work`:
    (seconds from the start to the last one done, every status answered)."""
    barrier = threading.Barrier(clients + 1)
    statuses: list[int] = []
    lock = threading.Lock()

    def one(i: int) -> None:
        with closing(http.client.HTTPConnection(HOST, port, timeout=120)) as conn:
            conn.connect()
            barrier.wait()
            got = work(i, conn)
        with lock:
            statuses.extend(got)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    return time.perf_counter() - t0, statuses


def probing(port: int, path: str, stop: threading.Event, out: list[float]) -> threading.Thread:
    def run() -> None:
        with closing(http.client.HTTPConnection(HOST, port, timeout=120)) as conn:
            while not stop.is_set():
                t0 = time.perf_counter()
                request(conn, "GET", path)
                out.append((time.perf_counter() - t0) * 1e3)

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def under_load(
    port: int,
    clients: int,
    probe: str,
    work: Callable[[int, http.client.HTTPConnection], list[int]],
) -> tuple[float, list[float], list[int]]:
    stop, latencies = threading.Event(), list[float]()
    prober = probing(port, probe, stop, latencies)
    seconds, statuses = crowd(port, clients, work)
    stop.set()
    prober.join()
    return seconds, latencies, statuses


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--learners", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--workers", type=int, default=worker_count(AppSettings()))
    ap.add_argument("--database-url", default="")
    args = ap.parse_args()
    data = tempfile.mkdtemp(prefix="station08-bench-classes-")
    env = {**os.environ, "STATION08_DATA_DIR": data, "STATION08_DATABASE_URL": args.database_url}
    port = free_port()
    proc = start_server(port, args.workers, env=env)
    try:
        if not wait_healthy(port, proc, timeout=90.0):
            print("the server did not start", file=sys.stderr)
            return 1
        load = os.getloadavg()[0]
        store = "PostgreSQL" if args.database_url else "SQLite"
        print(f"bench/classes.py: {args.learners} learners x {args.rounds} rounds, "
              f"{args.workers} worker(s), {store}, load average {load:.2f}")  # fmt: skip
        run(port, args.learners, args.rounds)
    finally:
        stop_server(proc)
        shutil.rmtree(data, ignore_errors=True)
    return 0


def run(port: int, learners: int, rounds: int) -> None:
    with closing(http.client.HTTPConnection(HOST, port, timeout=30)) as conn:
        for _ in range(50):  # warm-up
            request(conn, "GET", "/healthz")
        conn.request("POST", "/api/classes", "{}", JSON)
        opened = json.loads(conn.getresponse().read())
    code = opened["code"]
    tally_path = f"/api/classes/{code}/tally"

    def healthz(i: int, conn: http.client.HTTPConnection) -> list[int]:
        return [request(conn, "GET", "/healthz") for _ in range(rounds)]

    rng = random.Random(8)
    options = [True, False, None]
    plans = [
        [(rng.choice(PREDICTABLE), rng.choice(options), rng.choice(options)) for _ in range(rounds)]
        for _ in range(learners)
    ]

    def submit(i: int, conn: http.client.HTTPConnection) -> list[int]:
        out = []
        for intervention, faster, kept in plans[i]:
            body = {"learner": f"bench-learner-{i:05d}", "question": QUESTIONS[0],
                    "intervention": intervention, "faster": faster, "kept": kept}  # fmt: skip
            out.append(request(conn, "POST", f"/api/classes/{code}/predictions", body))
        return out

    ref_s, ref_ms, ref_status = under_load(port, learners, "/healthz", healthz)
    sub_s, tally_ms, sub_status = under_load(port, learners, tally_path, submit)
    ref_rate, sub_rate = len(ref_status) / ref_s, len(sub_status) / sub_s

    print(f"\n1. /healthz: {learners} clients x {rounds} at once (reference)")
    probe = f"p50 {pct(ref_ms, 50):.2f} ms, p99 {pct(ref_ms, 99):.2f} ms ({len(ref_ms)} asked)"
    print(f"   {ref_rate:8.0f} req/s; a probe client's /healthz meanwhile: {probe}")
    print(f"\n2. Predictions: {learners} learners x {rounds} at once")
    refused = {s: sub_status.count(s) for s in sorted(set(sub_status)) if s != 200}
    print(f"   {sub_rate:8.0f} submissions/s ({sub_rate / ref_rate:.0%} of /healthz req/s); "
          f"non-200: {refused or 'none'}")  # fmt: skip
    print(f"   GET tally meanwhile: p50 {pct(tally_ms, 50):.2f} ms, p99 {pct(tally_ms, 99):.2f} ms"
          f" ({len(tally_ms)} asked); x{pct(tally_ms, 50) / pct(ref_ms, 50):.1f} and"
          f" x{pct(tally_ms, 99) / pct(ref_ms, 99):.1f} the /healthz probe's")  # fmt: skip

    with closing(http.client.HTTPConnection(HOST, port, timeout=30)) as conn:
        conn.request("GET", tally_path)
        tally = json.loads(conn.getresponse().read())
    last = [plan[-1] for plan in plans]
    expected = {i: sum(p[0] == i for p in last) for i in PREDICTABLE}
    ok = tally["answered"] == learners and tally["interventions"] == expected and not refused
    print(f"\n3. The tally: {tally['answered']} answered; "
          f"{'equals each learner’s last prediction' if ok else 'MISMATCH'}")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
