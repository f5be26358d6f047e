"""View models: witness results turned into display values, one frozen dataclass per panel.

Numbers are formatted here, never in templates; templates only place what they are given.
"""
