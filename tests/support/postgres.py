"""A throwaway PostgreSQL server for the test session.

initdb + pg_ctl in a temporary folder, listening only on a Unix socket in that folder, fsync
off (nothing here must survive a crash). initdb refuses to run as root, and the tests run as
root here and in CI, so as root the server runs as `nobody`, owning the folder. A database
migrated once (`curator_template`) is copied per test with CREATE DATABASE … TEMPLATE, which
is much faster than running the migrations again.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from curator.core.maintenance import find_program as find_bin

MISSING = "PostgreSQL server binaries not found (apt-get install postgresql)"
TEMPLATE = "curator_template"


class Server:
    def __init__(self) -> None:
        self.initdb, self.pg_ctl = find_bin("initdb"), find_bin("pg_ctl")
        if not (self.initdb and self.pg_ctl):
            raise FileNotFoundError(MISSING)
        self.root = Path(tempfile.mkdtemp(prefix="curator-pg-"))
        self.data = self.root / "data"
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            import pwd

            user = pwd.getpwnam("nobody")
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self.prefix = (
                ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"]
                if shutil.which("setpriv")
                else ["runuser", "-u", "nobody", "--"]
            )
        self._numbers = itertools.count(1)
        self.started = False

    def _run(self, *args: str) -> None:
        result = subprocess.run([*self.prefix, *args], capture_output=True, text=True, cwd=self.root)
        if result.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {result.stdout}{result.stderr}")

    def start(self) -> Server:
        self._run(
            self.initdb,
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",
        )
        options = (
            f"-k {self.root} -c listen_addresses='' -c fsync=off -c synchronous_commit=off "
            "-c full_page_writes=off -c max_connections=200"
        )
        self._run(self.pg_ctl, "-D", str(self.data), "-l", str(self.root / "log"), "-o", options, "-w", "start")
        self.started = True
        return self

    def stop(self) -> None:
        if self.started:
            subprocess.run(
                [*self.prefix, self.pg_ctl, "-D", str(self.data), "-m", "immediate", "-w", "stop"],
                capture_output=True,
                cwd=self.root,
            )
            self.started = False
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@/{database}?host={self.root}"

    def admin(self, sql: str):
        """One statement outside a transaction (CREATE/DROP DATABASE need that); its first value."""
        import psycopg

        with psycopg.connect(host=str(self.root), user="postgres", dbname="postgres", autocommit=True) as conn:
            cursor = conn.execute(sql)
            row = cursor.fetchone() if cursor.description else None
            return row[0] if row else None

    @property
    def major(self) -> int:
        if not hasattr(self, "_major"):
            self._major = int(self.admin("SHOW server_version_num")) // 10000
        return self._major

    def make_template(self) -> None:
        from curator.core.db import make_engine
        from curator.core.migrate import upgrade

        self.admin(f"CREATE DATABASE {TEMPLATE}")
        engine = make_engine(self.url(TEMPLATE))
        upgrade(engine)
        engine.dispose()

    def new_database(self, template: str | None = TEMPLATE) -> str:
        name = f"t_{next(self._numbers)}"
        # FILE_COPY (15+): copying the small template's files beats WAL-logging every block
        strategy = " STRATEGY FILE_COPY" if self.major >= 15 else ""
        self.admin(f"CREATE DATABASE {name}" + (f" TEMPLATE {template}{strategy}" if template else ""))
        return name

    def drop_database(self, name: str) -> None:
        """Dropped even while a test's engine still holds connections to it."""
        if self.major >= 13:
            self.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        else:
            self.admin(f"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '{name}'")
            self.admin(f"DROP DATABASE IF EXISTS {name}")
