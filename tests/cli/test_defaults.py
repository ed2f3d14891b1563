"""One source for each default: `curator candidates build` takes its options' defaults from
`CandidateParams` and `curator probe --batch-tokens` from `probe.plan.DEFAULTS`, never a copy.
Each check changes the source's default in a fresh interpreter, before the CLI module is
imported, and reads the option's default back: a copied literal would not follow."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_candidates_build_defaults_follow_candidate_params():
    defaults = _run(
        """
import dataclasses, json
import curator.ingest.candidates as candidates

@dataclasses.dataclass(frozen=True)
class Changed(candidates.CandidateParams):
    min_votes: int = 5
    min_relations: float = 0.75
    min_phrases: float = 0.35
    min_templates: int = 4
    rules: str = "mpararel"

candidates.CandidateParams = Changed
from curator.cli.ingest import candidates_build
print(json.dumps({option.name: option.default for option in candidates_build.params}, default=str))
"""
    )
    assert {key: defaults[key] for key in ("min_votes", "min_relations", "min_phrases", "min_templates", "rules")} == {
        "min_votes": 5,
        "min_relations": 0.75,
        "min_phrases": 0.35,
        "min_templates": 4,
        "rules": "mpararel",
    }


def test_probe_batch_tokens_default_follows_the_plan_defaults():
    defaults = _run(
        """
import json
import curator.probe.plan as plan

plan.DEFAULTS["batch_tokens"] = 1234
from curator.cli.probe import probe
print(json.dumps({option.name: option.default for option in probe.params}, default=str))
"""
    )
    assert defaults["batch_tokens"] == 1234


def test_policy_options_default_to_the_stored_policy():
    """No copy of `any` in the commands: without --policy they pass None, the stored policy of each
    language (review/policy.py; `curator policy show`), which tests/review/test_policy.py runs."""
    from curator.cli.oversight import review_proposals
    from curator.cli.release import release_build, release_preview

    for command in (release_build, release_preview, review_proposals):
        (option,) = [p for p in command.params if p.name == "policy"]
        assert option.default is None, command.name
        assert "stored" in (option.help or ""), command.name
