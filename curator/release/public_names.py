"""How a published file (a version's params, and so its manifest and dataset card) names a
maintainer: by their display name, or "a maintainer" — never by e-mail address. The addresses
stay in the database and the activity log, where only maintainers read them; a release is
public and outlives anyone's consent to be contacted."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.models import User

ANONYMOUS = "a maintainer"
ADDRESS = re.compile(r"[^\s@]+@[^\s@]+")  # anything that could be an address: refused as a name too
PEOPLE_PARAMS = ("resolutions", "line_drops")  # the params lists whose rows say `by` whom


def public_name(name: str | None) -> str:
    """A display name as a release may print it: "a maintainer" when it is empty or holds an address."""
    name = (name or "").strip()
    return name if name and not ADDRESS.search(name) else ANONYMOUS


def public_names(session: Session) -> dict[str, str]:
    """e-mail address -> the name a release prints for that account."""
    return {email: public_name(name) for email, name in session.execute(select(User.email, User.name))}


def published_by(by: str, names: Mapping[str, str]) -> str:
    """The `by` of a resolution or a dropped line as a release prints it: an address becomes the
    account's public name; a name already public (or "a maintainer") stays."""
    if by in names:
        return names[by]
    return ANONYMOUS if ADDRESS.search(by) else by


def public_params(params: dict[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """A version's params without addresses: versions built before releases named maintainers
    by name recorded the e-mail in each resolution and dropped line, and are still exported."""
    cleaned = dict(params)
    for key in PEOPLE_PARAMS:
        rows = cleaned.get(key)
        if isinstance(rows, list):
            cleaned[key] = [
                {**row, "by": published_by(str(row["by"]), names)} if isinstance(row, dict) and "by" in row else row
                for row in rows
            ]
    return cleaned
