"""Stage 4: probe language models on a release (SPEC §5). Runs without Flask."""
