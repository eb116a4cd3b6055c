#!/usr/bin/env python3
"""Check charging sessions on a running BookingService: access codes, check-in and check-out.

Standard library only. Against --url (Scripts/ci.sh starts the service) serving --scenario (the
bundled Scenarios/service.json by default: the socket's access code is read from it, since the
service never shows it; check-in must open at least 80 minutes before a start), on --station
(BER-1: no other check books there) as users 5101-5103:

  - no answer ever carries the socket's code: GET /stations (every page, a search, the city), the
    day view, bookings, refusals; the catalog shows the socket without an `accessCode` field;
  - the owner books the socket's next bookable hour and fills their limit on another socket; one
    more is 409 userLimitReached; a check-out before the check-in is 409 notCheckedIn;
  - a check-in without the code, or with a wrong one, is 422 wrongAccessCode (in English and
    Turkish, neither naming the code); an `accessCode` that is not a string of 1 to 128
    characters, `null`, not JSON or a body naming a user is 400 malformedRequest; nothing is
    checked in by them;
  - another user's check-in (with the right code) and check-out answer exactly what a missing
    booking gets (404 unknownBooking);
  - the right code checks it in (200, `checkedInAt`; a repeat answers the same);
  - a check-out leaving the station at a place off the Earth (`leftAt`) is 400 and checks
    nothing out;
  - the check-out (with an `Idempotency-Key`, leaving the station elsewhere: `leftAt`) is 200
    `fulfilled` with `checkedInAt` and `checkedOutAt`, and GET /stations shows the station at its
    new place; with --catalog fixed (a store whose catalog cannot change: the in-memory one) it
    is 409 catalogFixed with nothing checked out, and a check-out without `leftAt` ends it; the
    same key again answers the same, marked `Idempotent-Replayed`; another check-out is 409
    alreadyCheckedOut, and so is a check-in; the user's list has it `fulfilled`;
  - its hour is no longer booked, and the owner, at their limit before, books again (201).

With --save FILE it writes what it expects; after the service is killed and restarted on the
same store, --verify FILE checks the ended booking (fulfilled, same times), the station where the
check-out left it, and the others, and
checks in and out the booking another user made of the freed hour before the restart (wrong code
422, right code 200, check-out 200). Exits 0 when every check passed; the last line is "N passed, M failed".
"""

import argparse
import datetime
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from zoneinfo import ZoneInfo

from privacy import same_as_missing
from tally import Tally
from tokens import Tokens, read_secret

OWNER, OTHER, LATE = 5101, 5102, 5103  # LATE books the hour the owner's check-out freed
UNKNOWN = "999999999999"
BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Scenarios", "service.json")


class Checker(Tally):
    def __init__(self, url, tokens, code):
        super().__init__()
        self.url, self.tokens, self.code = url.rstrip("/"), tokens, code

    def call(self, method, path, body=None, user=None, raw=None, headers=None):
        """(status, headers, JSON answer or None); `raw`: bytes sent as they are. No answer may
        carry the socket's code (a refusal may name the field `accessCode`, never the code)."""
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        sent = {"Content-Type": "application/json"} if data is not None else {}
        sent.update(self.tokens.headers(user) if user else {})
        sent.update(headers or {})
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=sent)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                status, answer_headers, text = response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            status, answer_headers, text = error.code, dict(error.headers), error.read()
        shown = text.decode("utf-8", "replace")
        self.expect(f"{method} {path}: the answer does not carry the code", self.code not in shown, shown[:300])
        if status < 400:
            self.expect(f"{method} {path}: no accessCode field", "accessCode" not in shown, shown[:300])
        answer = json.loads(text) if text else None
        if status >= 400 and not (isinstance(answer, dict) and answer.get("reason") and answer.get("message")):
            self.fail(f"{method} {path}: {status} without reason and message: {answer!r:.200}")
        return status, answer_headers, answer

    def status(self, what, got, status, reason=None):
        code, _, body = got
        ok = code == status and (reason is None or (isinstance(body, dict) and body.get("reason") == reason))
        self.expect(what, ok, f"expected {status} {reason or ''}, got {code} {body!r:.300}")
        return body if ok else None


def slot_body(station, socket, date, hour):
    return dict(station=station, socket=socket, date=date, hour=hour)


def next_hour(zone):
    """The station's first hour that starts at least 20 minutes from now (15 is the notice)."""
    moment = datetime.datetime.now(zone) + datetime.timedelta(minutes=20)
    start = moment.replace(minute=0, second=0, microsecond=0)
    return start + datetime.timedelta(hours=1) if start < moment else start


def parse(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def hour_status(c, station, date, socket, hour):
    code, _, view = c.call("GET", f"/stations/{station}/days/{date}")
    if code != 200:
        return f"day view {code}"
    for row in view["sockets"]:
        if row["socket"] == socket:
            return row["hours"][hour]
    return "no such socket"


def catalog(c, station, coded):
    """The catalog never shows the code: every page of the search, a search, a city."""
    seen = []
    for query in ("?q=&pageSize=500", "?pageSize=1&page=0", "?pageSize=1&page=1", "?pageSize=1&page=2",
                  "?pageSize=1&page=3", "?q=alex", "?city=Berlin"):
        code, _, page = c.call("GET", "/stations" + query)
        c.expect(f"GET /stations{query}: 200", code == 200, f"{code}")
        if code == 200:
            seen += [s for s in page["stations"] if s["id"] == station]
    c.expect("the station is served", bool(seen))
    for shown in seen:
        socket = next((s for s in shown["sockets"] if s["id"] == coded), None)
        c.expect("the coded socket is listed, without its code",
                 socket is not None and "accessCode" not in socket, repr(socket))


def station_place(c, station):
    """The station's coordinate as GET /stations shows it, or None."""
    code, _, page = c.call("GET", "/stations?q=&pageSize=500")
    shown = next((s for s in page["stations"] if s["id"] == station), None) if code == 200 else None
    return (shown or {}).get("coordinate")


def same_place(a, b):
    return bool(a and b) and all(abs(a[k] - b[k]) < 1e-9 for k in ("latitude", "longitude"))


def run(c, station, coded, plain, zone, limit, moves):
    catalog(c, station, coded)
    start = next_hour(zone)
    date, hour = start.date().isoformat(), start.hour
    later = (start + datetime.timedelta(days=4)).date().isoformat()
    here = slot_body(station, coded, date, hour)
    booked = c.status("book the coded socket's next hour", c.call("POST", "/reservations", here, user=OWNER), 201)
    if not booked:
        return None
    others = [c.status("fill the limit", c.call("POST", "/reservations", slot_body(station, plain, later, 9 + i),
                                                user=OWNER), 201) for i in range(limit - 1)]
    beyond = slot_body(station, plain, later, 9 + limit)
    c.status("one more is beyond the limit", c.call("POST", "/reservations", beyond, user=OWNER), 409,
             "userLimitReached")
    bid = booked["id"]
    path = f"/bookings/{bid}"
    c.status("check-out before the check-in", c.call("POST", path + "/check-out", {}, user=OWNER), 409,
             "notCheckedIn")

    # Wrong codes are refused, in both languages, without saying the right one.
    c.status("check-in without a body", c.call("POST", path + "/check-in", user=OWNER), 422, "wrongAccessCode")
    c.status("check-in without a code", c.call("POST", path + "/check-in", {}, user=OWNER), 422, "wrongAccessCode")
    for wrong in ("0000", c.code.lower(), c.code + " ", c.code[:-1]):
        for language in ("en", "tr"):
            c.status(f"check-in with a wrong code ({language})",
                     c.call("POST", path + "/check-in", dict(accessCode=wrong), user=OWNER,
                            headers={"Accept-Language": language}), 422, "wrongAccessCode")
    for what, raw in [("a number", b'{"accessCode": 4411}'), ("null", b'{"accessCode": null}'),
                      ("empty", b'{"accessCode": ""}'), ("129 characters", json.dumps(dict(accessCode="x" * 129)).encode()),
                      ("an array", b'{"accessCode": ["ALEX"]}'), ("not JSON", b'{"accessCode": '),
                      ("a user", json.dumps(dict(accessCode=c.code, user=OWNER)).encode())]:
        c.status(f"an accessCode that is {what}: 400", c.call("POST", path + "/check-in", user=OWNER, raw=raw), 400,
                 "malformedRequest")
    code, _, still = c.call("GET", path, user=OWNER)
    c.expect("nothing checked it in", code == 200 and "checkedInAt" not in still, f"{code} {still}")

    # Another user: exactly what a missing booking gets, for both.
    for suffix, body in (("/check-in", dict(accessCode=c.code)), ("/check-out", {})):
        got = c.call("POST", path + suffix, body, user=OTHER)
        missing = c.call("POST", f"/bookings/{UNKNOWN}{suffix}", body, user=OTHER)
        c.expect(f"another user's {suffix[1:]} is a missing booking's 404",
                 got[0] == 404 == missing[0] and same_as_missing(got[2], bid, missing[2], UNKNOWN),
                 f"{got[0]} {got[2]} / {missing[0]} {missing[2]}")

    checked = c.status("check-in with the code", c.call("POST", path + "/check-in", dict(accessCode=c.code),
                                                         user=OWNER), 200)
    c.expect("checked in", bool(checked and checked.get("checkedInAt") and checked["status"] == "active"),
             repr(checked))
    again = c.status("check-in again", c.call("POST", path + "/check-in", dict(accessCode=c.code), user=OWNER), 200)
    c.expect("a repeat answers the same check-in",
             bool(checked and again and again.get("checkedInAt") == checked.get("checkedInAt")), repr(again))
    got = c.call("POST", path + "/check-out", None, user=OTHER)
    missing = c.call("POST", f"/bookings/{UNKNOWN}/check-out", None, user=OTHER)
    c.expect("another user's check-out of a checked-in booking is a missing booking's 404",
             got[0] == 404 == missing[0] and same_as_missing(got[2], bid, missing[2], UNKNOWN), f"{got} / {missing}")

    # Check-out, with a key, leaving the station (a shared vehicle) elsewhere: the same answer again.
    c.status("a check-out left off the Earth", c.call("POST", path + "/check-out", dict(
        leftAt=dict(latitude=91, longitude=0)), user=OWNER), 400, "malformedRequest")
    place = dict(latitude=52.5 + int(bid) % 997 / 10000, longitude=13.4)
    body = dict(leftAt=place)
    if not moves:
        c.status("a check-out that moves the station, on a fixed catalog", c.call(
            "POST", path + "/check-out", body, user=OWNER), 409, "catalogFixed")
        code, _, shown = c.call("GET", path, user=OWNER)
        c.expect("nothing checked out by it", code == 200 and shown["status"] == "active", f"{code} {shown}")
        body, place = {}, None
    key = {"Idempotency-Key": f"check-out-{bid}"}
    first = c.call("POST", path + "/check-out", body, user=OWNER, headers=key)
    ended = c.status("check-out", first, 200)
    if place:
        c.expect("GET /stations shows the station where it was left", same_place(station_place(c, station), place),
                 f"{station_place(c, station)} vs {place}")
    c.expect("fulfilled, with both times",
             bool(ended and ended["status"] == "fulfilled" and ended.get("checkedInAt") and ended.get("checkedOutAt")
                  and parse(ended["checkedOutAt"]) >= parse(ended["checkedInAt"])
                  and ended["checkedInAt"] == checked["checkedInAt"]), repr(ended))
    repeat = c.call("POST", path + "/check-out", body, user=OWNER, headers=key)
    c.expect("the same key answers the same check-out", repeat[0] == 200 and repeat[2] == ended
             and repeat[1].get("Idempotent-Replayed") == "true", f"{repeat[0]} {repeat[1]} {repeat[2]}")
    c.status("check-out again", c.call("POST", path + "/check-out", None, user=OWNER), 409, "alreadyCheckedOut")
    c.status("check-in after the check-out", c.call("POST", path + "/check-in", dict(accessCode=c.code),
                                                      user=OWNER), 409, "alreadyCheckedOut")
    code, _, shown = c.call("GET", path, user=OWNER)
    c.expect("GET shows it fulfilled", code == 200 and ended and shown["status"] == "fulfilled"
             and shown["checkedOutAt"] == ended["checkedOutAt"], f"{code} {shown}")
    code, _, mine = c.call("GET", "/me/bookings?state=fulfilled", user=OWNER)
    c.expect("the user's list has it fulfilled", code == 200 and any(
        b["id"] == bid and b["state"] == "fulfilled" and b["status"] == "fulfilled" for b in mine["bookings"]),
        f"{code} {mine!r:.300}")
    c.status("check-out of an unknown id", c.call("POST", f"/bookings/{UNKNOWN}/check-out", {}, user=OWNER), 404,
             "unknownBooking")
    c.status("check-out naming a user", c.call("POST", path + "/check-out", dict(user=OWNER), user=OWNER), 400,
             "malformedRequest")

    # Its hour is freed, and so is the owner's place in their limit.
    freed = hour_status(c, station, date, coded, hour)
    c.expect("the hour is no longer booked", freed != "booked", freed)
    # Another user books the freed hour (unless it came too close meanwhile): --verify checks it in
    # and out after a restart.
    late = None
    if freed == "free":
        late = c.status("another user books the freed hour", c.call("POST", "/reservations", here, user=LATE), 201)
    next_one = c.status("the owner, at the limit before, books again", c.call("POST", "/reservations", beyond,
                                                                               user=OWNER), 201)
    return dict(ended=ended, active=[b for b in others + [next_one, late] if b], late=late, station=station,
                place=place)


def verify(c, saved):
    ended = saved["ended"]
    if ended:
        code, _, got = c.call("GET", f"/bookings/{ended['id']}", user=ended["user"])
        c.expect("the ended booking after restart", code == 200 and got["status"] == "fulfilled"
                 and got.get("checkedInAt") == ended["checkedInAt"] and got.get("checkedOutAt") == ended["checkedOutAt"],
                 f"{code} {got} vs {ended}")
        c.status("its check-out after restart", c.call("POST", f"/bookings/{ended['id']}/check-out", {},
                                                       user=ended["user"]), 409, "alreadyCheckedOut")
    if saved.get("place"):
        # After a write (the check-out just refused), so an instance started before the move has
        # met the catalog's new version.
        shown = station_place(c, saved["station"])
        c.expect("the station where the check-out left it, after restart", same_place(shown, saved["place"]),
                 f"{shown} vs {saved['place']}")
    for booking in saved["active"]:
        code, _, got = c.call("GET", f"/bookings/{booking['id']}", user=booking["user"])
        c.expect("an active booking after restart", code == 200 and got["status"] == "active"
                 and got["slot"] == booking["slot"], f"{code} {got} vs {booking}")
    late = saved["late"]
    if late:
        path = f"/bookings/{late['id']}"
        c.status("a wrong code after restart", c.call("POST", path + "/check-in", dict(accessCode="0000"),
                                                      user=late["user"]), 422, "wrongAccessCode")
        c.status("the code after restart", c.call("POST", path + "/check-in", dict(accessCode=c.code),
                                                  user=late["user"]), 200)
        done = c.status("a check-out after restart", c.call("POST", path + "/check-out", None, user=late["user"]), 200)
        c.expect("fulfilled after restart", bool(done and done["status"] == "fulfilled"), repr(done))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--secret", required=True, metavar="FILE", help="the service's HS256 secret (--auth hs256:FILE)")
    parser.add_argument("--scenario", default=BUNDLED, help="the scenario the service serves (its codes, policy)")
    parser.add_argument("--station", default="BER-1")
    parser.add_argument("--save", metavar="FILE")
    parser.add_argument("--verify", metavar="FILE")
    parser.add_argument("--catalog", choices=("changes", "fixed"), default="changes",
                        help="whether the store can change its catalog (fixed: the in-memory store)")
    args = parser.parse_args()
    with open(args.scenario) as f:
        scenario = json.load(f)
    station = next((s for s in scenario["stations"] if s["id"] == args.station), None)
    coded = next((s for s in (station or {}).get("sockets", []) if s.get("accessCode")), None)
    plain = next((s for s in (station or {}).get("sockets", []) if not s.get("accessCode")), None)
    if not (coded and plain):
        print(f"{args.station} in {args.scenario} needs a socket with an accessCode and one without", file=sys.stderr)
        return 1
    policy = scenario["policy"]
    if policy.get("earlyCheckInSeconds", 900) < 80 * 60:
        print("the scenario's check-in must open at least 80 minutes before a start (earlyCheckInSeconds)",
              file=sys.stderr)
        return 1
    c = Checker(args.url, Tokens(read_secret(args.secret)), coded["accessCode"])
    if args.verify:
        with open(args.verify) as f:
            verify(c, json.load(f))
    else:
        saved = run(c, args.station, coded["id"], plain["id"], ZoneInfo(station["timeZone"]),
                    policy["maxUpcomingBookings"], args.catalog == "changes")
        if args.save:
            with open(args.save, "w") as f:
                json.dump(saved or dict(ended=None, active=[], late=None), f)
    return c.report()


if __name__ == "__main__":
    sys.exit(main())
