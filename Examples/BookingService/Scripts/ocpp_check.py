#!/usr/bin/env python3
"""Check a BookingService started with --ocpp against a real OCPP 2.0.1 charge point.

The charge point is mobilityhouse's `ocpp` library (PyPI `ocpp`, `ocpp.v201.ChargePoint`) over
`websockets`: every message either side sends is validated against OCPP 2.0.1's JSON schemas.
Against --url, with the service's HS256 secret (--secret), the stations' passwords
(--passwords, the service's --ocpp-passwords) and the scenario it serves (--scenario, for the
no-show grace). `--prepare SCENARIO DIR` writes DIR/scenario.json (SCENARIO with an early
check-in of a day, no cancellation cutoff, IST-1's socket D at EVSE 9 and an access code on its
socket C) and DIR/passwords.json for such a service, and exits. The service needs a reserve lead that covers
the next two hours (`--ocpp-reserve-lead 120`) and a fault horizon of 3 hours.

  - a booking over HTTP at the next bookable hour reaches the connected station as ReserveNow
    within seconds: its EVSE (an `ocpp` address of the scenario included), the user's id as a
    Central idToken, expiry = start + grace; GET /bookings/{id} shows it as `charger`;
  - cancelling it over HTTP sends CancelReservation with the same id;
  - StatusNotification Faulted on an EVSE displaces the booking there (displaced,
    `displacedBecause` socketFaulted) and refuses a new one; Available reopens the hour;
  - on a socket with an access code, the user's own check-in over HTTP without it is 422
    wrongAccessCode; TransactionEvent Started with the user's token at the EVSE checks the booking
    in (the charger is the socket: the service presents its code);
  - TransactionEvent Ended of that transaction (without the token, as stations often send it)
    checks the booking out: `fulfilled` with `checkedOutAt`; its hour can be booked again;
  - a reconnection, and a second connection replacing the first (closed 1008), are sent the
    outstanding ReserveNow again;
  - refused at the upgrade: a wrong password, an unknown station, one without a password, no
    credentials (401 with a Basic challenge), no ocpp2.0.1 subprotocol (400), another path (404);
    no opening handshake: a POST, a body, no key or one not of 16 bytes (400), a version other
    than 13 (426 naming version 13);
  - malformed frames get a CALLERROR (not JSON, a bad payload, an unknown action); a binary
    message (1003) and a 70 KiB one (1009) close the connection; the service stays up;
  - an unknown action of 60,000 characters is answered with at most OCPP-J's 255 characters of
    errorDescription (the whole name was echoed, and logged);
  - a station that keeps calling and reads no answer is disconnected (the service queued every
    answer, without end, and kept the connection open), and the service stays up.

Needs `ocpp==2.1.0` and `websockets==15.0.1`. Exits 0 when every check passed; the last line is
"N passed, M failed".
"""

import argparse
import asyncio
import base64
import datetime
import json
import os
import sys
import time
from zoneinfo import ZoneInfo

import websockets
from ocpp.routing import on
from ocpp.v201 import ChargePoint, call, call_result
from ocpp.v201.enums import (
    Action, BootReasonEnumType, CancelReservationStatusEnumType, ConnectorStatusEnumType,
    ReserveNowStatusEnumType, TransactionEventEnumType, TriggerReasonEnumType)

from fetch import fetch
from tally import Tally
from tokens import Tokens, read_secret

STATION, RAW_STATION, ZONE = "IST-1", "LDN-1", ZoneInfo("Europe/Istanbul")
# IST-1's sockets and their EVSEs: the n-th socket is EVSE n, D has an `ocpp` address (--prepare).
EVSES = {"A": 1, "B": 2, "C": 3, "D": 9}
CODED = "C"  # the IST-1 socket --prepare gives an access code
WAIT = 10  # seconds a frame may take (the service ticks once a second)


def prepare(scenario, directory):
    with open(scenario) as f:
        data = json.load(f)
    data["policy"].update(earlyCheckInSeconds=86400, cancellationCutoffSeconds=0)
    for station in data["stations"]:
        for socket in station["sockets"]:
            if station["id"] == STATION and socket["id"] == "D":
                socket["ocpp"] = {"evseId": EVSES["D"], "connectorId": 1}
            if station["id"] == STATION and socket["id"] == CODED:
                socket["accessCode"] = "c-" + base64.b16encode(os.urandom(6)).decode()
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "scenario.json"), "w") as f:
        json.dump(data, f, indent=1, ensure_ascii=False)
    with open(os.path.join(directory, "passwords.json"), "w") as f:
        json.dump({STATION: "ist-1-" + base64.b16encode(os.urandom(12)).decode(),
                   RAW_STATION: "ldn-1-" + base64.b16encode(os.urandom(12)).decode()}, f)


def reservation_id(booking_id):
    """The ReserveNow id of a booking, as ChargerReservation.reservationID(of:) folds it."""
    raw = int(booking_id)
    if raw <= 2**31 - 1:
        return raw
    raw ^= raw >> 31
    raw ^= raw >> 62
    return raw & (2**31 - 1)


def basic(user, password):
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def iso(moment):
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


class Station(ChargePoint):
    """A charge point that accepts every reservation and records what it was sent."""

    def __init__(self, station_id, connection):
        super().__init__(station_id, connection)
        self.received = []

    @on(Action.reserve_now)
    async def on_reserve_now(self, id, expiry_date_time, id_token, evse_id=None, **_):
        self.received.append(("ReserveNow", dict(id=id, expiry=expiry_date_time, id_token=id_token, evse=evse_id)))
        return call_result.ReserveNow(status=ReserveNowStatusEnumType.accepted)

    @on(Action.cancel_reservation)
    async def on_cancel_reservation(self, reservation_id, **_):
        self.received.append(("CancelReservation", dict(id=reservation_id)))
        return call_result.CancelReservation(status=CancelReservationStatusEnumType.accepted)

    async def wait_for(self, action, reservation, timeout=WAIT):
        """The first `action` for `reservation` received, or None after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for kind, payload in self.received:
                if kind == action and payload["id"] == reservation:
                    return payload
            await asyncio.sleep(0.1)
        return None

    async def serve(self):
        """Reads and answers the service's messages until the connection closes."""
        try:
            await self.start()
        except websockets.exceptions.ConnectionClosed:
            pass

    async def status(self, evse, status):
        return await self.call(call.StatusNotification(
            timestamp=iso(datetime.datetime.now(datetime.timezone.utc)), connector_status=status, evse_id=evse,
            connector_id=1))


class Checker(Tally):
    def __init__(self, url, secret, passwords, grace):
        super().__init__()
        self.url, self.tokens, self.passwords, self.grace = url.rstrip("/"), Tokens(secret), passwords, grace
        self.ws_url = "ws" + self.url[len("http"):]
        self.hour = self.next_hour()

    @staticmethod
    def next_hour():
        """IST-1's first hour that starts at least 20 minutes from now (15 is the notice)."""
        moment = datetime.datetime.now(ZONE) + datetime.timedelta(minutes=20)
        start = moment.replace(minute=0, second=0, microsecond=0)
        return start + datetime.timedelta(hours=1) if start < moment else start

    async def http(self, method, path, body=None, user=None):
        return await asyncio.to_thread(fetch, self.url + path, method, body, self.tokens.headers(user))

    async def book(self, user, socket, expect=201):
        slot = {"station": STATION, "socket": socket, "date": self.hour.date().isoformat(), "hour": self.hour.hour}
        code, _, booking = await self.http("POST", "/reservations", slot, user)
        self.expect(f"user {user} books {socket} at {self.hour:%H}:00: {expect}", code == expect, f"{code} {booking}")
        return booking if code == 201 else None

    async def connect(self, station=STATION, password=None, subprotocols=("ocpp2.0.1",), headers=None):
        password = self.passwords[station] if password is None else password
        return await websockets.connect(
            f"{self.ws_url}/ocpp/{station}", subprotocols=list(subprotocols), open_timeout=10,
            additional_headers=basic(station, password) if headers is None else headers, max_size=2**20)

    async def station(self):
        connection = await self.connect()
        self.expect("the upgrade answers the subprotocol ocpp2.0.1", connection.subprotocol == "ocpp2.0.1",
                    repr(connection.subprotocol))
        station = Station(STATION, connection)
        station.task = asyncio.create_task(station.serve())
        return station

    async def reserved(self, station, booking, socket, what):
        """Expects booking's ReserveNow on `station`: EVSE, token, expiry; and its `charger`."""
        rid = reservation_id(booking["id"])
        sent = await station.wait_for("ReserveNow", rid)
        self.expect(f"{what}: ReserveNow {rid} within {WAIT} s", sent is not None, repr(station.received))
        if sent is None:
            return rid
        expiry = parse(booking["start"]) + datetime.timedelta(seconds=self.grace)
        self.expect(f"{what}: ReserveNow at EVSE {EVSES[socket]}", sent["evse"] == EVSES[socket], repr(sent))
        self.expect(f"{what}: ReserveNow idToken is the user, Central",
                    sent["id_token"] == {"id_token": str(booking["user"]), "type": "Central"}, repr(sent))
        self.expect(f"{what}: ReserveNow expires at start + grace", parse(sent["expiry"]) == expiry, repr(sent))
        await asyncio.sleep(0.5)  # the station's answer reaches the bridge
        code, _, shown = await self.http("GET", f"/bookings/{booking['id']}", user=booking["user"])
        charger = (shown or {}).get("charger", {})
        self.expect(f"{what}: GET shows its charger", code == 200 and charger.get("reservationId") == rid
                    and charger.get("station") == STATION and charger.get("status") == "accepted"
                    and charger.get("evse") == {"evseId": EVSES[socket], "connectorId": 1}, f"{code} {shown}")
        return rid


async def reservations(c, station):
    booking = await c.book(9101, "A")
    if not booking:
        return
    rid = await c.reserved(station, booking, "A", "booked")
    code, _, _ = await c.http("DELETE", f"/bookings/{booking['id']}", user=9101)
    c.expect("the booking is cancelled over HTTP", code == 204, str(code))
    cancel = await station.wait_for("CancelReservation", rid)
    c.expect(f"cancelled: CancelReservation {rid} within {WAIT} s", cancel is not None, repr(station.received))


async def faults(c, station):
    booking = await c.book(9102, "B")
    if not booking:
        return
    rid = await c.reserved(station, booking, "B", "on B")
    await station.status(EVSES["B"], ConnectorStatusEnumType.faulted)
    code, _, shown = await c.http("GET", f"/bookings/{booking['id']}", user=9102)
    c.expect("Faulted: the booking is displaced, socketFaulted", code == 200 and shown["status"] == "displaced"
             and shown.get("charger", {}).get("displacedBecause") == "socketFaulted", f"{code} {shown}")
    c.expect(f"Faulted: CancelReservation {rid}", await station.wait_for("CancelReservation", rid) is not None,
             repr(station.received))
    await c.book(9103, "B", expect=422)
    await station.status(EVSES["B"], ConnectorStatusEnumType.available)
    await c.book(9103, "B")


async def check_in(c, station):
    """Started checks in on the coded socket (the service presents its code); Ended checks out."""
    booking = await c.book(9104, CODED)
    if not booking:
        return
    await c.reserved(station, booking, CODED, f"on {CODED}")
    path = f"/bookings/{booking['id']}"
    code, _, refused = await c.http("POST", path + "/check-in", {}, user=9104)
    c.expect(f"{CODED} has an access code: a check-in over HTTP without it is 422 wrongAccessCode",
             code == 422 and (refused or {}).get("reason") == "wrongAccessCode", f"{code} {refused}")
    # User ids are not secret: only the token ReserveNow sends (Central, the id as printed) names a user.
    for token in ({"id_token": "9104", "type": "KeyCode"}, {"id_token": "9104", "type": "ISO14443"},
                  {"id_token": "09104", "type": "Central"}):
        answer = await station.call(call.Authorize(id_token=token))
        c.expect(f"Authorize {token}: Unknown, not the user's token",
                 answer is not None and (answer.id_token_info or {}).get("status") == "Unknown", repr(answer))
    code, _, shown = await c.http("GET", path, user=9104)
    c.expect("a typed code or a card's number checks nothing in", code == 200 and not shown.get("checkedInAt"),
             f"{code} {shown}")
    answer = await station.call(call.TransactionEvent(
        event_type=TransactionEventEnumType.started, timestamp=iso(datetime.datetime.now(datetime.timezone.utc)),
        trigger_reason=TriggerReasonEnumType.authorized, seq_no=0, transaction_info={"transaction_id": "tx-9104"},
        id_token={"id_token": "9104", "type": "Central"}, evse={"id": EVSES[CODED], "connector_id": 1}))
    c.expect("TransactionEvent Started: the token is accepted",
             answer is not None and (answer.id_token_info or {}).get("status") == "Accepted", repr(answer))
    code, _, shown = await c.http("GET", path, user=9104)
    c.expect("TransactionEvent Started: the booking is checked in", code == 200 and shown.get("checkedInAt")
             and shown["status"] == "active", f"{code} {shown}")
    ended = await station.call(call.TransactionEvent(
        event_type=TransactionEventEnumType.ended, timestamp=iso(datetime.datetime.now(datetime.timezone.utc)),
        trigger_reason=TriggerReasonEnumType.ev_departed, seq_no=1,
        transaction_info={"transaction_id": "tx-9104", "stopped_reason": "EVDisconnected"},
        evse={"id": EVSES[CODED], "connector_id": 1}))
    c.expect("TransactionEvent Ended without a token: answered without idTokenInfo",
             ended is not None and ended.id_token_info is None, repr(ended))
    code, _, done = await c.http("GET", path, user=9104)
    c.expect("TransactionEvent Ended: the booking is checked out, fulfilled",
             code == 200 and done["status"] == "fulfilled" and done.get("checkedOutAt")
             and done.get("checkedInAt") == (shown or {}).get("checkedInAt"), f"{code} {done}")
    code, _, again = await c.http("POST", path + "/check-out", {}, user=9104)
    c.expect("a check-out over HTTP after it is 409 alreadyCheckedOut",
             code == 409 and (again or {}).get("reason") == "alreadyCheckedOut", f"{code} {again}")
    await c.book(9106, CODED)  # the hour the check-out freed


async def reconnections(c, station):
    booking = await c.book(9105, "D")
    if not booking:
        return station
    rid = await c.reserved(station, booking, "D", "on D (an ocpp address)")
    await station._connection.close()
    station.task.cancel()
    again = await c.station()
    c.expect("a reconnected station is sent the outstanding ReserveNow",
             await again.wait_for("ReserveNow", rid) is not None, repr(again.received))
    newer = await c.station()
    c.expect("a second connection is sent them too", await newer.wait_for("ReserveNow", rid) is not None,
             repr(newer.received))
    try:
        await asyncio.wait_for(again._connection.wait_closed(), WAIT)
        code = again._connection.close_code
    except asyncio.TimeoutError:
        code = None
    c.expect("the first of two connections is closed (1008)", code == 1008, repr(code))
    return newer


async def refusals(c):
    password = c.passwords[STATION]
    cases = [
        ("a wrong password", dict(password=password + "x"), 401),
        ("an unknown station", dict(station="NOWHERE-1", password=password), 401),
        ("a station without a password", dict(station="IST-2", password=password), 401),
        ("no credentials", dict(headers={}), 401),
        ("another username", dict(headers=basic(RAW_STATION, c.passwords[RAW_STATION])), 401),
        ("no ocpp2.0.1 subprotocol", dict(subprotocols=("ocpp1.6",)), 400),
    ]
    for name, arguments, status in cases:
        await refused(c, name, c.connect(**arguments), status)
    other = websockets.connect(f"{c.ws_url}/stations", subprotocols=["ocpp2.0.1"], open_timeout=10)
    await refused(c, "an upgrade off /ocpp/", other, 404)
    await asyncio.to_thread(handshakes, c)


def handshakes(c):
    """Requests that are no WebSocket opening handshake (RFC 6455, 4.2.1), with the station's
    right credentials, over a raw socket: refused with a problem body, never 101 (a POST was
    upgraded; another version or no key was answered 404, as if /ocpp/ were not there)."""
    import socket
    auth = base64.b64encode(f"{RAW_STATION}:{c.passwords[RAW_STATION]}".encode()).decode()
    key = base64.b64encode(os.urandom(16)).decode()
    host, port = c.url[len("http://"):].split(":")
    handshake = f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
    for name, method, fields, status in [
        ("a POST", "POST", handshake + "Content-Length: 0\r\n", 400),
        ("version 8", "GET", f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 8\r\n", 426),
        ("no version", "GET", f"Sec-WebSocket-Key: {key}\r\n", 426),
        ("no key", "GET", "Sec-WebSocket-Version: 13\r\n", 400),
        ("a key of 4 bytes", "GET", "Sec-WebSocket-Key: AAAAAA==\r\nSec-WebSocket-Version: 13\r\n", 400),
        # A body (these were switched to WebSocket with the body unread: a connection that
        # answered nothing, was never closed, and held its descriptor after the client left).
        ("a body", "GET", handshake + "Content-Length: 5\r\n", 400),
        ("a chunked body", "GET", handshake + "Transfer-Encoding: chunked\r\n", 400),
    ]:
        body = {"a body": "hello", "a chunked body": "5\r\nhello\r\n0\r\n\r\n"}.get(name, "")
        with socket.create_connection((host, int(port)), timeout=10) as connection:
            connection.sendall((f"{method} /ocpp/{RAW_STATION} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                                f"Connection: Upgrade\r\n{fields}Sec-WebSocket-Protocol: ocpp2.0.1\r\n"
                                f"Authorization: Basic {auth}\r\n\r\n{body}").encode())
            data = b""
            try:
                while chunk := connection.recv(65536):
                    data += chunk
            except OSError:
                pass
        head, _, body = data.partition(b"\r\n\r\n")
        try:
            problem = json.loads(body)
        except ValueError:
            problem = {}
        version = status != 426 or b"\r\nsec-websocket-version: 13" in head.lower()
        c.expect(f"{name}: refused with {status} and a problem body" + (", naming version 13" if status == 426 else ""),
                 head.startswith(f"HTTP/1.1 {status} ".encode()) and problem.get("status") == status and version,
                 repr(data[:300]))


async def refused(c, name, connecting, status):
    try:
        connection = await connecting
        await connection.close()
        c.fail(f"{name}: the upgrade is refused ({status}), not accepted")
    except websockets.exceptions.InvalidStatus as error:
        response = error.response
        body = json.loads(response.body or b"{}")
        c.expect(f"{name}: refused with {status} and a problem body", response.status_code == status
                 and body.get("status") == status and body.get("reason"), f"{response.status_code} {body}")
        if status == 401:
            c.expect(f"{name}: a Basic challenge", (response.headers.get("WWW-Authenticate") or "").startswith(
                "Basic "), repr(response.headers.get("WWW-Authenticate")))


async def malformed(c):
    connection = await c.connect(station=RAW_STATION)
    for name, text, expected in [
        ("not JSON", "not json", ("-1", "RpcFrameworkError")),
        ("a BootNotification without chargingStation", json.dumps([2, "m1", "BootNotification", {"reason": 5}]),
         ("m1", None)),
        ("a wrong type", json.dumps([2, "m2", "StatusNotification", {"timestamp": 1, "connectorStatus": "Faulted",
                                                                     "evseId": "one", "connectorId": 1}]),
         ("m2", None)),
        ("an unknown action", json.dumps([2, "m3", "Frobnicate", {}]), ("m3", "NotImplemented")),
        # Readers differ on which of two values counts: Python's keeps the last, JSONDecoder the first.
        ("a member named twice", '[2, "m5", "Authorize", {"idToken": {"idToken": "A", "type": "Central", '
         '"idToken": "B"}}]', ("m5", "FormatViolation")),
    ]:
        await connection.send(text)
        answer = json.loads(await asyncio.wait_for(connection.recv(), WAIT))
        c.expect(f"{name}: a CALLERROR", answer[0] == 4 and answer[1] == expected[0]
                 and (expected[1] is None or answer[2] == expected[1]), repr(answer))
    await connection.send(json.dumps([2, "m4", "Heartbeat", {}]))
    answer = json.loads(await asyncio.wait_for(connection.recv(), WAIT))
    c.expect("then a Heartbeat is answered", answer[:2] == [3, "m4"] and "currentTime" in answer[2], repr(answer))
    await closed_by(c, "a binary message", connection, b"\x00\x01", 1003)
    await closed_by(c, "a 70 KiB message", await c.connect(station=RAW_STATION), "x" * (70 << 10), 1009)


async def long_action(c):
    connection = await c.connect(station=RAW_STATION)
    await connection.send(json.dumps([2, "m5", "A" * 60000, {}]))
    answer = json.loads(await asyncio.wait_for(connection.recv(), WAIT))
    c.expect("an action of 60,000 characters: NotImplemented, its description cut at 255",
             answer[:3] == [4, "m5", "NotImplemented"] and len(answer[3]) <= 255, repr(answer)[:200])
    await connection.close()


UNREAD_CALLS = 30000


def unread_answers(c):
    """A station (raw socket, a 4 KiB receive buffer) sends UNREAD_CALLS calls of an unknown
    action, each answered by a CALLERROR of about 300 bytes (more than the kernel's and NIO's
    buffers hold), and reads nothing: the service must close the connection before answering
    them all."""
    import socket, struct
    connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    host, port = c.url[len("http://"):].split(":")
    connection.connect((host, int(port)))
    auth = base64.b64encode(f"{RAW_STATION}:{c.passwords[RAW_STATION]}".encode()).decode()
    connection.sendall((f"GET /ocpp/{RAW_STATION} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                        f"Connection: Upgrade\r\nSec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\n"
                        f"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: ocpp2.0.1\r\n"
                        f"Authorization: Basic {auth}\r\n\r\n").encode())
    payload = json.dumps([2, "u", "Unknown" + "A" * 300, {}]).encode()
    mask = os.urandom(4)
    frame = (struct.pack("!BBH", 0x81, 0xFE, len(payload)) + mask
             + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
    connection.settimeout(15)
    sent = 0
    try:
        for _ in range(UNREAD_CALLS):
            connection.sendall(frame)
            sent += 1
    except OSError:
        pass  # closed by the service while still sending: what is checked below
    time.sleep(2)
    received, closed = 0, False
    connection.settimeout(5)
    try:
        while chunk := connection.recv(1 << 16):
            received += chunk.count(b'"NotImplemented"')
        closed = True
    except ConnectionResetError:
        closed = True
    except OSError:
        pass
    connection.close()
    c.expect(f"a station reading none of its answers is disconnected ({sent} calls sent, {received} answers "
             "read afterwards)", closed and received < UNREAD_CALLS, f"closed: {closed}")


async def closed_by(c, name, connection, message, code):
    await connection.send(message)
    try:
        await asyncio.wait_for(connection.recv(), WAIT)
        c.fail(f"{name}: the connection is closed ({code}), not answered")
    except websockets.exceptions.ConnectionClosed as closed:
        c.expect(f"{name}: the connection is closed ({code})", closed.rcvd is not None and closed.rcvd.code == code,
                 repr(closed.rcvd))
    except asyncio.TimeoutError:
        c.fail(f"{name}: the connection is closed ({code}) within {WAIT} s")


async def run(c):
    await refusals(c)
    station = await c.station()
    boot = await station.call(call.BootNotification(
        charging_station={"model": "ocpp_check", "vendor_name": "SlotScheduler"}, reason=BootReasonEnumType.power_up))
    c.expect("BootNotification is accepted", boot is not None and boot.status == "Accepted", repr(boot))
    for evse in EVSES.values():
        await station.status(evse, ConnectorStatusEnumType.available)
    await reservations(c, station)
    await faults(c, station)
    await check_in(c, station)
    station = await reconnections(c, station)
    await malformed(c)
    await long_action(c)
    await asyncio.to_thread(unread_answers, c)
    await station._connection.close()
    code, _, body = await c.http("GET", "/health/live")
    c.expect("the service is still up", code == 200 and body == {"status": "live"}, f"{code} {body}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url")
    parser.add_argument("--secret", metavar="FILE", help="the service's HS256 secret (--auth hs256:FILE)")
    parser.add_argument("--passwords", metavar="FILE", help="the service's --ocpp-passwords")
    parser.add_argument("--scenario", metavar="FILE", help="the scenario the service serves (its no-show grace)")
    parser.add_argument("--prepare", nargs=2, metavar=("SCENARIO", "DIR"),
                        help="write DIR/scenario.json and DIR/passwords.json for the service, and exit")
    args = parser.parse_args()
    if args.prepare:
        prepare(*args.prepare)
        return 0
    if not (args.url and args.secret and args.passwords and args.scenario):
        parser.error("--url, --secret, --passwords and --scenario are required")
    with open(args.passwords) as f:
        passwords = json.load(f)
    with open(args.scenario) as f:
        grace = json.load(f)["policy"].get("noShowGraceSeconds", 3600)
    c = Checker(args.url, read_secret(args.secret), passwords, grace)
    asyncio.run(run(c))
    return c.report()


if __name__ == "__main__":
    sys.exit(main())
