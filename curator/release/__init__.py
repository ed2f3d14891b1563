"""Stage 3: immutable dataset versions, the mParaRel layout, manifests and statistics."""
