"""What a pass costs: `roofline` (pass time on a machine, batching, the k heuristic),
`costing` (the cited machines and model pairs, every pass priced), `batching` (the best k
per batch), `measured` (the same pass timed with numpy here; not deterministic)."""
