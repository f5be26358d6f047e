"""Judgements over many requests, from which every verdict is drawn: `ensemble` (seeded
requests, ratios of means, paired comparisons), `expected` (exact expectations given the
target's texts), `verdict` (the verdict beside a request, as JSON), `evaluation` and
`method_slice` (many blocks at the first position, per mode and method), `sweep` (speedup
against k), `adaptive` (draft-length policies raced over seeds), `ranking` (which policy a
race ranks first, and whether that is noise), `optimum` (what the formula's best k amounts
to at the station's α and pricing) and `formula_gap` (where the measured mean sits against
the formula, and why)."""
