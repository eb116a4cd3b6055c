#!/usr/bin/env python3
"""Load and check a running BookingService (Examples/BookingService), standard library only.

Starts nothing: give it the URL of a running service (Scripts/ci.sh starts one with the bundled
scenario and stops it afterwards). Many concurrent users go for a few contended slots, with
request ids, replays, cancels, other users' bookings, unknown ids and bursts of one user's
reservations (limit + 5 at once: the --scenario's maxUpcomingBookings, or --limit); then the
script checks, from its own records and the service's answers:

  - every 201 is still there (GET answers 200, status active unless this script cancelled it),
    and the day views show booked exactly the slots the script holds (so it must be the only
    client of --station on the dates it books),
    and each user's GET /me/bookings (every page) lists exactly the bookings the script holds;
  - a replayed request id returns the original booking id (200), never a new booking;
  - another user's booking answers 404 with exactly the body of a booking that does not exist;
  - every answer has a status the contract allows, and every error body has reason and message.

Whether the rules allowed what was answered (one booking a slot, each user's limit, in a burst
too) it leaves to `schedule-sim run --target … --check rules`, which derives it from the model
(Scripts/ci.sh; Scenarios/service-limit-race.json races three users' limits).

Bounded: --seconds (default 60) for the load, a 10 s timeout per request. Exits 0 when every
check passed, 1 otherwise; the last line is "N passed, M failed".

    python3 Scripts/load_and_check.py --url http://127.0.0.1:8080 --secret SECRET_FILE [--users 150]
        [--scenario Scenarios/service.json | --limit N]

Each user acts with a bearer token of their own (HS256 under the service's secret, Scripts/tokens.py).

With a durable store (`--store journal:DIR` or a postgres:// URL), `--save FILE` keeps the client's records, and after the
service is killed (`kill -9`) and restarted on the same directory, `--verify FILE` checks that
every booking answered 201 is still there, in the status the client left it.
"""

import argparse
import datetime
import http.client
import json
import os
import random
import sys
import threading
import time
import urllib.parse

from privacy import same_as_missing
from tokens import Tokens, read_secret

# The scenario Scripts/ci.sh starts the service with.
BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Scenarios", "service.json")


class Client:
    """One keep-alive connection to one of the instances in `urls` (comma-separated, all serving
    one ledger), starting at `first`. After a dropped or refused connection it sends the request
    again, once to each instance in turn: a reservation carries its request id, so a second answer
    is the replay of what the first did, if anything (`retried` is then True). A request that
    times out is not sent again."""

    resent = 0  # requests sent again after a dropped or refused connection, by every client
    resent_lock = threading.Lock()

    def __init__(self, urls, tokens=None, first=0):
        self.targets = [urllib.parse.urlparse(url) for url in urls.split(",")]
        self.current = first % len(self.targets)
        self.conn = None
        self.tokens = tokens
        self.retried = False

    def request(self, method, path, body=None, headers=None, raw=None, user=None):
        """`user`: act as this user (their bearer token)."""
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        hdrs = {"Content-Type": "application/json"} if data is not None else {}
        hdrs.update(headers or {})
        if user is not None:
            hdrs.update(self.tokens.headers(user))
        self.retried = False
        attempts = 2 * len(self.targets)
        for attempt in range(attempts):
            try:
                if self.conn is None:
                    target = self.targets[self.current]
                    self.conn = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=60)
                self.conn.request(method, path, body=data, headers=hdrs)
                response = self.conn.getresponse()
                text = response.read()
                if response.getheader("Connection", "").lower() == "close":
                    self.conn.close()
                    self.conn = None
                parsed = None
                if text:
                    try:
                        parsed = json.loads(text)
                    except ValueError:
                        parsed = text
                return response.status, parsed
            except (ConnectionError, http.client.HTTPException, OSError) as error:
                if self.conn is not None:
                    self.conn.close()
                self.conn = None
                if attempt == attempts - 1 or isinstance(error, TimeoutError):
                    raise
                if attempt % 2 == 1 or isinstance(error, ConnectionRefusedError):
                    self.current = (self.current + 1) % len(self.targets)
                    time.sleep(0.1)
                self.retried = True
                with Client.resent_lock:
                    Client.resent += 1
        raise AssertionError("unreachable")


class Records:
    """Everything the users saw, under one lock; failures are collected, not raised."""

    def __init__(self):
        self.lock = threading.Lock()
        self.failures = []
        self.booked = {}  # booking id -> (user, slot key, request id)
        self.cancelled = set()
        self.replays = 0
        self.statuses = {}
        self.checks = 0

    def fail(self, text):
        with self.lock:
            if len(self.failures) < 200:
                self.failures.append(text)

    def saw(self, what, status, body):
        with self.lock:
            self.statuses[(what, status)] = self.statuses.get((what, status), 0) + 1
            self.checks += 1
        if status >= 400 and not (isinstance(body, dict) and isinstance(body.get("reason"), str)
                                  and isinstance(body.get("message"), str) and body["message"]):
            self.fail(f"{what}: {status} without reason and message: {body!r:.200}")


ALLOWED = {
    "reserve": {200, 201, 409, 422},
    "get": {200, 404},
    "cancel": {204, 404, 409},
    "list": {200},
}


def user_run(url, tokens, user, slots, records, deadline, rng, others):
    client = Client(url, tokens, first=user)
    mine = []  # (id, body) of bookings this user holds
    sent = []  # (request id, body, booking id) of accepted requests, for replays
    n = 0
    while time.monotonic() < deadline and n < 40:
        n += 1
        roll = rng.random()
        language = rng.choice([{}, {"Accept-Language": "tr-TR, en;q=0.5"}, {"Accept-Language": "*"}])
        if roll < 0.55 or not sent:
            slot = rng.choice(slots)
            request_id = f"u{user}-r{n}"
            body = {"station": slot[0], "socket": slot[1], "date": slot[2], "hour": slot[3],
                    "requestID": request_id}
            status, answer = client.request("POST", "/reservations", body, language, user=user)
            records.saw("reserve", status, answer)
            if status not in ALLOWED["reserve"]:
                records.fail(f"reserve {body}: unexpected {status} {answer!r:.200}")
            elif status == 201 or (status == 200 and client.retried):
                if not isinstance(answer.get("id"), str) or not answer["id"].isdigit():
                    records.fail(f"reserve: id is not a string of digits: {answer!r:.200}")
                    continue
                with records.lock:
                    if answer["id"] in records.booked:
                        records.failures.append(f"booking id {answer['id']} issued twice")
                    records.booked[answer["id"]] = (user, slot, request_id)
                mine.append((answer["id"], body))
                sent.append((request_id, body, answer["id"]))
            elif status == 200:
                records.fail(f"reserve with a fresh request id {request_id} answered 200 (a replay)")
        elif roll < 0.70:
            request_id, body, original = rng.choice(sent)
            status, answer = client.request("POST", "/reservations", body, language, user=user)
            records.saw("reserve", status, answer)
            with records.lock:
                records.replays += 1
            if status != 200 or not isinstance(answer, dict) or answer.get("id") != original:
                records.fail(f"replay of {request_id}: {status} {answer!r:.200}, expected 200 with id {original}")
            # The same request id for another slot is a conflict, never a booking.
            other = dict(body, hour=(body["hour"] + 1) % 24)
            status, answer = client.request("POST", "/reservations", other, language, user=user)
            records.saw("reserve", status, answer)
            if status != 409 or answer.get("reason") != "conflictingRequestID":
                records.fail(f"request id {request_id} for another slot: {status} {answer!r:.200}")
        elif roll < 0.82 and mine:
            booking, _ = mine.pop(rng.randrange(len(mine)))
            status, answer = client.request("DELETE", f"/bookings/{booking}", None, language, user=user)
            records.saw("cancel", status, answer)
            if status == 204 or (client.retried and status == 409 and answer.get("reason") == "alreadyCancelled"):
                with records.lock:
                    records.cancelled.add(booking)
            else:
                records.fail(f"cancel own {booking}: {status} {answer!r:.200}")
        elif roll < 0.92:
            with records.lock:
                theirs = [b for b, (u, _, _) in records.booked.items() if u != user]
            if theirs:
                booking = rng.choice(theirs)
                method = rng.choice(["GET", "DELETE"])
                status, answer = client.request(method, f"/bookings/{booking}", None, language, user=user)
                records.saw("get" if method == "GET" else "cancel", status, answer)
                unknown = "999999999999"
                missing_status, missing = client.request(method, f"/bookings/{unknown}", None, language, user=user)
                if status != 404 or missing_status != 404 or not same_as_missing(answer, booking, missing, unknown):
                    records.fail(f"{method} another user's booking {booking}: {status} {answer!r:.200}; "
                                 f"a missing one: {missing_status} {missing!r:.200}")
        else:
            unknown = rng.choice(["999999999999", "18446744073709551615", "99999999999999999999999", "abc"])
            status, answer = client.request("GET", f"/bookings/{unknown}", None, language, user=user)
            records.saw("get", status, answer)
            if status != 404 or answer.get("reason") != "unknownBooking":
                records.fail(f"GET unknown booking {unknown}: {status} {answer!r:.200}")
    with records.lock:
        others[user] = [b for b, _ in mine]


def burst(url, tokens, user, slots, records):
    """A fresh user sends reservations of distinct free slots at once; the ones answered as made
    are kept in the records (whether the limit let them is schedule-sim's to judge)."""
    results = []
    barrier = threading.Barrier(len(slots))

    def one(slot):
        client = Client(url, tokens, first=len(slot[1]) + slot[3])
        body = {"station": slot[0], "socket": slot[1], "date": slot[2], "hour": slot[3],
                "requestID": f"race-{slot[1]}-{slot[3]}"}
        barrier.wait(timeout=10)
        status, answer = client.request("POST", "/reservations", body, user=user)
        records.saw("reserve", status, answer)
        with records.lock:
            results.append((status, answer, slot))
            if status == 201 or (status == 200 and client.retried):
                records.booked[answer["id"]] = (user, slot, None)

    threads = [threading.Thread(target=one, args=(slot,)) for slot in slots]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    if len(results) != len(slots):
        records.fail(f"burst: user {user} got {len(results)} answers to {len(slots)} reservations")


def misuse(url, tokens, records):
    """A few requests, with a valid token, that must be refused cleanly, never crash the service."""
    client = Client(url, tokens)
    cases = [
        ("POST", "/reservations", b"{", 400),
        ("POST", "/reservations", b'{"user":1,"station":"x","socket":"y","date":"2026-01-01","hour":1}', 400),
        ("POST", "/reservations", b'{"user":"1","station":"x","socket":"y","date":"2026-01-01","hour":1}', 400),
        ("POST", "/reservations", b'{"station":"x","socket":"y","date":"2026-+1-01","hour":1}', 400),
        ("POST", "/reservations", b'{"station":"x","socket":"y","date":"2026-01-01","hour":1e400}', 400),
        ("POST", "/reservations", b'{"requestID":"' + b"x" * 1_000_000 + b'"}', 413),
        ("POST", "/reservations", b"null", 400),
        ("POST", "/reservations", b'{"user":' + b"[" * 8000 + b"]" * 8000 + b"}", 400),
        ("POST", "/reservations", b'{"station":"\\ud800","socket":"b","date":"2026-01-01","hour":1}', 400),
        ("GET", "/stations?page=9223372036854775807&pageSize=2", None, 200),
        ("GET", "/stations?page=-1", None, 400),
        ("GET", "/stations?page=99999999999999999999", None, 400),
        ("GET", "/stations?q=%E0%A4", None, 400),
        ("GET", "/stations?q=%zz", None, 400),
        ("GET", "/stations/%F0%9F%94%8C%00/days/2026-01-01", None, 404),
        ("GET", "/stations/IST-1/days/2026-02-30", None, 400),
        ("GET", "/me/bookings?pageSize=0", None, 400),
        ("GET", "/me/bookings?pageSize=501", None, 400),
        ("GET", "/me/bookings?page=-1", None, 400),
        ("GET", "/me/bookings?state=active", None, 400),
        ("GET", "/me/bookings?page=9223372036854775807&pageSize=500", None, 200),
        ("GET", "/users/1/bookings", None, 404),
        ("GET", "/bookings/1?user=2", None, 404),
        ("PATCH", "/bookings/1", None, 405),
        # Read as the router reads them (it serves GET /stations/): 405, not 404.
        ("POST", "/stations/", None, 405),
        ("PATCH", "//bookings//1/", None, 405),
        ("GET", "/no/such/route", None, 404),
    ]
    for method, path, raw, expected in cases:
        status, answer = client.request(method, path, raw=raw, user=1)
        records.saw(f"misuse {method} {path[:40]}", status, answer)
        if status != expected:
            records.fail(f"{method} {path[:60]}: {status} {answer!r:.200}, expected {expected}")


def listed(client, user, records):
    """Every page of the user's GET /me/bookings: {id: state}, or None when a page fails."""
    found, page = {}, 0
    while True:
        status, answer = client.request("GET", f"/me/bookings?page={page}&pageSize=2", user=user)
        records.saw("list", status, answer)
        if status != 200:
            records.fail(f"bookings of {user}, page {page}: {status} {answer!r:.200}")
            return None
        found.update({b["id"]: b["state"] for b in answer["bookings"]})
        if not answer["hasMore"]:
            if len(found) != answer["totalCount"]:
                records.fail(f"bookings of {user}: {len(found)} listed, totalCount {answer['totalCount']}")
            return found
        page += 1


def check_final(url, tokens, users, records, days=()):
    """The service agrees with the client's records: every 201 is there in the status the client
    left it, each user lists exactly their bookings, and the day views show booked exactly the
    slots the client holds. Whether the rules allowed those bookings (one a slot, the limit) is
    schedule-sim's to judge, from the model (`run --target … --check rules`, in Scripts/ci.sh)."""
    client = Client(url, tokens)
    active = {b: v for b, v in records.booked.items() if b not in records.cancelled}
    held = {}
    for booking, (user, slot, _) in active.items():
        held.setdefault(tuple(slot), []).append(booking)
    per_user = {}
    for booking, (user, _, _) in active.items():
        per_user.setdefault(user, set()).add(booking)
    # The service's own view: on every date the script booked, a slot shows booked exactly when
    # the script holds it (the script must be the only client of that station on those dates).
    for station, date in sorted({(slot[0], slot[2]) for _, slot, _ in records.booked.values()} | set(days)):
        status, view = client.request("GET", f"/stations/{urllib.parse.quote(station, safe='')}/days/{date}")
        records.saw("day", status, view)
        if status != 200:
            records.fail(f"day view {station} {date}: {status} {view!r:.200}")
            continue
        for socket in view["sockets"]:
            for hour, state in enumerate(socket["hours"]):
                key = (station, socket["socket"], date, hour)
                if (state == "booked") != (key in held):
                    records.fail(f"day view says {state} for {key}; the client holds "
                                 f"{held.get(key, 'no booking')} there")
    for booking, (user, slot, _) in records.booked.items():
        status, answer = client.request("GET", f"/bookings/{booking}", user=user)
        records.saw("get", status, answer)
        want = "cancelled" if booking in records.cancelled else "active"
        if status != 200 or answer.get("status") != want or answer.get("id") != booking:
            records.fail(f"booking {booking} of user {user}: {status} {answer!r:.200}, expected status {want}")
    for user in users:
        states = listed(client, user, records)
        if states is None:
            continue
        active = {b for b, state in states.items() if state != "cancelled"}
        if active != per_user.get(user, set()):
            records.fail(f"user {user}: service lists {sorted(active)} active, the client holds "
                         f"{sorted(per_user.get(user, set()))}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True,
                        help="the service, or several instances on one ledger, comma-separated (users alternate)")
    parser.add_argument("--secret", required=True, metavar="FILE", help="the service's HS256 secret (--auth hs256:FILE)")
    parser.add_argument("--users", type=int, default=150)
    parser.add_argument("--scenario", default=BUNDLED, help="the scenario the service serves (its limit)")
    parser.add_argument("--limit", type=int, help="the per-user limit, if not the --scenario's maxUpcomingBookings")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--station", default="IST-1")
    parser.add_argument("--save", metavar="FILE", help="write the client's records here afterwards")
    parser.add_argument("--verify", metavar="FILE",
                        help="send no load: check the service against records saved by --save (after a restart)")
    args = parser.parse_args()
    if args.limit is None:
        with open(args.scenario) as f:
            args.limit = json.load(f)["policy"]["maxUpcomingBookings"]
    started = time.monotonic()
    records = Records()
    tokens = Tokens(read_secret(args.secret))
    if args.verify:
        with open(args.verify) as f:
            saved = json.load(f)
        records.booked = {b: (u, tuple(slot), r) for b, (u, slot, r) in saved["booked"].items()}
        records.cancelled = set(saved["cancelled"])
        check_final(args.url, tokens, saved["users"], records)
        for failure in records.failures:
            print("FAIL", failure)
        print(f"verified {len(records.booked)} bookings ({len(records.cancelled)} cancelled) of "
              f"{len(saved['users'])} users after the restart")
        print(f"{records.checks - len(records.failures)} passed, {len(records.failures)} failed")
        return 0 if not records.failures else 1

    status, page = Client(args.url).request("GET", f"/stations?q=&pageSize=500")
    stations = {s["id"]: s for s in page["stations"]} if status == 200 else {}
    if args.station not in stations:
        print(f"station {args.station} not served ({status})", file=sys.stderr)
        return 1
    # Two days ahead in UTC is within a 14-day horizon and past any notice, in every zone.
    day = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=2)).date()
    sockets = [s["id"] for s in stations[args.station]["sockets"]]
    hours = [h for h in stations[args.station]["openingHours"] if 8 <= h <= 20][:5]
    slots = [(args.station, s, day.isoformat(), h) for s in sockets for h in hours]

    misuse(args.url, tokens, records)
    users = list(range(1000, 1000 + args.users))
    others = {}
    deadline = time.monotonic() + args.seconds
    threads = [threading.Thread(target=user_run,
                                args=(args.url, tokens, u, slots, records, deadline, random.Random(args.seed * 7919 + u),
                                      others)) for u in users]
    for t in threads:
        t.start()
    for t in threads:
        t.join(args.seconds + 30)
    if any(t.is_alive() for t in threads):
        records.fail("users still running after the deadline")

    # Bursts of one user's reservations on another day, each with a fresh user.
    race_day = (day + datetime.timedelta(days=1)).isoformat()
    race_slots = [(args.station, s, race_day, h) for s in sockets for h in stations[args.station]["openingHours"]]
    race_users = list(range(900, 906))
    for i, user in enumerate(race_users):
        chosen = race_slots[i::len(race_users)][: args.limit + 5] or race_slots[: args.limit + 5]
        burst(args.url, tokens, user, chosen, records)

    check_final(args.url, tokens, users + race_users, records,
                days=[(args.station, day.isoformat()), (args.station, race_day)])

    if args.save:
        with open(args.save, "w") as f:
            json.dump({"booked": records.booked, "cancelled": sorted(records.cancelled),
                       "users": users + race_users}, f)

    elapsed = time.monotonic() - started
    counts = sorted(records.statuses.items())
    print(f"{args.users} users, {len(slots)} contended slots, {records.checks} requests in {elapsed:.1f} s; "
          f"{len(records.booked)} bookings made, {len(records.cancelled)} cancelled, {records.replays} replays; "
          f"{Client.resent} requests sent again after a dropped connection")
    for (what, status), n in counts:
        print(f"  {what:40} {status}: {n}")
    for failure in records.failures:
        print("FAIL", failure)
    print(f"{records.checks - len(records.failures)} passed, {len(records.failures)} failed")
    return 0 if not records.failures else 1


if __name__ == "__main__":
    sys.exit(main())
