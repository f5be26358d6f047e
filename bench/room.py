"""A classroom that one careless or hostile laptop tries to stop, over real HTTP.

Starts the real server as `make serve` does (uvicorn, `app.main:create_app`, the station's
protocol, no access log; one worker unless `--workers`) in a subprocess on a free 127.0.0.1
port, its class database in a fresh temporary directory and its log in a file. It opens a
class, has `--learners` learners predict, reveals the answer, and then, for `--seconds`
seconds, plays the room at once:

- **stalled**: `--stalled` connections each send the head of a `POST /api/classes` and a
  tenth of its body, then nothing; a closed one is opened again;
- **trickling**: `--trickling` connections each send a head and then one byte of body every
  half second, for ever;
- **dropping**: a client that sends half a learner's form (`POST /class/predict`) and hangs
  up, four times a second;
- **heavy**: `--heavy` clients each asking `/api/evaluation` on states nobody asked for
  before (k = 16, 256 tokens: seconds of CPU each), one after another;
- **the projector**: the revealed class's page (`/class/C`) and its live part
  (`/class/C/live`, as htmx asks for it), one after the other, once a second;
- **/healthz**, ten times a second.

It prints the projector's and `/healthz`'s p50 / p95 / max and their answers by status, what
the stalled and trickling connections got (the status the server answered with, and how long
the server took to close them), the heavy clients' answers by status, the most sockets the
server held at once (from /proc), and the lines the server's log gained while the room
played. Budgets (docs/classroom.md): the projector answers 200 with p95 under 2 s; /healthz
p95 under 100 ms; every stalled or trickling connection answered 408 and closed within the
request deadline; at most one log line per refused or dropped connection, no traceback.
Figures are printed, never fatal: exit 0 unless the server could not start.

Run from the repo root: `.venv/bin/python bench/room.py [--seconds 20] [--workers 1]`.
"""

from __future__ import annotations

import sys
from pathlib import Path

# bench/http.py would shadow http.client: drop this folder from the path, as it does.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402

ROOT = _HERE.parent
sys.path.insert(0, str(ROOT))
from app.classes.records import PREDICTABLE, QUESTIONS  # noqa: E402
from bench.serving import HOST, free_port, pct, start_server, stop_server, wait_healthy  # noqa: E402

EXPENSIVE = "/api/evaluation?k=16&match=0&tokens=256&seed={seed}"
PROJECTOR_P95_S = 2.0
HEALTHZ_P95_MS = 100.0
STALLED_BODY = 1000  # the Content-Length a stalled client announces; it sends a tenth


@dataclass
class Timed:
    """Latencies (seconds) and statuses of one kind of request."""

    seconds: list[float] = field(default_factory=list)
    statuses: Counter[int | str] = field(default_factory=Counter)

    def line(self, unit: str = "ms") -> str:
        if len(self.seconds) < 2:
            return f"{len(self.seconds)} answered; {dict(self.statuses)}"
        scale = 1e3 if unit == "ms" else 1.0
        p50, p95 = pct(self.seconds, 50) * scale, pct(self.seconds, 95) * scale
        top = max(self.seconds) * scale
        return (
            f"{len(self.seconds)} asked, p50 {p50:.1f} {unit}, p95 {p95:.1f} {unit}, "
            f"max {top:.1f} {unit}; by status {dict(sorted(self.statuses.items(), key=str))}"
        )


@dataclass
class Held:
    """What the server did with connections that never finish their request."""

    opened: int = 0
    answered: Counter[int | str] = field(default_factory=Counter)
    closed_after: list[float] = field(default_factory=list)  # seconds from open to close


async def http(
    method: str,
    path: str,
    port: int,
    *,
    body: bytes = b"",
    headers: dict[str, str] | None = None,
    timeout: float = 60.0,
) -> tuple[int, bytes]:
    """One request on its own connection: (status, body); ("timeout"/"error", b"")."""
    head = f"{method} {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nConnection: close\r\n"
    for k, v in (headers or {}).items():
        head += f"{k}: {v}\r\n"
    if body or method == "POST":
        head += f"Content-Length: {len(body)}\r\n"
    reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), timeout)
    try:
        writer.write(head.encode() + b"\r\n" + body)
        raw = await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()
    status_line, _, rest = raw.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


async def timed(out: Timed, method: str, path: str, port: int, **kw: object) -> None:
    t0 = time.perf_counter()
    try:
        status, _ = await http(method, path, port, **kw)  # type: ignore[arg-type]
        out.statuses[status] += 1
    except TimeoutError:
        out.statuses["timeout"] += 1
    except OSError:
        out.statuses["error"] += 1
    out.seconds.append(time.perf_counter() - t0)


def status_of(raw: bytes) -> int | str:
    if raw.startswith(b"HTTP/1."):
        return int(raw.split()[1])
    return "closed, no answer" if not raw else "garbled"


async def stall_one(port: int, held: Held, stop: asyncio.Event, trickle: bool) -> None:
    """One connection that never finishes its body; opened again when the server closes it."""
    head = (
        f"POST /api/classes HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {STALLED_BODY}\r\n\r\n"
    ).encode()
    while not stop.is_set():
        t0 = time.perf_counter()
        try:
            reader, writer = await asyncio.open_connection(HOST, port)
        except OSError:
            held.answered["refused at connect"] += 1
            await asyncio.sleep(0.5)
            continue
        held.opened += 1
        try:
            writer.write(head + b"{" * (0 if trickle else STALLED_BODY // 10))
            read = asyncio.ensure_future(reader.read())
            while not read.done() and not stop.is_set():
                if trickle:
                    writer.write(b" ")
                await asyncio.wait([read], timeout=0.5)
            if read.done():
                held.answered[status_of(read.result())] += 1
                held.closed_after.append(time.perf_counter() - t0)
            else:
                read.cancel()
        except OSError:
            held.answered["reset"] += 1
            held.closed_after.append(time.perf_counter() - t0)
        finally:
            writer.close()


async def drop_forms(port: int, stop: asyncio.Event, count: list[int]) -> None:
    body = b"code=ABCDEF&learner=bench-dropper&question=q&intervention=k"
    head = (
        f"POST /class/predict HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
        # From the station's own page, as a browser says it, so the form's body is read.
        f"Origin: http://{HOST}:{port}\r\nSec-Fetch-Site: same-origin\r\n"
        f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {2 * len(body)}"
        "\r\n\r\n"
    ).encode()
    while not stop.is_set():
        try:
            _, writer = await asyncio.open_connection(HOST, port)
            writer.write(head + body)
            await writer.drain()
            await asyncio.sleep(0.05)
            writer.transport.abort()  # hang up mid-body, as a phone leaving the Wi-Fi does
            count[0] += 1
        except OSError:
            pass
        await asyncio.sleep(0.25)


async def every(pause: float, stop: asyncio.Event, work: object) -> None:
    while not stop.is_set():
        await work()  # type: ignore[operator]
        await asyncio.sleep(pause)


def server_sockets(root: int) -> int:
    """Sockets open in the server's processes (uvicorn's supervisor and its workers)."""
    from bench.http import server_pids  # the same /proc walk bench/http.py uses

    total = 0
    for pid in server_pids(root):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                total += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
            except OSError:
                pass
    return total


async def play(args: argparse.Namespace, port: int, server: int, log: Path) -> None:
    # The class: opened, predicted on, revealed (the projector has not drawn the reveal yet).
    key = os.environ.get("STATION08_INSTRUCTOR_KEY", "")
    auth = {"Authorization": f"Bearer {key}"} if key else {}
    status, body = await http(
        "POST",
        "/api/classes",
        port,
        body=b"{}",
        headers={"Content-Type": "application/json", **auth},
    )
    if status not in (200, 201):
        print(f"could not open a class: {status} {body[:200]!r}")
        return
    opened = json.loads(body)
    code, host = opened["code"], {"Authorization": f"Bearer {opened['host_key']}"}
    for i in range(args.learners):
        prediction = {
            "learner": f"room-learner-{i:04d}",
            "question": QUESTIONS[0],
            "intervention": PREDICTABLE[i % len(PREDICTABLE)],
            "faster": i % 2 == 0,
            "kept": i % 3 != 0,
        }
        await http(
            "POST",
            f"/api/classes/{code}/predictions",
            port,
            body=json.dumps(prediction).encode(),
            headers={"Content-Type": "application/json"},
        )
    status, _ = await http("POST", f"/api/classes/{code}/reveal", port, headers=host)
    print(f"class {code}: {args.learners} learners predicted; reveal: {status}")

    stop = asyncio.Event()
    projector, live, health, heavy = Timed(), Timed(), Timed(), Timed()
    stalled, trickling = Held(), Held()
    dropped = [0]
    seed = iter(range(10_000, 10**9))
    lines_before = len(log.read_bytes().splitlines())
    sockets: list[int] = []

    async def project() -> None:
        await timed(projector, "GET", f"/class/{code}", port)
        await timed(live, "GET", f"/class/{code}/live", port, headers={"HX-Request": "true"})

    async def evaluate() -> None:
        await timed(heavy, "GET", EXPENSIVE.format(seed=next(seed)), port, timeout=120.0)

    async def sample() -> None:
        sockets.append(await asyncio.to_thread(server_sockets, server))

    tasks = [
        asyncio.create_task(stall_one(port, stalled, stop, False)) for _ in range(args.stalled)
    ]
    tasks += [
        asyncio.create_task(stall_one(port, trickling, stop, True)) for _ in range(args.trickling)
    ]
    tasks += [asyncio.create_task(every(0.0, stop, evaluate)) for _ in range(args.heavy)]
    tasks += [
        asyncio.create_task(drop_forms(port, stop, dropped)),
        asyncio.create_task(every(1.0, stop, project)),
        asyncio.create_task(every(0.1, stop, lambda: timed(health, "GET", "/healthz", port))),
        asyncio.create_task(every(0.5, stop, sample)),
    ]
    await asyncio.sleep(args.seconds)
    stop.set()
    await asyncio.wait(tasks, timeout=130)
    lines = log.read_bytes().splitlines()[lines_before:]

    print(
        f"\nThe room for {args.seconds} s: {args.stalled} stalled and {args.trickling} "
        f"trickling bodies, {args.heavy} heavy clients, a dropped form every 0.25 s"
    )
    p95 = pct(projector.seconds + live.seconds, 95) if len(projector.seconds) > 1 else float("inf")
    verdict = "ok" if p95 < PROJECTOR_P95_S and set(projector.statuses) == {200} else "OVER BUDGET"
    print(f"  projector /class/C:      {projector.line('s')}")
    print(f"  projector /class/C/live: {live.line('s')}")
    print(f"  projector p95 (both) {p95:.2f} s, budget < {PROJECTOR_P95_S:g} s, all 200: {verdict}")
    h95 = pct(health.seconds, 95) * 1e3 if len(health.seconds) > 1 else float("inf")
    print(
        f"  /healthz: {health.line()}; p95 budget < {HEALTHZ_P95_MS:g} ms: "
        f"{'ok' if h95 < HEALTHZ_P95_MS else 'OVER BUDGET'}"
    )
    print(f"  heavy /api/evaluation: {heavy.line('s')}")
    for name, held in (("stalled", stalled), ("trickling", trickling)):
        after = (
            f"closed after p50 {pct(held.closed_after, 50):.1f} s, max "
            f"{max(held.closed_after):.1f} s"
            if len(held.closed_after) > 1
            else f"{len(held.closed_after)} closed by the server"
        )
        print(
            f"  {name}: {held.opened} connections opened; the server answered "
            f"{dict(held.answered)}; {after}"
        )
    print(f"  dropped forms: {dropped[0]}")
    top = max(sockets) if sockets else 0
    print(
        f"  server sockets: at most {top} open at once, {sockets[-1] if sockets else 0} at the end"
    )
    tracebacks = sum(b"Traceback" in line for line in lines)
    refused = len(held_lines := [ln for ln in lines if b"Refused" in ln or b"dropped" in ln])
    print(
        f"  server log: {len(lines)} lines written ({tracebacks} tracebacks, {refused} refusal "
        f"or drop lines; connections refused, answered or dropped: "
        f"{stalled.opened + trickling.opened + dropped[0]})"
    )
    for line in (held_lines or lines)[:3]:
        print(f"    e.g. {line.decode(errors='replace')[:140]}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--learners", type=int, default=30)
    ap.add_argument("--stalled", type=int, default=200)
    ap.add_argument("--trickling", type=int, default=50)
    ap.add_argument("--heavy", type=int, default=24)
    args = ap.parse_args()
    data = Path(tempfile.mkdtemp(prefix="station08-bench-room-"))
    log_path = data / "server.log"
    env = {**os.environ, "STATION08_DATA_DIR": str(data / "classes")}
    port = free_port()
    with log_path.open("wb") as log:
        proc = start_server(port, args.workers, log=log, env=env)
        try:
            if not wait_healthy(port, proc, timeout=90.0):
                print("the server did not start:\n" + log_path.read_text(errors="replace"))
                return 1
            print(f"bench/room.py: {args.workers} worker(s), load average {os.getloadavg()[0]:.2f}")
            asyncio.run(play(args, port, proc.pid, log_path))
        finally:
            stop_server(proc)
            shutil.rmtree(data, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
