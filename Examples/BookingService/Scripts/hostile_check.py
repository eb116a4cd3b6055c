#!/usr/bin/env python3
"""Check a running BookingService against hostile HTTP clients, over raw sockets.

Standard library only. Against --url (Scripts/ci.sh starts the service):

  - silent connections do not pile up: 100 connections that send part of a request head and then
    nothing, and 20 that send nothing, are all closed by the service within --idle-timeout
    (its `--idle-timeout`, 10 s by default) plus 5 s, and another client is served meanwhile.
    Without that, one client holding as many connections as the process has file descriptors
    (a slowloris) locks every other client out;
  - a body trickled a byte every 0.5 s (a whole part each time, so never idle) is cut off too:
    5 such connections are closed within --idle-timeout of their request head plus 5 s;
  - a request that is not HTTP/1.1 the parser can read (an unknown or lower-case method, bytes
    that are not allowed in a path, a Content-Length that is not a number, two framings,
    garbage), an HTTP/1.0 request with Transfer-Encoding (RFC 9112, 6.1), or whose Host RFC 9112
    (3.2) refuses (missing in HTTP/1.1, given twice, not host[:port]) is answered 400 with a JSON error body (reason malformedRequest, message),
    like every other error, and the connection closed; HTTP/1.0 without Host is answered;
  - CONNECT (no route takes it) is answered 405 with Allow, or 404, and the connection closed at
    once: NIO sends a response to CONNECT without a body or its length, so a client reads it to
    the end of the connection.
  - a client that sends `Expect: 100-continue` and waits for the 100 before its body gets it
    (then its answer); one announcing more than 16 KiB gets the 413 at once instead;
  - an integer field written as a number that is not an integer is a 400 even where a double
    would round it to one ("hour": 1e-400, "hour": 9.0000000000000001, "reminderSeconds":
    3600.0000000000001), while integers in any JSON spelling (7e0, 0.7e1, 7.0, -0.0) are read as
    such; on LDN-1 socket 2 six days ahead, as users 6001-6009 (no other check books there);
  - a body in a transfer coding the service does not decode (Transfer-Encoding: gzip, chunked)
    is answered 501 with a JSON error body (RFC 9112, 6.1), not read as JSON;
  - a query parameter or the Idempotency-Key header given twice is a 400;
  - a request asking to upgrade (Connection: Upgrade, Upgrade: websocket or h2c) is answered
    as if it had not asked, and the connection closed at once: NIO parses nothing after such a
    request, so the next request on the connection would wait unanswered;
  - a client that pipelines 1000 `GET /openapi.yaml` (about 27 KB each) and never reads: the
    service closes the connection within --write-timeout (its `--write-timeout`, 10 s by
    default) plus 5 s, before it has sent every answer, and serves another client meanwhile and
    afterwards. Without that, the response writer waits for the client forever: the connection,
    its task and its buffered answers stay until restart.

With --flood N, only this instead (Scripts/ci.sh runs it against a service under a descriptor
limit of 256, with --flood 600):

  - a flood of N silent connections, more than the service keeps: it goes on accepting, closes the
    flood's oldest connections to make room (not its newest), serves another client at once, and
    does not close a connection whose request it is reading. Without that, once the descriptors
    are used up, `accept` fails and every other client waits until the idle timeout;
  - 3 connections opened before the flood whose client pipelines requests and never reads are
    closed to make room (first, being the oldest evictable), long before --write-timeout.

With --busy N, only this instead (Scripts/ci.sh runs it against --max-connections 4, with and
without --ocpp): N connections each with a request being read, then one more, which is closed
at once without an answer; the service stays up and answers the N (it stopped, closing the
newest connection inside the handler counting it in).

Exits 0 when every check passed; the last line is "N passed, M failed".
"""

import argparse
import http.client
import datetime
import gzip
import json
import socket
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

from tally import Tally
from tokens import Tokens, read_secret


class AuthorizedSocket(socket.socket):
    """A socket whose requests (those with `Host: x`) carry the checker's bearer token, so that
    what is checked is the HTTP layer below identity, not the 401 in front of every route."""

    header = b""

    def sendall(self, data, *args):
        return super().sendall(data.replace(b"\r\nHost: x\r\n", b"\r\nHost: x\r\n" + self.header), *args)


class Checker(Tally):
    def __init__(self, url, tokens):
        super().__init__()
        self.tokens = tokens
        AuthorizedSocket.header = f"Authorization: Bearer {tokens.token(6000)}\r\n".encode()
        parsed = urllib.parse.urlparse(url)
        self.url = url.rstrip("/")
        self.host, self.port = parsed.hostname, parsed.port or 80

    def connect(self):
        connection = AuthorizedSocket(socket.AF_INET, socket.SOCK_STREAM)
        connection.settimeout(5)
        connection.connect((self.host, self.port))
        return connection


def closed_by_server(connection):
    """Whether the service has closed `connection` (EOF or reset), without waiting."""
    connection.setblocking(False)
    try:
        return connection.recv(65536) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def sent_byte(connection):
    """Sends one more body byte; False once the service has closed `connection`."""
    if closed_by_server(connection):
        return False
    try:
        connection.sendall(b" ")
        return True
    except OSError:
        return False


def idle_connections(c, idle_timeout):
    partial = []
    for _ in range(100):
        connection = c.connect()
        connection.sendall(b"POST /reservations HTTP/1.1\r\nHost: x\r\nContent-Le")
        partial.append(connection)
    silent = [c.connect() for _ in range(20)]
    trickled = []
    for _ in range(5):
        connection = c.connect()
        connection.sendall(b"POST /bookings/1/check-in HTTP/1.1\r\nHost: x\r\nContent-Length: 16000\r\n\r\n{")
        trickled.append(connection)
    started = time.monotonic()
    try:
        with urllib.request.urlopen(c.url + "/stations", timeout=5) as response:
            c.expect("another client is served while 120 connections idle", response.status == 200)
        deadline = started + idle_timeout + 5
        open_ones = partial + silent
        trickling = trickled
        while (open_ones or trickling) and time.monotonic() < deadline:
            time.sleep(0.5)
            open_ones = [x for x in open_ones if not closed_by_server(x)]
            trickling = [x for x in trickling if sent_byte(x)]
        c.expect("idle connections closed by the service", not open_ones,
                 f"{len(open_ones)} of 120 still open {time.monotonic() - started:.1f} s after the last byte")
        c.expect("trickled bodies cut off by the service", not trickling,
                 f"{len(trickling)} of 5 still open {time.monotonic() - started:.1f} s after the head")
    finally:
        for connection in partial + silent + trickled:
            connection.close()


UNREADABLE = [
    b"FOO /stations HTTP/1.1\r\nHost: x\r\n\r\n",
    b"get /stations HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /stations/\xff\xfe/days/2026-01-01 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /users/ 1/bookings HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /stations?q=\x00 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"POST /bookings/1/check-in HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}",
    b"POST /bookings/1/check-in HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n{}",
    b"POST /reservations HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
    b"GARBAGE\r\n\r\n",
    # RFC 9112, 3.2: an HTTP/1.1 request without Host, any with two, a Host that is no host[:port].
    b"GET /stations HTTP/1.1\r\n\r\n",
    b"GET /stations HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
    b"POST /reservations HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nHost: y\r\n\r\n{}",
    b"GET /stations HTTP/1.0\r\nHost: a\r\nhost: a\r\n\r\n",
    b"GET /stations HTTP/1.1\r\nHost: a/b\r\n\r\n",
    b"GET /stations HTTP/1.1\r\nHost: a:8o\r\n\r\n",
    # RFC 9112, 6.1: an HTTP/1.0 request with Transfer-Encoding has faulty framing (a front end
    # speaking HTTP/1.0 may read the chunk as the start of another request): 400, closed, and the
    # request pipelined after it is not answered.
    b"POST /holds/release HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n"
    b"2\r\n{}\r\n0\r\n\r\nGET /health/live HTTP/1.1\r\nHost: x\r\n\r\n",
]


def read_all(connection, seconds):
    """Everything the service sends until it closes `connection` (or `seconds` pass)."""
    connection.settimeout(seconds)
    data = b""
    try:
        while chunk := connection.recv(65536):
            data += chunk
    except (socket.timeout, ConnectionResetError):
        return data, False
    return data, True


def unreadable_requests(c):
    for request in UNREADABLE:
        connection = c.connect()
        try:
            connection.sendall(request)
            data, closed = read_all(connection, 3)
        finally:
            connection.close()
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status = lines[0].split(b" ")[1] if len(lines[0].split(b" ")) > 1 else b""
        headers = dict(line.lower().split(b": ", 1) for line in lines[1:] if b": " in line)
        try:
            error = json.loads(body)
        except ValueError:
            error = None
        c.expect(f"{request[:40]!r}: 400 with a problem+json body, then closed",
                 status == b"400" and closed and headers.get(b"content-type", b"").startswith(b"application/problem+json")
                 and isinstance(error, dict) and error.get("reason") == "malformedRequest"
                 and isinstance(error.get("message"), str),
                 f"got {data[:300]!r} (closed: {closed})")


def connect_requests(c):
    for target, status in [(b"/stations", b"405"), (b"/nope", b"404"), (b"x:443", b"404")]:
        connection = c.connect()
        started = time.monotonic()
        try:
            connection.sendall(b"CONNECT " + target + b" HTTP/1.1\r\nHost: x\r\n\r\n")
            data, closed = read_all(connection, 3)
        finally:
            connection.close()
        took = time.monotonic() - started
        c.expect(f"CONNECT {target.decode()}: {status.decode()}, then closed at once",
                 data.startswith(b"HTTP/1.1 " + status) and closed and took < 2,
                 f"got {data[:200]!r} (closed: {closed}, {took:.1f} s)")


def upgrade_requests(c):
    for protocol in [b"websocket", b"h2c", b"foo"]:
        connection = c.connect()
        started = time.monotonic()
        try:
            connection.sendall(b"GET /stations?pageSize=1 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: "
                               + protocol + b"\r\n\r\nGET /stations HTTP/1.1\r\nHost: x\r\n\r\n")
            data, closed = read_all(connection, 3)
        finally:
            connection.close()
        took = time.monotonic() - started
        c.expect(f"Upgrade: {protocol.decode()}: 200, then closed at once",
                 data.startswith(b"HTTP/1.1 200") and closed and took < 2,
                 f"got {data[:100]!r}... (closed: {closed}, {took:.1f} s)")


def unknown_codings(c):
    """A body in a transfer coding the service does not decode is answered 501 (RFC 9112, 6.1),
    not read as JSON; a repeated chunked coding is the parser's to refuse (400)."""
    body = gzip.compress(b'{"station":"S1","socket":"1","date":"2030-01-01","hour":10}')
    chunked = b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n"
    for coding in [b"gzip, chunked", b"x-custom,chunked"]:
        connection = c.connect()
        try:
            connection.sendall(b"POST /reservations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                               b"Transfer-Encoding: " + coding + b"\r\n\r\n" + chunked)
            data, _ = read_all(connection, 3)
        finally:
            connection.close()
        head, _, rest = data.partition(b"\r\n\r\n")
        c.expect(f"Transfer-Encoding: {coding.decode()}: 501 with a problem+json body",
                 head.startswith(b"HTTP/1.1 501") and b"application/problem+json" in head.lower()
                 and b"malformedRequest" in rest, f"got {data[:300]!r}")


def post(c, path, body, user=6000):
    headers = dict({"Content-Type": "application/json"}, **c.tokens.headers(user))
    request = urllib.request.Request(c.url + path, data=body, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def inexact_integers(c):
    date = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=6)).date().isoformat()

    def hold(hour, extra=""):
        return ('{"station":"LDN-1","socket":"2","date":"%s","hour":%s%s}' % (date, hour, extra)).encode()

    for what, body in [("hour 1e-400", hold("1e-400")),
                       ("hour 1e-5", hold("1e-5")),
                       ("hour 9.0000000000000001", hold("9.0000000000000001")),
                       ("reminderSeconds 3600.0000000000001", hold(12, ',"reminderSeconds":3600.0000000000001')),
                       ("reminderSeconds 1e-300", hold(12, ',"reminderSeconds":1e-300'))]:
        status, answer = post(c, "/holds", body)
        c.expect(f"{what}: 400 malformedRequest", status == 400 and answer.get("reason") == "malformedRequest",
                 f"got {status} {answer!r:.200}")
    for user, (spelling, hour) in enumerate([("7e0", 7), ("0.7e1", 7), ("8.000", 8), ("-0.0", 0)], start=6006):
        status, answer = post(c, "/holds", hold(spelling), user)
        c.expect(f"hour {spelling}: held at {hour}", status == 201 and answer["slot"]["hour"] == hour,
                 f"got {status} {answer!r:.200}")
        if status == 201:
            post(c, "/holds/release", hold(hour), user)


def recv_within(connection, seconds):
    """What the service sends first within `seconds`, or b"" if nothing comes."""
    connection.settimeout(seconds)
    try:
        return connection.recv(65536)
    except socket.timeout:
        return b""


def expect_continue(c):
    connection = c.connect()
    try:
        connection.sendall(b"POST /bookings/999999999/check-in HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                           b"Content-Length: 13\r\nExpect: 100-continue\r\n\r\n")
        interim = recv_within(connection, 2)
        c.expect("Expect: 100-continue: 100 before the body", interim.startswith(b"HTTP/1.1 100"), f"got {interim!r:.100}")
        connection.sendall(b'{"x":"12345"}')
        connection.sendall(b"GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data, _ = read_all(connection, 3)
        c.expect("Expect: 100-continue: then the answer", b"HTTP/1.1 404" in data and b"unknownBooking" in data,
                 f"got {data[:200]!r}")
    finally:
        connection.close()
    # Lengths past 2^63 - 1 (the parser takes up to 2^64 - 1) were read as no length at all: a 100
    # Continue, then the connection held until the idle timeout, with no answer.
    for length in (100000, 2**63, 2**64 - 1):
        for expect in (b"Expect: 100-continue\r\n", b""):
            connection = c.connect()
            what = f"{'Expect: 100-continue with ' if expect else ''}Content-Length {length}"
            try:
                connection.sendall(b"POST /reservations HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n%s\r\n"
                                   % (length, expect))
                started = time.monotonic()
                answer, closed = read_all(connection, 4)
                took = time.monotonic() - started
                c.expect(f"{what}: 413 at once", answer.startswith(b"HTTP/1.1 413"), f"got {answer!r:.100}")
                # The client sends no body after a 413, so what it sends next is no request: the
                # connection ends with the answer (it used to wait, reading the next request as body).
                c.expect(f"{what}: the 413 closes the connection",
                         closed and took < 2 and b"connection: close" in answer.lower(),
                         f"closed: {closed} after {took:.1f} s; got {answer!r:.200}")
            finally:
                connection.close()


def large_bodies(c):
    """A client that sends a body larger than the service takes, without waiting for a 100
    Continue, reads the 413: the service answers early, then lingers reading what is still sent
    before it closes (LingeringClose), instead of resetting a connection still being written to."""
    for size in (100_000, 1_000_000, 20_000_000):
        connection = http.client.HTTPConnection(c.host, c.port, timeout=10)
        body = b'{"requestID":"' + b"x" * size + b'"}'
        headers = dict({"Content-Type": "application/json"}, **c.tokens.headers(6000))
        try:
            connection.request("POST", "/reservations", body=body, headers=headers)
            response = connection.getresponse()
            got = response.status, json.loads(response.read()).get("reason")
        except OSError as error:
            got = repr(error)
        finally:
            connection.close()
        c.expect(f"a body of {size} bytes: the client reads 413 bodyTooLarge", got == (413, "bodyTooLarge"),
                 f"got {got}")


def http10_requests(c):
    """An HTTP/1.0 request without keep-alive gets its answer and the end of the connection at
    once (it used to wait for the idle timeout), with keep-alive it stays open. HTTP/1.0 needs
    no Host."""
    for request, closes, status in [(b"GET /stations HTTP/1.0\r\n\r\n", True, b"200"),
                                    (b"GET /nope HTTP/1.0\r\nHost: x\r\n\r\n", True, b"404"),
                                    (b"GET /stations HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", False, b"200")]:
        connection = c.connect()
        try:
            connection.sendall(request)
            started = time.monotonic()
            data, closed = read_all(connection, 3)
            took = time.monotonic() - started
        finally:
            connection.close()
        line = request.split(b"\r\n")[0].decode()
        c.expect(f"{line} ({'no keep-alive' if closes else 'keep-alive'}): answered, "
                 + ("then closed at once" if closes else "connection kept"),
                 data.startswith(b"HTTP/1.1 " + status) and (closed and took < 2 if closes else not closed),
                 f"got {data[:100]!r}... (closed: {closed}, {took:.1f} s)")


def strict_json(c):
    """Bodies another JSON reader would read differently (or not at all) are refused with 400:
    a key twice (the decoder kept the first station, a gateway sees the last), trailing commas,
    UTF-16 (each of those was booked before), Latin-1; and bodies that end inside a string's
    escape (the service's syntax check read past the end of `{"\\` and stopped the process)."""
    date = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=6)).date().isoformat()
    slot = '"station":"LDN-1","socket":"2","date":"%s","hour":15' % date
    for what, body in [("a key twice", ('{"station":"LDN-2",%s}' % slot).encode()),
                       ("a comma before }", ('{%s,}' % slot).encode()),
                       ("a comma before ]", ('{%s,"x":[1,2,]}' % slot).encode()),
                       ("UTF-16", ('{%s}' % slot).encode("utf-16")),
                       ("Latin-1", ('{%s}' % slot.replace("LDN-1", "LDN-1\xe9")).encode("latin-1")),
                       ("a key cut after its escape's backslash", b'{"\\'),
                       ("a value cut after its escape's backslash", ('{%s,"x":"\\' % slot).encode()),
                       ("a string cut inside \\u", b'["\\u00')]:
        status, answer = post(c, "/holds", body)
        c.expect(f"{what}: 400 malformedRequest", status == 400 and answer.get("reason") == "malformedRequest",
                 f"got {status} {answer!r:.200}")


def repeated_names(c):
    """A query parameter or an Idempotency-Key header given twice is a 400, as a body's key
    given twice is: the first value won (`city=&city=London` listed every station), and two keys
    were joined into a third (`k-X, k-Y`), neither of the client's."""
    for query in ["city=London&city=Berlin", "city=&city=London", "page=0&page=1"]:
        try:
            with urllib.request.urlopen(f"{c.url}/stations?{query}", timeout=10) as response:
                status, answer = response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            status, answer = error.code, json.loads(error.read())
        c.expect(f"GET /stations?{query}: 400 malformedRequest",
                 status == 400 and answer.get("reason") == "malformedRequest", f"got {status} {answer!r:.200}")
    connection = c.connect()
    try:
        connection.sendall(b"POST /holds/release HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                           b"Idempotency-Key: k-X\r\nIdempotency-Key: k-Y\r\nContent-Length: 2\r\n"
                           b"Connection: close\r\n\r\n{}")
        data, _ = read_all(connection, 3)
    finally:
        connection.close()
    c.expect("Idempotency-Key given twice: 400 malformedRequest",
             data.startswith(b"HTTP/1.1 400 ") and b"malformedRequest" in data, f"got {data[:300]!r}")


UNREAD_REQUESTS = 1000


def unread_connection(c):
    """A connection (with a small receive buffer) that pipelines UNREAD_REQUESTS requests for
    the OpenAPI document in one write and then reads nothing."""
    connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    connection.settimeout(5)
    connection.connect((c.host, c.port))
    connection.sendall(b"GET /openapi.yaml HTTP/1.1\r\nHost: x\r\n\r\n" * UNREAD_REQUESTS)
    return connection


def closed_before_all_answers(connection, seconds):
    """Reads what `connection` holds (at most `seconds`): whether the service closed it before
    sending every answer, and how many answers began."""
    connection.settimeout(2)
    data = bytearray()
    closed = False
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            chunk = connection.recv(1 << 20)
            if not chunk:
                closed = True
                break
            data += chunk
    except socket.timeout:
        pass
    except OSError:
        closed = True
    answers = data.count(b"HTTP/1.1 200")
    return closed and answers < UNREAD_REQUESTS, answers


def unread_answers(c, write_timeout):
    connection = unread_connection(c)
    started = time.monotonic()
    try:
        time.sleep(1)
        with urllib.request.urlopen(c.url + "/stations", timeout=5) as response:
            c.expect("another client is served while a client reads none of its answers", response.status == 200)
        time.sleep(max(0.0, started + write_timeout + 5 - time.monotonic()))
        closed, answers = closed_before_all_answers(connection, 10)
        c.expect("a connection whose client reads none of its answers closed by the service", closed,
                 f"(closed: {closed}, {answers} of {UNREAD_REQUESTS} answers sent, "
                 f"{time.monotonic() - started:.1f} s after the requests)")
        with urllib.request.urlopen(c.url + "/stations", timeout=5) as response:
            c.expect("another client is served afterwards", response.status == 200)
    finally:
        connection.close()


def connection_flood(c, count):
    """More connections than the service may keep (run it under a low descriptor limit): the
    flood's silent connections make room for each other, so another client is still served at
    once, and a connection whose request is being read is not closed to make room."""
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, count + 256)), hard))
    except (ImportError, ValueError, OSError):
        pass
    busy = c.connect()
    busy.sendall(b"POST /bookings/1/check-in HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 2\r\n\r\n{")
    stalled = [unread_connection(c) for _ in range(3)]
    started = time.monotonic()
    time.sleep(1)
    flood = []
    try:
        for _ in range(count):
            try:
                flood.append(c.connect())
            except OSError as error:
                c.expect("the service keeps accepting during the flood", False,
                         f"connection {len(flood) + 1} of {count}: {error}")
                break
        started = time.monotonic()
        served = answers_200(c, "/stations", f"another client after {count} connections")
        took = time.monotonic() - started
        c.expect(f"another client served at once after {len(flood)} silent connections", served and took < 2,
                 f"(served: {served}, {took:.1f} s)")
        time.sleep(0.5)
        closed = sum(closed_by_server(x) for x in flood)
        c.expect("the flood's oldest connections closed to make room", closed > 0,
                 f"{closed} of {len(flood)} closed")
        c.expect("the flood's newest connection kept", flood and not closed_by_server(flood[-1]))
        evicted = [closed_before_all_answers(x, 3)[0] for x in stalled]
        took = time.monotonic() - started
        c.expect("connections whose client reads none of the answers closed to make room", all(evicted) and took < 8,
                 f"{sum(evicted)} of {len(stalled)} closed, {took:.1f} s after their requests")
        busy.setblocking(True)
        busy.sendall(b"}")
        answer = recv_within(busy, 3)
        c.expect("a request being read is not closed to make room", answer.startswith(b"HTTP/1.1 "),
                 f"got {answer!r:.100}")
    finally:
        busy.close()
        for connection in stalled + flood:
            connection.close()


def all_busy(c, count):
    """Every one of the service's `count` connections (--max-connections) busy, a request being
    read on each: one more is closed at once without an answer (it, not one of them: a request
    being read is never closed to make room), the service stays up (it closed that connection
    inside the handler counting it in, and stopped), and the busy ones are answered once their
    bodies arrive."""
    busy = []
    try:
        for _ in range(count):
            connection = c.connect()
            connection.sendall(b"POST /holds HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                               b"Content-Length: 2\r\n\r\n{")
            busy.append(connection)
        time.sleep(0.5)
        extra = c.connect()
        started = time.monotonic()
        try:
            extra.sendall(b"GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n")
            data, _ = read_all(extra, 3)
        except OSError:
            data = b""
        finally:
            extra.close()
        took = time.monotonic() - started
        c.expect(f"connection {count + 1} with {count} busy: closed at once, unanswered", not data and took < 2,
                 f"got {data[:100]!r} after {took:.1f} s")
        answers = []
        for connection in busy:
            try:
                connection.sendall(b"}")
                answers.append(recv_within(connection, 3))
            except OSError as error:
                answers.append(repr(error).encode())
        c.expect(f"the {count} busy connections answered", all(a.startswith(b"HTTP/1.1 ") for a in answers),
                 f"got {[a[:40] for a in answers]!r}")
    finally:
        for connection in busy:
            connection.close()
    c.expect("the service is still up", answers_200(c, "/health/live", "GET /health/live"))


def answers_200(c, path, what):
    """Whether GET `path` is answered 200 within 3 s (else why not, printed after `what`)."""
    try:
        with urllib.request.urlopen(c.url + path, timeout=3) as response:
            return response.status == 200
    except OSError as error:
        print(f"  {what}: {error}")
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--secret", required=True, metavar="FILE", help="the service's HS256 secret (--auth hs256:FILE)")
    parser.add_argument("--idle-timeout", type=float, default=10, help="the service's --idle-timeout, seconds")
    parser.add_argument("--write-timeout", type=float, default=10, help="the service's --write-timeout, seconds")
    parser.add_argument("--flood", type=int, metavar="N",
                        help="only open N silent connections, more than the service keeps (see connection_flood)")
    parser.add_argument("--busy", type=int, metavar="N",
                        help="only fill the service's N connections (--max-connections N) with requests "
                             "being read, and open one more (see all_busy)")
    args = parser.parse_args()
    c = Checker(args.url, Tokens(read_secret(args.secret)))
    if args.busy:
        all_busy(c, args.busy)
        return c.report()
    if args.flood:
        connection_flood(c, args.flood)
        return c.report()
    unreadable_requests(c)
    connect_requests(c)
    upgrade_requests(c)
    inexact_integers(c)
    unknown_codings(c)
    expect_continue(c)
    large_bodies(c)
    http10_requests(c)
    strict_json(c)
    repeated_names(c)
    idle_connections(c, args.idle_timeout)
    unread_answers(c, args.write_timeout)
    return c.report()


if __name__ == "__main__":
    sys.exit(main())
