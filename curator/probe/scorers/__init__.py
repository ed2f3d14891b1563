"""Candidate scorers (SPEC §5), one module per model kind, behind one loader."""
from __future__ import annotations

from curator.probe.scorers.base import ProbeError, Scorer, load_scorer

__all__ = ["ProbeError", "Scorer", "load_scorer"]
