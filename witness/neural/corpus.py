"""The neural models' corpus: English-like prose about serving and decoding, generated from a seed.

The text is the project's own: a small probabilistic grammar (subjects and verbs that agree in
number, objects, adjectives, prepositional phrases, subordinate and coordinated clauses,
questions) over a vocabulary of serving, decoding, tokens and models. Nothing is committed but
this generator; `corpus(seed)` writes the same text for the same seed on every platform, since
it draws only `random.Random.random()`, whose sequence Python guarantees for a seed.

A few hundred words of fixed sentences are memorised by models of this size (agreement near
1); ~240 KB of varied sentences keep the next character uncertain enough that a 1-layer draft
and the 4-layer target disagree at a realistic rate (α ≈ 0.85, docs/neural.md).

The vocabulary is characters: `VOCAB` holds every character the grammar can write.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

VOCAB = "\n ,.?abcdefghijklmnopqrstuvwxyz"
CORPUS_SEED = 2026
CORPUS_CHARS = 240_000
# The last tenth of the text is held out: the training log's α is measured there.
HELD_OUT_FRACTION = 0.1

_INDEX = {c: i for i, c in enumerate(VOCAB)}

# (singular, plural) nouns; the plural subject takes the plural verb.
_NOUNS = (
    ("model", "models"),
    ("draft", "drafts"),
    ("target", "targets"),
    ("token", "tokens"),
    ("server", "servers"),
    ("request", "requests"),
    ("cache", "caches"),
    ("batch", "batches"),
    ("kernel", "kernels"),
    ("layer", "layers"),
    ("head", "heads"),
    ("sampler", "samplers"),
    ("verifier", "verifiers"),
    ("sequence", "sequences"),
    ("prompt", "prompts"),
    ("user", "users"),
    ("engineer", "engineers"),
    ("queue", "queues"),
    ("scheduler", "schedulers"),
    ("distribution", "distributions"),
    ("pass", "passes"),
    ("step", "steps"),
    ("block", "blocks"),
    ("position", "positions"),
    ("tensor", "tensors"),
    ("weight", "weights"),
    ("student", "students"),
    ("reply", "replies"),
    ("key", "keys"),
    ("value", "values"),
)
# Mass nouns take the singular verb and no article 'a'.
_MASS = ("memory", "attention", "bandwidth", "latency", "throughput", "text", "output", "work")
_ADJECTIVES = (
    "small",
    "large",
    "fast",
    "slow",
    "tiny",
    "greedy",
    "cached",
    "rejected",
    "accepted",
    "next",
    "first",
    "last",
    "whole",
    "quiet",
    "busy",
    "long",
    "short",
    "careful",
    "cheap",
    "costly",
    "warm",
    "cold",
    "new",
    "old",
    "early",
    "late",
    "exact",
    "shared",
)
# (third person singular, plural) transitive verbs.
_VERBS = (
    ("proposes", "propose"),
    ("verifies", "verify"),
    ("accepts", "accept"),
    ("rejects", "reject"),
    ("samples", "sample"),
    ("reads", "read"),
    ("writes", "write"),
    ("stores", "store"),
    ("fills", "fill"),
    ("drops", "drop"),
    ("keeps", "keep"),
    ("scores", "score"),
    ("serves", "serve"),
    ("schedules", "schedule"),
    ("measures", "measure"),
    ("computes", "compute"),
    ("predicts", "predict"),
    ("checks", "check"),
    ("loads", "load"),
    ("streams", "stream"),
    ("repairs", "repair"),
    ("follows", "follow"),
    ("trusts", "trust"),
    ("doubles", "double"),
)
_INTRANSITIVE = (
    ("waits", "wait"),
    ("runs", "run"),
    ("stalls", "stall"),
    ("finishes", "finish"),
    ("grows", "grow"),
    ("agrees", "agree"),
    ("returns", "return"),
    ("slows down", "slow down"),
    ("speeds up", "speed up"),
    ("falls behind", "fall behind"),
)
_ADVERBS = (
    "quickly",
    "slowly",
    "again",
    "once",
    "twice",
    "in parallel",
    "in one pass",
    "at once",
    "for each position",
    "without a pause",
    "on every step",
    "by design",
)
_PREADVERBS = ("always", "rarely", "often", "never", "still", "usually", "sometimes")
_PREPOSITIONS = ("in", "on", "for", "with", "after", "before", "from", "under", "behind", "beside")
_NUMBERS = ("two", "three", "four", "five", "six", "eight", "sixteen", "many", "few")
_OPENERS = ("when", "if", "while", "once", "because", "although", "after", "before")
_CONNECTIVES = ("and", "but", "so", "yet", "while", "because")
_ASIDES = (
    "in short",
    "in practice",
    "on a laptop",
    "at this size",
    "for a junior engineer",
    "as a rule",
    "on this server",
    "by the end",
)


class _Grammar:
    """One sentence at a time, from one stream of `random()` draws."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def _p(self, probability: float) -> bool:
        return self._rng.random() < probability

    def _pick(self, options: Sequence[str]) -> str:
        return options[int(self._rng.random() * len(options))]

    def _pair(self, options: Sequence[tuple[str, str]]) -> tuple[str, str]:
        return options[int(self._rng.random() * len(options))]

    def noun_phrase(self, depth: int = 0) -> tuple[str, bool]:
        """A noun phrase and whether it is plural."""
        if self._p(0.12):
            words = [self._pick(("the", "some", "more", "less", "no"))]
            if self._p(0.3):
                words.append(self._pick(_ADJECTIVES))
            words.append(self._pick(_MASS))
            return " ".join(words), False
        plural = self._p(0.4)
        singular, many = self._pair(_NOUNS)
        noun = many if plural else singular
        if plural:
            det = self._pick(("the", "the", "some", "all the", "these", "those", *_NUMBERS))
        else:
            det = self._pick(("the", "the", "the", "a", "this", "that", "each", "every", "one"))
        words = [det]
        if self._p(0.45):
            words.append(self._pick(_ADJECTIVES))
            if self._p(0.15):
                words.append(self._pick(_ADJECTIVES))
        if not plural and self._p(0.12):
            # A compound noun: "the draft model", "a cache block".
            words.append(self._pair(_NOUNS)[0])
        words.append(noun)
        if depth == 0 and self._p(0.22):
            words.append(self.prepositional_phrase(depth + 1))
        if article_needs_an(words):
            words[0] = "an"
        return " ".join(words), plural

    def prepositional_phrase(self, depth: int = 1) -> str:
        phrase, _ = self.noun_phrase(depth)
        return f"{self._pick(_PREPOSITIONS)} {phrase}"

    def verb_phrase(self, plural: bool) -> str:
        index = 1 if plural else 0
        words = []
        if self._p(0.18):
            words.append(self._pick(_PREADVERBS))
        if self._p(0.72):
            words.append(self._pair(_VERBS)[index])
            obj, _ = self.noun_phrase()
            words.append(obj)
        else:
            words.append(self._pair(_INTRANSITIVE)[index])
        if self._p(0.3):
            words.append(self._pick(_ADVERBS))
        elif self._p(0.2):
            words.append(self.prepositional_phrase())
        return " ".join(words)

    def clause(self) -> str:
        subject, plural = self.noun_phrase()
        if self._p(0.1):
            # A modal: the verb's plural form follows it whatever the subject's number.
            modal = self._pick(("can", "will", "must", "should", "may", "cannot"))
            return f"{subject} {modal} {self.verb_phrase(True)}"
        return f"{subject} {self.verb_phrase(plural)}"

    def question(self) -> str:
        subject, plural = self.noun_phrase()
        aux = self._pick(("do", "why do", "how do", "when do") if plural else ("does", "why does"))
        if aux.endswith("does") and self._p(0.3):
            aux = self._pick(("can", "will", "should"))
        return f"{aux} {subject} {self.verb_phrase(True)}?"

    def sentence(self) -> str:
        roll = self._rng.random()
        if roll < 0.34:
            body = self.clause() + "."
        elif roll < 0.52:
            body = f"{self._pick(_OPENERS)} {self.clause()}, {self.clause()}."
        elif roll < 0.7:
            body = f"{self.clause()} {self._pick(_CONNECTIVES)} {self.clause()}."
        elif roll < 0.78:
            body = f"{self._pick(_ASIDES)}, {self.clause()}."
        elif roll < 0.86:
            body = self.question()
        elif roll < 0.93:
            subject, plural = self.noun_phrase()
            body = f"{subject} {'are' if plural else 'is'} {self._pick(_ADJECTIVES)}."
            if self._p(0.4):
                body = body[:-1] + f", and {self.clause()}."
        else:
            count = self._pick(_NUMBERS[:7])
            body = (
                f"the draft proposes {count} tokens, and the target "
                f"{self._pick(('accepts', 'checks', 'verifies', 'rejects', 'scores'))} "
                f"{self._pick(('them', 'most of them', 'some of them', 'the first one'))}"
                f" {self._pick(_ADVERBS)}."
            )
        return body


def article_needs_an(words: Sequence[str]) -> bool:
    """Whether a phrase's 'a' reads 'an' before its next word.

    Examples
    --------
    >>> article_needs_an(["a", "early", "draft"]), article_needs_an(["a", "draft"])
    (True, False)
    """
    return len(words) > 1 and words[0] == "a" and words[1][0] in "aeiou"


def corpus(seed: int = CORPUS_SEED, chars: int = CORPUS_CHARS) -> str:
    """Paragraphs of generated sentences, at least `chars` characters, the same for a seed.

    Examples
    --------
    >>> text = corpus(seed=1, chars=200)
    >>> len(text) >= 200 and set(text) <= set(VOCAB) and text == corpus(seed=1, chars=200)
    True
    """
    grammar = _Grammar(seed)
    parts: list[str] = []
    size = 0
    while size < chars:
        # Paragraphs of three to eight sentences: the newline is one more thing to predict.
        count = 3 + int(grammar._rng.random() * 6)
        paragraph = " ".join(grammar.sentence() for _ in range(count)) + "\n"
        parts.append(paragraph)
        size += len(paragraph)
    return "".join(parts)


def encode(text: str) -> NDArray[np.int64]:
    """Character indices into `VOCAB`.

    Examples
    --------
    >>> encode("a draft.").tolist()
    [5, 1, 8, 22, 5, 10, 24, 3]
    """
    return np.fromiter((_INDEX[c] for c in text), dtype=np.int64, count=len(text))


def decode(tokens: Sequence[int] | NDArray[np.int64]) -> str:
    """The text of character indices.

    Examples
    --------
    >>> decode(encode("the target verifies."))
    'the target verifies.'
    """
    return "".join(VOCAB[int(t)] for t in tokens)


def split(text: str) -> tuple[str, str]:
    """The training text and the held-out text (the last `HELD_OUT_FRACTION`, from a line)."""
    cut = text.index("\n", int(len(text) * (1 - HELD_OUT_FRACTION))) + 1
    return text[:cut], text[cut:]
