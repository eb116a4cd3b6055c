#!/usr/bin/env python3
"""Check the booking lifecycle of a running BookingService: holds, confirm, release, reschedule, any socket, check-in.

Standard library only. Against --url (Scripts/ci.sh starts the service), on --station five days
ahead (a date no other check books), as users 5001-5009:

  - a hold answers 201 with expiresAt; the day view shows the slot `held`; another user's
    reservation and hold of it are 409 slotHeld; their confirm is 404 unknownHold;
  - releasing it answers 200 and the slot can be booked at once;
  - a confirmed hold is a booking (200), and confirming again answers the same booking;
  - a reschedule moves the booking in one step (old slot free, new slot booked, same id), a
    repeated requestID answers the same booking, another user is 404 unknownBooking (as a
    missing booking), a taken slot 409;
  - any socket books the first free matching socket in catalog order, then the next, then 409
    noMatchingSocketFree; an unknown connector is 422 unknownSocket;
  - a check-in five days ahead is 409 checkInNotOpen (with the opening time), by another user
    404 unknownBooking, of an unknown id 404; the user's bookings list it upcoming;
  - every error body has reason and message.

With --save FILE it also leaves a live hold and writes what it expects; after the service is
killed and restarted on the same journal, --verify FILE checks the bookings (moved ones at their
new slot) and, while it lives, the hold. Exits 0 when every check passed; the last line is
"N passed, M failed".
"""

import argparse
import datetime
import json
import sys
import urllib.error
import urllib.request

from tally import Tally
from tokens import Tokens, read_secret


class Checker(Tally):
    def __init__(self, url, tokens):
        super().__init__()
        self.url = url.rstrip("/")
        self.tokens = tokens

    def call(self, method, path, body=None, user=None):
        """`user`: act as this user (their bearer token)."""
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if data else {}
        headers.update(self.tokens.headers(user))
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                text = response.read()
                return response.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            text = error.read()
            body = json.loads(text) if text else None
            if not (isinstance(body, dict) and body.get("reason") and body.get("message")):
                self.fail(f"{method} {path}: {error.code} without reason and message: {body!r:.200}")
            return error.code, body

    def status(self, what, got, status, reason=None):
        code, body = got
        ok = code == status and (reason is None or (isinstance(body, dict) and body.get("reason") == reason))
        self.expect(what, ok, f"expected {status} {reason or ''}, got {code} {body!r:.300}")
        return body if ok else None


def slot_body(station, socket, date, hour, **extra):
    return dict(station=station, socket=socket, date=date, hour=hour, **extra)


def hour_status(c, station, date, socket, hour):
    code, view = c.call("GET", f"/stations/{station}/days/{date}")
    if code != 200:
        return f"day view {code}"
    for row in view["sockets"]:
        if row["socket"] == socket:
            return row["hours"][hour]
    return "no such socket"


def run(c, station, date, hours, save):
    s = station
    a, b, c1 = "A", "B", "C"
    h0, h1, h2, h3, h4 = hours[:5]
    # Hold, seen by everyone else, then released.
    hold = c.status("hold", c.call("POST", "/holds", slot_body(s, a, date, h0), user=5001), 201)
    c.expect("hold has expiresAt", bool(hold and hold.get("expiresAt")), repr(hold))
    c.expect("day view shows held", hour_status(c, s, date, a, h0) == "held")
    c.status("reserve held slot", c.call("POST", "/reservations", slot_body(s, a, date, h0), user=5002), 409, "slotHeld")
    c.status("hold held slot", c.call("POST", "/holds", slot_body(s, a, date, h0), user=5002), 409, "slotHeld")
    c.status("confirm another's hold", c.call("POST", "/holds/confirm", slot_body(s, a, date, h0), user=5002), 404,
             "unknownHold")
    c.status("release", c.call("POST", "/holds/release", slot_body(s, a, date, h0), user=5001), 200)
    c.status("release again", c.call("POST", "/holds/release", slot_body(s, a, date, h0), user=5001), 404, "unknownHold")
    first = c.status("reserve released slot", c.call("POST", "/reservations", slot_body(s, a, date, h0), user=5002), 201)

    # Hold, confirm, confirm again.
    c.status("hold to confirm", c.call("POST", "/holds", slot_body(s, b, date, h1), user=5001), 201)
    booked = c.status("confirm", c.call("POST", "/holds/confirm", slot_body(s, b, date, h1), user=5001), 200)
    again = c.status("confirm again", c.call("POST", "/holds/confirm", slot_body(s, b, date, h1), user=5001), 200)
    c.expect("confirm again is the same booking", bool(booked and again and booked["id"] == again["id"]))
    c.expect("confirmed slot is booked", hour_status(c, s, date, b, h1) == "booked")

    # Reschedule.
    moved = None
    if booked:
        path = f"/bookings/{booked['id']}/reschedule"
        moved = c.status("reschedule", c.call("POST", path, slot_body(s, a, date, h2, requestID="mv-1"), user=5001), 200)
        c.expect("moved keeps its id", bool(moved and moved["id"] == booked["id"]))
        c.expect("moved to the new slot", bool(moved and moved["slot"]["socket"] == a and moved["slot"]["hour"] == h2))
        c.expect("old slot free", hour_status(c, s, date, b, h1) == "free")
        c.expect("new slot booked", hour_status(c, s, date, a, h2) == "booked")
        replay = c.status("reschedule replay", c.call("POST", path, slot_body(s, a, date, h2, requestID="mv-1"), user=5001),
                          200)
        c.expect("replay is the same booking", bool(replay and replay["id"] == booked["id"]))
        c.status("reschedule by another", c.call("POST", path, slot_body(s, b, date, h3), user=5002), 404,
                 "unknownBooking")
        c.status("reschedule onto a taken slot", c.call("POST", path, slot_body(s, a, date, h0), user=5001), 409,
                 "slotTaken")
        got = c.status("get moved", c.call("GET", f"/bookings/{booked['id']}", user=5001), 200)
        c.expect("get shows the new slot", bool(got and got["slot"]["hour"] == h2))
    c.status("reschedule unknown", c.call("POST", "/bookings/999999999/reschedule", slot_body(s, a, date, h3), user=5001),
             404, "unknownBooking")

    # Any socket: A, then B (both CCS), then none.
    def any_socket(user, connector="CCS"):
        return c.call("POST", "/reservations/any-socket",
                      dict(station=s, connector=connector, minimumPowerKW=100, date=date, hour=h3), user=user)
    picked = [c.status("any socket", any_socket(5003 + i), 201) for i in range(2)]
    c.expect("any socket in catalog order", [p and p["slot"]["socket"] for p in picked] == [a, b], repr(picked))
    c.status("any socket, all taken", any_socket(5005), 409, "noMatchingSocketFree")
    c.status("any socket, no such connector", any_socket(5005, "XYZ"), 422, "unknownSocket")

    # Check-in: five days ahead it has not opened (409 with the opening time); only the owner may;
    # unknown ids are 404; the user's bookings come split four ways.
    if first:
        path = f"/bookings/{first['id']}/check-in"
        early = c.status("check-in before it opens", c.call("POST", path, {}, user=5002), 409, "checkInNotOpen")
        c.expect("checkInNotOpen names the opening time", bool(early and early.get("instant")), repr(early))
        c.status("check-in by another", c.call("POST", path, None, user=5001), 404, "unknownBooking")
        code, mine = c.call("GET", "/me/bookings?state=upcoming", user=5002)
        c.expect("the user's upcoming bookings list it",
                 code == 200 and first["id"] in [x["id"] for x in mine["bookings"]]
                 and all(x["state"] == "upcoming" for x in mine["bookings"]), f"{code} {mine!r:.300}")
    c.status("check-in unknown", c.call("POST", "/bookings/999999999/check-in", None, user=5001), 404,
             "unknownBooking")
    c.status("check-in naming a user", c.call("POST", "/bookings/999999999/check-in", dict(user=5001), user=5001),
             400, "malformedRequest")

    if save:
        hold = c.status("hold left live", c.call("POST", "/holds", slot_body(s, c1, date, h4), user=5006), 201)
        bookings = [x for x in [first, moved] + picked if x]
        with open(save, "w") as f:
            json.dump({"station": s, "date": date, "bookings": bookings, "hold": hold}, f)


def verify(c, saved):
    for booking in saved["bookings"]:
        got = c.status("booking after restart", c.call("GET", f"/bookings/{booking['id']}", user=booking["user"]), 200)
        c.expect("same slot and status after restart",
                 bool(got and got["slot"] == booking["slot"] and got["status"] == "active"), f"{got} vs {booking}")
    hold = saved["hold"]
    expires = datetime.datetime.fromisoformat(hold["expiresAt"].replace("Z", "+00:00"))
    if datetime.datetime.now(datetime.timezone.utc) < expires - datetime.timedelta(seconds=5):
        slot = hold["slot"]
        c.expect("hold after restart",
                 hour_status(c, slot["station"], slot["date"], slot["socket"], slot["hour"]) == "held")
        c.status("held slot after restart",
                 c.call("POST", "/reservations", slot_body(slot["station"], slot["socket"], slot["date"],
                                                            slot["hour"]), user=5007), 409, "slotHeld")
    else:
        print("the hold expired before the restart; not checked")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--secret", required=True, metavar="FILE", help="the service's HS256 secret (--auth hs256:FILE)")
    parser.add_argument("--station", default="IST-1")
    parser.add_argument("--save", metavar="FILE")
    parser.add_argument("--verify", metavar="FILE")
    args = parser.parse_args()
    c = Checker(args.url, Tokens(read_secret(args.secret)))
    if args.verify:
        with open(args.verify) as f:
            verify(c, json.load(f))
    else:
        code, page = c.call("GET", "/stations?q=&pageSize=500")
        stations = {s["id"]: s for s in page["stations"]} if code == 200 else {}
        if args.station not in stations:
            print(f"station {args.station} not served ({code})", file=sys.stderr)
            return 1
        date = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=5)).date().isoformat()
        hours = [h for h in stations[args.station]["openingHours"] if 9 <= h <= 20][:5]
        run(c, args.station, date, hours, args.save)
    return c.report()


if __name__ == "__main__":
    sys.exit(main())
