"""Becoming a maintainer through an invitation is logged with the account (issue 38 §2, low): an
open maintainer link (anyone who holds it) accepted by a new account, or by a signed-in
reviewer, is a `role` entry in the activity log — the entry `curator user role` makes — by the
account that used it; a reviewer invitation, or a maintainer accepting one, changes no role and
logs none."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from curator.core.enums import Activity
from curator.core.models import ActivityEntry, User
from tests.plugins.servers import Browser, csrf_from

pytestmark = pytest.mark.backends("sqlite", "postgresql")

STRONG = "violet tractor umbrella"


def _link(cli, *options: str) -> str:
    link = cli("user", "invite", "--language", "es", *options).output.strip()
    return link[link.index("/invite/") :]


def _roles(sessions) -> list[tuple[str | None, str, dict]]:
    with sessions() as s:
        rows = s.execute(
            select(User.email, ActivityEntry.target, ActivityEntry.details)
            .outerjoin(User, User.id == ActivityEntry.actor_id)
            .where(ActivityEntry.action == Activity.ROLE)
            .order_by(ActivityEntry.id)
        ).all()
    return [(actor, target, details) for actor, target, details in rows]


def test_an_open_maintainer_invitation_is_a_logged_role_change(review_app, cli, sessions):
    # a new account through an open link (no address bound)
    path = _link(cli, "--role", "maintainer")
    client = review_app.test_client()
    token = csrf_from(client.get(path).get_data(as_text=True))
    form = {"email": "mallory@example.org", "name": "", "password": STRONG, "password2": STRONG, "csrf_token": token}
    assert client.post(path, data=form).status_code == 302
    [(actor, target, details)] = _roles(sessions)
    assert (actor, target) == ("mallory@example.org", "mallory@example.org")
    assert details["from"] is None and details["to"] == "maintainer" and isinstance(details["invitation"], int)

    # a signed-in reviewer through another open link: from reviewer to maintainer
    ana = Browser(review_app).login("ana@example.org")
    path = _link(cli, "--role", "maintainer")
    assert ana.client.post(path, data={"csrf_token": ana.token}).status_code == 302
    assert _roles(sessions)[-1][:2] == ("ana@example.org", "ana@example.org")
    assert {k: _roles(sessions)[-1][2][k] for k in ("from", "to")} == {"from": "reviewer", "to": "maintainer"}

    # the Activity page lists both, as it lists `curator user role`
    boss = Browser(review_app).login("boss@example.org")
    listed = boss.get("/admin/activity.json?action=role").get_json()["entries"]
    assert [e["target"] for e in listed] == ["ana@example.org", "mallory@example.org"]

    # no role changes: a reviewer invitation, and a maintainer accepting a maintainer one
    before = len(_roles(sessions))
    path = _link(cli)
    client = review_app.test_client()
    token = csrf_from(client.get(path).get_data(as_text=True))
    form = {"email": "rita@example.org", "name": "", "password": STRONG, "password2": STRONG, "csrf_token": token}
    assert client.post(path, data=form).status_code == 302
    assert boss.client.post(_link(cli, "--role", "maintainer"), data={"csrf_token": boss.token}).status_code == 302
    assert len(_roles(sessions)) == before
