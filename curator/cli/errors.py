"""The one place where an expected failure becomes a one-line message and an exit code.

Services raise `curator.core.errors` classes; `CuratorGroup.invoke` (the `curator` command's
group class) turns them into `error: <message>` on stderr and the exit code below, so no
traceback reaches a user for an expected failure. Exit code 2 is click's usage error, and a
missing optional extra (`MissingExtra`: the install, not the data, is wrong) exits 2 as well.
"""

from __future__ import annotations

import click
from sqlalchemy.exc import OperationalError

from curator.core.db import is_busy
from curator.core.errors import Busy, CuratorError
from curator.core.extras import MissingExtra

# first match wins; 75 is EX_TEMPFAIL (sysexits.h): try again later
EXIT_CODES: tuple[tuple[type[CuratorError], int], ...] = ((Busy, 75), (MissingExtra, 2), (CuratorError, 1))


def exit_code_for(exc: CuratorError) -> int:
    return next(code for cls, code in EXIT_CODES if isinstance(exc, cls))


class Failed(click.ClickException):
    """A CuratorError on its way out: click prints `Error: <message>` and exits."""

    def __init__(self, exc: CuratorError):
        super().__init__(str(exc))
        # click types exit_code as a ClassVar, yet reads it from the instance when exiting
        self.exit_code = exit_code_for(exc)  # type: ignore[misc]


class CuratorGroup(click.Group):
    """The root group: maps expected failures raised anywhere below it."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except CuratorError as exc:
            raise Failed(exc) from None
        except OperationalError as exc:
            if is_busy(exc):
                raise Failed(Busy()) from None
            raise
