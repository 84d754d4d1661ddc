#!/usr/bin/env python3
"""Serves files from a directory on loopback with HTTP range requests, for deploy/bench-planet.sh.

    deploy/serve-ranges.py DIRECTORY PORT

GET and HEAD; `Range: bytes=FIRST-LAST` answered 206 with Content-Range, a strong ETag from the
file's size and modification time, keep-alive. Each answer's head and body go out in one write
with TCP_NODELAY (docs/maps.md, "Cost": a head and body written apart wait out the client's delayed
ACK). Files are read with pread per request, never whole: it serves a 10 GB archive in a few MiB.
"""

import os
import re
import socket
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.abspath(sys.argv[1])


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, *args):
        pass

    def answer(self, status, headers, body=b""):
        head = f"HTTP/1.1 {status}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"
        self.wfile.write(head.encode() + body)
        self.wfile.flush()

    def serve(self, with_body):
        path = os.path.normpath(os.path.join(ROOT, self.path.split("?")[0].lstrip("/")))
        if not path.startswith(ROOT + os.sep) or not os.path.isfile(path):
            return self.answer("404 Not Found", [("Content-Length", "0")])
        stat = os.stat(path)
        etag = f'"{stat.st_size:x}-{stat.st_mtime_ns:x}"'
        first, last, status = 0, stat.st_size - 1, "200 OK"
        match = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
        if match:
            first = int(match.group(1))
            last = min(int(match.group(2)) if match.group(2) else stat.st_size - 1, stat.st_size - 1)
            if first > last:
                return self.answer("416 Range Not Satisfiable", [("Content-Range", f"bytes */{stat.st_size}"), ("Content-Length", "0")])
            status = "206 Partial Content"
        if_match = self.headers.get("If-Match")
        if if_match and if_match != etag:
            return self.answer("412 Precondition Failed", [("Content-Length", "0")])
        headers = [("Content-Length", str(last - first + 1)), ("ETag", etag), ("Accept-Ranges", "bytes")]
        if match:
            headers.append(("Content-Range", f"bytes {first}-{last}/{stat.st_size}"))
        body = b""
        if with_body:
            with open(path, "rb") as file:
                body = os.pread(file.fileno(), last - first + 1, first)
        self.answer(status, headers, body)

    def do_GET(self):
        self.serve(True)

    def do_HEAD(self):
        self.serve(False)


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Handler).serve_forever()
