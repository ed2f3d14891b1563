"""Rate limits on the doors that take a secret: signing in, accepting an invitation, the
account page's current password and an API token; on the door that sends e-mail (or, where
the app sends none, a request to the maintainers), "Forgot password?" (CURATOR_RATELIMIT_MAIL
per typed address, and the higher
CURATOR_RATELIMIT_MAIL_CLIENT per client address, so that a classroom behind one NAT is not
stopped by three requests: every POST counts, whether the address has an account or not, so the
limit tells nothing either);
on a reviewer's search of their queue (CURATOR_RATELIMIT_SEARCH per account); and on replies in
comment threads (CURATOR_RATELIMIT_REPLY per account, every reply form and the API together).

Password guessing is limited twice: per submitted e-mail (the account: a slow guesser spread
over many addresses still stops) and per client address (one address trying many accounts
stops too). Every POST counts, right or wrong, so after the limit even the right password
waits for the window: a guesser cannot tell a hit from a refusal. A breach answers 429 with
`Retry-After` (JSON under /api/, the error page otherwise; web/errors.py).

The account page's password change is limited the same way (per account and per address:
someone at an unattended browser guessing the password, to change it), and refused API tokens
per client address (`Authorization: Bearer` on the JSON API; a working token and requests
without that header are never limited).

The limiter is made per app from the app's Settings (the limits, CURATOR_RATELIMIT_*); its
counts live in the app's storage (CURATOR_RATELIMIT_STORAGE). memory:// is per process: each server worker (and each app
host) counts alone, so two workers let twice the limit through. redis://host:6379 is shared
by every worker and every host (docs/deploy.md, "Two or more app hosts"); `curator serve`
checks the store before it starts (web/preflight.py).
The client address is `request.remote_addr`: behind nginx set `CURATOR_PROXY_FIX` so that it
is the client's, not the proxy's (web/context.py applies werkzeug's ProxyFix).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from flask import Flask, g, request
from flask_limiter import Limiter

from curator.web.settings import settings_of

# the store must support it (memory://, redis://; not memcached://): checked by web/preflight.py
STRATEGY = "moving-window"

LIMITED = ("auth.login", "auth.invite", "people.reset")  # check a password or spend a one-time link
PASSWORD_CHANGE = "auth.account"  # asks for the current password
SENDS_MAIL = "auth.forgot"  # e-mails a reset link to whatever address is typed (or asks the maintainers)
SEARCHES = ("find.page", "api.find_items")  # a reviewer's searches of their queue (issue 37 §5), counted together
REPLIES = (
    "threads_api.reply_to_comment",
    "review.reply_form",
    "threads.reply",
)  # a reply in a thread, counted together
API = "/api/"  # the paths a Bearer token may authenticate (web/context.py: wants_json), whatever the blueprint


def client_address() -> str:
    return request.remote_addr or "unknown"


def account_key() -> str:
    """The account an attempt is aimed at: the e-mail typed on the sign-in form, or the
    invitation link (its token hashed: keys may end up in a shared store's logs)."""
    token = (request.view_args or {}).get("token")
    if token is not None:
        return "invite:" + hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()
    return "account:" + (request.form.get("email") or "").strip().lower()[:320]


def init_limits(app: Flask) -> Limiter:
    """Wrap the LIMITED views (registered already) in the per-account and per-address limits."""
    settings = settings_of(app)
    app.config.setdefault("RATELIMIT_HEADERS_ENABLED", True)  # Retry-After on a 429
    # a shared store that stops answering (redis restarting) must not stop sign-in: the same
    # limits are then counted in this process (as with memory://) until the store is back
    limiter = Limiter(
        key_func=client_address,
        storage_uri=settings.ratelimit_storage,
        default_limits=[],
        headers_enabled=True,
        strategy=STRATEGY,
        in_memory_fallback_enabled=True,
        **store_failure_options(settings.ratelimit_prefix),
    )
    limiter.init_app(app)
    per_account = limiter.limit(settings.ratelimit_account, key_func=account_key, methods=["POST"], scope="account")
    per_address = limiter.limit(settings.ratelimit_address, key_func=client_address, methods=["POST"], scope="address")
    for endpoint in LIMITED:
        view: Callable[..., Any] = app.view_functions[endpoint]
        app.view_functions[endpoint] = per_address(per_account(view))
    mail_account = limiter.limit(settings.ratelimit_mail, key_func=account_key, methods=["POST"], scope="mail-account")
    mail_address = limiter.limit(  # higher: a classroom behind one NAT asks from one address
        settings.ratelimit_mail_client, key_func=client_address, methods=["POST"], scope="mail-address"
    )
    mail_view: Callable[..., Any] = app.view_functions[SENDS_MAIL]
    app.view_functions[SENDS_MAIL] = mail_address(mail_account(mail_view))
    _limit_failures(app, limiter)
    _limit_searches(app, limiter)
    _limit_replies(app, limiter)
    app.extensions["curator.limiter"] = limiter
    return limiter


def store_failure_options(prefix: str) -> dict[str, Any]:
    """Issue 38 §2: the store failing in the middle of a request (redis stopped between the check
    and the count, or while the headers are added) is logged and the request goes on — never a
    500 — and the in-memory fallback counts until the store answers again. The keys start with
    CURATOR_RATELIMIT_PREFIX, so two instances can share one redis without sharing counts."""
    return {"swallow_errors": True, "key_prefix": prefix}


def signed_in_account() -> str:
    """The account a signed-in request acts for (the account page changes only one's own password)."""
    from flask_login import current_user

    return "user:" + (str(current_user.id) if current_user.is_authenticated else "-")


def searcher_key() -> str:
    """Whose searches count: the signed-in account (a classroom behind one address searches
    apart), else the client address."""
    from flask_login import current_user

    return signed_in_account() if current_user.is_authenticated else "address:" + client_address()


def _limit_searches(app: Flask, limiter: Limiter) -> None:
    """The reviewer's search (the Find page and its JSON twin share one count per account,
    CURATOR_RATELIMIT_SEARCH): each reads the whole queue, so a script looping on it is slowed."""
    shared = limiter.shared_limit(settings_of(app).ratelimit_search, scope="search", key_func=searcher_key)
    for endpoint in SEARCHES:
        view: Callable[..., Any] = app.view_functions[endpoint]
        app.view_functions[endpoint] = shared(view)


def _limit_replies(app: Flask, limiter: Limiter) -> None:
    """Replies in comment threads (the review screen's API call, the history page's and the
    maintainers' forms share one count per account, CURATOR_RATELIMIT_REPLY): a script posting
    thousands of replies is stopped with 429 and Retry-After."""
    shared = limiter.shared_limit(
        settings_of(app).ratelimit_reply, scope="reply", key_func=searcher_key, methods=["POST"]
    )
    for endpoint in REPLIES:
        view: Callable[..., Any] = app.view_functions[endpoint]
        app.view_functions[endpoint] = shared(view)


def _has_bearer() -> bool:
    return request.headers.get("Authorization", "").startswith("Bearer ")


def _not_a_refused_token() -> bool:
    """True unless this request carries a Bearer token that was refused (the flag the token
    loader sets, web/context.py; `_check_token_first` has run it). So a working token is never
    limited (a script behind a shared address cannot be locked out by a guesser's junk), and
    every refused one is counted before its view runs — exact even for parallel requests."""
    return not (_has_bearer() and g.get("token_refused"))


def _check_token_first() -> None:
    """Run the token loader before the limits are evaluated: it reads the database, and an error
    there (a busy pool: 503) must reach the app's error handlers — raised inside Flask-Limiter's
    evaluation it would be taken for a failing rate-limit store."""
    from flask_login import current_user

    if _has_bearer():
        current_user.is_authenticated  # noqa: B018  (loads the user: the token is checked here)


def _limit_failures(app: Flask, limiter: Limiter) -> None:
    """The account page's password change (per account and per address) and refused API tokens
    (per address, shared by every API endpoint). Every password-change POST counts, as on the
    sign-in form: counted before the view, the limit is exact even for parallel requests (a
    count taken after the view, of wrong passwords only, lets a burst through before the first
    is counted), and past it even the right password waits, so a guesser learns nothing. Only
    refused tokens count (see _not_a_refused_token)."""
    settings = settings_of(app)
    password = settings.ratelimit_password
    per_account = limiter.limit(password, key_func=signed_in_account, methods=["POST"], scope="password-account")
    per_address = limiter.limit(password, key_func=client_address, methods=["POST"], scope="password-address")
    view: Callable[..., Any] = app.view_functions[PASSWORD_CHANGE]
    app.view_functions[PASSWORD_CHANGE] = per_address(per_account(view))
    app.before_request(_check_token_first)
    refused_token = limiter.shared_limit(
        settings.ratelimit_token,
        scope="bearer",
        key_func=client_address,
        exempt_when=_not_a_refused_token,
    )
    for endpoint in api_endpoints(app):
        api_view: Callable[..., Any] = app.view_functions[endpoint]
        app.view_functions[endpoint] = refused_token(api_view)


def api_endpoints(app: Flask) -> list[str]:
    """Every endpoint with a URL under /api/, chosen by the rule's path, not by the endpoint's
    name: the token loader signs in by path (web/context.py), and /api/ routes live in several
    blueprints (api, adjudication, glossary, ...), so a name prefix left some unlimited."""
    found = {rule.endpoint for rule in app.url_map.iter_rules() if rule.rule.startswith(API)}
    return sorted(found)
