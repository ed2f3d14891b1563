"""Rate limits on the doors that take a secret: signing in, accepting an invitation, the
account page's current password and an API token.

Password guessing is limited twice: per submitted e-mail (the account: a slow guesser spread
over many addresses still stops) and per client address (one address trying many accounts
stops too). Every POST counts, right or wrong, so after the limit even the right password
waits for the window: a guesser cannot tell a hit from a refusal. A breach answers 429 with
`Retry-After` (JSON under /api/, the error page otherwise; web/errors.py).

Two doors count only failures, each per account and/or per client address, and past the limit
refuse every attempt too: a wrong current password on the account page (someone at an
unattended browser guessing the password, to change it), and a refused API token (`Authorization:
Bearer`, counted per address on the JSON API; requests without that header are not limited).

The limiter is made per app; its counts live in the app's storage, `RATELIMIT_STORAGE_URI`
(CURATOR_RATELIMIT_STORAGE). memory:// is per process: each gunicorn worker (and each app
host) counts alone, so two workers let twice the limit through. redis://host:6379 is shared
by every worker and every host (docs/deploy.md, "Two or more app hosts"); `curator serve`
checks the store before it starts (web/preflight.py).
The client address is `request.remote_addr`: behind nginx set `CURATOR_PROXY_FIX` so that it
is the client's, not the proxy's (web/context.py applies werkzeug's ProxyFix).
"""
from __future__ import annotations

import hashlib

from flask import Flask, g, request
from flask_limiter import Limiter

# the store must support it (memory://, redis://; not memcached://): checked by web/preflight.py
STRATEGY = "moving-window"

LIMITED = ("auth.login", "auth.invite")  # the endpoints that check a password or spend an invitation
PASSWORD_CHANGE = "auth.account"  # asks for the current password
API = "api."  # the endpoints a Bearer token may authenticate (web/context.py)


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
    config = app.config
    config.setdefault("RATELIMIT_ENABLED", True)
    config.setdefault("RATELIMIT_STORAGE_URI", "memory://")
    config.setdefault("RATELIMIT_HEADERS_ENABLED", True)  # Retry-After on a 429
    # a shared store that stops answering (redis restarting) must not stop sign-in: the same
    # limits are then counted in this process (as with memory://) until the store is back
    limiter = Limiter(key_func=client_address, storage_uri=config["RATELIMIT_STORAGE_URI"], default_limits=[],
                      headers_enabled=True, strategy=STRATEGY, in_memory_fallback_enabled=True)
    limiter.init_app(app)
    per_account = limiter.limit(config.get("RATELIMIT_ACCOUNT", "10/minute;50/hour"), key_func=account_key,
                                methods=["POST"], scope="account")
    per_address = limiter.limit(config.get("RATELIMIT_ADDRESS", "30/minute;300/hour"), key_func=client_address,
                                methods=["POST"], scope="address")
    for endpoint in LIMITED:
        app.view_functions[endpoint] = per_address(per_account(app.view_functions[endpoint]))
    _limit_failures(app, limiter)
    app.extensions["curator.limiter"] = limiter
    return limiter


def signed_in_account() -> str:
    """The account a signed-in request acts for (the account page changes only one's own password)."""
    from flask_login import current_user

    return "user:" + (str(current_user.id) if current_user.is_authenticated else "-")


def _has_bearer() -> bool:
    return request.headers.get("Authorization", "").startswith("Bearer ")


def _limit_failures(app: Flask, limiter: Limiter) -> None:
    """Wrong current passwords on the account page (per account and per address) and refused API
    tokens (per address, shared by every API endpoint): only failures count (`deduct_when`,
    flags the views set on `g`); once over, every attempt waits, the right one too."""
    config = app.config
    wrong_password = config.get("RATELIMIT_PASSWORD", "5/minute;20/hour")
    failed = lambda response: bool(g.get("wrong_password"))  # noqa: E731
    per_account = limiter.limit(wrong_password, key_func=signed_in_account, methods=["POST"],
                                scope="password-account", deduct_when=failed)
    per_address = limiter.limit(wrong_password, key_func=client_address, methods=["POST"],
                                scope="password-address", deduct_when=failed)
    app.view_functions[PASSWORD_CHANGE] = per_address(per_account(app.view_functions[PASSWORD_CHANGE]))
    refused_token = limiter.shared_limit(config.get("RATELIMIT_TOKEN", "10/minute;50/hour"), scope="bearer",
                                         key_func=client_address, exempt_when=lambda: not _has_bearer(),
                                         deduct_when=lambda response: bool(g.get("token_refused")))
    for endpoint in [e for e in app.view_functions if e.startswith(API)]:
        app.view_functions[endpoint] = refused_token(app.view_functions[endpoint])
