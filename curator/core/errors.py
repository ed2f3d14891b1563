"""One error model for every layer: a `CuratorError` is an expected failure whose message is
meant for a person, in one line.

The services raise these classes and nothing about HTTP or exit codes; the web layer maps a
class to a status in one place (`curator.web.errors`) and the CLI maps it to a one-line
message and an exit code in one place (`curator.cli.errors`). Anything else that escapes is
a bug: the web answers 500 (after rolling back) and the CLI shows the traceback.
"""

from __future__ import annotations

from collections.abc import Mapping


def N_(message: str) -> str:
    """Marks a service message for the interface catalogues (`pybabel extract -k N_`, see
    docs/translating.md) without translating it here: the services stay free of Flask-Babel,
    and the web layer translates `msgid` with `params` (curator.web.errors)."""
    return message


def N_plural(singular: str, plural: str) -> tuple[str, str]:
    """Marks a message with a count (`pybabel extract -k N_plural:1,2`), said with ngettext by the
    web layer: e.g. a quality check's "%(num)s vote" / "%(num)s votes" (quality/checks)."""
    return singular, plural


class CuratorError(Exception):
    """An expected failure, said plainly. A message a volunteer sees in the browser is raised
    as a catalogue message: `InputError(N_("Not saved: %(slot)s appears %(count)s times."),
    params=dict(slot="[X]", count=2))` — `message` is the English text (the CLI's), `msgid`
    and `params` let the web layer say it in the page's language."""

    msgid: str | None = None
    params: Mapping[str, object] | None = None
    code: str | None = None  # a stable name a client can tell the error by (`{"code": …}` under /api/)

    def __init__(self, message: str, *, params: Mapping[str, object] | None = None):
        if params is not None:
            self.msgid, self.params = message, params
            message = message % params
        self.message = message
        super().__init__(message)


class InputError(CuratorError, ValueError):
    """Bad input (a ValueError too, for callers that catch the built-in kind): the message first,
    then, by keyword and when known, where the problem is — file (or source), line (1-based) and
    field: `InputError("expected str", location="data/P19.jsonl", line=3, field="pattern")`, or
    just `InputError("the sample fraction must be in (0, 1]")` for an argument. One line for a
    person: "data/P19.jsonl, line 3: field 'pattern': expected str"."""

    def __init__(
        self,
        message: str,
        *,
        location: str | None = None,
        line: int | None = None,
        field: str | None = None,
        params: Mapping[str, object] | None = None,
    ):
        if params is not None:
            self.msgid, self.params = message, params
            message = message % params
        self.location, self.line, self.field = location, line, field
        where = (location or "") + (f", line {line}" if line is not None else "")
        what = f"field '{field}': " if field else ""
        super().__init__(message)
        self.message = message
        self.args = (f"{where}: {what}{message}" if where else f"{what}{message}",)

    def __str__(self) -> str:
        return str(self.args[0])


class NotFound(CuratorError):
    """The thing asked for does not exist (or is not visible to the caller)."""


class Gone(NotFound):
    """It existed but cannot be used any more (an expired or used invitation)."""


class Conflict(CuratorError):
    """The request contradicts what is stored: a duplicate name, an immutable version,
    a step run before the one it needs."""


class Retired(Conflict):
    """A second-look item left the reviewer's queue meanwhile: the proposal it showed was
    withdrawn, undone, edited or replaced by its author (review.proposal_queue.retire). Nothing
    is stored on it; `position` is the item's, for going on to the next one."""

    code = "retired"

    def __init__(self, message: str, *, params: Mapping[str, object] | None = None, position: int | None = None):
        super().__init__(message, params=params)
        self.position = position


class Forbidden(CuratorError):
    """The caller may not do this (wrong role, a language they do not review)."""


class Unreadable(CuratorError):
    """Stored data (a probe run, a release folder on disk) cannot be read: the fault is on the
    server's side, not in the request."""


class Busy(CuratorError):
    """The database is locked by another writer for longer than the busy timeout; retry."""

    def __init__(self, message: str = "database busy, retry"):
        super().__init__(message)
