"""Judgements over many requests, from which every verdict is drawn: `ensemble` (seeded
requests, ratios of means, paired comparisons), `expected` (exact expectations given the
target's texts), `verdict` (the verdict beside a request, as JSON), `evaluation` and
`method_slice` (many blocks at the first position, per mode and method), `sweep` (speedup
against k), `adaptive` (draft-length policies raced over seeds)."""
