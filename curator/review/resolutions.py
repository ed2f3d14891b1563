"""Adjudication (issue 28 §2): the templates a language's reviewers disagree on, and a
maintainer's resolution of one — a verdict of its own kind (accept, amend with a correction,
reject) with a reason, which every merge policy follows (release/merge.py).

A resolution never becomes a reviewer's decision: agreement statistics (review/stats.py) keep
comparing the reviewers' own standing decisions. Rows are never deleted: the latest resolution
of a template is the one that counts (a later one supersedes), and retracting marks it
retracted, which hands the template back to the reviewers' decisions.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import TypedDict

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from curator.core.enums import Activity, DecisionKind, DisagreementKind, values
from curator.core.errors import N_, Conflict, Forbidden, InputError, NotFound
from curator.core.models import Comment, Decision, Resolution, Template, User
from curator.core.models.base import utcnow, valid_id
from curator.core.text import control_reason
from curator.review import activity
from curator.review.stats import standing_decisions
from curator.review.validation import keeps_case, validate_template

VERDICTS = (DecisionKind.ACCEPT.value, DecisionKind.AMEND.value, DecisionKind.REJECT.value)
REASON_MAX = 2000

# why a template is listed: reviewers gave different verdicts (accept vs reject, accept or
# reject vs amend), amended it differently, or someone is unsure
KINDS = values(DisagreementKind)  # the kinds of disagreement a list is filtered by
VERDICTS_DIFFER, AMENDMENTS_DIFFER, UNSURE = KINDS


class ReviewerDecision(TypedDict):
    reviewer: str  # e-mail address
    decision: str  # DecisionKind
    correction: str | None
    reason: str | None  # a reject's or an unsure's reason (review.service.check_reason)
    at: str  # ISO 8601, to the second


class TemplateComment(TypedDict):
    id: int
    reviewer: str
    text: str
    at: str


class ResolutionRecord(TypedDict):
    id: int
    template_id: int
    language: str
    relation: str
    template: str
    verdict: str
    correction: str | None
    reason: str
    by: str  # the maintainer's e-mail address
    at: str


class Disagreement(TypedDict):
    template_id: int
    relation: str
    template: str
    why: list[str]  # VERDICTS_DIFFER, AMENDMENTS_DIFFER, UNSURE
    decisions: list[ReviewerDecision]
    comments: list[TemplateComment]
    resolution: ResolutionRecord | None


def _iso(value: object) -> str:
    return value.isoformat(timespec="seconds") if hasattr(value, "isoformat") else str(value)


def why_listed(decisions: list[tuple[str, str | None]]) -> list[str]:
    """What makes these standing (decision, correction) pairs a disagreement; empty: none."""
    verdicts = [(d, c) for d, c in decisions if d != DecisionKind.UNSURE]
    why = []
    if len({d for d, _ in verdicts}) > 1:
        why.append(VERDICTS_DIFFER)
    if len({c for d, c in verdicts if d == DecisionKind.AMEND}) > 1:
        why.append(AMENDMENTS_DIFFER)
    if len(verdicts) < len(decisions):
        why.append(UNSURE)
    return why


def disagreements(session: Session, language: str) -> list[Disagreement]:
    """The language's templates whose reviewers disagree or where someone is unsure, by relation
    and template: every reviewer's standing decision, the comments on the template and its
    standing resolution, if any."""
    by_template: dict[int, list[int]] = defaultdict(list)  # template -> standing decision ids
    for _lang, _user, template_id, _decision, _correction, _secs, decision_id in standing_decisions(session, language):
        by_template[template_id].append(decision_id)
    ids = [i for ids in by_template.values() for i in ids]
    rows: dict[int, list[tuple[Decision, str]]] = defaultdict(list)
    for chunk in _chunks(ids):
        for d, email in session.execute(
            select(Decision, User.email).join(User, User.id == Decision.user_id).where(Decision.id.in_(chunk))
        ):
            rows[d.template_id].append((d, email))
    listed = {t: why for t, ds in rows.items() if (why := why_listed([(d.decision, d.correction) for d, _ in ds]))}
    if not listed:
        return []
    templates = {
        t.id: t
        for chunk in _chunks(list(listed))
        for t in session.scalars(select(Template).where(Template.id.in_(chunk)))
    }
    comments: dict[int, list[TemplateComment]] = defaultdict(list)
    for chunk in _chunks(list(listed)):
        for c, email in session.execute(
            select(Comment, User.email)
            .join(User, User.id == Comment.user_id)
            .where(Comment.template_id.in_(chunk), Comment.retracted.is_(False))
            .order_by(Comment.id)
        ):
            assert c.template_id is not None  # selected by template
            comments[c.template_id].append(TemplateComment(id=c.id, reviewer=email, text=c.text, at=_iso(c.created_at)))
    resolved = standing_resolutions(session, language)
    out = []
    for template_id in sorted(listed, key=lambda t: (templates[t].relation_id, templates[t].first_position, t)):
        t = templates[template_id]
        out.append(
            Disagreement(
                template_id=template_id,
                relation=t.relation_id,
                template=t.text,
                why=listed[template_id],
                decisions=[
                    ReviewerDecision(
                        reviewer=email,
                        decision=d.decision,
                        correction=d.correction,
                        reason=d.reason,
                        at=_iso(d.created_at),
                    )
                    for d, email in sorted(rows[template_id], key=lambda r: r[0].id)
                ],
                comments=comments.get(template_id, []),
                resolution=resolved.get(template_id),
            )
        )
    return out


def check_kind(kind: str | None) -> str | None:
    """A kind of disagreement to filter by (one of KINDS); None or "" for all. Another is an
    InputError naming the field."""
    if not kind:
        return None
    if kind not in KINDS:
        raise InputError(N_("choose %(kinds)s, or nothing for all"), params={"kinds": ", ".join(KINDS)}, field="kind")
    return kind


def of_kind(items: list[Disagreement], kind: str | None) -> list[Disagreement]:
    """The disagreements listed for `kind` (`why` names it); all for None. The one filter the
    page, the JSON API and `curator review disagreements --kind` read (issue 37 §2)."""
    kind = check_kind(kind)
    return items if kind is None else [item for item in items if kind in item["why"]]


def kind_counts(items: list[Disagreement]) -> dict[str, int]:
    """How many of `items` are listed for each kind (a template can be of two)."""
    return {kind: sum(kind in item["why"] for item in items) for kind in KINDS}


def _chunks(ids: list[int], size: int = 500) -> list[list[int]]:
    """IN lists of a bounded length (SQLite's parameter limit, PostgreSQL's plan size)."""
    return [ids[i : i + size] for i in range(0, len(ids), size)]


def _maintainer(user: User) -> None:
    if not user.is_maintainer:
        raise Forbidden("only a maintainer resolves disagreements")


def _template(session: Session, template_id: object) -> Template:
    template = session.get(Template, template_id) if isinstance(template_id, int) and valid_id(template_id) else None
    if template is None:
        raise NotFound(f"template: no template {template_id}")
    return template


def invisible_in_reason(reason: str) -> str | None:
    """Why a maintainer's typed reason is refused for a character in it, or None: a control or
    format character (U+202E reversing the line and its buttons, NUL that PostgreSQL cannot
    store, ...) — the rule of every typed text (core.text.control_reason; line breaks let
    through, as in a comment: a form's CRLF is made LF first)."""
    return control_reason(reason.replace("\n", ""))


def check_reason(reason: object) -> str:
    """A maintainer's reason (a resolution, a dropped line): required, at most REASON_MAX
    characters, no invisible character (`invisible_in_reason`)."""
    if not isinstance(reason, str) or not reason.strip():
        raise InputError("give a reason (it is kept with the resolution and shown to maintainers)", field="reason")
    reason = reason.replace("\r\n", "\n").strip()
    if len(reason) > REASON_MAX:
        raise InputError(f"at most {REASON_MAX} characters", field="reason")
    problem = invisible_in_reason(reason)
    if problem is not None:
        raise InputError(problem, field="reason")
    return reason


def resolve(
    session: Session,
    maintainer: User,
    template_id: int,
    verdict: str,
    reason: str,
    correction: str | None = None,
) -> Resolution:
    """Resolve one template: accept, amend (with a correction cleaned as a reviewer's would be)
    or reject, with a reason. It supersedes any earlier resolution of the template."""
    _maintainer(maintainer)
    template = _template(session, template_id)
    if verdict not in VERDICTS:
        raise InputError(f"choose {', '.join(VERDICTS)}, not {verdict!r}", field="verdict")
    reason = check_reason(reason)
    cleaned: str | None = None
    if verdict == DecisionKind.AMEND:
        if correction is None or not str(correction).strip():
            raise InputError("an amend needs the corrected template", field="correction")
        try:
            cleaned = validate_template(correction, template.language, keeps_case(session))
        except InputError as exc:
            raise InputError(exc.message, field="correction") from None
        if cleaned == template.text:
            raise InputError("it is the template itself: resolve it as accept instead", field="correction")
    elif correction is not None and str(correction).strip():
        raise InputError(f"only an amend has a correction, not {verdict}", field="correction")
    standing = standing_resolutions(session, template.language)
    previous = standing.get(template.id)
    _refuse_contradiction(template, verdict, cleaned, standing)
    row = Resolution(
        template_id=template.id,
        language=template.language,
        relation_id=template.relation_id,
        verdict=verdict,
        correction=cleaned,
        reason=reason,
        user_id=maintainer.id,
    )
    session.add(row)
    session.flush()
    activity.record(
        session,
        maintainer,
        Activity.RESOLUTION,
        target=f"{template.language}/{template.relation_id}: {template.text}",
        language=template.language,
        details={
            "template_id": template.id,
            "resolution": row.id,
            "verdict": verdict,
            "correction": cleaned,
            "reason": reason,
            "supersedes": previous["id"] if previous else None,
        },
    )
    return row


def _refuse_contradiction(
    template: Template, verdict: str, correction: str | None, standing: dict[int, ResolutionRecord]
) -> None:
    """A resolution must not contradict another standing resolution of the same relation (issue
    36): one that takes a text out (reject, or amend it to another text) while another ships that
    text (its correction), or one whose correction another takes out. Refused with the other
    named; retracting that one first is the way to change one's mind. Resolving the same template
    again supersedes its own resolution and is no contradiction."""
    for other in standing.values():
        if other["template_id"] == template.id or other["relation"] != template.relation_id:
            continue
        ships_mine = other["correction"] == template.text and verdict != DecisionKind.ACCEPT
        takes_out = (
            other["verdict"] != DecisionKind.ACCEPT and correction is not None and other["template"] == correction
        )
        if ships_mine or takes_out:
            what = other["verdict"] + (f" → {other['correction']}" if other["correction"] else "")
            raise Conflict(
                f"template: contradicts the standing resolution of template {other['template_id']}"
                f" «{other['template']}» ({what}, by {other['by']}): retract that one first"
            )


def retract_resolution(session: Session, maintainer: User, template_id: int) -> Resolution:
    """Withdraw the template's standing resolution: the reviewers' decisions judge it again."""
    _maintainer(maintainer)
    template = _template(session, template_id)
    latest = session.scalar(
        select(Resolution).where(Resolution.template_id == template.id).order_by(Resolution.id.desc()).limit(1)
    )
    if latest is None or latest.retracted:
        raise NotFound(f"template: no standing resolution of template {template.id}")
    latest.retracted, latest.retracted_at = True, utcnow()
    activity.record(
        session,
        maintainer,
        Activity.RESOLUTION,
        target=f"{template.language}/{template.relation_id}: {template.text}",
        language=template.language,
        details={"template_id": template.id, "resolution": latest.id, "retracted": True},
    )
    session.flush()
    return latest


def standing_resolution_rows(
    session: Session, languages: Iterable[str] | None = None
) -> list[tuple[Resolution, str, str]]:
    """(resolution, maintainer's e-mail, template text) of each template's standing resolution —
    the latest one, unless it was retracted — of `languages` (None: all): the one query of it."""
    latest = select(func.max(Resolution.id)).group_by(Resolution.template_id)
    if languages is not None:
        latest = latest.where(Resolution.language.in_(list(languages)))
    query = (
        select(Resolution, User.email, Template.text)
        .join(User, User.id == Resolution.user_id)
        .join(Template, Template.id == Resolution.template_id)
        .where(Resolution.id.in_(latest), Resolution.retracted.is_(False))
        .order_by(Resolution.id)
    )
    return [(r, email, text) for r, email, text in session.execute(query)]


def resolution_record(r: Resolution, email: str, text: str) -> ResolutionRecord:
    """A standing resolution as pages, params and the manifest show it."""
    return ResolutionRecord(
        id=r.id,
        template_id=r.template_id,
        language=r.language,
        relation=r.relation_id,
        template=text,
        verdict=r.verdict,
        correction=r.correction,
        reason=r.reason,
        by=email,
        at=_iso(r.created_at),
    )


def standing_resolutions(session: Session, language: str | None = None) -> dict[int, ResolutionRecord]:
    """template id -> its standing resolution: the latest one, unless it was retracted."""
    rows = standing_resolution_rows(session, [language] if language is not None else None)
    return {r.template_id: resolution_record(r, email, text) for r, email, text in rows}
