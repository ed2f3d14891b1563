"""A maintainer's answers to proposals (issue 28 §1): confirm, drop or edit one on the Proposals
page, its JSON API or `curator review confirm|drop`, and trust a reviewer of a language (their
proposals then count as confirmed). Each answer is a `ProposalReview` row and an activity-log
entry in the caller's unit of work; what the answers mean for a proposal's status is
`curator.review.proposals`."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.enums import Activity, ProposalVerdict, values
from curator.core.errors import InputError, NotFound
from curator.core.models import Assignment, ProposalReview, User
from curator.review import activity
from curator.review.accounts import find_user
from curator.review.proposals import Proposal, proposals
from curator.review.resolutions import REASON_MAX, invisible_in_reason
from curator.review.validation import keeps_case, validate_template

VERDICTS = values(ProposalVerdict)


def find_proposal(session: Session, language: str, relation: str, text: str) -> Proposal:
    """The proposal with this text (as stored, or as the text cleans to), or NotFound."""
    found = {p.key: p for p in proposals(session, language)}
    proposal = found.get((language, relation, text))
    if proposal is None and isinstance(text, str) and text.strip():
        try:
            cleaned = validate_template(text, language, keeps_case(session))
        except InputError:
            cleaned = None
        if cleaned is not None:
            proposal = found.get((language, relation, cleaned))
    if proposal is None:
        raise NotFound(f"no proposal {text!r} in {language}/{relation}")
    return proposal


def review_proposal(
    session: Session,
    maintainer: User,
    language: str,
    relation: str,
    text: str,
    verdict: str,
    reason: str = "",
    edited_to: str | None = None,
) -> Proposal:
    """A maintainer confirms or drops a proposal, or edits it (`edited_to`: the old text dropped,
    the new one, validated as a reviewer's template is, confirmed). Recorded in the activity log
    in the same unit of work. Returns the proposal as it stands now (the new text's, for an edit)."""
    if verdict not in VERDICTS:
        raise InputError(f"must be one of {', '.join(VERDICTS)}", field="verdict")
    if not isinstance(reason, str) or len(reason) > REASON_MAX:
        raise InputError(f"at most {REASON_MAX} characters", field="reason")
    reason = reason.replace("\r\n", "\n").strip()
    problem = invisible_in_reason(reason)  # the rule of every typed reason (review.resolutions)
    if problem is not None:
        raise InputError(problem, field="reason")
    proposal = find_proposal(session, language, relation, text)
    new_text: str | None = None
    if edited_to is not None:
        try:
            new_text = validate_template(edited_to, language, keeps_case(session))
        except InputError as exc:
            raise InputError(exc.message, field="edited_to") from None
        if new_text == proposal.text:
            new_text = None  # an edit that changes nothing is a confirmation
            verdict = ProposalVerdict.CONFIRM
    if new_text is not None:
        session.add_all(
            [
                ProposalReview(
                    language=language,
                    relation_id=relation,
                    text=proposal.text,
                    verdict=ProposalVerdict.DROP,
                    edited_to=new_text,
                    reason=reason,
                    user_id=maintainer.id,
                ),
                ProposalReview(
                    language=language,
                    relation_id=relation,
                    text=new_text,
                    verdict=ProposalVerdict.CONFIRM,
                    edited_from=proposal.text,
                    reason=reason,
                    user_id=maintainer.id,
                ),
            ]
        )
        details: dict[str, Any] = {
            "verdict": "edit",
            "relation": relation,
            "text": proposal.text,
            "edited_to": new_text,
        }
    else:
        session.add(
            ProposalReview(
                language=language,
                relation_id=relation,
                text=proposal.text,
                verdict=ProposalVerdict(verdict).value,
                reason=reason,
                user_id=maintainer.id,
            )
        )
        details = {"verdict": ProposalVerdict(verdict).value, "relation": relation, "text": proposal.text}
    if reason:
        details["reason"] = reason
    activity.record(
        session, maintainer, Activity.PROPOSAL, f"{relation}: {proposal.text}", language=language, details=details
    )
    session.flush()
    return find_proposal(session, language, relation, new_text or proposal.text)


def set_trusted(session: Session, maintainer: User | None, email: str, language: str, trusted: bool) -> Assignment:
    """Mark a reviewer of `language` trusted (their proposals count as confirmed) or not; recorded
    in the activity log (maintainer None: the command line)."""
    user = find_user(session, email)
    if user is None:
        raise NotFound(f"no user {email}")
    assignment = session.scalar(
        select(Assignment).where(Assignment.user_id == user.id, Assignment.language == language)
    )
    if assignment is None:
        raise NotFound(f"{user.email} does not review {language}")
    if assignment.trusted != trusted:
        assignment.trusted = trusted
        activity.record(
            session, maintainer, Activity.TRUST if trusted else Activity.DISTRUST, user.email, language=language
        )
    return assignment
