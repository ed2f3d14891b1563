"""The proposals of a language as JSON, for maintainers' scripts (issue 28 §1; docs/review-api.md):
list them by status and answer one — confirm, edit or drop with a reason — through the same
services as the Proposals page (curator/review/proposals.py), so the rules, the activity log and
the refusals are the page's. Reviewers get 403, an anonymous caller 401, bad input a JSON error
naming the field, with nothing changed."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, request
from flask.typing import ResponseReturnValue
from flask_login import current_user

from curator.core import languages
from curator.core.enums import Policy, ProposalVerdict, values
from curator.core.errors import InputError
from curator.review import proposal_answers as answers
from curator.review import proposals as service
from curator.review.policy import language_policy
from curator.review.resolutions import REASON_MAX
from curator.web import fields
from curator.web.auth import maintainer_required
from curator.web.context import db, write

bp = Blueprint("proposals_api", __name__, url_prefix="/api/v1")

ACTIONS = ("confirm", "edit", "drop")
ALL = "all"
CODE = 32  # a language code in the URL
RELATION = 32
TEXT = 500  # a template (validation.py refuses longer ones in its own words)


def _language(lang: str) -> str:
    return languages.check_code(fields.url_part("language", lang, CODE), "language")


@bp.get("/languages/<lang>/proposals")
@maintainer_required
def listing(lang: str) -> ResponseReturnValue:
    """Every proposal of the language (`?status=` one status, or all), with its status under
    `?policy=` (any, majority or unanimous; default: the language's stored policy), who proposed
    it, the second reviewers' verdicts and the latest maintainer answer. `policy` says the policy
    used, `stored_policy` the language's stored one and `policy_source` whether it was the
    stored one (`stored`) or the query's (`query`)."""
    code = _language(lang)
    status = request.args.get("status", "") or ALL
    if status != ALL and status not in service.STATUSES:
        raise InputError(f"choose {ALL} or one of {', '.join(service.STATUSES)}", field="status")
    policy = request.args.get("policy", "") or None  # None: the language's stored policy
    if policy is not None and policy not in values(Policy):
        raise InputError(f"choose one of {', '.join(values(Policy))}", field="policy")
    session = db()
    found = service.proposals(session, code, policy=policy)
    stored = language_policy(session, code)
    counts: dict[str, int] = {}
    for p in found:
        counts[p.status.value] = counts.get(p.status.value, 0) + 1
    shown = [p.to_dict() for p in found if status == ALL or p.status == status]
    return jsonify(
        language=code,
        status=status,
        policy=policy or stored,
        stored_policy=stored,
        policy_source="query" if policy else "stored",
        counts=counts,
        proposals=shown,
    )


@bp.post("/languages/<lang>/proposals")
@maintainer_required
def answer(lang: str) -> ResponseReturnValue:
    """Confirm, edit (`edited_to`) or drop one proposal, named by its relation and text."""
    code = _language(lang)
    body: dict[str, Any] = fields.body()
    relation = fields.text(body, "relation", RELATION, allow_empty=False)
    text = fields.text(body, "text", TEXT, allow_empty=False)
    action = fields.text(body, "action", 10)
    if action not in ACTIONS:
        raise InputError(f"choose {', '.join(ACTIONS)}", field="action")
    reason = fields.text(body, "reason", REASON_MAX, required=False) or ""
    edited_to = fields.text(body, "edited_to", TEXT, required=action == "edit", allow_empty=False)
    if action != "edit" and edited_to is not None:
        raise InputError("only an edit takes edited_to", field="edited_to")
    verdict = ProposalVerdict.DROP if action == "drop" else ProposalVerdict.CONFIRM
    with write() as session:  # an InputError's JSON names its field (web/errors.translated)
        proposal = answers.review_proposal(session, current_user, code, relation, text, verdict, reason, edited_to)
        answered = proposal.to_dict()
    return jsonify(proposal=answered)
