"""Paging of the bounded listings (threads, replies waiting, found items, glossary terms, and the
web pages that page lists): one check of a page asked for and one page arithmetic for all."""

from __future__ import annotations

from curator.core.errors import N_, InputError
from curator.core.models.base import MAX_ID

MAX_PER_PAGE = 100  # items a page may hold at most, whatever a URL asks


def check_page(page: int, per_page: int) -> None:
    """InputError unless a page number from a URL is 1 or more and its size 1 to MAX_PER_PAGE."""
    if page < 1 or not 1 <= per_page <= MAX_PER_PAGE:
        raise InputError(N_("The page must be 1 or more, with 1 to %(count)s items."), params={"count": MAX_PER_PAGE})


def page_count(matched: int, per_page: int) -> int:
    """Pages for `matched` items, `per_page` a page: at least one (an empty listing has one page)."""
    return max(1, -(-matched // per_page))


def page_offset(page: int, per_page: int) -> int:
    """The items before `page`. No table holds more than MAX_ID rows, so a page past that is past
    the last (empty), however large its number: (page - 1) * per_page would not fit the
    database's integer (a 500 on SQLite for ?page=9223372036854775807)."""
    return min((page - 1) * per_page, MAX_ID)
