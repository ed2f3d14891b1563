"""The domain's closed sets of values, in one place.

Each is a `str` enum, so a member equals its stored string ("accept" == DecisionKind.ACCEPT),
columns keep plain strings, and JSON needs no converter. The CLI's `click.Choice`s, the web
forms and the services' validation all take their lists from here (`values(...)`).
"""

from __future__ import annotations

from enum import Enum, StrEnum


def values(enum: type[Enum]) -> tuple[str, ...]:
    return tuple(member.value for member in enum)


class DecisionKind(StrEnum):
    """A reviewer's verdict on one candidate template. "unsure" is counted apart and never
    merged as an accept or a reject: the template keeps the other reviewers' verdicts."""

    ACCEPT = "accept"
    AMEND = "amend"
    REJECT = "reject"
    UNSURE = "unsure"


class ImportKind(StrEnum):
    """A line of a `curator review import` file: a decision or a new suggestion."""

    ACCEPT = "accept"
    AMEND = "amend"
    REJECT = "reject"
    UNSURE = "unsure"
    SUGGEST = "suggest"


class ProposalStatus(StrEnum):
    """Where a reviewer's proposal (an amendment's correction or a suggestion) stands: only a
    confirmed one ships as checked by a human (issue 28: a second look before an edit ships)."""

    UNCONFIRMED = "unconfirmed"  # one reviewer's text, nobody else has looked: never shipped
    REVIEWERS = "reviewers"  # a second reviewer of the language accepted it (or proposed the same)
    TRUSTED = "trusted"  # proposed by a reviewer the maintainers trust for that language
    MAINTAINER = "maintainer"  # accepted (or written, editing it) by a maintainer
    IMPORT = "import"  # from `curator review import` of sheets reviewed before (mParaRel's)
    DROPPED = "dropped"  # a maintainer dropped it (or rejected its template by a resolution)
    SETTLED = "settled"  # decided by a maintainer's resolution (an amendment of a resolved template, a rejected row)
    REJECTED = "rejected"  # a second reviewer looked and did not accept it (or the policy keeps it out)
    SUPERSEDED = "superseded"  # replaced by another text: amended by reviewers or edited by a maintainer


class ConfirmedBy(StrEnum):
    """Who made a shipped-checked text checked (`review.rule`'s `Decided.by`): the one spelling
    the rule, the merge's counts and the commands read."""

    MAINTAINER = "maintainer"
    REVIEWERS = "reviewers"
    TRUSTED = "trusted"
    IMPORT = "import"
    PARENT = "parent"  # checked in the parent version


class ProposalCount(StrEnum):
    """What a reviewed version records of its proposals (`release.merge.proposal_counts`): the
    lines they made checked, by who confirmed them, then those not shipped."""

    REVIEWERS = ConfirmedBy.REVIEWERS.value
    TRUSTED = ConfirmedBy.TRUSTED.value
    MAINTAINER = ConfirmedBy.MAINTAINER.value
    IMPORT = ConfirmedBy.IMPORT.value
    WITHHELD = "withheld"  # waiting unconfirmed
    REJECTED = ProposalStatus.REJECTED.value
    DROPPED = ProposalStatus.DROPPED.value


class Outcome(StrEnum):
    """What the release does with a text people touched (issue 36: one rule, docs/release.md
    "What ships"): exactly one per text, decided by `curator.review.rule.decide`."""

    SHIPPED_CHECKED = "shipped-checked"
    SHIPPED_UNREVIEWED = "shipped-unreviewed"
    WAITING = "waiting"  # a proposal waiting for a second look: not shipped
    REJECTED = "rejected"  # by reviewers
    DROPPED = "dropped"  # by a maintainer (an answer on the Proposals page, or a dropped line)
    SETTLED = "settled"  # by a maintainer's resolution
    SUPERSEDED = "superseded"  # replaced by another text (reviewers' amendments, a maintainer's edit)


class ProposalVerdict(StrEnum):
    """A maintainer's answer to a proposal on the Proposals page (an edit is a drop of the old
    text and a confirmed new one)."""

    CONFIRM = "confirm"
    DROP = "drop"


class Activity(StrEnum):
    """What a maintainer did, as the activity log names it (`curator activity`, /admin/activity)."""

    INVITE = "invite"
    INVITE_REVOKE = "invite-revoke"
    INVITE_RESEND = "invite-resend"
    ROLE = "role"
    ASSIGN = "assign"
    UNASSIGN = "unassign"
    TRUST = "trust"
    DISTRUST = "distrust"
    DEACTIVATE = "deactivate"
    REACTIVATE = "reactivate"
    PASSWORD_RESET = "password-reset"
    RESET_REQUEST_DISMISS = "reset-request-dismiss"  # a "Forgot password?" request dismissed without a link
    RESOLUTION = "resolution"
    PROPOSAL = "proposal"
    LINE_DROP = "line-drop"
    LINE_RESTORE = "line-restore"
    GUIDELINES = "guidelines"
    GLOSSARY = "glossary"
    COMMENT_RESOLVE = "comment-resolve"
    SNAPSHOT = "snapshot"
    BUILD = "build"
    EXPORT = "export"
    QUEUE_ORDER = "queue-order"  # a language's queue order for new reviewers
    SAMPLE_FRACTION = "sample-fraction"  # a language's sample fraction for new reviewers
    IMPORT = "import"  # `release import` (a version) or `review import` (published decisions)
    ACCOUNT_CREATE = "account-create"  # `curator user create` (its languages: one `assign` each)
    PASSWORD_SET = "password-set"  # `curator user password`: a password set for the account
    API_TOKEN = "api-token"  # `curator user token`: a new API token issued (never the token itself)
    POLICY = "policy"  # the merge policy of the project, or a language's override (issue 36 §3)


class DecisionSource(StrEnum):
    """Where a decision, suggestion or comment came from (the `source` column). Imported ones
    are the published sheets' verdicts: their proposals count as confirmed (ProposalStatus.IMPORT)
    and never enter the second-look queues, so every reader compares with this one member."""

    WEB = "web"  # the review screen (a signed-in session)
    API = "api"  # the JSON API with a bearer token
    IMPORT = "import"  # `curator review import`


class Role(StrEnum):
    REVIEWER = "reviewer"
    MAINTAINER = "maintainer"


class VersionKind(StrEnum):
    """How a dataset version came to be."""

    CANDIDATES = "candidates"  # `curator release build`: the voted candidates
    REVIEW = "review"  # reviews applied to a candidates version under a policy
    IMPORT = "import"  # an existing release folder read back in


class QueueOrder(StrEnum):
    """How a new reviewer's sample of a language is drawn and ordered."""

    RANDOM = "random"
    RISK = "risk"  # riskiest first (quality signals)


class DisagreementKind(StrEnum):
    """Why a template is on a language's Disagreements page (`review.resolutions.KINDS`): the
    kinds the page, the JSON API and `curator review disagreements --kind` filter by."""

    VERDICTS = "verdicts"  # different verdicts
    AMENDMENTS = "amendments"  # different amendments
    UNSURE = "unsure"  # a reviewer is unsure


class Policy(StrEnum):
    """How several reviewers' decisions on one template combine into a release."""

    ANY = "any"
    MAJORITY = "majority"
    UNANIMOUS = "unanimous"


class ScoreMode(StrEnum):
    """How a probe scores a candidate object."""

    LOG_PROB = "log-prob"  # the candidate's log-probability (default)
    MEAN_LOGIT = "mean-logit"  # the published mParaRel code's mean logit over its tokens
    PLL = "pll"  # masked LMs: the filled sentence's pseudo-log-likelihood (Salazar et al. 2020)


class DecodeInit(StrEnum):
    """X-FACTR's initial prediction of m masks (`curator probe --decode`)."""

    INDEPENDENT = "independent"  # every mask at once, from one pass
    ORDER = "order"  # left to right, one mask per pass
    CONFIDENCE = "confidence"  # the most confident (mask, token) first, one per pass


class Refine(StrEnum):
    """X-FACTR's refinement after the initial prediction (`curator probe --refine`)."""

    NONE = "none"
    ORDER = "order"  # re-predict left to right until a scan changes nothing
    CONFIDENCE = "confidence"  # re-predict the least confident token until it stays


class Attention(StrEnum):
    """Which attention implementation of its own a probed model runs (transformers'
    attn_implementation); auto lets transformers pick (SDPA where the model supports it)."""

    AUTO = "auto"
    SDPA = "sdpa"
    FLASH_ATTENTION_2 = "flash_attention_2"
    EAGER = "eager"


class ModelKind(StrEnum):
    """Families a tiny test model can be built for (`curator models tiny`)."""

    BERT = "bert"
    XLM_ROBERTA = "xlm-roberta"
    T5 = "t5"
    GPT2 = "gpt2"
    MARIAN = "marian"


class PllVariant(StrEnum):
    """Which pseudo-log-likelihood `--score-mode pll` computes (`curator probe --pll-variant`)."""

    ORIGINAL = "original"  # Salazar et al. 2020: each token masked alone
    WITHIN_WORD_L2R = "within-word-l2r"  # Kauf & Ivanova 2023: the token and the rest of its word masked


class BeamStyle(StrEnum):
    """How X-FACTR decoding's beam is built (`curator probe --beam-style`, docs/probe.md)."""

    JOINT = "joint"  # independent init: the top-B joint assignments; duplicates keep the best score
    PUBLISHED = "published"  # X-FACTR's code: the b-th best token at every position; the first duplicate
