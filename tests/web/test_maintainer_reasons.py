"""Maintainer reasons refuse invisible characters (issue 38 §2, low): a resolution's reason, a
proposal answer's reason and a dropped line's reason are refused with one line when they hold
U+202E RIGHT-TO-LEFT OVERRIDE or NUL — on the pages, the JSON API and the command line, nothing
stored — as every other typed text is (core.text.control_reason); and the release preview
isolates a dropped line's reason (one stored before this check) in <bdi>, escaped."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from curator.core.models import LineDrop, User
from tests.plugins.databases import table_snapshot
from tests.plugins.servers import Browser, csrf_from
from tests.review.test_adjudication import BORN, CAPITAL, CONTINENT, disputed, template_id  # noqa: F401  (the fixture)

pytestmark = pytest.mark.backends("sqlite", "postgresql")

BAD = {"U+202E": "ok \u202e\u0634\u0631\u062d", "U+0000": "ok\x00nul"}
BY = ("--by", "boss@example.org")


def _proposal(boss: Browser) -> str:
    listed = boss.get("/api/v1/languages/es/proposals?status=all").get_json()
    return next(p["text"] for p in listed["proposals"] if p["relation"] == CAPITAL[0])


def _one_line(message: str, code: str) -> None:
    assert code in message and "\n" not in message.strip(), message


def test_every_reason_refuses_bidi_controls_and_nul_everywhere(disputed, cli, sessions, engine):  # noqa: F811
    boss = Browser(disputed).login("boss@example.org")
    born = template_id(sessions, BORN[1])
    proposal = _proposal(boss)
    before = table_snapshot(engine)
    for code, reason in BAD.items():
        # the JSON API
        r = boss.post(f"/api/v1/templates/{born}/resolution", {"verdict": "reject", "reason": reason})
        assert r.status_code == 422
        _one_line(r.get_json()["error"], code)
        r = boss.post(
            "/api/v1/languages/es/proposals",
            {"relation": CAPITAL[0], "text": proposal, "action": "drop", "reason": reason},
        )
        assert r.status_code == 422
        _one_line(r.get_json()["error"], code)
        # the pages' forms: 422, the reason shown once, in a flash
        page = boss.get("/admin/languages/es/disagreements").get_data(as_text=True)
        token = csrf_from(page)
        forms = [
            (f"/admin/languages/es/disagreements/{born}/resolve", {"verdict": "reject", "reason": reason}),
            (
                "/admin/languages/es/proposals",
                {"relation": CAPITAL[0], "text": proposal, "action": "drop", "reason": reason},
            ),
            (
                "/admin/release/drop-line",
                {"language": "es", "relation": CONTINENT[0], "pattern": CONTINENT[1], "reason": reason},
            ),
        ]
        for path, data in forms:
            r = boss.client.post(path, data={**data, "csrf_token": token})
            assert r.status_code == 422, (path, r.status_code)
            html = r.get_data(as_text=True)
            assert code in html and "a control/format character" in html, path  # the draft is kept, escaped
        # the command line: exit 1, one line
        for args in (
            ("review", "resolve", str(born), "reject", "--reason", reason, *BY),
            ("review", "drop", "es", CAPITAL[0], proposal, "--reason", reason, *BY),
            ("release", "drop-line", "es", CONTINENT[0], CONTINENT[1], "--reason", reason, *BY),
        ):
            result = cli(*args, ok=False)
            assert result.exit_code == 1, (args, result.output)
            _one_line(result.output, code)
    assert table_snapshot(engine) == before  # nothing stored, nothing logged
    # a line break stays allowed (a form's CRLF), as in a comment
    r = boss.post(f"/api/v1/templates/{born}/resolution", {"verdict": "reject", "reason": "born\r\n≠ from"})
    assert r.status_code == 200 and r.get_json()["resolution"]["reason"] == "born\n≠ from"


RLO_REASON = "\u202eevil <b>bold</b>"


def _stored_drop(sessions) -> None:
    """A dropped line whose reason holds U+202E and markup (as one stored before the check)."""
    with sessions.begin() as s:
        boss = s.scalar(select(User).where(User.email == "boss@example.org"))
        s.add(
            LineDrop(language="es", relation_id=CONTINENT[0], pattern=CONTINENT[1], reason=RLO_REASON, user_id=boss.id)
        )


def test_the_preview_isolates_a_drop_reason(disputed, sessions):  # noqa: F811
    _stored_drop(sessions)
    boss = Browser(disputed).login("boss@example.org")
    html = boss.get("/admin/release/preview?language=es").get_data(as_text=True)
    line = html[html.index('class="line-dropped"') :]
    line = line[: line.index("</li>")]
    reason = line[line.index('class="drop-reason"') :]
    reason = reason[: reason.index("</small>")]
    assert '<bdi dir="auto">' in reason and reason.count("<bdi") == reason.count("</bdi>") == 2  # who, and why
    assert "\u202e" not in reason and "⟨RLO⟩" in reason  # marked, not obeyed (web/marks.py)
    assert "evil &lt;b&gt;bold&lt;/b&gt;</bdi>" in reason and "<b>bold" not in line


def test_the_preview_keeps_the_restore_button_in_place_in_chromium(chromium, live, disputed, sessions):  # noqa: F811
    """Spanish on a desktop (light), Arabic on a phone (dark): the reason is an isolate, and the
    Restore button stays after it in the page's reading order."""
    from playwright.sync_api import expect

    from tests.web.test_maintainer_ui import sign_in

    _stored_drop(sessions)
    context = chromium.new_context()
    page = context.new_page()
    try:
        sign_in(page, live.url, "boss@example.org", "correct horse battery")
        for locale, viewport, scheme in (
            ("es", {"width": 1366, "height": 800}, "light"),
            ("ar", {"width": 390, "height": 844}, "dark"),
        ):
            page.set_viewport_size(viewport)
            page.emulate_media(color_scheme=scheme)
            context.add_cookies([{"name": "curator_locale", "value": locale, "url": live.url}])
            page.goto(f"{live.url}/admin/release/preview?language=es")
            line = page.locator("li.line-dropped")
            expect(line).to_have_count(1)
            reason = line.locator(".drop-reason bdi").last
            expect(reason).to_have_text("⟨RLO⟩evil <b>bold</b>")
            assert reason.evaluate("el => getComputedStyle(el).unicodeBidi") == "isolate"
            small, button = line.locator(".drop-reason").bounding_box(), line.get_by_role("button").bounding_box()
            assert small is not None and button is not None
            if button["y"] < small["y"] + small["height"] / 2:  # on the reason's line: after it
                rtl = locale == "ar"
                assert (
                    (button["x"] + button["width"] <= small["x"] + 1)
                    if rtl
                    else (button["x"] >= small["x"] + small["width"] - 1)
                )
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    finally:
        context.close()
