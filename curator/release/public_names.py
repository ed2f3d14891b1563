"""How a published file (a version's params, and so its manifest and dataset card) names a
maintainer: by their display name, or "a maintainer" — never by e-mail address; and a reviewer
whose reason it prints: by their display name, or "a reviewer". The addresses stay in the
database and the activity log, where only maintainers read them; a release is public and
outlives anyone's consent to be contacted."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.models import User

ANONYMOUS = "a maintainer"
REVIEWER = "a reviewer"  # a reviewer with no display name (the reviewers' reasons)
ADDRESS = re.compile(r"[^\s@]+@[^\s@]+")  # anything that could be an address: refused as a name too
# the params lists whose rows say `by` whom, and who that is when they have no public name
PEOPLE_PARAMS = {"resolutions": ANONYMOUS, "line_drops": ANONYMOUS, "reviewer_reasons": REVIEWER}


def public_name(name: str | None, anonymous: str = ANONYMOUS) -> str:
    """A display name as a release may print it: `anonymous` ("a maintainer", or REVIEWER) when
    it is empty or holds an address."""
    name = (name or "").strip()
    return name if name and not ADDRESS.search(name) else anonymous


def public_names(session: Session) -> dict[str, str]:
    """e-mail address -> the name a release prints for that account."""
    return {email: public_name(name) for email, name in session.execute(select(User.email, User.name))}


def published_by(by: str, names: Mapping[str, str], anonymous: str = ANONYMOUS) -> str:
    """The `by` of a resolution, a dropped line or a reviewer's reason as a release prints it: an
    address becomes the account's public name; a name already public (or "a maintainer") stays;
    the address of no account, or of one without a public name, becomes `anonymous`."""
    if by in names:
        return anonymous if names[by] == ANONYMOUS else names[by]
    return anonymous if ADDRESS.search(by) else by


def public_params(params: dict[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """A version's params without addresses (every list of PEOPLE_PARAMS): versions built before
    releases named maintainers by name recorded the e-mail in each resolution and dropped line,
    and are still exported."""
    cleaned = dict(params)
    for key, anonymous in PEOPLE_PARAMS.items():
        rows = cleaned.get(key)
        if isinstance(rows, list):
            cleaned[key] = [
                {**row, "by": published_by(str(row["by"]), names, anonymous)}
                if isinstance(row, dict) and "by" in row
                else row
                for row in rows
            ]
    return cleaned
