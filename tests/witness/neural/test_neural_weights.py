"""The committed weights and their log, and the corpus they were trained on."""

from __future__ import annotations

import json

import numpy as np

from witness.neural.corpus import CORPUS_CHARS, VOCAB, corpus, encode, split
from witness.neural.model import DRAFT, TARGET, WEIGHTS_PATH, tiny_pair
from witness.neural.train import LOG_PATH


def test_corpus_is_deterministic_for_a_seed_and_the_stated_size() -> None:
    text = corpus()
    assert text == corpus()
    assert 150_000 <= CORPUS_CHARS <= len(text) <= CORPUS_CHARS + 2_000 <= 300_000
    assert set(text) == set(VOCAB)
    assert corpus(seed=1, chars=5_000) != corpus(seed=2, chars=5_000)
    train, held_out = split(text)
    assert train + held_out == text and train.endswith("\n")
    assert 0.09 < len(held_out) / len(text) < 0.11
    # Varied enough not to be memorised: many distinct sentences, few repeated.
    sentences = text.replace("\n", " ").replace("?", ".").split(". ")
    assert len(set(sentences)) > 0.97 * len(sentences)


def test_committed_weights_load_and_give_distributions() -> None:
    pair = tiny_pair()
    assert pair.target.config == TARGET and pair.draft.config == DRAFT
    assert WEIGHTS_PATH.stat().st_size < 1_000_000
    with np.load(WEIGHTS_PATH) as data:
        assert {data[k].dtype for k in data.files if k != "meta"} == {np.dtype(np.float16)}
    prompt = encode("the draft proposes four tokens, and the target verifies them in one pass.")
    for model, depth in ((pair.target, None), (pair.target, TARGET.exit_layer), (pair.draft, None)):
        rows = model.forward(prompt, model.new_cache(), depth=depth)
        assert rows.shape == (prompt.size, len(VOCAB))
        assert (rows >= 0).all()
        np.testing.assert_allclose(rows.sum(axis=1), 1.0, atol=1e-12)
        # Trained: the next characters are far likelier than uniform (log 1/31 = -3.43).
        next_log_p = np.log(rows[np.arange(prompt.size - 1), prompt[1:]])
        assert next_log_p.mean() > -2.0


def test_training_log_records_the_run_and_realistic_agreement() -> None:
    log = json.loads(LOG_PATH.read_text())
    assert log["torch"].startswith("2.13.0") and log["seed"] == 0
    curve = log["curve"]
    assert curve[-1]["step"] == log["steps"]
    assert all(
        late < early
        for early, late in zip(curve[0]["held_out"], curve[-1]["held_out"], strict=True)
    )
    assert log["weights_bytes"] == WEIGHTS_PATH.stat().st_size
    measured = log["measured"]
    # Neither draft is the target (agreement near 1 would mean a memorised corpus).
    for name in ("early_exit", "draft"):
        assert 0.4 < measured["alpha"][name] < 0.95
        assert 1.0 < measured["tokens_per_pass"][name] < 5.0
