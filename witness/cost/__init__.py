"""What a pass costs: `roofline` (pass time on a machine, batching, the k heuristic),
`catalog` (the cited machines, models and model pairs, and a target's early exit), `passes`
(passes timed on an H200 and the model fitted to them), `costing` (every pass priced),
`batching` (the best k per batch), `measured` (the same pass timed with numpy here; not
deterministic)."""
