"""Train the tiny pair with PyTorch: `python -m witness.neural.train [--seed N] [--steps N]`.

PyTorch is the optional `train` extra (`pip install -e '.[train]'`, the CPU build); nothing at
run time needs it, so it is imported inside the functions that use it and importing this module
never does. The torch modules mirror `witness.neural.model` parameter for parameter.

One loop trains both models on the same batches of the generated corpus: the target's loss is
its final head's cross-entropy plus `EXIT_WEIGHT` times its exit head's (the early exit learns
to predict from the first layer while the later layers refine it, as in LayerSkip), and the
draft's is its own cross-entropy; the two share nothing, so one AdamW over both is two
independent optimisations. Everything is seeded and run on `THREADS` CPU threads, so a run is
reproducible on one machine (float results may differ in the last bits across CPUs and torch
builds).

Then the float16 weights go to `witness/neural/weights/tiny.npz` and the log to
`train-log.json`: losses, wall time, seed, versions, and what numpy inference on the saved
weights measures on the held-out text: α per draft (the mean overlap sum min(p, q) at
temperature 1) and tokens per verifying pass at k = 4 from real speculative decoding.
"""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from witness.neural.corpus import CORPUS_CHARS, CORPUS_SEED, corpus, encode, split
from witness.neural.model import (
    DRAFT,
    TARGET,
    WEIGHTS_PATH,
    Config,
    TinyPair,
    load_pair,
    save_weights,
)
from witness.neural.speculate import acceptance, speculative_decode

LOG_PATH = WEIGHTS_PATH.parent / "train-log.json"
SEED = 0
STEPS = 1700
# Windows of the models' whole context, ~3 800 characters a step.
BATCH = 12
CONTEXT = TARGET.context
LEARNING_RATE = 3e-3
WEIGHT_DECAY = 0.01
EXIT_WEIGHT = 0.5
THREADS = 2
EVAL_EVERY = 100
EVAL_WINDOWS = 32


def _torch() -> Any:
    """The torch module, typed Any so the project type-checks the same with or without it."""
    return importlib.import_module("torch")


def build_model(config: Config) -> Any:
    """A torch `nn.Module` of `config`'s shape: `module(tokens) -> (logits, exit_logits)`."""
    torch = _torch()
    nn = torch.nn
    functional = torch.nn.functional
    # A local name for the base class: torch is typed Any here, with or without it installed.
    Module: Any = nn.Module

    class RMSNorm(Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.weight = nn.Parameter(torch.ones(config.d_model))

        def forward(self, x: Any) -> Any:
            return x * (
                self.weight * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + config.norm_eps)
            )

    def linear(n_in: int, n_out: int) -> Any:
        return nn.Linear(n_in, n_out, bias=False)

    class Layer(Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            d = config.d_model
            self.attn_norm = RMSNorm()
            self.wq, self.wk, self.wv, self.wo = (linear(d, d) for _ in range(4))
            self.mlp_norm = RMSNorm()
            self.w_up = linear(d, config.d_mlp)
            self.w_down = linear(config.d_mlp, d)

        def forward(self, x: Any, cos: Any, sin: Any) -> Any:
            batch, length, d = x.shape

            def heads(y: Any) -> Any:
                return y.view(batch, length, config.n_heads, config.head_dim).transpose(1, 2)

            def rope(y: Any) -> Any:
                half = config.head_dim // 2
                y1, y2 = y[..., :half], y[..., half:]
                return torch.cat([y1 * cos - y2 * sin, y2 * cos + y1 * sin], dim=-1)

            h = self.attn_norm(x)
            q, k, v = rope(heads(self.wq(h))), rope(heads(self.wk(h))), heads(self.wv(h))
            attn = functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.wo(attn.transpose(1, 2).reshape(batch, length, d))
            return x + self.w_down(functional.gelu(self.w_up(self.mlp_norm(x)), approximate="tanh"))

    class Model(Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(config.vocab, config.d_model)
            self.layers = nn.ModuleList(Layer() for _ in range(config.n_layers))
            self.norm = RMSNorm()
            self.head = linear(config.d_model, config.vocab)
            if config.exit_layer:
                self.exit_norm = RMSNorm()
                self.exit_head = linear(config.d_model, config.vocab)
            # Small initial weights, the residual outputs smaller still (as in GPT-2), so
            # every layer starts near the identity.
            for name, param in self.named_parameters():
                if name.endswith(("wo.weight", "w_down.weight")):
                    nn.init.normal_(param, std=0.02 / (2 * config.n_layers) ** 0.5)
                elif not name.endswith("norm.weight"):
                    nn.init.normal_(param, std=0.02)

        def forward(self, tokens: Any) -> tuple[Any, Any]:
            half = config.head_dim // 2
            inv_freq = config.rope_base ** (-torch.arange(half, dtype=torch.float64) / half)
            angles = torch.arange(tokens.shape[1], dtype=torch.float64)[:, None] * inv_freq
            cos = torch.cos(angles).to(torch.float32)
            sin = torch.sin(angles).to(torch.float32)
            x = self.embed(tokens)
            exit_logits = None
            for index, layer in enumerate(self.layers):
                x = layer(x, cos, sin)
                if index + 1 == config.exit_layer:
                    exit_logits = self.exit_head(self.exit_norm(x))
            return self.head(self.norm(x)), exit_logits

    return Model()


def to_numpy_params(module: Any) -> dict[str, np.ndarray[Any, np.dtype[np.float32]]]:
    """A torch model's parameters under `witness.neural.model`'s names, Linears as [in, out]."""
    params = {}
    for name, param in module.named_parameters():
        value = param.detach().cpu().numpy().astype(np.float32)
        if name.endswith(".weight") and not name.endswith("norm.weight") and name != "embed.weight":
            value = value.T
        params[name.removesuffix(".weight")] = np.ascontiguousarray(value)
    return params


def load_torch(pair: TinyPair) -> tuple[Any, Any]:
    """The pair's weights (float16, widened to float32) in torch modules, in eval mode."""
    torch = _torch()
    modules = []
    for model in (pair.target, pair.draft):
        module = build_model(model.config)
        state = {}
        for name, value in model.params.items():
            array = value.T if value.ndim == 2 and name != "embed" else value
            state[f"{name}.weight"] = torch.tensor(np.ascontiguousarray(array), dtype=torch.float32)
        module.load_state_dict(state)
        module.eval()
        modules.append(module)
    return modules[0], modules[1]


def _windows(tokens: np.ndarray[Any, Any], starts: np.ndarray[Any, Any], length: int) -> Any:
    torch = _torch()
    index = starts[:, None] + np.arange(length + 1)[None, :]
    return torch.from_numpy(tokens[index])


def measure(pair: TinyPair, held_out: str, seed: int = SEED) -> dict[str, Any]:
    """What numpy inference on the saved weights does on held-out text, per draft."""
    tokens = encode(held_out)
    rng = np.random.default_rng(seed)
    windows = [tokens[s : s + 256] for s in rng.integers(0, tokens.size - 256, size=16)]
    alpha: dict[str, list[float]] = {"early_exit": [], "draft": []}
    for window in windows:
        p = _softmax(pair.target.full_logits(window))
        q_exit = _softmax(pair.target.full_logits(window, depth=pair.target.config.exit_layer))
        q_draft = _softmax(pair.draft.full_logits(window))
        alpha["early_exit"].extend(acceptance(p, q_exit).tolist())
        alpha["draft"].extend(acceptance(p, q_draft).tolist())
    k = 4
    per_pass: dict[str, float] = {}
    decode_seconds: dict[str, float] = {}
    for name, draft in (("early_exit", pair.early_exit), ("draft", pair.draft)):
        accepted: list[int] = []
        started = time.perf_counter()
        for index, start in enumerate(rng.integers(0, tokens.size - 64, size=8)):
            prompt = tokens[start : start + 64].tolist()
            decoded = speculative_decode(
                pair.target, draft, prompt, 200, k, np.random.default_rng([seed, index])
            )
            accepted.extend(decoded.accepted)
        decode_seconds[name] = round(time.perf_counter() - started, 2)
        per_pass[name] = round(float(np.mean(accepted)) + 1.0, 3)
    return {
        "alpha": {name: round(float(np.mean(values)), 4) for name, values in alpha.items()},
        "numpy_pass_ms": time_passes(pair, tokens[:64].tolist()),
        "alpha_positions": len(alpha["draft"]),
        "k": k,
        "tokens_per_pass": per_pass,
        "decode_seconds": decode_seconds,
        "decoded_tokens_per_draft": 8 * 200,
    }


def time_passes(pair: TinyPair, prompt: list[int], repeats: int = 50) -> dict[str, float]:
    """Median milliseconds of one cached pass after `prompt`, numpy on this machine's CPU:
    the target over 1 and 5 new positions (a step, and verifying k = 4), and a draft step."""
    exit_layer = pair.target.config.exit_layer
    cases = {
        "target_1": (pair.target, None, 1),
        "target_5": (pair.target, None, 5),
        "early_exit_1": (pair.target, exit_layer, 1),
        "draft_1": (pair.draft, None, 1),
    }
    timings: dict[str, float] = {}
    for name, (model, depth, n) in cases.items():
        cache = model.new_cache()
        model.forward(prompt, cache, depth=depth)
        held = cache.rows((depth or model.config.n_layers) - 1)
        samples = []
        for _ in range(repeats):
            started = time.perf_counter()
            model.forward(prompt[:n], cache, depth=depth)
            samples.append(time.perf_counter() - started)
            cache.truncate(held)
        timings[name] = round(1000 * float(np.median(samples)), 3)
    return timings


def _softmax(logits: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    z = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    out: np.ndarray[Any, Any] = e / e.sum(axis=-1, keepdims=True)
    return out


def train(
    seed: int = SEED,
    steps: int = STEPS,
    batch: int = BATCH,
    context: int = CONTEXT,
    corpus_chars: int = CORPUS_CHARS,
    eval_every: int = EVAL_EVERY,
    weights: Path | None = WEIGHTS_PATH,
    log: Path | None = LOG_PATH,
    threads: int = THREADS,
) -> dict[str, Any]:
    """Train the pair from `seed`; write the weights and log where given; return the log."""
    if not 1 < context <= min(TARGET.context, DRAFT.context):
        raise ValueError(f"windows of {context} positions do not fit the models")
    torch = _torch()
    started = time.perf_counter()
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    text = corpus(CORPUS_SEED, corpus_chars)
    train_text, held_out = split(text)
    train_tokens, held_tokens = encode(train_text), encode(held_out)
    eval_batch = _windows(
        held_tokens, rng.integers(0, held_tokens.size - context - 1, EVAL_WINDOWS), context
    )

    target, draft = build_model(TARGET), build_model(DRAFT)
    parameters = list(target.parameters()) + list(draft.parameters())
    optimizer = torch.optim.AdamW(parameters, lr=LEARNING_RATE, weight_decay=WEIGHT_DECAY)
    warmup = max(1, min(100, steps // 10))

    def rate(step: int) -> float:
        # Linear warm-up, then a cosine to a tenth of the peak.
        if step < warmup:
            return (step + 1) / warmup
        progress = (step - warmup) / max(1, steps - warmup)
        return 0.1 + 0.9 * 0.5 * (1.0 + float(np.cos(np.pi * progress)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, rate)
    cross_entropy = torch.nn.functional.cross_entropy

    def losses(window: Any) -> tuple[Any, Any, Any]:
        inputs, labels = window[:, :-1], window[:, 1:].reshape(-1)
        logits, exit_logits = target(inputs)
        draft_logits, _ = draft(inputs)
        vocab = TARGET.vocab
        return (
            cross_entropy(logits.reshape(-1, vocab), labels),
            cross_entropy(exit_logits.reshape(-1, vocab), labels),
            cross_entropy(draft_logits.reshape(-1, vocab), labels),
        )

    def evaluate() -> list[float]:
        target.eval()
        draft.eval()
        with torch.no_grad():
            values = [round(float(x), 4) for x in losses(eval_batch)]
        target.train()
        draft.train()
        return values

    curve: list[dict[str, Any]] = [{"step": 0, "held_out": evaluate()}]
    running = np.zeros(3)
    counted = 0
    for step in range(steps):
        window = _windows(
            train_tokens, rng.integers(0, train_tokens.size - context - 1, batch), context
        )
        target_loss, exit_loss, draft_loss = losses(window)
        optimizer.zero_grad(set_to_none=True)
        (target_loss + EXIT_WEIGHT * exit_loss + draft_loss).backward()
        torch.nn.utils.clip_grad_norm_(parameters, 1.0)
        optimizer.step()
        scheduler.step()
        running += [loss.item() for loss in (target_loss, exit_loss, draft_loss)]
        counted += 1
        if (step + 1) % eval_every == 0 or step + 1 == steps:
            curve.append(
                {
                    "step": step + 1,
                    "train": [round(float(x), 4) for x in running / counted],
                    "held_out": evaluate(),
                    "seconds": round(time.perf_counter() - started, 1),
                }
            )
            running[:] = 0
            counted = 0
    train_seconds = time.perf_counter() - started

    result: dict[str, Any] = {
        "seed": seed,
        "steps": steps,
        "batch": batch,
        "context": context,
        "learning_rate": LEARNING_RATE,
        "exit_weight": EXIT_WEIGHT,
        "corpus": {"seed": CORPUS_SEED, "chars": len(text), "held_out_chars": len(held_out)},
        "losses": "cross-entropy in nats per character: [target, early exit, draft]",
        "curve": curve,
        "train_seconds": round(train_seconds, 1),
        "threads": threads,
        "torch": str(torch.__version__),
        "numpy": np.__version__,
        "python": platform.python_version(),
        "parameters": {
            "target": sum(p.numel() for p in target.parameters()),
            "draft": sum(p.numel() for p in draft.parameters()),
        },
    }
    if weights is not None:
        save_weights(
            weights,
            to_numpy_params(target),
            to_numpy_params(draft),
            {"seed": seed, "steps": steps, "corpus_seed": CORPUS_SEED},
        )
        result["weights_bytes"] = weights.stat().st_size
        result["measured"] = measure(load_pair(weights), held_out, seed)
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(json.dumps(result, indent=1) + "\n")
    return result


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--weights", type=Path, default=WEIGHTS_PATH)
    parser.add_argument("--log", type=Path, default=LOG_PATH)
    args = parser.parse_args(argv)
    result = train(seed=args.seed, steps=args.steps, weights=args.weights, log=args.log)
    last = result["curve"][-1]
    print(f"{result['steps']} steps in {result['train_seconds']} s; held-out {last['held_out']}")
    if "measured" in result:
        print(json.dumps(result["measured"]))


if __name__ == "__main__":
    main()
