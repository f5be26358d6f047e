"""Every sequence of siblings a node can draft, with its probability: the brute-force side of
the exact laws' tests, written from the drafting rules' words rather than from the code.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence


def drafted_sequences(
    q: Sequence[float], n: int, drafting: str
) -> Iterator[tuple[tuple[int, ...], float]]:
    """Each ordered draft of ``n`` siblings from q and the probability of drafting it.

    ``sample`` draws with replacement, ``distinct`` without (q renormalised over what is
    left, so fewer than n once q's support runs out), ``top`` takes q's n most likely tokens
    (ties to the lower id) and so drafts one sequence for sure.
    """
    support = [x for x in range(len(q)) if q[x] > 0]
    if drafting == "sample":
        sequences: Iterator[tuple[int, ...]] = itertools.product(support, repeat=n)
    elif drafting == "distinct":
        sequences = itertools.permutations(support, min(n, len(support)))
    else:
        sequences = iter([tuple(sorted(support, key=lambda x: (-q[x], x))[:n])])
    for seq in sequences:
        prob = 1.0
        for i, x in enumerate(seq):
            if drafting == "sample":
                prob *= q[x]
            elif drafting == "distinct":  # q without the earlier siblings, renormalised
                prob *= q[x] / sum(q[y] for y in support if y not in seq[:i])
        yield seq, prob
