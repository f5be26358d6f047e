"""Prompt lookup: a draft with no draft model, copied from what came earlier in the request.

Serving systems (vLLM's n-gram proposer, Hugging Face's `prompt_lookup_num_tokens`) find the
latest earlier occurrence of the last n words in the prompt and the text so far, and propose
the words that followed it. The proposal is a fixed token, so its draft law is one-hot: the
ratio test accepts it with probability p(x), and a rejection is repaired from p with x
removed (the `top` sibling rule for one sibling). Lossless, and nearly free to draft.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

NGRAM_MAX = 2  # n tried from 2 down to 1, as the serving proposers default to


@dataclass(frozen=True, slots=True)
class LookupMatch:
    """Where a block's copied draft came from: the n-gram and its earlier occurrence."""

    ngram: tuple[int, ...]
    start: int  # index in the context of the earlier occurrence's first token
    continuation: tuple[int, ...]  # the tokens that followed it: the draft


def lookup_draft(context: Sequence[int], limit: int) -> LookupMatch | None:
    """The continuation (at most ``limit`` tokens) of the latest earlier occurrence of the
    context's last n tokens, n from `NGRAM_MAX` down to 1; None when nothing matches.

    "Earlier" means the occurrence ends before the last token, so something follows it.

    Examples
    --------
    >>> lookup_draft([5, 6, 7, 1, 5, 6], 3).continuation      # "5 6" seen before: copy "7 1 5"
    (7, 1, 5)
    >>> lookup_draft([5, 6, 7, 9, 6], 2).continuation         # no "9 6" earlier; "6" is: copy "7 9"
    (7, 9)
    >>> lookup_draft([1, 2, 3], 4) is None
    True
    """
    if limit < 1:
        return None
    size = len(context)
    for n in range(min(NGRAM_MAX, size - 1), 0, -1):
        tail = tuple(context[size - n :])
        for start in range(size - n - 1, -1, -1):  # latest first
            if tuple(context[start : start + n]) == tail:
                follow = tuple(context[start + n : start + n + limit])
                return LookupMatch(tail, start, follow)
    return None
