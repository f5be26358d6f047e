"""Every context the station asks the tiny transformers about, each computed once: a trie.

The n-gram pair has a table row for every context it can meet; a transformer reads its whole
context, so its rows are computed as requests reach them. A context is a node of a trie: the
root is the paragraph break every text starts after, a child is its parent's context plus one
token. Each node holds what one position of a KV cache holds (the keys and values of its last
token, per layer, for the target and the 1-layer draft) and the three next-token laws that
position yields: the target's, its layer-1 exit's and the 1-layer draft's. A child is computed
from its ancestors' keys and values: one position of a cached decoding step.

A node's rows are a pure function of its context, whichever request reached it first and
whatever batch it was computed in: every matrix product runs per sequence (a stacked matmul of
one row, which numpy computes the same whatever the batch; a 2-D product of many rows may not),
so the served request, an ensemble and the exact-given-text texts read the same bits. (The
verifying pass over k + 1 positions itself is `witness.neural.model.Transformer.forward`;
`witness.neural.speculate` runs it with real rollbacks, and the tests hold this trie to it.)

Memory is bounded: the keys, values and laws live in at most `SLOTS` slots, and when they are
full every slot is dropped at once (node ids stay valid: each node keeps its parent and token,
so a dropped node is recomputed from its ancestors on the next read); past `NODES_MAX` nodes
the next request starts a new generation of the trie, whose ids never repeat the old ones'.
The lock makes the trie safe for the server's worker threads.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from witness.neural.cache import FloatArray
from witness.neural.corpus import VOCAB
from witness.neural.model import TinyPair, Transformer, gelu, rms_norm, rope, softmax

# Every text starts after a paragraph break, as every paragraph of the corpus does.
START = VOCAB.index("\n")
# Slots of keys, values and laws (~6 kB each): 16 384 are ~100 MB a process.
SLOTS = 16_384
# Nodes the trie keeps (~150 B each besides their slots): past this, the next request starts a
# new generation of it (a long-running server explores without bound).
NODES_MAX = 500_000
# The three laws a node yields, in `ContextTree.laws` order.
TARGET, EXIT, SMALL = 0, 1, 2


class ContextDropped(LookupError):
    """A node of a generation of the trie since dropped (`ContextTree.path`)."""


@dataclass(frozen=True, slots=True)
class Past:
    """The keys and values of a batch of equally long contexts, per layer: target layers
    then the draft's, each [batch, heads, positions, head_dim]."""

    keys: tuple[FloatArray, ...]
    values: tuple[FloatArray, ...]

    @property
    def length(self) -> int:
        return int(self.keys[0].shape[2])


class ContextTree:
    """The trie of contexts of one model pair (`witness.neural.model.TinyPair`)."""

    def __init__(self, pair: TinyPair, slots: int = SLOTS, nodes_max: int = NODES_MAX) -> None:
        self.pair = pair
        self._models = (pair.target, pair.draft)
        t, d = pair.target.config, pair.draft.config
        self.layers = t.n_layers + d.n_layers
        self.heads, self.head_dim = t.n_heads, t.head_dim
        self.vocab = t.vocab
        self.max_positions = min(t.context, d.context)
        if slots < self.max_positions:
            raise ValueError(f"{slots} slots cannot hold one context of {self.max_positions}")
        self._slots = slots
        self._lock = threading.RLock()
        self._nodes_max = nodes_max
        self._next = 0  # node ids are never reused: a dropped one is refused, never misread
        self._new_generation()
        self._clear_slots()

    # ----------------------------------------------------------------------- the trie

    def _new_generation(self) -> None:
        """Forget every node and start from a new root. Per node: its parent (-1 for the
        root), its token and its position."""
        self._nodes: dict[int, tuple[int, int, int]] = {self._next: (-1, START, 0)}
        self._children: dict[tuple[int, int], int] = {}
        self._root = self._next
        self._next += 1

    @property
    def root(self) -> int:
        return self._root

    def __len__(self) -> int:
        return len(self._nodes)

    def _node(self, node: int) -> tuple[int, int, int]:
        found = self._nodes.get(node)
        if found is None:
            raise ContextDropped(f"context {node} was dropped with its generation of the trie")
        return found

    def child(self, node: int, token: int) -> int:
        """The node of ``node``'s context followed by ``token`` (made, not computed)."""
        key = (node, token)
        found = self._children.get(key)
        if found is not None:
            return found
        with self._lock:
            found = self._children.get(key)
            if found is None:
                depth = self._node(node)[2] + 1
                if depth >= self.max_positions:
                    raise ValueError(
                        f"a context of {depth + 1} positions: the transformers were trained "
                        f"on {self.max_positions}"
                    )
                found = self._next
                self._next += 1
                self._nodes[found] = (node, token, depth)
                self._children[key] = found
            return found

    def path(self, tokens: list[int] | tuple[int, ...], node: int | None = None) -> int:
        """The node of ``node``'s context (the root's: None) followed by ``tokens``.

        A trie past `nodes_max` nodes starts a new generation here, at a request's start:
        ids already handed out are never reused, so a law cached under one stays true."""
        if node is None:
            if len(self._nodes) > self._nodes_max:
                with self._lock:
                    if len(self._nodes) > self._nodes_max:
                        self._new_generation()
                        self._clear_slots()
            node = self._root
        for t in tokens:
            node = self.child(node, t)
        return node

    # ----------------------------------------------------------------------- the laws

    def laws(self, node: int) -> FloatArray:
        """The node's [3, vocab] next-token laws (target, exit, 1-layer draft), read-only."""
        # One dict read outside the lock: a clear swaps the dict, and a reader still holding
        # the old one reads true laws (they are pure), never another node's.
        found = self._law_of.get(node)
        if found is None:
            with self._lock:
                found = self._law_of.get(node)
                if found is None:
                    self._compute(node)
                    found = self._law_of[node]
        return found

    def extend(
        self, nodes: list[int], tokens: list[int], past: Past | None
    ) -> tuple[list[int], Past]:
        """Each context in ``nodes`` (all of one depth) followed by its token: the children,
        computed together as one decoding step of a batch, and the keys and values to
        continue from. ``past`` is the batch's keys and values so far (None: gathered here)."""
        with self._lock:
            children = [self.child(n, t) for n, t in zip(nodes, tokens, strict=True)]
            if past is None:
                past = self._gather(nodes)
            depth = self._node(nodes[0])[2] + 1
            keys, values, laws = self._step(np.asarray(tokens), past, depth)
            for i, c in enumerate(children):
                if c not in self._slot:
                    self._store(c, keys[:, i], values[:, i], laws[i])
            return children, Past(_append(past.keys, keys), _append(past.values, values))

    def gather(self, nodes: list[int]) -> Past:
        """The keys and values of each node's whole context, to `extend` from."""
        with self._lock:
            return self._gather(nodes)

    def nodes_held(self) -> int:
        return len(self._slot)

    # ----------------------------------------------------------------------- computing

    def _compute(self, node: int) -> int:
        """Compute ``node`` and every ancestor not held, from the nearest one held."""
        chain = []
        n = node
        while n >= 0 and n not in self._slot:
            chain.append(n)
            n = self._node(n)[0]
        chain.reverse()
        if n >= 0:
            past = self._gather([n])
        else:  # the root: the paragraph break at position 0, nothing before it
            past = self._empty(1)
        for c in chain:
            _, token, depth = self._node(c)
            keys, values, laws = self._step(np.array([token]), past, depth)
            self._store(c, keys[:, 0], values[:, 0], laws[0])
            past = Past(_append(past.keys, keys), _append(past.values, values))
        return self._slot[node]

    def _gather(self, nodes: list[int]) -> Past:
        """The keys and values of each node's whole context (the node's own included)."""
        paths = []
        for node in nodes:
            path = []
            n = node
            while n >= 0:
                path.append(n)
                n = self._node(n)[0]
            paths.append(path[::-1])
        if sum(len(path) for path in paths) > self._slots:
            raise ValueError(f"{len(paths)} contexts hold more positions than {self._slots} slots")
        # Computing a missing node may fill the slots and drop them all: compute until every
        # node of every path is held at once (the second round always fits: SLOTS is far
        # above a batch's positions).
        while True:
            for path in paths:
                for n in path:
                    if n not in self._slot:
                        self._compute(n)
            held = [[self._slot.get(n) for n in path] for path in paths]
            if all(slot is not None for row in held for slot in row):
                break
        slots = np.array(held, dtype=np.intp)
        # [batch, positions, layers, heads, head_dim] -> per layer [batch, heads, positions, dim]
        k = self._keys[slots].transpose(2, 0, 3, 1, 4)
        v = self._values[slots].transpose(2, 0, 3, 1, 4)
        return Past(
            tuple(np.ascontiguousarray(x) for x in k), tuple(np.ascontiguousarray(x) for x in v)
        )

    def _empty(self, batch: int) -> Past:
        shape = (batch, self.heads, 0, self.head_dim)
        empty = tuple(np.zeros(shape) for _ in range(self.layers))
        return Past(empty, empty)

    def _step(
        self, tokens: NDArray[np.int64], past: Past, position: int
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """One decoding step of the batch at ``position``: the new keys and values per layer
        [layers, batch, heads, head_dim] and the laws [batch, 3, vocab]."""
        target, draft = self._models
        positions = np.array([position])
        keys, values = [], []
        x, exit_logits = None, None
        layer_of = 0
        outs = []
        for model in (target, draft):
            c, p = model.config, model.params
            x = p["embed"][tokens]
            for layer in range(c.n_layers):
                x, k, v = _layer(model, layer, x, positions, past, layer_of)
                keys.append(k)
                values.append(v)
                layer_of += 1
                if model is target and layer + 1 == c.exit_layer:
                    exit_logits = _project(rms_norm(x, p["exit_norm"], c.norm_eps), p["exit_head"])
            outs.append(_project(rms_norm(x, p["norm"], c.norm_eps), p["head"]))
        assert exit_logits is not None
        laws = np.stack([softmax(outs[0]), softmax(exit_logits), softmax(outs[1])], axis=1)
        return np.stack(keys), np.stack(values), laws

    def _store(self, node: int, keys: FloatArray, values: FloatArray, laws: FloatArray) -> None:
        if len(self._slot) >= self._capacity:
            if self._capacity < self._slots:
                self._grow(min(self._slots, 2 * self._capacity))
            else:
                self._clear_slots()
        slot = len(self._slot)
        self._keys[slot] = keys
        self._values[slot] = values
        self._law_of[node] = _frozen(laws)
        self._slot[node] = slot

    def _clear_slots(self) -> None:
        self._slot: dict[int, int] = {}
        self._capacity = 0
        self._keys = np.zeros((0, self.layers, self.heads, self.head_dim))
        self._values = np.zeros_like(self._keys)
        # Laws are their own arrays, not views of a store: one handed out outlives a clear.
        self._law_of: dict[int, FloatArray] = {}
        self._grow(min(self._slots, 1024))

    def _grow(self, capacity: int) -> None:
        def grown(old: FloatArray) -> FloatArray:
            new = np.zeros((capacity, *old.shape[1:]))
            new[: old.shape[0]] = old
            return new

        self._keys, self._values = grown(self._keys), grown(self._values)
        self._capacity = capacity


def _frozen(laws: FloatArray) -> FloatArray:
    out = np.array(laws)
    out.flags.writeable = False
    return out


def _append(past: tuple[FloatArray, ...], new: FloatArray) -> tuple[FloatArray, ...]:
    return tuple(np.concatenate([a, new[i][:, :, None]], axis=2) for i, a in enumerate(past))


def _project(x: FloatArray, w: FloatArray) -> FloatArray:
    """``x @ w`` one row at a time (a stacked matmul): the same bits whatever the batch."""
    out: FloatArray = np.matmul(x[:, None, :], w)[:, 0]
    return out


def _layer(
    model: Transformer, layer: int, x: FloatArray, positions: NDArray[np.int64], past: Past, at: int
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """One layer for one new position per sequence, attending to ``past``'s layer ``at``."""
    c, p = model.config, model.params
    pre = f"layers.{layer}."
    b = x.shape[0]

    def heads(y: FloatArray) -> FloatArray:
        return y.reshape(b, c.n_heads, 1, c.head_dim)

    h = rms_norm(x, p[pre + "attn_norm"], c.norm_eps)
    q = rope(heads(_project(h, p[pre + "wq"])), positions, c.rope_base)
    k = rope(heads(_project(h, p[pre + "wk"])), positions, c.rope_base)
    v = heads(_project(h, p[pre + "wv"]))
    keys = np.concatenate([past.keys[at], k], axis=2)
    values = np.concatenate([past.values[at], v], axis=2)
    scores = np.matmul(q, keys.transpose(0, 1, 3, 2)) / np.sqrt(c.head_dim)
    attn = np.matmul(softmax(scores), values)  # [b, heads, 1, head_dim]
    x = x + _project(attn.reshape(b, c.d_model), p[pre + "wo"])
    h = rms_norm(x, p[pre + "mlp_norm"], c.norm_eps)
    x = x + _project(gelu(_project(h, p[pre + "w_up"])), p[pre + "w_down"])
    return x, k[:, :, 0], v[:, :, 0]
