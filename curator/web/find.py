"""The reviewer's Find page (issue 37 §5): filters and a text search over one's own queue in one
language — server-rendered, paginated, usable without JavaScript. Each result links to the
item on the review screen (/review/<lang>#item-<id>). The service is review.find; the JSON API
answers the same query at /api/v1/languages/<lang>/find (web/api.py). Rate-limited per account
with the API (web/limits.py, CURATOR_RATELIMIT_SEARCH).

The query strings of both listings are read here, once for the page and its API: the Find page's
(`query_from_request`) and My decisions' (`past_query_from_request`, /review/<lang>/history and
/api/v1/languages/<lang>/history). A value out of range is an InputError: 422 with a one-line
`error` under the API, the page itself with the message (`refused`) on a page."""

from __future__ import annotations

from flask import Blueprint, render_template, request
from flask_login import current_user, login_required

from curator.core import languages
from curator.core.errors import InputError
from curator.core.paging import MAX_PER_PAGE
from curator.review import find as finding
from curator.review.service import get_assignment
from curator.web import fields
from curator.web.context import db
from curator.web.errors import translated
from curator.web.i18n import language_name

bp = Blueprint("find", __name__)

CODE = 32  # a language code or relation id, as stored
FILTERS = ("show", "verdict", "relation", "q")  # the Find page's filters, kept from page to page
PAST_FILTERS = ("verdict", "q")  # My decisions'


def query_from_request() -> finding.Query:
    """The search the query string asks for (the page's form and the API take the same names:
    show, verdict, relation, q, page, per_page); a value out of range is 422."""
    relation = request.args.get("relation", "").strip()
    return finding.check_query(
        show=request.args.get("show", "").strip(),
        relation=fields.text({"relation": relation}, "relation", CODE) if relation else None,
        text=_search(),
        page=fields.query_int("page", 1),
        per_page=fields.query_int("per_page", finding.PER_PAGE, 1, MAX_PER_PAGE),
        verdict=request.args.get("verdict", "").strip(),
    )


def past_query_from_request() -> finding.PastQuery:
    """My decisions' filter from the query string (the page's form and the API: verdict, q)."""
    return finding.check_past_query(verdict=request.args.get("verdict", "").strip(), text=_search())


def _search() -> str:
    return fields.text({"q": request.args.get("q", "")}, "q", finding.MAX_TEXT)


def filter_args(names: tuple[str, ...]) -> dict[str, str]:
    """The filters of the query string that are set (`names`), for the pages' links and forms."""
    return {k: v for k, v in request.args.items() if k in names and v}


def refused(exc: InputError) -> str:
    """An InputError as the one line a page shows beside its filters."""
    return translated(exc, html=True)  # Markup: the page shows it as it is


@bp.get("/review/<lang>/find")
@login_required
def page(lang: str):
    lang = fields.url_part("language", lang, CODE)
    session = db()
    get_assignment(session, current_user, lang)  # another language: 403, before the filters
    args = filter_args(FILTERS)
    # the pager and the form keep a page size the URL chose
    keep = {**args, **({"per_page": request.args["per_page"]} if request.args.get("per_page") else {})}
    error, status = None, 200
    try:
        query = query_from_request()
    except InputError as exc:
        error, status, query = refused(exc), 422, finding.Query()
        keep = {}
    found = finding.find_items(session, current_user, lang, query)
    if error:
        found = {**found, "items": [], "matched": 0, "pages": 1}
    return render_template(
        "find.html",
        lang=lang,
        name=language_name(lang),
        dir=languages.direction(lang),
        found=found,
        args=args,
        keep=keep,
        error=error,
        shows=finding.SHOWS,
        verdicts=finding.ITEM_VERDICTS,
    ), status
