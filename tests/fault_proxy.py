"""An HTTP proxy that injects the faults object stores show, in front of a test S3 server.

Each request is forwarded to the upstream server, unless the proxy's seeded random choice makes it
fail one of the ways connections to S3 fail: ``drop`` (the connection closes before any answer),
``cut`` (the answer's headers promise the whole body, half of it arrives, the connection closes),
``throttle`` (``503 SlowDown``, S3's throttling answer) or ``delay`` (the answer comes late). The
faults happened are counted per kind.
"""

from __future__ import annotations

import http.client
import random
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

KINDS = ("drop", "cut", "throttle", "delay")
SLOW_DOWN = (b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code>'
             b"<Message>Please reduce your request rate.</Message></Error>")


class FaultProxy:
    """A proxy on 127.0.0.1 to ``upstream`` (``host:port``) failing a ``rate`` of requests, kinds
    chosen evenly among ``kinds``; :attr:`endpoint` is its URL, :attr:`faults` the faults injected."""

    def __init__(self, upstream: str, rate: float, kinds: tuple[str, ...] = KINDS, seed: int = 7) -> None:
        self.upstream, self.rate, self.kinds = upstream, rate, kinds
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        self.faults: Counter[str] = Counter()
        self.requests = 0
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _any(self) -> None:
                proxy.handle(self)

            do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = _any

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        """The proxy's URL."""
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FaultProxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _fault(self) -> str | None:
        with self.lock:
            self.requests += 1
            if self.random.random() >= self.rate:
                return None
            kind = self.random.choice(self.kinds)
            self.faults[kind] += 1
            return kind

    def handle(self, h: BaseHTTPRequestHandler) -> None:
        """Forward one request, or fail it."""
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else None
        fault = self._fault()
        if fault == "drop":
            h.close_connection = True
            return
        if fault == "throttle":
            h.send_response(503, "Slow Down")
            h.send_header("Content-Type", "application/xml")
            h.send_header("Content-Length", str(len(SLOW_DOWN)))
            h.end_headers()
            if h.command != "HEAD":
                h.wfile.write(SLOW_DOWN)
            return
        if fault == "delay":
            time.sleep(0.2)
        conn = http.client.HTTPConnection(self.upstream, timeout=30)
        headers = {k: v for k, v in h.headers.items() if k.lower() not in ("connection", "proxy-connection")}
        conn.request(h.command, h.path, body=body, headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        h.send_response(resp.status, resp.reason)
        for k, v in resp.getheaders():
            if k.lower() not in ("connection", "transfer-encoding", "content-length", "server", "date"):
                h.send_header(k, v)
        # a HEAD answer's length is the object's (its body is empty)
        length = resp.getheader("Content-Length", "0") if h.command == "HEAD" else str(len(data))
        h.send_header("Content-Length", length)
        h.end_headers()
        if h.command == "HEAD":
            return
        if fault == "cut" and len(data) > 1:
            h.wfile.write(data[: len(data) // 2])
            h.wfile.flush()
            h.close_connection = True
            return
        h.wfile.write(data)
