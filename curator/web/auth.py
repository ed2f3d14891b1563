"""Sign in, sign out and accepting an invitation (pages with CSRF-protected forms)."""
from __future__ import annotations

from functools import wraps
from urllib.parse import urlsplit

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required, login_user, logout_user

from curator.web.context import db, write
from curator.review.accounts import accept_invite, authenticate, open_invite
from curator.core.errors import Busy, CuratorError
from curator.web.errors import status_for

bp = Blueprint("auth", __name__)


def maintainer_required(view):
    @wraps(view)
    @login_required
    def wrapper(*args, **kwargs):
        if not current_user.is_maintainer:
            abort(403)
        return view(*args, **kwargs)
    return wrapper


def _safe_next(target: str | None) -> str:
    """Only same-site paths: an open redirect would let a link send people elsewhere after sign-in."""
    if target and target.startswith("/") and not target.startswith("//") and not urlsplit(target).netloc:
        return target
    return url_for("review.home")


@bp.route("/login", methods=["GET", "POST"])
def login():
    if request.method == "POST":
        user = authenticate(db(), request.form.get("email", ""), request.form.get("password", ""))
        if user is None:
            flash("That e-mail and password do not match.", "error")
            return render_template("login.html", email=request.form.get("email", "")), 401
        login_user(user, remember=bool(request.form.get("remember")))
        return redirect(_safe_next(request.args.get("next")))
    if current_user.is_authenticated:
        return redirect(url_for("review.home"))
    return render_template("login.html", email="")


@bp.post("/logout")
@login_required
def logout():
    logout_user()
    flash("Signed out. Thank you!", "info")
    return redirect(url_for("auth.login"))


@bp.route("/invite/<token>", methods=["GET", "POST"])
def invite(token: str):
    session = db()
    invitation = open_invite(session, token)
    signed_in = current_user if current_user.is_authenticated else None
    if request.method == "POST":
        form = request.form
        if signed_in is None and form.get("password") != form.get("password2"):
            flash("The two passwords differ.", "error")
            return render_template("invite.html", invite=invitation, form=form, signed_in=None), 422
        try:
            with write() as session:
                user = accept_invite(session, token, form.get("email", ""), form.get("name", ""),
                                     form.get("password", ""), signed_in)
        except Busy:
            raise  # a 503 with Retry-After (web/errors.py)
        except CuratorError as exc:
            flash(exc.message, "error")
            return render_template("invite.html", invite=invitation, form=form, signed_in=signed_in), status_for(exc)
        login_user(user)
        flash("Welcome! Your sample is ready.", "info")
        return redirect(url_for("review.home"))
    return render_template("invite.html", invite=invitation, form={}, signed_in=signed_in)
