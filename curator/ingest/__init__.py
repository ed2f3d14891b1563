"""Stage 1: raw inputs to candidate templates (repair, clean, validate, vote, filter)."""
