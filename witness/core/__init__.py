"""The rule and its exact maths: what everything else is built on, importing nothing of it.

`rule` (one verification block, as plainly as the rule reads), `theory` (the closed forms:
acceptance, the residual, the output law, expected tokens per pass, speedup, break-even),
`distributions` (checking and sampling a distribution), `keys` (the keyed uniforms every
draw uses), `settings` (what decides one served request), `modes`, `trace` (the records of
a served request), `unbounded` (a speedup that may be infinite).
"""
