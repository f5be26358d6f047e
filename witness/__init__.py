"""The witness: a deterministic numpy account of what speculative sampling does to a request.

It knows nothing of HTTP, HTML or the browser; the server, the command line, the tests and
the benchmarks all call these names.
"""

from witness.cache import RequestCache
from witness.request import serve_request
from witness.roofline import batched_speedup, next_k_heuristic, roofline_pass_seconds
from witness.rule import BlockResult, verify_block
from witness.settings import Settings
from witness.siblings import (
    SiblingResult,
    expected_tree_tokens_per_pass,
    sibling_acceptance,
    sibling_distribution,
    simulate_siblings,
    verify_siblings,
)
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
from witness.typical import typical_distribution

__all__ = [
    "BlockResult",
    "RequestCache",
    "RequestTrace",
    "Settings",
    "SiblingResult",
    "Simulation",
    "acceptance_rate",
    "batched_speedup",
    "expected_speedup",
    "expected_tokens_per_pass",
    "expected_tree_tokens_per_pass",
    "next_k_heuristic",
    "optimal_k",
    "output_distribution",
    "residual",
    "roofline_pass_seconds",
    "serve_request",
    "sibling_acceptance",
    "sibling_distribution",
    "simulate_blocks",
    "simulate_siblings",
    "typical_distribution",
    "verify_block",
    "verify_siblings",
]
