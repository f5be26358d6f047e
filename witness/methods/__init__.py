"""The methods serving systems use beside the chain: `siblings` (token trees: sibling
verification by recursive rejection sampling, drafting, verifying), `sibling_laws` (their
exact law and acceptance), `sibling_blocks` (many tree blocks, vectorised), `typical`
(Medusa's typical acceptance), `lookup` (prompt lookup), `block` (one served block of any of
them, and what is exact per level)."""
