"""gunicorn's gthread worker, changed so that a request holds a thread only once it has arrived whole.

gunicorn's gthread worker hands a connection to its thread pool as soon as the first byte
arrives; the thread then blocks reading the rest. A slow-loris client — one that sends half a
request and then a byte now and then, or nothing — thereby holds a thread until the read
timeout, and 16 of them stop a 2 x 8 server for everyone. Here the worker's main thread (its
poller, which already watches every idle keep-alive connection) reads each arriving request
without blocking into a buffer of the connection's own (`BufferedSocket`), and hands it to a
thread only when it is complete: the head (up to the blank line) and `Content-Length` bytes of
body. The thread's parser then reads the request from that buffer and never waits on the
network; an incomplete request costs its buffer, not a thread. Like nginx's request buffering,
without nginx. What the poller does besides:

- the whole request must arrive within `read_timeout` of its first moment (the connection's
  accept, or the first byte after a keep-alive pause): past it, the poller answers 408 and
  closes the connection (a connection that sent nothing is closed without an answer);
- a head over `HEAD_LIMIT` is answered 431; a body with `Transfer-Encoding` (chunked) 411 —
  every client of this app sends a `Content-Length`, and nginx in front turns chunked bodies
  into one; a malformed `Content-Length` or a bare-LF line end 400 (what gunicorn says too);
- a `Content-Length` over `max_body` (CURATOR_MAX_BODY) is not waited for: the head alone
  goes to the app, which answers 413 in its own words without reading, and the connection
  closes after the answer;
- `Expect: 100-continue` is answered by the poller (the client then sends the body);
- closing a connection gracefully (half-close, then read what the client still sends, so
  the kernel does not reset the connection over the answer) happens in the poller too,
  without blocking it (`linger`): gunicorn does it with a blocking read of up to 2 s in its
  main loop, where one client that never hangs up stalls every other.

Responses are written by the thread with a `read_timeout` limit for each write. Pipelined
requests work (the bytes after one request stay buffered for the next). TLS is not handled
here (nginx terminates it): with gunicorn's own TLS the worker behaves as gunicorn's.
"""

from __future__ import annotations

import contextlib
import errno
import re
import selectors
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from gunicorn.workers.gthread import ThreadWorker

from curator.core.settings import Settings

HEAD_LIMIT = 64 * 1024  # bytes of request line and headers (gunicorn's own limits are checked after)
LINGER = 2.0  # seconds a closing connection is drained for, as gunicorn's close_graceful (but not blocking)
MAX_LINGERING = 1000  # closing connections drained at once per worker; beyond, closed at once (file descriptors)
RECV = 256 * 1024  # bytes read from a connection per readiness event
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
BARE_LF = re.compile(rb"(?<!\r)\n")
REASONS = {400: "Bad Request", 408: "Request Timeout", 411: "Length Required", 431: "Request Header Fields Too Large"}


class Refused(Exception):
    """The request cannot be accepted as sent: the poller answers `status` and closes."""

    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status = status


@dataclass(frozen=True)
class Head:
    size: int  # bytes from the start of the buffer to the end of the blank line after the headers
    body: int  # the Content-Length (0 without one)
    expects_continue: bool


def read_head(data: bytes | bytearray, searched: int = 0) -> Head | None:
    """The head of the request at the start of `data`, or None while it is incomplete.

    Only what framing needs (where the head ends, how long the body is); gunicorn's parser
    checks everything else when the thread reads the request. Where the two could disagree
    (a header gunicorn refuses), gunicorn answers 400 and closes the connection. `searched`:
    how many bytes of `data` an earlier call already found incomplete (a head arriving in
    many small pieces is then not scanned again from the start each time)."""
    start = 2 if data[:2] == b"\r\n" else 0  # one empty line before the request line is allowed (RFC 9112 2.2)
    end = data.find(b"\r\n\r\n", max(start, searched - 3))
    if end < 0:
        if len(data) > HEAD_LIMIT:
            raise Refused(431, "the request's headers are too large")
        if BARE_LF.search(data, max(searched - 1, 0)):  # gunicorn refuses these too; no point waiting
            raise Refused(400, "a line of the request ends with a bare LF")
        return None
    if end > HEAD_LIMIT:
        raise Refused(431, "the request's headers are too large")
    if BARE_LF.search(data, max(searched - 1, 0), end + 4):  # a head that came whole in one read too
        raise Refused(400, "a line of the request ends with a bare LF")
    lines = bytes(data[start:end]).split(b"\r\n")
    lengths: set[bytes] = set()
    expects_continue = False
    http10 = lines[0].endswith(b"HTTP/1.0")  # RFC 9110 10.1.1: an HTTP/1.0 client's Expect is ignored
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        name, value = name.strip().lower(), value.strip()
        if name == b"content-length":
            lengths.update(part.strip() for part in value.split(b","))
        elif name == b"transfer-encoding":
            raise Refused(411, "send the body with a Content-Length, not a Transfer-Encoding")
        elif name == b"expect":
            expects_continue = value.lower() == b"100-continue" and not http10
    if len(lengths) > 1 or not all(length.isdigit() for length in lengths):
        raise Refused(400, "the request's Content-Length is not one number")
    return Head(end + 4, int(lengths.pop()) if lengths else 0, expects_continue)


class BufferedSocket:
    """A connection whose request bytes are read by the poller and replayed to gunicorn's parser.

    `inbox` holds the bytes received and not yet parsed; the first `ready` of them are the
    complete request the thread may read. `recv` hands out only those and never touches the
    network: once they are read, the request has ended (b""). Writes go to the real socket,
    each limited to `timeout` seconds. `close` after `shutdown` (gunicorn's graceful close)
    hands the socket to `linger` instead of closing it at once. Anything else goes to the
    real socket."""

    def __init__(self, sock: socket.socket, timeout: float, linger: Callable[[socket.socket], None]):
        self.sock = sock
        self.timeout = timeout
        self.linger = linger
        self.inbox = bytearray()
        self.ready = 0  # bytes at the start of `inbox` that make up the request being served
        self.head: Head | None = None  # of the request arriving, once it is in
        self.searched = 0  # bytes of `inbox` known not to hold a whole head yet
        self.withheld = False  # the request went to the app without its body (over the size limit)
        self.continued = False  # the poller answered `Expect: 100-continue` for this request
        self.closing = False
        self.closed = False

    def recv(self, size: int, flags: int = 0) -> bytes:
        data = bytes(self.inbox[: min(size, self.ready)])
        del self.inbox[: len(data)]
        self.ready -= len(data)
        return data

    def recv_into(self, buffer, nbytes: int = 0, flags: int = 0) -> int:
        data = self.recv(nbytes or len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def setblocking(self, flag: bool) -> None:
        """gunicorn's thread sets blocking mode before a request, its poller non-blocking
        after: blocking here means writes wait at most `timeout` each."""
        if self.closed:  # handed to `linger`, which owns it now
            return
        if flag:
            self.sock.settimeout(self.timeout)
        else:
            self.sock.setblocking(False)

    def settimeout(self, seconds: float | None) -> None:
        """gunicorn's waits for reading (draining a body the app left): nothing to wait for."""

    def gettimeout(self) -> float:
        return self.timeout

    def send(self, data, flags: int = 0) -> int:
        if self.continued and bytes(data) == CONTINUE:  # gunicorn's own, after the poller's: once is enough
            self.continued = False
            return len(data)
        self.sock.settimeout(self.timeout)
        return self.sock.send(data, flags)

    def sendall(self, data, flags: int = 0) -> None:
        self.sock.settimeout(self.timeout)
        self.sock.sendall(data, flags)

    def shutdown(self, how: int) -> None:
        if self.closed:
            raise OSError(errno.EBADF, "the connection is closed")
        self.closing = True
        self.sock.shutdown(how)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.closing:
            self.linger(self.sock)
        else:
            self.sock.close()

    def fileno(self) -> int:
        return self.sock.fileno()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sock, name)


class BufferingThreadWorker(ThreadWorker):
    """The gthread worker whose poller buffers each request whole before a thread serves it.

    One change of route: gunicorn calls `enqueue_req` for every connection that has
    something to read (a new one, a keep-alive one that became readable, one with pipelined
    bytes); here a connection goes to the thread pool only once its request is complete,
    and until then waits in `arriving` (connection -> deadline, in deadline order)."""

    read_timeout = Settings.read_timeout  # set by `curator.web.server.Server` before the workers fork
    max_body: int | None = None  # likewise: CURATOR_MAX_BODY

    def init_process(self):
        self.arriving: dict = {}
        self.lingering: dict = {}  # closing socket -> when to stop draining it
        super().init_process()

    # --- the poller's side -------------------------------------------------------------

    def enqueue_req(self, conn):
        if self.cfg.is_ssl:
            return super().enqueue_req(conn)
        if not isinstance(conn.sock, BufferedSocket):
            conn.sock = BufferedSocket(
                conn.sock, self.read_timeout, linger=partial(self.method_queue.defer, self.linger)
            )
        sock = conn.sock
        if sock.ready:  # complete: its turn for a thread
            conn.data_ready = True  # gunicorn's thread would otherwise wait for the socket to be readable
            return super().enqueue_req(conn)
        sock.withheld = sock.continued = False
        sock.head, sock.searched = None, 0
        sock.setblocking(False)
        self.arriving[conn] = time.monotonic() + self.read_timeout
        self.poller.register(sock, selectors.EVENT_READ, partial(self.on_request_bytes, conn))
        if sock.inbox:  # pipelined: part (or all) of the next request came with the last one
            self.examine(conn)

    def on_request_bytes(self, conn, _fileobj):
        try:
            data = conn.sock.sock.recv(RECV)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:  # the client went away
            self.stop_arriving(conn)
            conn.sock.sock.close()
            return
        conn.sock.inbox += data
        self.examine(conn)

    def examine(self, conn):
        """Dispatch the request at the start of the connection's inbox if it is complete."""
        sock = conn.sock
        if sock.head is None:
            try:
                sock.head = read_head(sock.inbox, sock.searched)
            except Refused as refusal:
                self.log.info("refused a request from %s: %s", _peer(sock), refusal)
                return self.refuse(conn, refusal.status)
            if sock.head is None:
                sock.searched = len(sock.inbox)
                return
        head = sock.head
        if self.max_body is not None and head.body > self.max_body:
            sock.ready, sock.withheld = head.size, True  # the app answers 413 unread; then the connection closes
            sock.continued = True  # so gunicorn does not invite the body it will not read
        elif len(sock.inbox) >= head.size + head.body:
            sock.ready = head.size + head.body
        else:
            if head.expects_continue and not sock.continued:
                sock.continued = True
                _send_now(sock.sock, CONTINUE)
            return
        self.stop_arriving(conn, closing=False)
        self.enqueue_req(conn)

    def stop_arriving(self, conn, closing: bool = True):
        self.poller.unregister(conn.sock)
        del self.arriving[conn]
        if closing:
            self.nr_conns -= 1

    def refuse(self, conn, status: int):
        self.stop_arriving(conn)
        text = f"{REASONS[status]}\n".encode()
        _send_now(
            conn.sock.sock,
            b"HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
            b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (status, REASONS[status].encode(), len(text), text),
        )
        with contextlib.suppress(OSError):
            conn.sock.sock.shutdown(socket.SHUT_WR)
        self.linger(conn.sock.sock)

    def murder_pending(self):
        """Called by gunicorn's main loop about once a second (and while stopping): besides
        its own housekeeping, cut off requests past their deadline and end lingering closes."""
        super().murder_pending()
        now = time.monotonic()
        while self.arriving:
            conn, deadline = next(iter(self.arriving.items()))  # the earliest: in deadline order
            if deadline > now:
                break
            if conn.sock.inbox:
                self.log.warning(
                    "closed a connection from %s: its request did not arrive within %g s",
                    _peer(conn.sock),
                    self.read_timeout,
                )
                self.refuse(conn, 408)
            else:  # nothing sent at all (a browser's spare connection, say): close without a word
                self.stop_arriving(conn)
                conn.sock.sock.close()
        while self.lingering:
            sock, deadline = next(iter(self.lingering.items()))
            if deadline > now:
                break
            self.end_linger(sock)

    def linger(self, sock: socket.socket):
        """Close `sock` (already half-closed) once the client has closed its side or `LINGER`
        has passed, reading and dropping what it still sends meanwhile: closing with unread
        bytes would make the kernel reset the connection, and the client could lose the answer."""
        if len(self.lingering) >= MAX_LINGERING:  # many clients that never hang up: no fd to spare
            sock.close()
            return
        try:
            sock.setblocking(False)
            self.poller.register(sock, selectors.EVENT_READ, self.drain)
        except (OSError, ValueError, KeyError):
            sock.close()
            return
        self.lingering[sock] = time.monotonic() + LINGER

    def drain(self, sock: socket.socket):
        try:
            data = sock.recv(RECV)  # one read per event: a client that keeps sending cannot hold the poller
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:  # the client has closed its side: done
            self.end_linger(sock)

    def end_linger(self, sock: socket.socket):
        self.poller.unregister(sock)
        del self.lingering[sock]
        sock.close()

    def finish_request(self, conn, fs):
        super().finish_request(conn, fs)
        sock = conn.sock
        if isinstance(sock, BufferedSocket) and sock.inbox and not sock.closed and conn in self.keepalived_conns:
            self.on_client_socket_readable(conn, sock)  # pipelined: the next request is (partly) here already

    # --- the thread's side -------------------------------------------------------------

    def handle(self, conn):
        keepalive = super().handle(conn)
        sock = conn.sock
        if (
            keepalive is True
            and isinstance(sock, BufferedSocket)
            and (sock.withheld or sock.ready or conn.parser.unreader.buf.getvalue())
        ):
            # a body left unread on the network, or gunicorn's parser and `read_head` disagree
            # on where the request ended: where the next one starts is unknown, so close
            return False
        return keepalive


def _send_now(sock: socket.socket, data: bytes) -> None:
    """A short answer from the poller: whatever fits in the socket's buffer now (all of it, in
    practice: nothing else was sent on the connection), never waiting."""
    with contextlib.suppress(OSError):  # the client is gone, or not reading: nothing to tell it then
        sock.send(data)


def _peer(sock) -> str:
    try:
        peer = sock.getpeername()
    except OSError:
        return "a client"
    return f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer or "a client")
