#!/usr/bin/env python3
"""A small booking API for teaching, correct unless a fault is chosen (standard library only).

    python3 backend.py --port 0 [--scenario FILE] [--limit 2] [--notice 900] [--cutoff 0] [--hold 600]
                       [--early 900] [--grace 3600] [--zone Europe/London] [--fault FAULT] [--flaky-reads]

The policy comes from each flag, else from --scenario's policy, else from the rules' defaults
shown; --scenario also gives the sockets' access codes.

It prints "listening on HOST:PORT". Its API looks nothing like the example service's, so that
the simulator's adapter (adapter.json here) does the translating:

    PUT    /slots/{station}/{socket}/{date}/{hour}   X-User: 17   {"key": "..."}
           201 {"reservation": {"ref": "r1"}}; 200 the same for a repeated key; 422 {"error": "key reused"}
           for the key sent again with another slot;
           409 {"error": "taken"|"limit"}; 422 {"error": "past"|"too soon"} (the hour starts before now + notice)
    DELETE /reservations/{ref}                      X-User: 17   204; 404 {"error": "unknown"};
           409 {"error": "too late"} (the hour starts within --cutoff seconds)
    POST   /holds/{station}/{socket}/{date}/{hour}  X-User: 17   201 {"hold": {"id": "h2"}}; 409, 422 as PUT;
           409 {"error": "hold limit"} (the slot is the user's for --hold seconds, and the hold counts
           toward the limit; a user has at most --max-holds live holds)
    POST   /holds/{id}/confirm                      X-User: 17   201 {"reservation": {"ref": "r3"}};
           200 the same again; 404 {"error": "unknown hold"} (expired, released or another's)
    DELETE /holds/{id}                              X-User: 17   204; 404 {"error": "unknown hold"}
    POST   /reservations/{ref}/check-in             X-User: 17   {"code": "..."}   204 (again: 204);
           404 {"error": "unknown"}; 422 {"error": "wrong code"} (the socket's code in --scenario's catalog,
           checked before a repeat and the window); 409 {"error": "not open"|"closed"|"cancelled"|"fulfilled"}
           (open from --early seconds before the hour to --grace seconds after it starts)
    POST   /reservations/{ref}/check-out            X-User: 17   [{"parkedAt": {"lat": 56.46, "lon": -2.97}}]
           204 (the session ends, the slot is free, and the station's vehicle is where it was parked);
           404 {"error": "unknown"}; 409 {"error": "not checked in"|"cancelled"|"fulfilled"};
           400 {"error": "bad place"} (not a point on Earth)
    GET    /stations                                X-User: 17   200 [{"id", "place": {"lat", "lon"}}] (the
           scenario's stations, each where its vehicle was last parked; "place" absent without one)
    GET    /people/{user}/reservations   X-User: 17 200 [{"ref", "where": {station, socket, date, hour}, "state"}];
           another user's list: 404 {"error": "unknown"}

Each fault is one classic bug, a line or two away from the correct code:
- check-then-insert: the slot is checked, then booked in a second step (Cal.com #13397);
- limit-outside-lock: the user's count is read before the lock is taken;
- ack-not-stored: one reservation in 40 is answered 201 and never stored;
- ignored-keys: the idempotency key is not looked at, so a retry is a new request;
- key-for-any-request: a key sent again answers its first booking whatever slot the request
  names, so a client that reuses a key believes it booked an hour it did not (the IETF
  Idempotency-Key draft answers 422; cal.com #29291's sibling);
- ignores-notice: the time rule is not applied, so an hour already begun (or gone) is booked;
- cancel-keeps-slot: a cancel frees the booking but not its slot, which is refused as taken after;
- reserve-ignores-holds: a reservation checks the slot's bookings but not its holds, so a held
  slot is booked by someone else, and the hold's confirm books it a second time;
- stored-an-hour-late: one reservation in 25 is stored an hour after the one asked for (the
  shape of a time-zone or DST bug), answered 201 all the same;
- lists-anyones: anyone reads anyone's list of reservations (OWASP API1);
- cancel-anyones: a cancel does not check whose booking it is (OWASP API1), so anyone who learns
  a reservation's ref cancels it;
- checkout-without-checkin: a check-out does not ask whether the session began, so a ride that
  never started ends (and its slot is freed);
- holds-without-cap: a hold does not count the user's live holds, so one user holds more slots
  at once than the policy's maxHoldsPerUser (within the booking limit still);
- ignores-cutoff: a cancel does not look at the clock, so a slot is given up (and its user's
  limit freed) minutes before its hour, past the policy's cancellation cutoff;
- ignores-access-code: a check-in does not compare the code it is shown with the socket's, so
  anyone who knows a booking's ref starts the ride at any vehicle or charger;
- ride-ends-in-place: a check-out ends the ride but forgets where the vehicle was parked, so the
  next driver is sent to where the ride began.
With --flaky-reads (not a fault: what a loaded server or a proxy does now and then), each user's
first read of their list is answered 503 and their third gets no answer (the connection closes):
a client that reads again gets the list. With --endless-writes (not a fault either: a broken proxy
or a hostile server), every PUT and POST is answered 200 with a chunked body that never ends, and
nothing is changed: the client must give up on the answer, not hold it in memory. With
--list-twice, every list names each booking twice: a client must not read that as two bookings of
one slot.
Of these, cancel-keeps-slot, reserve-ignores-holds, ignores-notice, checkout-without-checkin,
ignores-cutoff, ignores-access-code and holds-without-cap break the rules, not what `--check safety` holds any API to: `--check rules` finds them.
"""

import argparse
import json
import re
import sys
import threading
import time
from datetime import date, datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from zoneinfo import ZoneInfo


def place(value):
    """Whether a parked place is a point on Earth: {"lat": -90...90, "lon": -180...180}."""
    return (
        isinstance(value, dict)
        and all(isinstance(value.get(k), (int, float)) and not isinstance(value.get(k), bool) for k in ("lat", "lon"))
        and -90 <= value["lat"] <= 90
        and -180 <= value["lon"] <= 180
    )


class Ledger:
    def __init__(
        self, limit, fault, notice, zone, hold_seconds, early=900, grace=3600, codes=None, cutoff=3600, max_holds=1,
        places=None,
    ):
        self.limit, self.fault, self.notice, self.zone = limit, fault, notice, ZoneInfo(zone)
        self.cutoff, self.max_holds = cutoff, max_holds
        self.codes = codes or {}  # (station, socket) -> the socket's access code
        self.places = dict(places or {})  # station -> {"lat", "lon"}, where its vehicle is
        self.stations = []  # the scenario's station ids, as GET /stations lists them
        self.hold_seconds, self.early, self.grace = hold_seconds, early, grace
        self.lock = threading.Lock()
        self.bookings = {}  # ref -> {"ref", "user", "where", "state"}
        self.holds = {}  # id -> {"id", "user", "where", "expires", "booking"}, while live
        self.holder = {}  # slot -> ref of its booking, or id of its hold
        self.keys = {}  # (user, key) -> (ref, the slot it was sent for)
        self.count = 0

    def live(self, user):
        """The user's booked reservations and live holds (a confirmed hold is its booking)."""
        self.expire()
        booked = sum(1 for b in self.bookings.values() if b["user"] == user and b["state"] == "booked")
        return booked + sum(1 for h in self.holds.values() if h["user"] == user and h["booking"] is None)

    def expire(self):
        """Forgets the holds whose time is up, and frees their slots."""
        now = time.monotonic()
        for ident in [i for i, h in self.holds.items() if h["booking"] is None and h["expires"] <= now]:
            hold = self.holds.pop(ident)
            if self.holder.get(tuple(hold["where"].values())) == ident:
                del self.holder[tuple(hold["where"].values())]

    def start(self, where):
        """When the slot's hour starts, in seconds since the epoch."""
        local = datetime.combine(date.fromisoformat(where["date"]), datetime.min.time()).replace(hour=where["hour"])
        return local.replace(tzinfo=self.zone).timestamp()

    def too_late(self, where):
        """Why the slot's hour cannot be booked now (it starts before now + notice), or None."""
        start = self.start(where)
        now = datetime.now(timezone.utc).timestamp()
        if start < now:
            return "past"
        return "too soon" if start < now + self.notice else None

    def reserve(self, user, where, key):
        slot = tuple(where.values())
        if self.fault == "limit-outside-lock":
            over = self.live(user) >= self.limit
            time.sleep(0.005)
        with self.lock:
            if self.fault != "ignored-keys" and (user, key) in self.keys:
                ref, sent_for = self.keys[(user, key)]
                if sent_for != slot and self.fault != "key-for-any-request":
                    return 422, "key reused"
                return 200, self.bookings[ref]
            if self.fault != "ignores-notice" and self.too_late(where):
                return 422, self.too_late(where)
            self.expire()
            held = self.holder.get(slot, "")
            if held.startswith("r") or held.startswith("h") and self.fault != "reserve-ignores-holds":
                return 409, "taken"
            if self.fault == "limit-outside-lock":
                if over:
                    return 409, "limit"
            elif self.live(user) >= self.limit:
                return 409, "limit"
            self.count += 1
            ref = f"r{self.count}"
            if self.fault == "ack-not-stored" and self.count % 40 == 0:
                return 201, {"ref": ref, "user": user, "where": where, "state": "booked"}
            if self.fault == "check-then-insert":
                self.lock.release()
                time.sleep(0.005)
                self.lock.acquire()
            if self.fault == "stored-an-hour-late" and self.count % 25 == 0 and where["hour"] < 23:
                where, slot = dict(where, hour=where["hour"] + 1), (*slot[:3], where["hour"] + 1)
            booking = {"ref": ref, "user": user, "where": where, "state": "booked"}
            self.bookings[ref], self.holder[slot], self.keys[(user, key)] = booking, ref, (ref, slot)
            return 201, booking

    def cancel(self, user, ref):
        with self.lock:
            booking = self.bookings.get(ref)
            owner = booking is not None and (booking["user"] == user or self.fault == "cancel-anyones")
            if not owner or booking["state"] != "booked":
                return 404, "unknown"
            now = datetime.now(timezone.utc).timestamp()
            if now >= self.start(booking["where"]) - self.cutoff and self.fault != "ignores-cutoff":
                return 409, "too late"
            booking["state"] = "cancelled"
            if self.fault != "cancel-keeps-slot":
                self.holder.pop(tuple(booking["where"].values()), None)
            return 204, None

    def active(self, user, ref):
        """The user's booked reservation `ref`, or why not: (booking, None) or (None, (status, error)).
        Another user's is answered as a missing one."""
        booking = self.bookings.get(ref)
        if booking is None or booking["user"] != user:
            return None, (404, "unknown")
        return (booking, None) if booking["state"] == "booked" else (None, (409, booking["state"]))

    def check_in(self, user, ref, code):
        with self.lock:
            booking, refusal = self.active(user, ref)
            if refusal:
                return refusal
            expected = self.codes.get((booking["where"]["station"], booking["where"]["socket"]))
            if expected is not None and code != expected and self.fault != "ignores-access-code":
                return 422, "wrong code"
            if booking.get("checked_in"):
                return 204, None
            now, start = datetime.now(timezone.utc).timestamp(), self.start(booking["where"])
            if now < start - self.early:
                return 409, "not open"
            if now >= start + self.grace:
                return 409, "closed"
            booking["checked_in"] = True
            return 204, None

    def check_out(self, user, ref, parked_at=None):
        with self.lock:
            booking, refusal = self.active(user, ref)
            if refusal:
                return refusal
            if not booking.get("checked_in") and self.fault != "checkout-without-checkin":
                return 409, "not checked in"
            booking["state"] = "fulfilled"
            self.holder.pop(tuple(booking["where"].values()), None)
            if parked_at is not None and self.fault != "ride-ends-in-place":
                self.places[booking["where"]["station"]] = parked_at
            return 204, None

    def hold(self, user, where):
        slot = tuple(where.values())
        with self.lock:
            if self.too_late(where):
                return 422, self.too_late(where)
            self.expire()
            if slot in self.holder:
                return 409, "taken"
            if self.live(user) >= self.limit:
                return 409, "limit"
            holding = sum(1 for h in self.holds.values() if h["user"] == user and h["booking"] is None)
            if holding >= self.max_holds and self.fault != "holds-without-cap":
                return 409, "hold limit"
            self.count += 1
            ident = f"h{self.count}"
            expires = time.monotonic() + self.hold_seconds
            self.holds[ident] = {"id": ident, "user": user, "where": where, "expires": expires, "booking": None}
            self.holder[slot] = ident
            return 201, {"id": ident}

    def confirm(self, user, ident):
        with self.lock:
            self.expire()
            hold = self.holds.get(ident)
            if hold is None or hold["user"] != user:
                return 404, "unknown hold"
            if hold["booking"] is not None:
                return 200, self.bookings[hold["booking"]]
            self.count += 1
            ref = f"r{self.count}"
            booking = {"ref": ref, "user": user, "where": hold["where"], "state": "booked"}
            self.bookings[ref], self.holder[tuple(hold["where"].values())], hold["booking"] = booking, ref, ref
            return 201, booking

    def release(self, user, ident):
        with self.lock:
            self.expire()
            hold = self.holds.get(ident)
            if hold is None or hold["user"] != user or hold["booking"] is not None:
                return 404
            del self.holds[ident]
            self.holder.pop(tuple(hold["where"].values()), None)
            return 204


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    ledger = None
    flaky_reads = False
    endless_writes = False
    list_twice = False
    # Each user's count of list reads, for --flaky-reads.
    reads = {}

    def endless(self):
        """--endless-writes: a 200 whose chunked body never ends, the change not made."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        chunk = b" " * 65536
        try:
            while True:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        except OSError:
            self.close_connection = True

    def log_message(self, *args):
        pass

    def answer(self, status, value=None):
        body = json.dumps(value).encode() if value is not None else b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def user(self):
        text = self.headers.get("X-User", "")
        return int(text) if text.isdigit() else None

    def do_PUT(self):
        if self.endless_writes:
            return self.endless()
        match = re.fullmatch(r"/slots/([^/]+)/([^/]+)/(\d{4}-\d\d-\d\d)/(\d+)", self.path)
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if not match or self.user() is None:
            return self.answer(400, {"error": "bad request"})
        where = dict(zip(("station", "socket", "date", "hour"), match.groups()))
        where["hour"] = int(where["hour"])
        status, result = self.ledger.reserve(self.user(), where, body.get("key"))
        if status in (409, 422):
            return self.answer(status, {"error": result})
        self.answer(status, {"reservation": {"ref": result["ref"]}})

    def do_POST(self):
        if self.endless_writes:
            return self.endless()
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        except ValueError:
            return self.answer(400, {"error": "bad request"})
        slot = re.fullmatch(r"/holds/([^/]+)/([^/]+)/(\d{4}-\d\d-\d\d)/(\d+)", self.path)
        confirm = re.fullmatch(r"/holds/(h\d+)/confirm", self.path)
        session = re.fullmatch(r"/reservations/([^/]+)/(check-in|check-out)", self.path)
        if self.user() is None or not (slot or confirm or session):
            return self.answer(400, {"error": "bad request"})
        if session:
            ref, step = session.groups()
            if step == "check-in":
                code = body.get("code") if isinstance(body, dict) else None
                status, error = self.ledger.check_in(self.user(), ref, code)
            else:
                parked = body.get("parkedAt") if isinstance(body, dict) else None
                if parked is not None and not place(parked):
                    return self.answer(400, {"error": "bad place"})
                status, error = self.ledger.check_out(self.user(), ref, parked)
            return self.answer(status, None if status == 204 else {"error": error})
        if confirm:
            status, result = self.ledger.confirm(self.user(), confirm.group(1))
            ok = {"reservation": {"ref": result["ref"]}} if status < 300 else None
        else:
            where = dict(zip(("station", "socket", "date", "hour"), slot.groups()))
            where["hour"] = int(where["hour"])
            status, result = self.ledger.hold(self.user(), where)
            ok = {"hold": result} if status < 300 else None
        self.answer(status, ok or {"error": result})

    def do_DELETE(self):
        hold = re.fullmatch(r"/holds/(h\d+)", self.path)
        if hold:
            status = self.ledger.release(self.user(), hold.group(1))
            return self.answer(status, None if status == 204 else {"error": "unknown hold"})
        match = re.fullmatch(r"/reservations/(r\d+)", self.path)
        status, error = self.ledger.cancel(self.user(), match.group(1)) if match else (404, "unknown")
        self.answer(status, None if status == 204 else {"error": error})

    def do_GET(self):
        if self.path == "/stations":
            with self.ledger.lock:
                stations = [
                    {"id": station, **({"place": self.ledger.places[station]} if station in self.ledger.places else {})}
                    for station in self.ledger.stations
                ]
            return self.answer(200, stations)
        match = re.fullmatch(r"/people/(\d+)/reservations", self.path)
        if match and self.flaky_reads:
            with self.ledger.lock:
                count = self.reads.get(match.group(1), 0)
                self.reads[match.group(1)] = count + 1
            if count == 0:
                return self.answer(503, {"error": "busy"})
            if count == 2:
                self.close_connection = True
                return
        # Another user's list is answered as a missing one.
        mine = match and (self.user() == int(match.group(1)) or self.ledger.fault == "lists-anyones")
        if not mine:
            return self.answer(404, {"error": "unknown"})
        with self.ledger.lock:
            mine = [b for b in self.ledger.bookings.values() if b["user"] == int(match.group(1))]
            listed = [{"ref": b["ref"], "where": b["where"], "state": b["state"]} for b in mine]
            self.answer(200, listed + listed if self.list_twice else listed)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0)
    # The policy: each flag, else the --scenario's policy, else the rules' default.
    parser.add_argument("--limit", type=int, help="upcoming bookings and live holds a user may have (2)")
    parser.add_argument("--notice", type=int, help="seconds of notice a booking needs (900)")
    parser.add_argument("--cutoff", type=int, help="seconds before its hour a booking can no longer be cancelled (0)")
    parser.add_argument("--zone", default="Europe/London", help="the station's time zone")
    parser.add_argument("--hold", type=float, help="seconds a hold keeps its slot (600)")
    parser.add_argument("--max-holds", type=int, help="live holds a user may have (1)")
    parser.add_argument("--early", type=int, help="seconds before its hour a booking may check in (900)")
    parser.add_argument("--grace", type=int, help="seconds after its start a check-in closes (3600)")
    parser.add_argument(
        "--fault",
        choices=[
            "check-then-insert", "limit-outside-lock", "ack-not-stored", "ignored-keys", "ignores-notice",
            "cancel-keeps-slot", "reserve-ignores-holds", "stored-an-hour-late", "cancel-anyones", "lists-anyones",
            "checkout-without-checkin", "ignores-cutoff", "ignores-access-code", "key-for-any-request",
            "holds-without-cap", "ride-ends-in-place",
        ],
    )
    parser.add_argument(
        "--scenario", help="a scenario file: its policy, and its sockets' accessCode, which a check-in must show"
    )
    parser.add_argument(
        "--flaky-reads", action="store_true", help="each user's first list read 503, the third unanswered"
    )
    parser.add_argument(
        "--endless-writes", action="store_true",
        help="every PUT and POST answered 200 with a chunked body that never ends, the change not made",
    )
    parser.add_argument("--list-twice", action="store_true", help="every list names each booking twice")
    args = parser.parse_args()
    Handler.flaky_reads = args.flaky_reads
    Handler.list_twice = args.list_twice
    Handler.endless_writes = args.endless_writes
    codes, policy, places, stations = {}, {}, {}, []
    if args.scenario:
        with open(args.scenario) as file:
            scenario = json.load(file)
        policy = scenario.get("policy", {})
        for station in scenario["stations"]:
            stations.append(station["id"])
            if "coordinate" in station:
                places[station["id"]] = {"lat": station["coordinate"]["latitude"], "lon": station["coordinate"]["longitude"]}
            for socket in station["sockets"]:
                if "accessCode" in socket:
                    codes[(station["id"], socket["id"])] = socket["accessCode"]

    def setting(flag, name, default):
        return flag if flag is not None else policy.get(name, default)

    Handler.ledger = Ledger(
        setting(args.limit, "maxUpcomingBookings", 2), args.fault, setting(args.notice, "minimumNoticeSeconds", 900),
        args.zone, setting(args.hold, "holdSeconds", 600), setting(args.early, "earlyCheckInSeconds", 900),
        setting(args.grace, "noShowGraceSeconds", 3600), codes, setting(args.cutoff, "cancellationCutoffSeconds", 0),
        setting(args.max_holds, "maxHoldsPerUser", 1), places,
    )
    Handler.ledger.stations = stations
    ThreadingHTTPServer.request_queue_size = 1024  # the simulator opens its connections at once
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print(f"listening on 127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
