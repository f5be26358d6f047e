"""The witness: a deterministic numpy account of what speculative sampling does to a request.

It knows nothing of HTTP, HTML or the browser; the server, the command line, the tests and
the benchmarks all call these names.
"""

from witness.core.rule import BlockResult, verify_block
from witness.core.settings import Settings
from witness.core.theory import (
    acceptance_rate,
    expected_speedup,
    expected_tokens_per_pass,
    optimal_k,
    output_distribution,
    residual,
)
from witness.core.trace import RequestTrace
from witness.cost.roofline import batched_speedup, next_k_heuristic, roofline_pass_seconds
from witness.methods.sibling_blocks import simulate_siblings
from witness.methods.sibling_laws import (
    expected_tree_tokens_per_pass,
    sibling_acceptance,
    sibling_distribution,
)
from witness.methods.siblings import SiblingResult, verify_siblings
from witness.methods.typical import typical_distribution
from witness.models.cache import RequestCache
from witness.models.simulate import Simulation, simulate_blocks
from witness.serve.request import serve_request

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
