"""Read a dataset tree from a local folder or an http(s) URL with the same layout.

Over HTTP the file list comes from a `manifest.json` with a "files" object (what
`curator release export` writes) or, failing that, from the server's directory
listing pages (python -m http.server, nginx/Apache autoindex).
"""
from __future__ import annotations

import posixpath
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import requests

from curator.core.errors import InputError

TIMEOUT = 30


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
            raise InputError(self.location, "no such folder")

    def files(self, suffix: str = ".jsonl") -> list[str]:
        return sorted(p.relative_to(self.root).as_posix() for p in self.root.rglob(f"*{suffix}") if p.is_file())

    def read(self, path: str) -> bytes:
        try:
            return (self.root / path).read_bytes()
        except OSError as exc:
            raise InputError(self.describe(path), f"cannot read: {exc.strerror or exc}") from None

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

    def __init__(self, url: str, session: requests.Session | None = None):
        self.base = url if url.endswith("/") else url + "/"
        self.location = self.base
        self.http = session or requests.Session()

    def _get(self, url: str, what: str) -> requests.Response:
        try:
            response = self.http.get(url, timeout=TIMEOUT)
        except requests.RequestException as exc:
            raise InputError(url, f"unreachable ({type(exc).__name__}: {exc})") from None
        if response.status_code != 200:
            raise InputError(url, f"HTTP {response.status_code} while fetching {what}")
        return response

    def files(self, suffix: str = ".jsonl") -> list[str]:
        manifest = self._manifest()
        if manifest is not None:
            return sorted(p for p in manifest if p.endswith(suffix))
        found: list[str] = []
        self._crawl("", 0, suffix, found)
        return sorted(found)

    def _manifest(self) -> list[str] | None:
        try:
            response = self.http.get(self.base + "manifest.json", timeout=TIMEOUT)
        except requests.RequestException as exc:
            raise InputError(self.base, f"unreachable ({type(exc).__name__}: {exc})") from None
        if response.status_code != 200:
            return None
        try:
            files = response.json()["files"]
        except (ValueError, KeyError, TypeError):
            raise InputError(self.base + "manifest.json", "not a manifest with a 'files' object") from None
        return list(files)

    def _crawl(self, prefix: str, depth: int, suffix: str, found: list[str]) -> None:
        url = self.base + prefix
        page = self._get(url, "a directory listing")
        parser = _Links()
        parser.feed(page.text)
        for href in parser.hrefs:
            target = urlparse(urljoin(url, href))
            if not urljoin(url, href).startswith(self.base) or target.query or target.fragment:
                continue
            rel = unquote(target.path[len(urlparse(self.base).path):])
            if not rel or rel == prefix or not rel.startswith(prefix) or "/../" in f"/{rel}":
                continue
            if rel.endswith("/"):
                if depth < self.MAX_DEPTH:
                    self._crawl(rel, depth + 1, suffix, found)
            elif rel.endswith(suffix):
                found.append(rel)

    def read(self, path: str) -> bytes:
        return self._get(self.describe(path), "a file").content

    def read_optional(self, path: str) -> bytes | None:
        try:
            response = self.http.get(self.describe(path), timeout=TIMEOUT)
        except requests.RequestException as exc:
            raise InputError(self.describe(path), f"unreachable ({type(exc).__name__}: {exc})") from None
        return response.content if response.status_code == 200 else None

    def describe(self, path: str) -> str:
        return self.base + "/".join(requests.utils.quote(part) for part in path.split("/"))


def open_source(location: str | Path) -> Source:
    text = str(location)
    if re.match(r"^https?://", text, re.I):
        return HttpSource(text)
    return FolderSource(text)


def split_parts(path: str) -> list[str]:
    return posixpath.normpath(path).split("/")
