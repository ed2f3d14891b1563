"""Quality signals for reviewers (SPEC §7): which candidate templates most likely need a human."""
