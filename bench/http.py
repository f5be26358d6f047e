"""Speed and capacity of the station over real HTTP, against the same server's health endpoint.

Starts the real server as `make serve` does (uvicorn, `app.main:create_app` factory, h11, one
worker per core unless `--workers`; no access log) in a subprocess on a free 127.0.0.1 port,
then in the same run (QUALITY.md, Speed; docs/QUALITY.md has the figures):

1. One client, sequential, keep-alive (`http.client`), the three interleaved: p50 / p99 of
   `GET /station/evidence?pred=skip&base=..&match=..&k=..` (what the instrument form sends
   after a skipped prediction at the defaults) with a new (match, k) every request (a
   match never used before, at k = 4, 3, 5), so none of the server's caches can answer (a
   learner dragging the match slider); the same with one fixed query (a slider dragged
   back: cached); and `/healthz`, the reference. Budgets: a new state's p50 <= 8x /healthz
   p50; p99 <= 16 ms (informational: absolute times vary by host).
1b. The same client, then a long run of new states (1 500 by default, more than the caches
   hold, so every answer evicts an old state): p50, p99, p99.9 and max.
2. If wrk is installed: `wrk -t2 -c100 -d<duration>s` against /healthz and the fixed evidence
   URL (budget: >= 60% of /healthz requests/sec, zero non-2xx and zero socket errors), and
   with bench/slider.lua, which asks for a new state every request with no pause (no class
   asks like that: information only), while one more client asks /healthz (its p50 / p99).
3. The most expensive single request (every range at its end) alone, its server CPU time;
   then forty expensive requests at once (the hostile pass's `/api/evaluation` at k = 16,
   256 tokens): how many were answered or told 503, the server's RSS before, at its peak and
   after, and /healthz meanwhile (budget: p95 < 100 ms).
4. Memory: 20 000 distinct states (`--states`) from four clients, the RSS of every server
   process read each quarter of the way: flat once the caches are full.
5. A class dragging sliders as browsers do (`--learners`, 40 by default): each learner has
   one keep-alive connection and at most one request in flight (the station's sliders are
   `hx-sync="closest form:queue last"`, debounced 150 ms), asks for a (match, k) nobody asked
   for before (k 2-12) on one of a few seeds, and pauses 0.15-1 s before each request
   (seeded; the first too: a class does not move in lockstep), for 20 s. The latency each
   learner waits, p50 / p95 / p99, and the new states answered per second. Budget: p99 <=
   150 ms, zero errors. Before it, as information, every learner moves at the same instant
   once: how long the last of them waits.
6. A lecture (`--lecture`, 200 learners by default): the same, with 1-4 s pauses, for 20 s.
   Budget: p95 <= 300 ms, zero errors.

The server is always stopped. Run from the repo root: `.venv/bin/python bench/http.py
[--duration SECONDS] [--only 1,2,3,5,6]`. Over-budget figures are printed, never fatal: exit 0
unless the server could not be started.
"""

from __future__ import annotations

import sys
from pathlib import Path

# This file is named http.py: drop its folder from the path, or it would shadow http.client.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import argparse  # noqa: E402
import http.client  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from contextlib import closing  # noqa: E402
from typing import Any  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from app.config import AppSettings, worker_count  # noqa: E402
from bench.serving import (  # noqa: E402
    HOST,
    free_port,
    pct,
    start_server,
    stop_server,
    wait_healthy,
)

P99_BUDGET_MS = 16.0
THROUGHPUT_BUDGET = 0.60
# One client's never-seen state: p50 <= 8x /healthz p50 (QUALITY.md, Speed).
NEW_STATE_P50_BUDGET = 8.0
# A class of 40 (0.15-1 s pauses): p99 <= 150 ms; a lecture of 200 (1-4 s pauses): p95 <= 300.
CLASS_P99_MS = 150.0
LECTURE_P95_MS = 300.0
CLASS_SEEDS = (8, 9, 10, 11)  # "one of a few seeds": a class shares the station's defaults
# The most expensive single request: every range at its end (k = 16, 256 tokens, the sweep).
HEAVIEST = "/api/sweep?k=16&tokens=256&match=0.0&seed={seed}"
# What the hostile pass sent forty of at once, and QUALITY.md's liveness budget.
EXPENSIVE = "/api/evaluation?k=16&match=0&tokens=256&seed={seed}"
LIVENESS_P95_MS = 100.0
# What a learner's slider sends after skipping the prediction at the defaults: the instrument
# form carries the recorded prediction, its base included, with every move.
EVIDENCE = "/station/evidence?pred=skip&base=0.6%2C4%2C0.1%2C1%2C1%2C0"
# Every browser asks for gzip; the server answers rendered pages gzipped (and /healthz not).
BROWSER_HEADERS = {"Accept-Encoding": "gzip"}


def server_pids(root: int) -> list[int]:
    """The server's processes: uvicorn's supervisor and its workers (Linux /proc)."""
    pids, todo = [], [root]
    while todo:
        pid = todo.pop()
        pids.append(pid)
        try:
            for task in Path(f"/proc/{pid}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return pids


def rss_each(root: int, field: str = "VmRSS") -> list[float]:
    """Resident memory of each server process (the supervisor first), MB; ``field="VmHWM"``
    gives each one's peak instead."""
    out = []
    for pid in server_pids(root):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        m = re.search(rf"^{field}:\s+(\d+) kB", status, re.M)
        out.append(int(m.group(1)) / 1024 if m else 0.0)
    return out


def rss_mb(root: int) -> float:
    """Resident memory of every server process together, MB."""
    return sum(rss_each(root))


def cpu_seconds(root: int) -> float:
    """User + system CPU time of every server process together."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in server_pids(root):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return total


def slider_path(i: int) -> str:
    """The i-th slider position: k = 4, 3, 5 by hundreds, and a match never used before
    (0 <= match < 1 in steps of 1/300), so neither the served requests nor the per-context
    laws they share (witness/serve/request.py) are cached: the worst case of a new state."""
    return f"{EVIDENCE}&match={i / 300:.5f}&k={(4, 3, 5)[(i // 100) % 3]}"


def get_ms(conn: http.client.HTTPConnection, path: str) -> tuple[float, bool]:
    """Milliseconds from sending the request to its last body byte, and whether it was 200."""
    t0 = time.perf_counter()
    conn.request("GET", path, headers=BROWSER_HEADERS)
    resp = conn.getresponse()
    resp.read()
    return (time.perf_counter() - t0) * 1e3, resp.status == 200


def bench_sequential(port: int, n: int) -> None:
    names = ["/healthz (reference)", "evidence, cached (fixed query)", "evidence, new match/k"]
    times: list[list[float]] = [[], [], []]
    bad = [0, 0, 0]
    with closing(http.client.HTTPConnection(HOST, port, timeout=30)) as conn:
        for _ in range(20):  # warm-up: templates, scipy, the models' row caches
            get_ms(conn, "/healthz"), get_ms(conn, EVIDENCE)
        for i in range(n):  # side by side, so a change in background load hits all three
            for j, path in enumerate(("/healthz", EVIDENCE, slider_path(i))):
                ms, ok = get_ms(conn, path)
                times[j].append(ms)
                bad[j] += not ok
    ref50, ref99 = pct(times[0], 50), pct(times[0], 99)
    print(f"\n1. One client, sequential keep-alive, {n} requests each (interleaved)")
    print(f"   {'url':<34} {'p50 ms':>7} {'p99 ms':>7} {'p50/ref':>8} {'p99/ref':>8} non-200")
    for name, xs, nb in zip(names, times, bad, strict=True):
        p50, p99 = pct(xs, 50), pct(xs, 99)
        ratios = f"{p50 / ref50:>8.1f} {p99 / ref99:>8.1f}"
        print(f"   {name:<34} {p50:>7.2f} {p99:>7.2f} {ratios} {nb:>7}")
    for name, xs in zip(names[1:], times[1:], strict=True):
        p99 = pct(xs, 99)
        verdict = "ok" if p99 <= P99_BUDGET_MS else "OVER BUDGET"
        print(f"   {name}: p99 {p99:.2f} ms vs budget <= {P99_BUDGET_MS:g} ms: {verdict}")
    ratio = pct(times[2], 50) / ref50
    verdict = "ok" if ratio <= NEW_STATE_P50_BUDGET else "OVER BUDGET"
    print(
        f"   new state p50 / healthz p50 {ratio:.1f}x, "
        f"budget <= {NEW_STATE_P50_BUDGET:g}x: {verdict}"
    )


def churn_path(i: int) -> str:
    """The i-th of a long run of states none of which repeats (nor any of slider_path's):
    1 500 matches spread over 0..1 in a scrambled order, each new, as in slider_path."""
    k = (3, 4, 5, 6, 2)[(i // 100) % 5]
    match = ((i * 617) % 1500 + 0.5) / 1500  # 617 is prime to 1500: a permutation
    return f"{EVIDENCE}&match={match:.5f}&k={k}&seed={100 + i // 500}"


def bench_churn(port: int, n: int) -> None:
    """New states well past what the caches hold: every answer evicts an old state, which
    is when garbage collection used to pause answers (app/edge/collector.py)."""
    times: list[float] = []
    bad = 0
    with closing(http.client.HTTPConnection(HOST, port, timeout=30)) as conn:
        for i in range(n):
            ms, ok = get_ms(conn, churn_path(i))
            times.append(ms)
            bad += not ok
    q = statistics.quantiles(times, n=1000, method="inclusive")
    p99 = q[989]
    print(f"\n1b. One client, {n} new states in a row (more than the caches hold)")
    print(
        f"   p50 {q[499]:.2f}  p99 {p99:.2f}  p99.9 {q[998]:.2f}  max {max(times):.2f} ms, "
        f"non-200 {bad}"
    )
    verdict = "ok" if p99 <= P99_BUDGET_MS else "OVER BUDGET"
    print(f"   p99 {p99:.2f} ms vs budget <= {P99_BUDGET_MS:g} ms: {verdict}")


def run_wrk(wrk: str, url: str, duration: int, script: Path | None = None) -> dict[str, Any]:
    cmd = [wrk, "-t2", "-c100", f"-d{duration}s", "--latency"]
    cmd += [arg for name, value in BROWSER_HEADERS.items() for arg in ("-H", f"{name}: {value}")]
    cmd += ["-s", str(script)] if script else []
    done = subprocess.run([*cmd, url], capture_output=True, text=True, timeout=duration + 60)
    out = done.stdout
    if "Requests/sec" not in out:
        print(f"   wrk said nothing usable for {url}: {done.stderr.strip() or out.strip()}")

    def grab(pattern: str) -> float:
        m = re.search(pattern, out)
        return float(m.group(1)) if m else 0.0

    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    p99 = re.search(r"^\s*99%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
    scale = {"us": 1e-3, "ms": 1.0, "s": 1e3}
    return {
        "rps": grab(r"Requests/sec:\s+([\d.]+)"),
        "non2xx": grab(r"Non-2xx or 3xx responses:\s+(\d+)"),
        "socket": float(sum(int(g) for g in errors.groups())) if errors else 0.0,
        "socket_kinds": errors.group(0) if errors else "",
        "p99_ms": float(p99.group(1)) * scale[p99.group(2)] if p99 else float("nan"),
    }


WARM_UP_S = 2


def bench_wrk(port: int, duration: int) -> None:
    wrk = shutil.which("wrk") or ("/usr/bin/wrk" if Path("/usr/bin/wrk").exists() else None)
    if wrk is None:
        print("\n2. wrk is not installed (apt-get install wrk): the 100-client run is skipped")
        return
    base = f"http://{HOST}:{port}"
    print(f"\n2. wrk -t2 -c100 -d{duration}s on loopback (client and server share the cpus)")
    lua = ROOT / "bench" / "slider.lua"
    # The fixed state is the cached case (a slider dragged back): a 2 s run first, discarded,
    # has every worker render it once, so the measured run does not wait on a cold worker.
    run_wrk(wrk, base + EVIDENCE, WARM_UP_S)
    runs = [
        ("/healthz (reference)", run_wrk(wrk, base + "/healthz", duration)),
        ("evidence, fixed query", run_wrk(wrk, base + EVIDENCE, duration)),
    ]
    with HealthProbe(port) as probe:  # /healthz from one more client while the class drags
        runs.append(("evidence, all new (slider.lua)", run_wrk(wrk, base, duration, lua)))
    ref = runs[0][1]["rps"] or float("nan")
    print(f"   {'url':<30} {'req/s':>8} {'/ref':>6} {'p99 ms':>8} {'non-2xx':>8} {'sock err':>9}")
    for name, r in runs:
        cells = f"{r['rps']:>8.0f} {r['rps'] / ref:>6.2f} {r['p99_ms']:>8.1f} {r['non2xx']:>8.0f}"
        print(f"   {name:<30} {cells} {r['socket']:>9.0f}")
    share = runs[1][1]["rps"] / ref
    verdict = "ok" if share >= THROUGHPUT_BUDGET else "OVER BUDGET"
    print(f"   evidence / healthz req/s {share:.0%}, budget >= {THROUGHPUT_BUDGET:.0%}: {verdict}")
    errs = {name: (r["non2xx"], r["socket"]) for name, r in runs[:2]}
    clean = all(a == 0 and b == 0 for a, b in errs.values())
    print("   errors (non-2xx, socket) budget zero: " + ("ok" if clean else f"OVER BUDGET {errs}"))
    new = runs[2][1]
    kinds = new["socket_kinds"] or "none"
    print(
        f"   never-seen states with no pause / healthz req/s {new['rps'] / ref:.1%} "
        f"(information; errors and timeouts: {kinds}, non-2xx {new['non2xx']:.0f})"
    )
    print(f"   /healthz meanwhile (one more client): {probe.summary()}")


class HealthProbe:
    """Asks /healthz over and over from its own thread: is the server still responsive?"""

    def __init__(self, port: int, pause: float = 0.02) -> None:
        self.port, self.pause = port, pause
        self.times: list[float] = []
        self.failures = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            t0 = time.perf_counter()
            try:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=30)
                with closing(conn):
                    conn.request("GET", "/healthz")
                    ok = conn.getresponse().status == 200
            except OSError:
                ok = False
            self.times.append((time.perf_counter() - t0) * 1e3)
            self.failures += not ok
            self._stop.wait(self.pause)

    def __enter__(self) -> HealthProbe:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def summary(self) -> str:
        if len(self.times) < 2:
            return "no answers"
        return (
            f"{len(self.times)} asked, p50 {pct(self.times, 50):.1f} ms, "
            f"p99 {pct(self.times, 99):.1f} ms, max {max(self.times):.1f} ms, "
            f"failed {self.failures}"
        )


def _get_status(port: int, path: str) -> int:
    conn = http.client.HTTPConnection(HOST, port, timeout=600)
    with closing(conn):
        conn.request("GET", path)
        resp = conn.getresponse()
        resp.read()
        return resp.status


def bench_heaviest(port: int, server: int, n: int = 40) -> None:
    """The most expensive single request alone (its CPU time), then ``n`` expensive requests
    at once, each a new state, as the hostile pass sent them: is /healthz still responsive,
    and is memory bounded (app/rendering/lanes.py)?"""
    cpu0 = cpu_seconds(server)
    status = _get_status(port, HEAVIEST.format(seed=8999))
    alone = cpu_seconds(server) - cpu0
    print(
        f"\n3. The most expensive single request ({HEAVIEST.format(seed='<new>')}): "
        f"{status}, server CPU {alone:.2f} s"
    )
    statuses: list[int] = []
    peak = before = rss_mb(server)

    def one(i: int) -> None:
        statuses.append(_get_status(port, EXPENSIVE.format(seed=9000 + i)))

    with HealthProbe(port) as probe:
        threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            peak = max(peak, rss_mb(server))
            time.sleep(0.2)
    done, busy = statuses.count(200), statuses.count(503)
    print(
        f"   {n} at once of {EXPENSIVE.format(seed='<new>')}: 200 {done}, 503 busy {busy}, "
        f"other {len(statuses) - done - busy}"
    )
    print(f"   RSS before {before:.0f} MB, peak {peak:.0f} MB, after {rss_mb(server):.0f} MB")
    p95 = pct(probe.times, 95) if len(probe.times) > 1 else float("nan")
    verdict = "ok" if p95 < LIVENESS_P95_MS else "OVER BUDGET"
    print(
        f"   /healthz meanwhile: {probe.summary()}; p95 {p95:.1f} ms, "
        f"budget < {LIVENESS_P95_MS:g} ms: {verdict}"
    )


def bench_memory(port: int, server: int, states: int, clients: int = 4) -> None:
    """RSS of the server after ``states`` distinct states, read every quarter of the way:
    flat once the caches are full (their sizes: app/station/services.py,
    app/rendering/pipeline.py)."""
    print(
        f"\n4. Memory: {states} distinct states from {clients} clients; RSS of every server process"
    )
    print(f"   before: {rss_mb(server):.0f} MB")
    marks = [states * q // 4 for q in (1, 2, 3, 4)]
    sent = 0
    bad = 0
    lock = threading.Lock()

    def client(start: int) -> None:
        nonlocal bad
        with closing(http.client.HTTPConnection(HOST, port, timeout=60)) as conn:
            for i in range(start, end, clients):
                _, ok = get_ms(conn, churn_path(50_000 + i))
                with lock:
                    bad += not ok

    t0 = time.perf_counter()
    readings = []
    for end in marks:
        threads = [threading.Thread(target=client, args=(sent + c,)) for c in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        sent = end
        each, peaks = rss_each(server), rss_each(server, "VmHWM")
        readings.append(sum(each))
        print(
            f"   after {end:>6} states: {readings[-1]:.0f} MB "
            f"(each process: {' + '.join(f'{x:.0f}' for x in each)}, "
            f"its peak so far {' + '.join(f'{x:.0f}' for x in peaks)}; "
            f"{time.perf_counter() - t0:.0f} s, non-200 {bad})"
        )
    growth = readings[-1] / readings[-2] - 1
    verdict = "flat" if growth <= 0.05 else "STILL GROWING"
    print(f"   last quarter {growth:+.1%}: {verdict}")


def class_path(j: int, i: int, rng: random.Random) -> str:
    """Learner j's i-th state (i < 500): a match nobody asked for before (unique per (j, i)
    while j < 399: 199 999 is prime, so 7 919 permutes its residues), k from 2 to 12, on one
    of a few seeds."""
    match = ((j * 500 + i) * 7919 % 199_999 + 0.5) / 199_999
    return f"{EVIDENCE}&match={match:.6f}&k={rng.randint(2, 12)}&seed={rng.choice(CLASS_SEEDS)}"


def burst(port: int, learners: int, first: int) -> None:
    """Every learner asks for a new state at the same instant (the instructor says "now
    move k"): how long the last of them waits (information: the queue drains at the
    server's pace, so this is learners x a state's cost / workers)."""
    times: list[float] = []
    lock = threading.Lock()
    start = threading.Barrier(learners)

    def one(j: int) -> None:
        with closing(http.client.HTTPConnection(HOST, port, timeout=60)) as conn:
            conn.connect()
            start.wait()
            ms, _ = get_ms(conn, class_path(first + j, 499, random.Random(-1 - j)))
        with lock:
            times.append(ms)

    threads = [threading.Thread(target=one, args=(j,)) for j in range(learners)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(
        f"   all {learners} at once first (information): p50 {pct(times, 50):.0f} ms, "
        f"the last answered after {max(times):.0f} ms"
    )


def bench_class(
    port: int,
    learners: int,
    duration: float,
    *,
    section: str = "5",
    who: str = "A class",
    pauses: tuple[float, float] = (0.15, 1.0),
    budget: tuple[int, float] = (99, CLASS_P99_MS),
) -> None:
    """``learners`` browsers dragging sliders for ``duration`` seconds (sections 5 and 6)."""
    times: list[float] = []
    bad = 0
    lock = threading.Lock()
    stop = time.perf_counter() + duration
    first = 0 if section == "5" else 150  # the lecture's learners are not the class's

    def learner(j: int) -> None:
        nonlocal bad
        rng = random.Random(j)  # seeded: the same class every run
        with closing(http.client.HTTPConnection(HOST, port, timeout=60)) as conn:
            i = 0
            # A learner's first move follows a pause like every later one: a class does not
            # move in lockstep (`burst`, below, measures the moment when it does).
            time.sleep(rng.uniform(*pauses))
            while time.perf_counter() < stop:
                try:
                    ms, ok = get_ms(conn, class_path(first + j, i, rng))
                except OSError:
                    ms, ok = float("nan"), False
                with lock:
                    times.append(ms)
                    bad += not ok
                i += 1
                time.sleep(rng.uniform(*pauses))

    print(
        f"\n{section}. {who} of {learners} dragging match and k for {duration:g} s "
        f"({pauses[0]:g}-{pauses[1]:g} s pauses, seeds {CLASS_SEEDS})"
    )
    with closing(http.client.HTTPConnection(HOST, port, timeout=60)) as conn:
        for seed in CLASS_SEEDS:  # warm-up: each seed's texts and laws once, as a class would
            for _ in range(4):
                get_ms(conn, f"{EVIDENCE}&seed={seed}")
    burst(port, learners, first)
    with HealthProbe(port) as probe:
        t0 = time.perf_counter()
        threads = [threading.Thread(target=learner, args=(j,)) for j in range(learners)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - t0
    if len(times) < 2:
        print("   no answers")
        return
    answered = [t for t in times if t == t]  # NaN: a connection that failed
    print(
        f"   {len(times)} new states in {elapsed:.0f} s ({len(times) / elapsed:.1f}/s), "
        f"errors {bad}; each learner waited p50 {pct(answered, 50):.0f} ms, "
        f"p95 {pct(answered, 95):.0f} ms, p99 {pct(answered, 99):.0f} ms, "
        f"max {max(answered):.0f} ms"
    )
    q, limit = budget
    ok = pct(answered, q) <= limit and bad == 0
    verdict = "ok" if ok else "OVER BUDGET"
    print(f"   budget p{q} <= {limit:g} ms and zero errors: {verdict}")
    print(f"   /healthz meanwhile (one more client): {probe.summary()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run (default 10)")
    parser.add_argument("--requests", type=int, default=300, help="sequential requests per URL")
    parser.add_argument("--churn", type=int, default=1500, help="new states in a row (1b)")
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="server worker processes (default: as make serve, one per core)",
    )
    parser.add_argument(
        "--states",
        type=int,
        default=20_000,
        help="distinct states for the memory run (4); 0 skips it",
    )
    parser.add_argument(
        "--learners", type=int, default=40, help="learners dragging at once (5; 0 skips it)"
    )
    parser.add_argument(
        "--lecture", type=int, default=200, help="learners in the lecture (6; 0 skips it)"
    )
    parser.add_argument("--only", default="", help="run only these sections, e.g. '2,3'")
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryFile() as log:
        workers = args.workers or worker_count(AppSettings())
        proc = start_server(port, workers, log=log)
        try:
            if not wait_healthy(port, proc):
                log.seek(0)
                print("server did not become healthy:\n" + log.read().decode(errors="replace"))
                return 1
            load, cpus = os.getloadavg()[0], os.cpu_count() or 1
            print(
                f"server: uvicorn (h11) on http://{HOST}:{port}, pid {proc.pid}, "
                f"{workers} workers; "
                f"python {platform.python_version()}, {cpus} cpus, load {load:.2f}"
            )
            if load > 0.5 * cpus:
                print("note: the machine is busy (load average above half the cpus): noisy tails")
            every = {"1", "1b", "2", "3", "4", "5", "6"}
            wanted = set(args.only.split(",")) if args.only else every
            if "1" in wanted:
                bench_sequential(port, args.requests)
            if "1b" in wanted:
                bench_churn(port, args.churn)
            if "2" in wanted:
                bench_wrk(port, args.duration)
            if "3" in wanted:
                bench_heaviest(port, proc.pid)
            if "4" in wanted and args.states:
                bench_memory(port, proc.pid, args.states)
            if "5" in wanted and args.learners:
                bench_class(port, args.learners, max(args.duration, 20))
            if "6" in wanted and args.lecture:
                bench_class(
                    port,
                    args.lecture,
                    max(args.duration, 20),
                    section="6",
                    who="A lecture",
                    pauses=(1.0, 4.0),
                    budget=(95, LECTURE_P95_MS),
                )
        finally:
            stop_server(proc, timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
