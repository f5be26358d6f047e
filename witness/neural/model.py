"""The tiny transformers' inference in numpy, from the committed float16 weights.

Each model is a pre-norm decoder: token embedding; per layer, RMSNorm, causal multi-head
attention with rotary position embeddings (RoPE, rotate-half pairing), a residual, RMSNorm, a
GELU MLP, a residual; a final RMSNorm and an output head. No biases. The target has four layers
and a second, early-exit head after its first (`exit_layer`), trained with it as in LayerSkip;
the separate draft has one layer. Compute is float64 from float16 weights, so the cached and
the full paths agree to ~1e-14, far inside the 1e-6 the tests ask.

`Transformer.forward(tokens, cache)` runs the tokens at the positions after those the cache
holds and appends their rows: verifying k drafts is one call over k + 1 tokens.
`EarlyExit(target)` drafts with the target's first layer and its exit head, in the target's own
cache: the verifying pass then finds those first-layer rows computed and reuses them.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from witness.neural.cache import FloatArray, IntArray, KVCache
from witness.neural.corpus import VOCAB

WEIGHTS_PATH = Path(__file__).resolve().parent / "weights" / "tiny.npz"


@dataclass(frozen=True)
class Config:
    """One model's shape."""

    vocab: int = len(VOCAB)
    d_model: int = 64
    n_layers: int = 4
    n_heads: int = 4
    d_mlp: int = 256
    # The early-exit head reads the residual stream after this many layers (0: none).
    exit_layer: int = 1
    rope_base: float = 10_000.0
    norm_eps: float = 1e-5
    # Positions the model was trained on: RoPE angles past them were never seen, and sampled
    # text falls apart there, so a pass beyond them is refused.
    context: int = 320

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads


TARGET = Config()
DRAFT = Config(n_layers=1, exit_layer=0)

# The parameter names of one layer, with their shapes; a Linear is stored [in, out] (x @ W).
LAYER_PARAMS = ("attn_norm", "wq", "wk", "wv", "wo", "mlp_norm", "w_up", "w_down")


def parameter_shapes(config: Config) -> dict[str, tuple[int, ...]]:
    """Every parameter's name and shape, in the order they are saved.

    Examples
    --------
    >>> shapes = parameter_shapes(DRAFT)
    >>> shapes["embed"], shapes["layers.0.w_up"], "exit_head" in shapes
    ((31, 64), (64, 256), False)
    """
    d, v, m = config.d_model, config.vocab, config.d_mlp
    per_layer = {
        "attn_norm": (d,),
        "wq": (d, d),
        "wk": (d, d),
        "wv": (d, d),
        "wo": (d, d),
        "mlp_norm": (d,),
        "w_up": (d, m),
        "w_down": (m, d),
    }
    shapes: dict[str, tuple[int, ...]] = {"embed": (v, d)}
    for layer in range(config.n_layers):
        for name in LAYER_PARAMS:
            shapes[f"layers.{layer}.{name}"] = per_layer[name]
    shapes["norm"] = (d,)
    shapes["head"] = (d, v)
    if config.exit_layer:
        shapes["exit_norm"] = (d,)
        shapes["exit_head"] = (d, v)
    return shapes


def rms_norm(x: FloatArray, gain: FloatArray, eps: float) -> FloatArray:
    """x scaled to unit root-mean-square over its last axis, times a learned gain."""
    scale: FloatArray = gain / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    return x * scale


def gelu(x: FloatArray) -> FloatArray:
    """GELU, tanh form (what the training script's `approximate="tanh"` computes)."""
    inner = np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)
    out: FloatArray = 0.5 * x * (1.0 + np.tanh(inner))
    return out


def rope(x: FloatArray, positions: IntArray, base: float) -> FloatArray:
    """Rotate `x[..., positions, head_dim]` by its positions: pair i with i + head_dim / 2."""
    half = x.shape[-1] // 2
    inv_freq = base ** (-np.arange(half, dtype=np.float64) / half)
    angles = positions[:, None].astype(np.float64) * inv_freq[None, :]
    cos = np.cos(angles)
    sin = np.sin(angles)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)


def softmax(logits: FloatArray, temperature: float = 1.0) -> FloatArray:
    """Rows of next-token probabilities at a temperature (> 0)."""
    if temperature <= 0:
        raise ValueError(f"temperature must be positive, not {temperature}")
    z = logits / temperature
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    out: FloatArray = e / e.sum(axis=-1, keepdims=True)
    return out


class Transformer:
    """A pre-norm decoder's numpy forward, cached (`forward`) and in full (`full_logits`)."""

    def __init__(self, config: Config, params: dict[str, FloatArray]) -> None:
        expected = parameter_shapes(config)
        if set(params) != set(expected):
            raise ValueError(f"parameters {sorted(set(params) ^ set(expected))} do not match")
        for name, shape in expected.items():
            if params[name].shape != shape:
                raise ValueError(f"{name} has shape {params[name].shape}, not {shape}")
        self.config = config
        self.params = params

    def _check_context(self, end: int) -> None:
        if end > self.config.context:
            raise ValueError(f"{end} positions: the model knows {self.config.context}")

    def new_cache(self) -> KVCache:
        c = self.config
        return KVCache(c.n_layers, c.n_heads, c.head_dim, c.d_model)

    def _attention_and_mlp(
        self, layer: int, x: FloatArray, positions: IntArray, cache: KVCache | None
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """One layer over the rows `x` at `positions`; returns its outputs, keys and values.

        With a cache the queries attend to the cache's rows before `positions[0]` as well;
        without one, to these rows alone (which must then start at position 0).
        """
        c = self.config
        p = self.params
        pre = f"layers.{layer}."
        n = x.shape[0]

        def heads(y: FloatArray) -> FloatArray:
            return y.reshape(n, c.n_heads, c.head_dim).transpose(1, 0, 2)

        h = rms_norm(x, p[pre + "attn_norm"], c.norm_eps)
        q = rope(heads(h @ p[pre + "wq"]), positions, c.rope_base)
        k = rope(heads(h @ p[pre + "wk"]), positions, c.rope_base)
        v = heads(h @ p[pre + "wv"])
        start = int(positions[0])
        if cache is not None and start:
            keys = np.concatenate([cache.keys[layer][:, :start], k], axis=1)
            values = np.concatenate([cache.values[layer][:, :start], v], axis=1)
        else:
            keys, values = k, v
        scores = q @ keys.transpose(0, 2, 1) / np.sqrt(c.head_dim)
        # Causal: a query at position t sees keys 0..t; keys are positions 0..end - 1.
        key_positions = np.arange(keys.shape[1])
        scores = np.where(key_positions[None, :] <= positions[:, None], scores, -np.inf)
        attn = softmax(scores) @ values
        x = x + attn.transpose(1, 0, 2).reshape(n, c.d_model) @ p[pre + "wo"]
        h = rms_norm(x, p[pre + "mlp_norm"], c.norm_eps)
        x = x + gelu(h @ p[pre + "w_up"]) @ p[pre + "w_down"]
        return x, k, v

    def _head(self, x: FloatArray, depth: int) -> FloatArray:
        c = self.config
        p = self.params
        if depth == c.n_layers:
            out: FloatArray = rms_norm(x, p["norm"], c.norm_eps) @ p["head"]
        elif depth == c.exit_layer:
            out = rms_norm(x, p["exit_norm"], c.norm_eps) @ p["exit_head"]
        else:
            raise ValueError(f"no head after {depth} layers (exit at {c.exit_layer})")
        return out

    def forward_logits(
        self, tokens: IntArray | list[int], cache: KVCache, depth: int | None = None
    ) -> FloatArray:
        """Logits `[len(tokens), vocab]` for tokens placed after the positions `depth` layers hold.

        Rows a shallower layer already holds for these tokens (an early exit's) are reused;
        every layer run appends its keys, values and outputs to the cache.
        """
        depth = self.config.n_layers if depth is None else depth
        tokens = np.asarray(tokens, dtype=np.int64)
        n = tokens.size
        if n == 0:
            raise ValueError("a forward needs at least one token")
        start = cache.rows(depth - 1)
        end = start + n
        self._check_context(end)
        cache.place(start, tokens)
        x = self.params["embed"][tokens]
        for layer in range(depth):
            reused = min(cache.rows(layer), end) - start
            if reused < n:
                positions = np.arange(start + reused, end)
                out, k, v = self._attention_and_mlp(layer, x[reused:], positions, cache)
                cache.write(layer, start + reused, k, v, out)
            x = cache.outputs[layer][start:end].copy()
        return self._head(x, depth)

    def forward(
        self,
        tokens: IntArray | list[int],
        cache: KVCache,
        temperature: float = 1.0,
        depth: int | None = None,
    ) -> FloatArray:
        """Next-token distributions `[len(tokens), vocab]`, one after each token fed."""
        return softmax(self.forward_logits(tokens, cache, depth), temperature)

    def full_logits(self, tokens: IntArray | list[int], depth: int | None = None) -> FloatArray:
        """Logits at every position of `tokens`, recomputed from scratch with no cache."""
        depth = self.config.n_layers if depth is None else depth
        tokens = np.asarray(tokens, dtype=np.int64)
        self._check_context(tokens.size)
        positions = np.arange(tokens.size)
        x = self.params["embed"][tokens]
        for layer in range(depth):
            x, _, _ = self._attention_and_mlp(layer, x, positions, None)
        return self._head(x, depth)


class EarlyExit:
    """The target's first `exit_layer` layers and exit head, drafting in the target's cache."""

    def __init__(self, target: Transformer) -> None:
        if not target.config.exit_layer:
            raise ValueError("the target has no exit head")
        self.target = target
        self.depth = target.config.exit_layer

    def forward(
        self, tokens: IntArray | list[int], cache: KVCache, temperature: float = 1.0
    ) -> FloatArray:
        """Exit-head distributions, appending the first layers' rows to the target's cache."""
        return self.target.forward(tokens, cache, temperature, depth=self.depth)

    def held(self, cache: KVCache) -> int:
        """Positions the draft's layers hold."""
        return cache.rows(self.depth - 1)


@dataclass(frozen=True)
class TinyPair:
    """The committed target (with its exit head) and the separate 1-layer draft."""

    target: Transformer
    draft: Transformer
    meta: dict[str, object]

    @property
    def early_exit(self) -> EarlyExit:
        return EarlyExit(self.target)


def save_weights(
    path: Path,
    target: dict[str, NDArray[np.floating]],
    draft: dict[str, NDArray[np.floating]],
    meta: dict[str, object],
) -> None:
    """Write both models' parameters as float16, with their configs, to one `.npz`."""
    arrays: dict[str, NDArray[np.generic]] = {}
    for prefix, params in (("target", target), ("draft", draft)):
        for name, value in params.items():
            arrays[f"{prefix}.{name}"] = np.asarray(value, dtype=np.float16)
    header = {"target": asdict(TARGET), "draft": asdict(DRAFT), **meta}
    arrays["meta"] = np.array(json.dumps(header, sort_keys=True))
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)  # type: ignore[arg-type]


def load_pair(path: Path = WEIGHTS_PATH) -> TinyPair:
    """Both models from a weights file, their parameters float16 widened to float64."""
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
        params: dict[str, dict[str, FloatArray]] = {"target": {}, "draft": {}}
        for key in data.files:
            if key == "meta":
                continue
            prefix, name = key.split(".", 1)
            params[prefix][name] = data[key].astype(np.float64)
    target = Transformer(Config(**meta.pop("target")), params["target"])
    draft = Transformer(Config(**meta.pop("draft")), params["draft"])
    return TinyPair(target, draft, meta)


@cache
def tiny_pair() -> TinyPair:
    """The committed pair, loaded once per process (~0.5 MB)."""
    return load_pair()
