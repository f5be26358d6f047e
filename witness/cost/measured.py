"""The roofline measured on this server: one weight matrix against 1, 2, 4, … 64 vectors.

Not part of the deterministic witness. Everything else in `witness` is a pure function of
its settings; this module times numpy on whatever machine runs it, so its numbers change
from run to run and from machine to machine, and nothing the station judges depends on
them. It exists to check the roofline's claim (`witness.cost.roofline`) on real hardware: a
decode pass reads every weight once, so scoring k + 1 tokens in one pass should cost about
what scoring one does, until the arithmetic catches up.

`measured_here()` measures once per process (the web panel and the CLI use it); it is
never on the slider path.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path

import numpy as np

from witness.cost.roofline import compute_bound_tokens, roofline_pass_seconds

# 8 192 × 4 096 float32 = 128 MiB: four times this project's machine's 32 MiB L3 and larger
# than the last-level cache of common server CPUs, so every pass streams W from memory
# (as a decode pass streams a model's weights), not from a cache.
ROWS, COLS = 8_192, 4_096
WIDTHS = (1, 2, 4, 8, 16, 32, 64)
REPEATS = 5
BYTES_PER_FLOAT32 = 4.0
FLAT = 1.5  # a width whose pass costs at most this many one-vector passes reads as "flat"


@dataclass(frozen=True, slots=True)
class MeasuredPoint:
    """One width: the best time of ``W @ X`` with X of ``width`` columns, and the model's."""

    width: int
    seconds: float
    ratio: float  # seconds / the one-vector seconds
    gb_per_s: float  # bytes of W read / seconds, in 1e9 bytes a second
    gflop_per_s: float  # 2 · rows · cols · width / seconds, in 1e9 a second
    model_seconds: float  # the roofline fitted to this measurement (see MeasuredRoofline)


@dataclass(frozen=True, slots=True)
class MeasuredRoofline:
    """A measurement of one float32 matrix against each width, and the model beside it.

    The model's curve is `roofline_pass_seconds(rows · cols, width, bandwidth, flops,
    bytes_per_param=4)` with both machine numbers fitted from the measurement itself:
    ``bandwidth`` is W's bytes over the one-vector time, ``flops`` the best GFLOP/s any
    width reached. So the model meets the measurement at one vector and at the fastest
    width by construction; what it predicts is the shape in between (flat, then rising
    once the pass turns compute-bound past ``compute_bound_width`` vectors).
    """

    rows: int
    cols: int
    repeats: int
    machine: str
    cache_bytes: int | None  # this server's last-level cache, when the OS says
    points: tuple[MeasuredPoint, ...]
    bandwidth: float  # bytes a second, fitted
    flops: float  # floating-point operations a second, fitted
    compute_bound_width: float

    @property
    def weight_bytes(self) -> float:
        return self.rows * self.cols * BYTES_PER_FLOAT32

    @property
    def widest(self) -> MeasuredPoint:
        return self.points[-1]

    def size_words(self) -> str:
        """W's size against the last-level cache: '128 MiB, 4.0× the 32 MiB last-level cache'.

        Examples
        --------
        >>> m = MeasuredRoofline(8192, 4096, 5, "", 32 * 2**20, (), 1.0, 1.0, 1.0)
        >>> m.size_words()
        '128 MiB, 4.0× the 32 MiB last-level cache'
        >>> MeasuredRoofline(256, 256, 5, "", 32 * 2**20, (), 1.0, 1.0, 1.0).size_words()
        '256 KiB, inside the 32 MiB last-level cache: this times the cache, not memory'
        >>> MeasuredRoofline(256, 256, 5, "", None, (), 1.0, 1.0, 1.0).size_words()
        '256 KiB; the last-level cache size is unknown here'
        """
        size = _bytes(self.weight_bytes)
        if self.cache_bytes is None:
            return f"{size}; the last-level cache size is unknown here"
        llc = _bytes(self.cache_bytes)
        if self.weight_bytes <= self.cache_bytes:
            return f"{size}, inside the {llc} last-level cache: this times the cache, not memory"
        return f"{size}, {self.weight_bytes / self.cache_bytes:.1f}× the {llc} last-level cache"

    def summary(self) -> str:
        """What the numbers show, in words computed from them (see `summarise`)."""
        return summarise(self.points)


def _bytes(n: float) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.0f} {unit}"
    return f"{n:.0f} bytes"


def _best_seconds(run: Callable[[], object], repeats: int) -> float:
    run()  # warm-up: first-touch of the output, BLAS's buffers and threads
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def measure_roofline(
    *,
    rows: int = ROWS,
    cols: int = COLS,
    widths: Sequence[int] = WIDTHS,
    repeats: int = REPEATS,
) -> MeasuredRoofline:
    """Time ``W @ X`` (W rows × cols float32, X cols × n) for each n in ``widths``.

    Each width's time is the best of ``repeats`` after one warm-up: the least disturbed
    run on a machine that may be doing other work. The width 1 must come first: it is the
    reference every ratio divides by. The inputs are seeded, the timings are not.
    """
    if not widths or widths[0] != 1 or any(n < 1 for n in widths):
        raise ValueError(f"widths must start at 1 and be positive (got {tuple(widths)!r})")
    if rows < 1 or cols < 1 or repeats < 1:
        raise ValueError(f"rows, cols, repeats must be at least 1 (got {rows}, {cols}, {repeats})")
    rng = np.random.default_rng(8)
    # Values in [0, 1): no denormals, so the arithmetic takes its usual time.
    weights = rng.random((rows, cols), dtype=np.float32)
    seconds = []
    for n in widths:
        x = rng.random((cols, n), dtype=np.float32)
        out = np.empty((rows, n), dtype=np.float32)
        seconds.append(_best_seconds(partial(np.matmul, weights, x, out=out), repeats))
    del weights  # 128 MiB: the process keeps the numbers, not the matrix
    params = float(rows * cols)
    w_bytes = params * BYTES_PER_FLOAT32
    bandwidth = w_bytes / seconds[0]
    flops = max(2.0 * params * n / s for n, s in zip(widths, seconds, strict=True))
    points = tuple(
        MeasuredPoint(
            width=n,
            seconds=s,
            ratio=s / seconds[0],
            gb_per_s=w_bytes / s / 1e9,
            gflop_per_s=2.0 * params * n / s / 1e9,
            model_seconds=roofline_pass_seconds(
                params, n, bandwidth=bandwidth, flops=flops, bytes_per_param=BYTES_PER_FLOAT32
            ),
        )
        for n, s in zip(widths, seconds, strict=True)
    )
    return MeasuredRoofline(
        rows=rows,
        cols=cols,
        repeats=repeats,
        machine=machine(),
        cache_bytes=last_level_cache_bytes(),
        points=points,
        bandwidth=bandwidth,
        flops=flops,
        compute_bound_width=compute_bound_tokens(
            bandwidth=bandwidth, flops=flops, bytes_per_param=BYTES_PER_FLOAT32
        ),
    )


def last_level_cache_bytes() -> int | None:
    """The largest cache of CPU 0 (Linux's sysfs), or None where it cannot be read."""
    sizes = []
    for index in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        try:
            text = (index / "size").read_text().strip()
        except OSError:
            continue
        unit = {"K": 2**10, "M": 2**20, "G": 2**30}.get(text[-1:], 1)
        digits = text[:-1] if unit != 1 else text
        if digits.isdigit():
            sizes.append(int(digits) * unit)
    return max(sizes, default=None)


def machine() -> str:
    """This server in a few words: CPUs, their model, numpy and its BLAS."""
    cpu = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "")
    except OSError:
        pass  # not Linux: the CPU count and numpy still say something
    blas = ""
    config = np.show_config(mode="dicts")
    if isinstance(config, dict):
        info = config.get("Build Dependencies", {}).get("blas", {})
        blas = f" with {info.get('name', 'its BLAS')} {info.get('version', '')}".rstrip()
    count = os.cpu_count() or 1
    cpus = f"{count} CPU{'s' if count != 1 else ''}" + (f" ({cpu})" if cpu else "")
    return f"{cpus}, numpy {np.__version__}{blas}"


def summarise(points: Sequence[MeasuredPoint]) -> str:
    """The honest sentence: is the measured curve flat, and where does it rise?

    Examples
    --------
    >>> def pt(n, r):
    ...     return MeasuredPoint(n, r * 0.01, r, 1.0, 1.0, 0.01)
    >>> print(summarise([pt(1, 1.0), pt(8, 1.1), pt(64, 1.3)]))  # doctest: +NORMALIZE_WHITESPACE
    64 vectors cost 1.30× one vector: one pass over many tokens costs about one pass here,
    as the roofline says.
    >>> flat_then_rising = [pt(1, 1.0), pt(2, 1.1), pt(8, 1.2), pt(64, 4.0)]
    >>> print(summarise(flat_then_rising))  # doctest: +NORMALIZE_WHITESPACE
    64 vectors cost 4.00× one vector: flat up to 8 vectors (1.20×), then rising. Still, one
    pass over 64 vectors costs 16.0× less than 64 one-vector passes.
    >>> step_at_two = [pt(1, 1.0), pt(2, 3.8), pt(32, 5.2), pt(64, 7.5)]
    >>> print(summarise(step_at_two))  # doctest: +NORMALIZE_WHITESPACE
    64 vectors cost 7.50× one vector: not flat on this server, the step comes at once
    (2 vectors cost 3.80× one; W is read at 1.0 GB/s for one vector, 1.0 GB/s for 2), then
    from 2 to 64 vectors the time grows 1.97×. Still, one pass over 64 vectors costs 8.5×
    less than 64 one-vector passes.
    """
    last = points[-1]
    head = f"{last.width} vectors cost {last.ratio:.2f}× one vector"
    flat = [p for p in points if p.ratio <= FLAT]
    if len(flat) == len(points):
        return f"{head}: one pass over many tokens costs about one pass here, as the roofline says."
    flat_to = next((points[i - 1] for i, p in enumerate(points) if p.ratio > FLAT), last)
    if flat_to.width > 1:
        shape = f"flat up to {flat_to.width} vectors ({flat_to.ratio:.2f}×), then rising."
    else:
        step = points[1]
        shape = (
            f"not flat on this server, the step comes at once ({step.width} vectors cost "
            f"{step.ratio:.2f}× one; W is read at {points[0].gb_per_s:.1f} GB/s for one "
            f"vector, {step.gb_per_s:.1f} GB/s for {step.width}), then from {step.width} to "
            f"{last.width} vectors the time grows {last.ratio / step.ratio:.2f}×."
        )
    saving = last.width / last.ratio
    still = (
        f" Still, one pass over {last.width} vectors costs {saving:.1f}× less than "
        f"{last.width} one-vector passes."
        if saving > 1
        else f" {last.width} vectors in one pass cost as much as {last.width} separate passes."
    )
    return f"{head}: {shape}{still}"


def routine_note(points: Sequence[MeasuredPoint]) -> str:
    """Why a step at the second width, when there is one (else empty).

    numpy's matmul hands a product with one column to BLAS's matrix-vector routine (gemv)
    and wider ones to its matrix-matrix routine (gemm), which streams W differently.

    Examples
    --------
    >>> def pt(n, r, gb):
    ...     return MeasuredPoint(n, r * 0.01, r, gb, 1.0, 0.01)
    >>> print(routine_note([pt(1, 1.0, 24.0), pt(2, 3.6, 6.7)]))  # doctest: +NORMALIZE_WHITESPACE
    Why the step at 2 vectors: numpy hands one vector to BLAS's matrix-vector routine (gemv)
    and more to its matrix-matrix routine (gemm), which here reads W at 6.7 GB/s, not 24.0.
    >>> routine_note([pt(1, 1.0, 24.0), pt(2, 1.1, 22.0)])
    ''
    """
    if len(points) < 2 or points[1].ratio <= FLAT:
        return ""
    one, step = points[0], points[1]
    return (
        f"Why the step at {step.width} vectors: numpy hands one vector to BLAS's "
        "matrix-vector routine (gemv) and more to its matrix-matrix routine (gemm), which "
        f"here reads W at {step.gb_per_s:.1f} GB/s, not {one.gb_per_s:.1f}."
    )


def format_roofline(m: MeasuredRoofline) -> str:
    """The CLI's table: width, ms, × one vector, GB/s, GFLOP/s and the model's ms."""
    lines = [
        "Measured on this server (not part of the deterministic witness):",
        f"W is {m.rows} x {m.cols} float32 ({m.size_words()}), "
        f"best of {m.repeats} after a warm-up; {m.machine}",
        "",
        f"{'width':>5} {'ms':>9} {'x one':>7} {'GB/s':>7} {'GFLOP/s':>8} {'model ms':>9}",
    ]
    for p in m.points:
        lines.append(
            f"{p.width:>5} {p.seconds * 1e3:>9.3f} {p.ratio:>7.2f} {p.gb_per_s:>7.1f} "
            f"{p.gflop_per_s:>8.1f} {p.model_seconds * 1e3:>9.3f}"
        )
    lines += [
        "",
        f"model: the roofline fitted to this run, bandwidth {m.bandwidth / 1e9:.1f} GB/s "
        f"(the one-vector pass), flops {m.flops / 1e9:.1f} GFLOP/s (the best width); "
        f"compute-bound past {m.compute_bound_width:.1f} vectors",
        m.summary(),
    ]
    note = routine_note(m.points)
    return "\n".join([*lines, note] if note else lines)


_LOCK = threading.Lock()


@cache
def _measured_once() -> MeasuredRoofline:
    return measure_roofline()


def measured_here() -> MeasuredRoofline:
    """This server's measurement at the full size, made once per process.

    The lock keeps two first requests from measuring at once (each would slow the other).
    """
    with _LOCK:
        return _measured_once()
