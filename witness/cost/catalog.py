"""The machines, models and model pairs that price a pass, each number cited where it is
written, and the draft that runs as ``Settings.models`` says: the pair's draft model, or
the pair's target exiting early.

An early exit (LayerSkip: Elhoushi et al., "LayerSkip: Enabling Early Exit Inference and
Self-Speculative Decoding", ACL 2024) drafts with the target's first layers and an exit head,
in the target's own weights and KV cache. The station's tiny target exits after layer 1 of 4
(`witness.neural`), so a cited target's exit runs the first quarter of its layers
(`EXIT_SHARE`): the 8B's first 8 of 32. Its pass streams those layers' weights and the exit
head's, reads those layers' share of the KV cache, and pays those layers' fixed time: a
shallower model, priced by the same roofline and the same fitted pass model as any other
(`witness.cost.passes`).
"""

from __future__ import annotations

from dataclasses import dataclass

from witness.cost.passes import Shape

BF16 = 2.0  # bytes a parameter and a KV element: every pair here is served in BF16
# The share of a target's layers its early exit runs: the tiny target's exit head reads the
# residual stream after layer 1 of its 4 (witness/neural/model.py, `Config.exit_layer`).
EXIT_SHARE = 0.25


@dataclass(frozen=True, slots=True)
class Machine:
    id: str
    label: str
    bandwidth: float  # bytes per second
    flops: float  # dense BF16 (or FP16) floating-point operations per second
    memory: float  # bytes of device memory: what must hold the weights and the KV cache
    source: str
    measured: bool = False  # its passes were timed (`witness.cost.passes`): a stack prices them


@dataclass(frozen=True, slots=True)
class Model:
    key: str  # the name the measured figures use
    label: str
    params: float
    layers: int
    kv_per_token: float  # bytes of K and V a token adds: 2 · layers · kv heads · head dim · 2
    source: str
    # The output head (vocabulary × hidden) and the input embedding where it is a matrix of
    # its own (0 where the head is the embedding, tied): the rest of ``params`` is the layers'.
    head_params: float
    embedding_params: float
    # An early exit runs inside its target (this is the target's key): the server holds only
    # its exit head beside the target, and it reads and writes the target's KV cache.
    inside: str | None = None

    @property
    def shape(self) -> Shape:
        return Shape(self.key, self.params, self.layers, self.kv_per_token)

    @property
    def layer_params(self) -> float:
        """One layer's parameters: what is left of ``params`` besides the head and the
        embedding, in equal shares."""
        return (self.params - self.head_params - self.embedding_params) / self.layers

    @property
    def held_params(self) -> float:
        """The parameters a server holds for this model beside its target: all of them, or
        an early exit's head alone."""
        return self.head_params if self.inside else self.params

    @property
    def held_kv_per_token(self) -> float:
        """KV bytes a token adds to a cache of this model's own (none for an early exit)."""
        return 0.0 if self.inside else self.kv_per_token


@dataclass(frozen=True, slots=True)
class Pair:
    id: str
    label: str
    target: Model
    draft: Model


MACHINES: dict[str, Machine] = {
    m.id: m
    for m in (
        Machine(
            "h100",
            "NVIDIA H100 SXM",
            3.35e12,
            989e12,
            80e9,
            # NVIDIA H100 Tensor Core GPU datasheet: H100 SXM, 3.35 TB/s HBM3, 80 GB, BF16
            # Tensor Core 1,979 TFLOPS with sparsity (989 dense).
            "NVIDIA H100 datasheet (H100 SXM): 3.35 TB/s, 80 GB, 989 TFLOP/s dense BF16",
        ),
        Machine(
            "h200",
            "NVIDIA H200",
            4.8e12,
            989e12,
            141e9,
            # NVIDIA H200 Tensor Core GPU datasheet: H200 SXM, 141 GB HBM3e, 4.8 TB/s, BF16
            # Tensor Core 1,979 TFLOPS with sparsity (989 dense). Its passes were timed too:
            # witness/cost/h200/README.md.
            "NVIDIA H200 datasheet (H200 SXM): 4.8 TB/s, 141 GB, 989 TFLOP/s dense BF16",
            measured=True,
        ),
        Machine(
            "a100",
            "NVIDIA A100 80GB SXM",
            2.039e12,
            312e12,
            80e9,
            # NVIDIA A100 Tensor Core GPU datasheet: A100 80GB SXM, 2,039 GB/s HBM2e, BF16
            # Tensor Core 312 TFLOPS (624 with sparsity).
            "NVIDIA A100 datasheet (80GB SXM): 2,039 GB/s, 80 GB, 312 TFLOP/s dense BF16",
        ),
        Machine(
            "l4",
            "NVIDIA L4",
            300e9,
            121e12,
            24e9,
            # NVIDIA L4 Tensor Core GPU datasheet: 24 GB GDDR6, 300 GB/s, BF16 Tensor Core 242
            # TFLOPS with sparsity (121 dense).
            "NVIDIA L4 datasheet: 300 GB/s, 24 GB, 121 TFLOP/s dense BF16",
        ),
        Machine(
            "laptop",
            "a laptop (Apple M2, 24 GB)",
            100e9,
            3.6e12,
            24e9,
            # Apple newsroom, "Apple unveils M2" (6 June 2022): 100 GB/s of unified memory
            # bandwidth, up to 24 GB, a 10-core GPU of up to 3.6 TFLOPS (FP32; taken as the
            # half-precision rate too, which Apple does not state separately).
            "Apple, 'Apple unveils M2' (2022): 100 GB/s, up to 24 GB, 3.6 TFLOP/s GPU",
        ),
    )
}

LLAMA_31_8B = Model(
    "llama-3.1-8b",
    "Llama 3.1 8B",
    8.03e9,
    32,
    # config.json: 32 layers, 8 key-value heads, head dim 128 (4096 / 32 heads)
    2 * 32 * 8 * 128 * BF16,
    "Meta Llama 3.1 model card: 8.03 B parameters; config: 32 layers, 8 KV heads of 128",
    # config.json: vocabulary 128 256, hidden 4 096, the head untied from the embedding
    head_params=128_256 * 4096,
    embedding_params=128_256 * 4096,
)
LLAMA_32_1B = Model(
    "llama-3.2-1b",
    "Llama 3.2 1B",
    1.24e9,
    16,
    2 * 16 * 8 * 64 * BF16,  # config.json: 16 layers, 8 key-value heads, head dim 64
    "Meta Llama 3.2 model card: 1.24 B parameters; config: 16 layers, 8 KV heads of 64",
    # config.json: vocabulary 128 256, hidden 2 048, the head tied to the embedding
    head_params=128_256 * 2048,
    embedding_params=0.0,
)
LLAMA_31_70B = Model(
    "llama-3.1-70b",
    "Llama 3.1 70B",
    70.6e9,
    80,
    2 * 80 * 8 * 128 * BF16,  # config.json: 80 layers, 8 key-value heads, head dim 128
    "Meta Llama 3.1 model card: 70.6 B parameters; config: 80 layers, 8 KV heads of 128",
    # config.json: vocabulary 128 256, hidden 8 192, the head untied from the embedding
    head_params=128_256 * 8192,
    embedding_params=128_256 * 8192,
)
# Leviathan, Kalman and Matias, "Fast Inference from Transformers via Speculative Decoding"
# (ICML 2023), section 4: a T5-XXL (11B) target with a T5-small (77M) draft. Their decoders'
# self-attention KV from the T5 v1.1 configs (xxl: 24 decoder layers, 64 heads of 64; small:
# 8 decoder layers, 6 heads of 64); the encoder's cross-attention reads are left out. A pass
# is priced at every parameter, the encoder's included, so a "layer" here is a decoder layer
# with its share of the encoder: an early exit then runs the same share of the model's
# weights as the Llamas' does.
T5_XXL = Model(
    "t5-xxl",
    "T5-XXL",
    11e9,
    24,
    2 * 24 * 64 * 64 * BF16,
    "Leviathan et al. 2023 (11 B); t5-v1_1-xxl config: 24 decoder layers, 64 heads of 64",
    # t5-v1_1-xxl config: vocabulary 32 128, d_model 4 096, the head untied
    head_params=32_128 * 4096,
    embedding_params=32_128 * 4096,
)
T5_SMALL = Model(
    "t5-small",
    "T5-small",
    77e6,
    8,
    2 * 8 * 6 * 64 * BF16,
    "Leviathan et al. 2023 (77 M); t5-v1_1-small config: 8 decoder layers, 6 heads of 64",
    # t5-v1_1-small config: vocabulary 32 128, d_model 512, the head untied
    head_params=32_128 * 512,
    embedding_params=32_128 * 512,
)

PAIRS: dict[str, Pair] = {
    p.id: p
    for p in (
        Pair("llama-8b-1b", "Llama 3.1 8B with Llama 3.2 1B", LLAMA_31_8B, LLAMA_32_1B),
        Pair("llama-70b-8b", "Llama 3.1 70B with Llama 3.1 8B", LLAMA_31_70B, LLAMA_31_8B),
        Pair("t5-xxl-small", "T5-XXL with T5-small (the paper's pair)", T5_XXL, T5_SMALL),
    )
}


def exit_layers(target: Model) -> int:
    """The layers an early exit of ``target`` runs: `EXIT_SHARE` of them, at least one.

    Examples
    --------
    >>> [exit_layers(m) for m in (LLAMA_31_8B, LLAMA_31_70B, T5_XXL)]
    [8, 20, 6]
    """
    return max(1, round(target.layers * EXIT_SHARE))


def early_exit(target: Model) -> Model:
    """``target``'s first `exit_layers` layers and an exit head the size of its output head
    (a second head, as the tiny target's): the parameters its pass streams, and the KV of
    those layers alone, in the target's cache."""
    n = exit_layers(target)
    return Model(
        f"{target.key}-exit-{n}",
        f"{target.label}'s first {n} layers and exit head",
        n * target.layer_params + target.head_params,
        n,
        target.kv_per_token * n / target.layers,
        f"{target.label}'s first {n} of {target.layers} layers and an exit head the size of "
        "its output head, as the tiny target drafts (LayerSkip: Elhoushi et al. 2024)",
        head_params=target.head_params,
        embedding_params=0.0,  # it reads the target's embedding, held with the target
        inside=target.key,
    )


# The pairs as an early exit drafts: each pair's target with its own exit as the draft.
EXIT_PAIRS: dict[str, Pair] = {
    p.id: Pair(
        p.id,
        f"{p.target.label} drafting with its first {exit_layers(p.target)} layers",
        p.target,
        early_exit(p.target),
    )
    for p in PAIRS.values()
}


def drafting(pair: str, models: str) -> Pair:
    """The pair whose draft runs under ``models``: the cited draft model (ngram,
    small-draft), or with early-exit the target's own first layers and exit head."""
    return EXIT_PAIRS[pair] if models == "early-exit" else PAIRS[pair]


# Every model a pass may be priced for, the early exits included.
MODELS: dict[str, Model] = {
    m.key: m for p in (*PAIRS.values(), *EXIT_PAIRS.values()) for m in (p.target, p.draft)
}
