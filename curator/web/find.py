"""The reviewer's Find page (issue 37 §5): filters and a text search over one's own queue in one
language — server-rendered, paginated, usable without JavaScript. Each result links to the
item on the review screen (/review/<lang>#item-<id>). The service is review.find; the JSON API
answers the same query at /api/v1/languages/<lang>/find (web/api.py). Rate-limited per account
with the API (web/limits.py, CURATOR_RATELIMIT_SEARCH)."""

from __future__ import annotations

from flask import Blueprint, render_template, request
from flask_login import current_user, login_required

from curator.core import languages
from curator.core.paging import MAX_PER_PAGE
from curator.review import find as finding
from curator.web import fields
from curator.web.context import db
from curator.web.i18n import language_name

bp = Blueprint("find", __name__)

CODE = 32  # a language code or relation id, as stored


def query_from_request() -> finding.Query:
    """The search the query string asks for (the page's form and the API take the same names:
    show, relation, q, page, per_page); a value out of range is 422."""
    relation = request.args.get("relation", "").strip()
    return finding.check_query(
        show=request.args.get("show", "").strip(),
        relation=fields.text({"relation": relation}, "relation", CODE) if relation else None,
        text=fields.text({"q": request.args.get("q", "")}, "q", finding.MAX_TEXT),
        page=fields.query_int("page", 1),
        per_page=fields.query_int("per_page", finding.PER_PAGE, 1, MAX_PER_PAGE),
    )


@bp.get("/review/<lang>/find")
@login_required
def page(lang: str):
    lang = fields.url_part("language", lang, CODE)
    found = finding.find_items(db(), current_user, lang, query_from_request())
    args = {k: v for k, v in request.args.items() if k in ("show", "relation", "q") and v}
    return render_template(
        "find.html",
        lang=lang,
        name=language_name(lang),
        dir=languages.direction(lang),
        found=found,
        args=args,
        shows=finding.SHOWS,
    )
