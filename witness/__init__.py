"""The witness: a deterministic numpy account of what speculative sampling does to a request.

It knows nothing of HTTP, HTML or the browser; the server, the command line, the tests and
the benchmarks all call these names.
"""

from witness.cache import RequestCache
from witness.request import serve_request
from witness.rule import BlockResult, verify_block
from witness.settings import Settings
from witness.simulate import Simulation, simulate_blocks
from witness.theory import (
    acceptance_rate,
    expected_speedup,
    expected_tokens_per_pass,
    optimal_k,
    output_distribution,
    residual,
)
from witness.trace import RequestTrace

__all__ = [
    "BlockResult",
    "RequestCache",
    "RequestTrace",
    "Settings",
    "Simulation",
    "acceptance_rate",
    "expected_speedup",
    "expected_tokens_per_pass",
    "optimal_k",
    "output_distribution",
    "residual",
    "serve_request",
    "simulate_blocks",
    "verify_block",
]
