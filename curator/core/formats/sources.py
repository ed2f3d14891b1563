"""Read a dataset tree from a local folder or an http(s) URL with the same layout.

Over HTTP the file list comes from a `manifest.json` with a "files" object (what
`curator release export` writes) or, failing that, from the server's directory
listing pages (python -m http.server, nginx/Apache autoindex).

Nothing outside the tree is ever read: every relative path (from a folder walk, a manifest or
a listing) is refused if a part is empty, `.`, `..` or holds a backslash, and over HTTP every URL
fetched — redirects included — must have the base URL's scheme, host and port and a path
under the base path. A file over HTTP has a total time limit (CURATOR_FETCH_TIMEOUT), not
only a per-read timeout, so a server that trickles bytes cannot hold an import for ever, and
a size limit (CURATOR_FETCH_MAX_BYTES; defaults in curator.core.settings), counted both on the wire
and once decompressed, so a server that streams without end or a small gzip that inflates to
gigabytes stops at the limit instead of filling memory. The body goes to a temporary file
(in memory up to 1 MiB, then on disk in the system's temporary folder) while it arrives and
is read back once whole: one copy of a file, never more than the limit, is held.
"""

from __future__ import annotations

import json
import posixpath
import re
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Literal, overload
from urllib.parse import quote, unquote, urljoin, urlsplit

import requests

from curator.core.errors import InputError
from curator.core.settings import Settings

TIMEOUT = 30  # seconds to connect, and between two reads
SPOOL = 1 << 20  # a body above this many bytes goes to disk while it arrives
CHUNK = 1 << 16  # bytes asked of the connection per read (urllib3 >= 2.6 caps the decompressed output too)
MAX_REDIRECTS = 5


def check_path(path: str, where: str) -> str:
    """`path` when it is a plain relative POSIX path inside the tree, else an InputError naming
    `where`: an import never reads `..`, an absolute path or a Windows separator."""
    parts = path.split("/")
    if "\\" in path or any(part in ("", ".", "..") for part in parts):
        raise InputError(f"refused path {path!r}: '..', '/' and '\\' may not appear in a path part", location=where)
    return path


class Source:
    """A tree of files addressed by POSIX relative paths."""

    location: str

    def files(self, suffix: str = ".jsonl") -> list[str]:
        raise NotImplementedError

    def read(self, path: str) -> bytes:
        raise NotImplementedError

    def read_optional(self, path: str) -> bytes | None:
        """The file's bytes, or None when the source has no such file (other failures raise)."""
        raise NotImplementedError

    def describe(self, path: str) -> str:
        raise NotImplementedError


class FolderSource(Source):
    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.location = str(self.root)
        if not self.root.is_dir():
            raise InputError("no such folder", location=self.location)

    def files(self, suffix: str = ".jsonl") -> list[str]:
        found = sorted(p.relative_to(self.root).as_posix() for p in self.root.rglob(f"*{suffix}") if p.is_file())
        return [check_path(path, self.describe(path)) for path in found]

    def read(self, path: str) -> bytes:
        check_path(path, self.describe(path))
        try:
            return (self.root / path).read_bytes()
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", location=self.describe(path)) from None

    def read_optional(self, path: str) -> bytes | None:
        return self.read(path) if (self.root / path).is_file() else None

    def describe(self, path: str) -> str:
        return str(self.root / path)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            href = dict(attrs).get("href")
            if href:
                self.hrefs.append(href)


class HttpSource(Source):
    MAX_DEPTH = 4

    def __init__(
        self,
        url: str,
        session: requests.Session | None = None,
        limit: float | None = None,
        max_bytes: int | None = None,
    ):
        self.base = url if url.endswith("/") else url + "/"
        self.location = self.base
        self.http = session or requests.Session()
        # the limits per file: the Settings' defaults (CURATOR_FETCH_TIMEOUT, CURATOR_FETCH_MAX_BYTES)
        self.limit = Settings.fetch_timeout if limit is None else float(limit)
        self.max_bytes = Settings.fetch_max_bytes if max_bytes is None else int(max_bytes)
        base = urlsplit(self.base)
        self._origin = (base.scheme.lower(), base.hostname, base.port)
        self._base_path = posixpath.normpath(unquote(base.path)).rstrip("/") + "/"

    def _check_inside(self, url: str) -> None:
        """Refuse a URL that leaves the base: another scheme, host or port, or a path (after
        resolving `..` and %-escapes) not under the base path."""
        target = urlsplit(url)
        path = posixpath.normpath(unquote(target.path)) + ("/" if target.path.endswith("/") else "")
        if (target.scheme.lower(), target.hostname, target.port) != self._origin or not path.startswith(
            self._base_path
        ):
            raise InputError(f"refused: outside the source {self.base}", location=url)

    @overload
    def _fetch(self, url: str, what: str, missing_ok: Literal[False] = False) -> bytes: ...

    @overload
    def _fetch(self, url: str, what: str, missing_ok: bool) -> bytes | None: ...

    def _fetch(self, url: str, what: str, missing_ok: bool = False) -> bytes | None:
        """The body of `url` (None when `missing_ok` and the answer is not 200), following
        redirects only inside the base, within `self.limit` seconds and `self.max_bytes` bytes."""
        deadline = time.monotonic() + self.limit
        per_read = min(TIMEOUT, self.limit)
        for _ in range(MAX_REDIRECTS + 1):
            self._check_inside(url)
            try:
                with self.http.get(url, timeout=(per_read, per_read), stream=True, allow_redirects=False) as response:
                    if response.is_redirect:
                        url = urljoin(url, response.headers["location"])
                        continue
                    if response.status_code != 200:
                        if missing_ok:
                            return None
                        raise InputError(f"HTTP {response.status_code} while fetching {what}", location=url)
                    self._check_announced(response, url)
                    return self._body(response, url, deadline)
            except requests.RequestException as exc:
                raise InputError(f"unreachable ({type(exc).__name__}: {exc})", location=url) from None
        raise InputError(f"more than {MAX_REDIRECTS} redirects while fetching {what}", location=url)

    def _too_large(self, url: str, how: str) -> InputError:
        return InputError(
            f"stopped: {how} than the limit of {self.max_bytes} bytes per file (CURATOR_FETCH_MAX_BYTES)", location=url
        )

    def _check_announced(self, response: requests.Response, url: str) -> None:
        """Refuse before reading a body the server announces above the limit."""
        try:
            announced = int(response.headers.get("content-length", ""))
        except ValueError:
            return  # none, or a garbled one: the bytes are counted as they come
        if announced > self.max_bytes:
            raise self._too_large(url, f"the server announces {announced} bytes, more")

    def _body(self, response: requests.Response, url: str, deadline: float) -> bytes:
        """The decoded body, spooled to a temporary file while it arrives; stopped as soon as
        the bytes on the wire (`raw.tell()`) or the bytes decompressed pass `self.max_bytes`."""
        raw = response.raw
        with tempfile.SpooledTemporaryFile(max_size=SPOOL) as spool:
            while True:
                if time.monotonic() > deadline:
                    raise InputError(
                        f"stopped after {self.limit:g} s in all (CURATOR_FETCH_TIMEOUT): the server sends too slowly",
                        location=url,
                    )
                try:
                    chunk = raw.read1(CHUNK, decode_content=True)  # returns what has arrived
                except Exception as exc:  # urllib3's timeouts and protocol errors
                    raise InputError(f"unreachable ({type(exc).__name__}: {exc})", location=url) from None
                if not chunk:
                    spool.seek(0)
                    return spool.read()
                decoded = spool.tell() + len(chunk)
                if raw.tell() > self.max_bytes or decoded > self.max_bytes:
                    inflated = raw.tell() <= self.max_bytes  # a gzip small on the wire
                    raise self._too_large(url, "the file is larger" + (" once decompressed" if inflated else ""))
                spool.write(chunk)

    def files(self, suffix: str = ".jsonl") -> list[str]:
        manifest = self._manifest()
        if manifest is not None:
            where = self.base + "manifest.json"
            return sorted(check_path(p, where) for p in manifest if p.endswith(suffix))
        found: list[str] = []
        self._crawl("", 0, suffix, found)
        return sorted(found)

    def _manifest(self) -> list[str] | None:
        data = self._fetch(self.base + "manifest.json", "the manifest", missing_ok=True)
        if data is None:
            return None
        try:
            files = json.loads(data)["files"]
            if not isinstance(files, dict) or not all(isinstance(p, str) for p in files):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            raise InputError("not a manifest with a 'files' object", location=self.base + "manifest.json") from None
        return list(files)

    def _crawl(self, prefix: str, depth: int, suffix: str, found: list[str]) -> None:
        url = self.base + prefix
        page = self._fetch(url, "a directory listing")
        parser = _Links()
        parser.feed(page.decode("utf-8", errors="replace"))
        for href in parser.hrefs:
            joined = urljoin(url, href)
            target = urlsplit(joined)
            if not joined.startswith(self.base) or target.query or target.fragment:
                continue
            rel = unquote(target.path[len(urlsplit(self.base).path) :])
            if not rel or rel == prefix or not rel.startswith(prefix):
                continue
            check_path(rel.rstrip("/"), url)  # a listing naming '..' or a '\\' is refused, not skipped
            if rel.endswith("/"):
                if depth < self.MAX_DEPTH:
                    self._crawl(rel, depth + 1, suffix, found)
            elif rel.endswith(suffix):
                found.append(rel)

    def read(self, path: str) -> bytes:
        return self._fetch(self.describe(path), "a file")

    def read_optional(self, path: str) -> bytes | None:
        return self._fetch(self.describe(path), "a file", missing_ok=True)

    def describe(self, path: str) -> str:
        check_path(path, self.base + path)
        return self.base + "/".join(quote(part) for part in path.split("/"))


def open_source(location: str | Path, fetch_timeout: float | None = None, fetch_max_bytes: int | None = None) -> Source:
    """A folder or an http(s) URL; over HTTP, `fetch_timeout` is the total seconds and
    `fetch_max_bytes` the most bytes (on the wire, and decompressed) per file."""
    text = str(location)
    if re.match(r"^https?://", text, re.I):
        return HttpSource(text, limit=fetch_timeout, max_bytes=fetch_max_bytes)
    return FolderSource(text)
