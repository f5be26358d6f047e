"""The tiny models and what the rule derives at one of their contexts.

`lm` (the trigram target and bigram draft fitted from the shipped corpus, every row as a
table), `laws` (p, q, α, the residual and the exact TV at one context), `kernels` (those
laws compiled), `cache` (who keeps laws and uniform grids), `texts` (the target's own texts),
`simulate` (many blocks of the rule at one position, vectorised), `fit` (goodness of fit).
"""
