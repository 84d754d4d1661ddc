#!/usr/bin/env python3
"""An HTTP proxy in front of an S3-compatible server (moto) that misbehaves when told to.

`make attack` (deploy/attack.sh, section 5) puts it between WorkFeed's programs and moto to try
issue 37's bucket faults against the real programs: a bucket that throttles, one that stalls and
one whose connections drop. It reads each request whole, then does what its fault says:

  pass      forwards the request to the server and its answer back (the default)
  slowdown  answers `503 Slow Down` with S3's `SlowDown` XML error, as a throttling bucket does
  stall     never answers: the request waits until the fault is switched, then (`release`)
            its connection is closed unanswered (`close`, the default) or it is carried out
            late (`forward`), as a request S3 took in may still be
  drop      closes the connection without an answer

A fault can be for some requests only (`only`): `all` (the default), `deletes` (DELETE and
DeleteObjects, a POST with `?delete`), or methods separated by commas (`GET,HEAD`); the others
pass. The control endpoint, on the same port and never faulted, is the path `/__fault`:

  curl -s http://127.0.0.1:PORT/__fault                                  # the fault and the counts
  curl -s -X POST 'http://127.0.0.1:PORT/__fault?fault=slowdown&only=deletes'
  curl -s -X POST 'http://127.0.0.1:PORT/__fault?fault=stall'
  curl -s -X POST 'http://127.0.0.1:PORT/__fault?fault=pass&release=forward'

Both answer JSON: {"fault", "only", "counts"}; `counts` has, for each thing done and each
operation, how many requests (`"slowdown DELETE-OBJECTS": 3`, `"pass GET": 12`, `"stall PUT": 2`,
`"released PUT": 2`). Each request is logged to standard error as one line.

Usage: deploy/s3-fault-proxy.py --upstream HOST:PORT [--listen PORT] [--host 127.0.0.1]
It prints `s3-fault-proxy listening on 127.0.0.1:PORT` once it listens (`--listen 0`, the
default: a free port, named there). A thread a connection; the server gets a connection of its
own for each request (`Connection: close`), and the client keeps its connection when it asks to.
Standard library only. Odd input (a head that is no HTTP, a body cut short, a head over 64 KiB)
ends that connection with a 400 or nothing, never the proxy.
"""

import argparse
import json
import socket
import sys
import threading
import time
import urllib.parse

FAULTS = ("pass", "slowdown", "stall", "drop")
MAX_HEAD = 64 * 1024  # a request or answer head larger than this is refused
MAX_BODY = 64 * 1024 * 1024  # a body larger than this (a picture is at most 17 MB) is refused
IDLE_SECONDS = 120  # a client connection that sends nothing for this long is closed
UPSTREAM_SECONDS = 60  # the server must answer within this
SLOWDOWN_BODY = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>'
    b"<Message>Please reduce your request rate.</Message><RequestId>s3-fault-proxy</RequestId></Error>"
)
# Headers about one hop that are not passed on (RFC 9110, 7.6.1); framing is set anew.
HOP_HEADERS = {"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "expect"}


class BadInput(Exception):
    """What came in is not HTTP this proxy reads: the connection ends."""


class Fault:
    """The fault in force, switched by the control endpoint; stalled requests wait on it."""

    def __init__(self):
        self.condition = threading.Condition()
        self.name = "pass"
        self.only = "all"
        self.release = "close"
        self.generation = 0  # counts switches, so that a stalled request sees one
        self.counts = {}

    def count(self, what, operation):
        with self.condition:
            key = f"{what} {operation}"
            self.counts[key] = self.counts.get(key, 0) + 1

    def switch(self, name, only, release):
        with self.condition:
            self.name, self.only, self.release = name, only, release
            self.generation += 1
            self.condition.notify_all()

    def state(self):
        with self.condition:
            return {"fault": self.name, "only": self.only, "release": self.release, "counts": dict(self.counts)}

    def applies(self, method, query):
        """The fault for a request: the one in force if `only` takes it in, else pass."""
        with self.condition:
            return self.name if takes_in(self.only, method, query) else "pass"

    def wait_for_switch(self):
        """Waits until the fault is switched; returns what to do with a stalled request."""
        with self.condition:
            seen = self.generation
            while self.generation == seen:
                self.condition.wait()
            return self.release


def takes_in(only, method, query):
    """Whether the selector `only` (all, deletes, or methods with commas) takes in the request."""
    if only == "all":
        return True
    if only == "deletes":
        return method == "DELETE" or (method == "POST" and "delete" in query)
    return method in {part.strip().upper() for part in only.split(",")}


def operation(method, query):
    """The S3 operation's name for counts and logs: the method, or DELETE-OBJECTS."""
    return "DELETE-OBJECTS" if method == "POST" and "delete" in query else method


class Reader:
    """Reads a socket in pieces: lines of a head, exact lengths, chunked bodies."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""

    def fill(self):
        data = self.sock.recv(65536)
        if not data:
            raise EOFError
        self.buffer += data

    def head(self):
        """The bytes of a head up to its blank line (without it); EOFError if none began."""
        while b"\r\n\r\n" not in self.buffer:
            if len(self.buffer) > MAX_HEAD:
                raise BadInput("head over 64 KiB")
            self.fill()
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        return head

    def exactly(self, count):
        if count > MAX_BODY:
            raise BadInput(f"body of {count} bytes")
        while len(self.buffer) < count:
            self.fill()
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def line(self):
        while b"\r\n" not in self.buffer:
            if len(self.buffer) > MAX_HEAD:
                raise BadInput("line over 64 KiB")
            self.fill()
        line, _, self.buffer = self.buffer.partition(b"\r\n")
        return line

    def chunked(self):
        """A chunked body, joined (trailers read and dropped)."""
        body = b""
        while True:
            size_text = self.line().split(b";")[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise BadInput(f"chunk size {size_text[:20]!r}")
            if size < 0 or len(body) + size > MAX_BODY:
                raise BadInput("chunked body over the bound")
            if size == 0:
                while self.line():
                    pass
                return body
            body += self.exactly(size)
            self.exactly(2)

    def to_end(self):
        """Everything until the other side closes (an answer without framing)."""
        while True:
            if len(self.buffer) > MAX_BODY:
                raise BadInput("answer over the bound")
            try:
                self.fill()
            except EOFError:
                data, self.buffer = self.buffer, b""
                return data


def parse_head(head, request=True):
    """(first line's three words, [(name, value)]) of a head; BadInput if it is not HTTP. An
    answer's reason may be missing (`HTTP/1.1 200`): then it is ""."""
    lines = head.decode("latin-1").split("\r\n")  # latin-1 takes every byte
    words = lines[0].split(" ", 2)
    if not request and len(words) == 2:
        words.append("")
    if len(words) != 3 or not words[0] or not words[1]:
        raise BadInput(f"first line {lines[0][:80]!r}")
    headers = []
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip():
            raise BadInput(f"header line {line[:80]!r}")
        headers.append((name, value.strip()))
    return words, headers


def header(headers, name):
    """The last value of header `name`, or None."""
    found = None
    for key, value in headers:
        if key.lower() == name:
            found = value
    return found


def read_body(reader, headers):
    """A message's body as its headers frame it (chunked, Content-Length, or none)."""
    if "chunked" in (header(headers, "transfer-encoding") or "").lower():
        return reader.chunked()
    length = header(headers, "content-length")
    if length is None:
        return b""
    if not length.isdigit():
        raise BadInput(f"Content-Length {length[:20]!r}")
    return reader.exactly(int(length))


def answer(status, reason, headers, body, keep_alive, head_only=False):
    """The bytes of an answer: its headers less framing and hop ones, then Content-Length."""
    lines = [f"HTTP/1.1 {status} {reason}"]
    length = None
    for name, value in headers:
        if name.lower() == "content-length":
            length = value
        elif name.lower() not in HOP_HEADERS:
            lines.append(f"{name}: {value}")
    # An answer to HEAD, and 204 and 304, have no body: their Content-Length (if any) stays
    # what the server said; any other answer's is its body's length.
    if head_only or status in (204, 304):
        if length is not None:
            lines.append(f"Content-Length: {length}")
        body = b""
    else:
        lines.append(f"Content-Length: {len(body)}")
    lines.append("Connection: keep-alive" if keep_alive else "Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


class Proxy:
    def __init__(self, upstream, fault):
        self.upstream = upstream
        self.fault = fault

    def log(self, text):
        sys.stderr.write(f"s3-fault-proxy: {time.strftime('%H:%M:%S')} {text}\n")
        sys.stderr.flush()

    def serve(self, client, address):
        """One client connection: its requests one after another, until it closes."""
        client.settimeout(IDLE_SECONDS)
        reader = Reader(client)
        try:
            while True:
                try:
                    head = reader.head()
                except EOFError:
                    return  # closed between requests, or before one: nothing to answer
                words, headers = parse_head(head)
                method, target, version = words[0].upper(), words[1], words[2]
                if (header(headers, "expect") or "").lower() == "100-continue":
                    client.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                body = read_body(reader, headers)
                connection = (header(headers, "connection") or "").lower()
                keep_alive = version == "HTTP/1.1" and "close" not in connection
                if not self.one(client, method, target, headers, body, keep_alive) or not keep_alive:
                    return
        except BadInput as error:
            self.log(f"{address[0]}:{address[1]}: not read ({error}); connection closed")
            try:
                client.sendall(answer(400, "Bad Request", [("Content-Type", "text/plain")], b"bad request\n", False))
            except OSError:
                pass
        except (OSError, EOFError):
            pass  # the client went away, or sent nothing for IDLE_SECONDS
        except Exception as error:  # never the proxy's end: log it, end the connection
            self.log(f"{address[0]}:{address[1]}: unexpected {type(error).__name__}: {error}")
        finally:
            try:
                client.close()
            except OSError:
                pass

    def one(self, client, method, target, headers, body, keep_alive):
        """Does what the fault says with one request. Returns whether the connection goes on."""
        path, _, query_text = target.partition("?")
        query = urllib.parse.parse_qs(query_text, keep_blank_values=True)
        if path == "/__fault" or path.startswith("/__fault/"):
            client.sendall(self.control(method, query, keep_alive))
            return True
        what = operation(method, query)
        fault = self.fault.applies(method, query)
        if fault == "stall":
            self.fault.count("stall", what)
            self.log(f"{what} {target[:120]} -> stalled")
            release = self.fault.wait_for_switch()
            self.fault.count("released", what)
            if release != "forward":
                self.log(f"{what} {target[:120]} -> released: closed unanswered")
                return False
            self.log(f"{what} {target[:120]} -> released: carried out late")
            fault = "pass"
        self.fault.count(fault, what)
        if fault == "drop":
            self.log(f"{what} {target[:120]} -> dropped")
            return False
        if fault == "slowdown":
            self.log(f"{what} {target[:120]} -> 503 SlowDown")
            client.sendall(
                answer(503, "Slow Down", [("Content-Type", "application/xml")], SLOWDOWN_BODY, keep_alive, method == "HEAD"))
            return True
        reply = self.forward(method, target, headers, body)
        if reply is None:
            client.sendall(answer(502, "Bad Gateway", [("Content-Type", "text/plain")], b"the server did not answer\n", False))
            return False
        status, reason, answer_headers, answer_body = reply
        self.log(f"{what} {target[:120]} -> {status}")
        client.sendall(answer(status, reason, answer_headers, answer_body, keep_alive, method == "HEAD"))
        return True

    def forward(self, method, target, headers, body):
        """Sends the request to the server on a connection of its own; its answer, or None."""
        try:
            with socket.create_connection(self.upstream, timeout=UPSTREAM_SECONDS) as server:
                lines = [f"{method} {target} HTTP/1.1"]
                lines += [f"{name}: {value}" for name, value in headers if name.lower() not in HOP_HEADERS | {"content-length"}]
                if body or header(headers, "content-length") is not None:
                    lines.append(f"Content-Length: {len(body)}")
                lines.append("Connection: close")
                server.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
                reader = Reader(server)
                while True:
                    words, answer_headers = parse_head(reader.head(), request=False)
                    status = int(words[1]) if words[1].isdigit() else 502
                    if status >= 200 or status < 100:
                        break  # 1xx answers (100 Continue) are passed over
                if method == "HEAD" or status in (204, 304):
                    answer_body = b""
                elif header(answer_headers, "transfer-encoding") or header(answer_headers, "content-length"):
                    answer_body = read_body(reader, answer_headers)
                else:
                    answer_body = reader.to_end()
                return status, words[2], answer_headers, answer_body
        except (OSError, EOFError, BadInput) as error:
            self.log(f"{method} {target[:120]}: the server at {self.upstream[0]}:{self.upstream[1]} failed: {error}")
            return None

    def control(self, method, query, keep_alive):
        """GET /__fault: the state; POST /__fault?fault=…&only=…&release=…: switches first."""
        def first(name, default):
            return (query.get(name) or [default])[0]

        if method == "POST":
            name, only, release = first("fault", "pass"), first("only", "all"), first("release", "close")
            methods_ok = only in ("all", "deletes") or all(part.strip().isalpha() for part in only.split(","))
            if name not in FAULTS or release not in ("close", "forward") or not methods_ok:
                problem = f"fault is one of {', '.join(FAULTS)}; only all, deletes or METHOD,...; release close or forward\n"
                return answer(400, "Bad Request", [("Content-Type", "text/plain")], problem.encode(), keep_alive)
            self.fault.switch(name, only, release)
            self.log(f"fault now {name} (only {only}, stalled ones released: {release})")
        elif method not in ("GET", "HEAD"):
            return answer(405, "Method Not Allowed", [("Allow", "GET, POST")], b"", keep_alive)
        text = json.dumps(self.fault.state(), sort_keys=True).encode() + b"\n"
        return answer(200, "OK", [("Content-Type", "application/json")], text, keep_alive, method == "HEAD")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--upstream", required=True, help="HOST:PORT of the S3-compatible server")
    parser.add_argument("--listen", type=int, default=0, help="port to listen on (0: a free one)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (loopback)")
    arguments = parser.parse_args()
    host, _, port = arguments.upstream.rpartition(":")
    if not host or not port.isdigit():
        parser.error("--upstream is HOST:PORT")
    proxy = Proxy((host, int(port)), Fault())

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((arguments.host, arguments.listen))
    listener.listen(128)
    print(f"s3-fault-proxy listening on {arguments.host}:{listener.getsockname()[1]}", flush=True)
    while True:
        try:
            client, address = listener.accept()
        except InterruptedError:
            continue
        except OSError as error:  # out of descriptors, say: wait a moment rather than end
            proxy.log(f"accept: {error}")
            time.sleep(0.1)
            continue
        threading.Thread(target=proxy.serve, args=(client, address), daemon=True).start()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
