"""What a probe run reports per relation and in all: run.json's `relations` and the CLI's summary
line. Apart from runner.py so that every way of probing a relation (ranking there, decoding in
decoded.py) returns the same record."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class RelationResult:
    language: str
    relation: str
    queries: int
    candidates: int
    scored: int  # queries scored in this run (the rest were done or reused)
    seconds: float
    accuracy: float


@dataclass
class RunSummary:
    relations: list[RelationResult] = field(default_factory=list)
    skipped: int = 0

    @property
    def scored(self) -> int:
        return sum(r.scored for r in self.relations)
