"""Stage 2: volunteer review — accounts, reproducible samples, decisions, suggestions."""
