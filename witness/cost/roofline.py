"""Why two models are faster: the roofline cost of one forward pass, and what batching does.

Decoding one token reads every weight once and does about two floating-point operations
with each, far too little arithmetic to keep an accelerator busy: a decode pass is bound by
memory bandwidth. Scoring k + 1 tokens in the same pass reads the same weights, so it costs
about as much as scoring one, which is what makes verification nearly free. Once batch ×
tokens per sequence is large enough the arithmetic catches up, the pass turns compute-bound,
verification stops being free and speculation stops paying. The model here is the plain
roofline, with every pass also reading its batch's KV cache:

    T = max((N·b + kv_bytes) / bandwidth, 2·N·tokens / flops)

These are pure functions of their arguments; the numbers of real machines and models (and
their sources) belong to whoever calls them.
"""

from __future__ import annotations

from witness.core.theory import expected_tokens_per_pass


def _positive(**values: float) -> None:
    for name, value in values.items():
        if not value > 0:
            raise ValueError(f"{name} must be above 0 (got {value!r})")


def roofline_pass_seconds(
    params: float,
    tokens: float,
    *,
    bandwidth: float,
    flops: float,
    bytes_per_param: float = 2.0,
    kv_bytes: float = 0.0,
) -> float:
    """Seconds for one pass of a ``params``-parameter model scoring ``tokens`` new tokens in
    all (batch × tokens per sequence) while reading ``kv_bytes`` of KV cache.

    ``bandwidth`` in bytes per second, ``flops`` in floating-point operations per second.

    Examples
    --------
    >>> # NVIDIA's H100 datasheet, H100 SXM: 3.35 TB/s of HBM3, 989 TFLOP/s dense BF16 (1 979
    >>> # with sparsity); an 8.03 B-parameter target in BF16 (2 bytes a parameter)
    >>> h100 = dict(bandwidth=3.35e12, flops=989e12)
    >>> round(roofline_pass_seconds(8.03e9, 1, **h100) * 1e3, 3)
    4.794
    >>> roofline_pass_seconds(8.03e9, 5, **h100) == roofline_pass_seconds(8.03e9, 1, **h100)
    True
    """
    _positive(params=params, bandwidth=bandwidth, flops=flops, bytes_per_param=bytes_per_param)
    if tokens < 0 or kv_bytes < 0:
        raise ValueError(f"tokens and kv_bytes must be at least 0 (got {tokens!r}, {kv_bytes!r})")
    memory = (params * bytes_per_param + kv_bytes) / bandwidth
    compute = 2.0 * params * tokens / flops
    return max(memory, compute)


def compute_bound_tokens(*, bandwidth: float, flops: float, bytes_per_param: float = 2.0) -> float:
    """Tokens a pass must score before its arithmetic outlasts reading the weights (no KV):
    flops · b / (2 · bandwidth).

    Examples
    --------
    >>> round(compute_bound_tokens(bandwidth=3.35e12, flops=989e12), 1)
    295.2
    """
    _positive(bandwidth=bandwidth, flops=flops, bytes_per_param=bytes_per_param)
    return flops * bytes_per_param / (2.0 * bandwidth)


def batched_speedup(
    alpha: float,
    k: int,
    *,
    target_params: float,
    draft_params: float,
    batch: int,
    bandwidth: float,
    flops: float,
    bytes_per_param: float = 2.0,
    context: int = 0,
    target_kv_per_token: float = 0.0,
    draft_kv_per_token: float = 0.0,
) -> float:
    """Speculative decoding's speedup over plain decoding for a batch of sequences.

    E[tokens per pass](α, k) · T_target(batch) / (k · T_draft(batch) + T_target(batch·(k+1))):
    plain decoding pays one target pass over the batch per token; a speculative block pays k
    draft passes over the batch and one target pass scoring k + 1 tokens of every sequence.
    Every pass of a model reads its weights and batch · context · kv_per_token bytes of KV.

    At batch 1 with no context, while every pass is memory-bound, this is the familiar
    `expected_speedup(α, k, c)` with c = T_draft / T_target.

    Examples
    --------
    >>> pair = dict(target_params=8e9, draft_params=1e9, bandwidth=3.35e12, flops=989e12)
    >>> round(batched_speedup(0.8, 4, batch=1, **pair), 3)
    2.241
    >>> batched_speedup(0.8, 4, batch=256, **pair) < 1.0      # compute-bound: it stops paying
    True
    """
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be from 0 to 1 (got {alpha!r})")
    if k < 1 or batch < 1 or context < 0:
        raise ValueError(
            f"k and batch must be at least 1 and context at least 0 (got {k}, {batch}, {context})"
        )
    roof = {"bandwidth": bandwidth, "flops": flops, "bytes_per_param": bytes_per_param}
    target_kv = batch * context * target_kv_per_token
    draft_kv = batch * context * draft_kv_per_token
    plain = roofline_pass_seconds(target_params, batch, kv_bytes=target_kv, **roof)
    draft = roofline_pass_seconds(draft_params, batch, kv_bytes=draft_kv, **roof)
    verify = roofline_pass_seconds(target_params, batch * (k + 1), kv_bytes=target_kv, **roof)
    return float(expected_tokens_per_pass(alpha, k)) * plain / (k * draft + verify)


def next_k_heuristic(k: int, accepted: int) -> int:
    """The next draft length after a block that drafted ``k`` and had ``accepted`` of them
    accepted: two more when every draft stood, one fewer otherwise, never below 1 (the rule
    Hugging Face transformers' assisted generation uses by default).

    Examples
    --------
    >>> ks = [5]
    >>> for accepted in [5, 2, 6, 6, 0, 1]:
    ...     ks.append(next_k_heuristic(ks[-1], accepted))
    >>> ks
    [5, 7, 6, 8, 7, 6, 5]
    """
    if k < 1 or not 0 <= accepted <= k:
        raise ValueError(f"need k >= 1 and 0 <= accepted <= k (got k = {k}, accepted = {accepted})")
    return k + 2 if accepted == k else max(1, k - 1)
