"""Real models for the witness: a tiny transformer target and two drafts, run in numpy.

- `corpus`: the English-like text the models learn, generated from a seed;
- `model`: the numpy forward of the target (4 layers, with an exit head after its first) and
  of the 1-layer draft, from the committed float16 weights in `weights/`;
- `cache`: the KV cache each forward appends to and a rejection rolls back;
- `speculate`: speculative sampling pass by pass with those caches;
- `train`: the PyTorch training script that wrote the weights (the optional `train` extra).
"""
