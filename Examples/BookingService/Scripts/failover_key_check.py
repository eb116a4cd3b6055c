#!/usr/bin/env python3
"""Idempotency-Key answers across a PostgreSQL failover (Scripts/pg-failover.sh runs it).

`--phase before`, against a BookingService on a two-host database URL while the primary lives,
as user 7301 on LDN-1 socket 1 ten days ahead: a keyed reservation (201), a second booking and
its keyed cancel (204); the keys, bookings and answers are written to --state.
`--phase after`, once the primary was killed and the standby promoted: each request sent again
with its key, until the service answers other than 503 (for up to --wait seconds, as a client
told to retry with the same key would): the reservation is answered 200 with the same booking, the
cancel 204 marked `Idempotent-Replayed` (a repeat the new primary did not remember would be
refused as already cancelled); then a new keyed reservation and its repeat, both kept by the new
primary.

Exits 0 when every check passed; the last line is "N passed, M failed".
"""

import argparse
import datetime
import json
import time
import urllib.error
import uuid

from fetch import fetch
from tally import Tally
from tokens import Tokens, read_secret

USER = 7301


def send(args, tokens, method, path, body, key):
    """The request with its key, sent again while the service answers 503 or not at all."""
    deadline = time.monotonic() + args.wait
    while True:
        try:
            status, headers, answer = fetch(
                args.url + path, method, body, dict(tokens.headers(USER), **{"Idempotency-Key": key}))
        except (OSError, urllib.error.URLError) as error:
            status, headers, answer = None, {}, repr(error)
        if status not in (None, 503) or time.monotonic() > deadline:
            return status, headers, answer
        time.sleep(0.5)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--secret", required=True, metavar="FILE")
    parser.add_argument("--phase", required=True, choices=["before", "after"])
    parser.add_argument("--state", required=True, metavar="FILE")
    parser.add_argument("--wait", type=float, default=60, help="seconds to retry a 503 after the failover")
    args = parser.parse_args()
    args.url = args.url.rstrip("/")
    tokens, tally = Tokens(read_secret(args.secret)), Tally()
    date = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=10)).date().isoformat()

    def slot(hour):
        return {"station": "LDN-1", "socket": "1", "date": date, "hour": hour}

    if args.phase == "before":
        run = uuid.uuid4().hex[:12]
        state = {"date": date, "book": f"failover-{run}-book", "cancel": f"failover-{run}-cancel", "run": run}
        made = send(args, tokens, "POST", "/reservations", slot(10), state["book"])
        tally.expect("a keyed reservation: 201", made[0] == 201, repr(made))
        other = send(args, tokens, "POST", "/reservations", slot(11), f"failover-{run}-other")
        tally.expect("a second reservation: 201", other[0] == 201, repr(other))
        if made[0] == 201 and other[0] == 201:
            state["booking"], state["cancelled"] = made[2]["id"], other[2]["id"]
            gone = send(args, tokens, "DELETE", f"/bookings/{state['cancelled']}", None, state["cancel"])
            tally.expect("its keyed cancel: 204", gone[0] == 204, repr(gone))
        with open(args.state, "w") as f:
            json.dump(state, f)
    else:
        with open(args.state) as f:
            state = json.load(f)
        date = state["date"]
        again = send(args, tokens, "POST", "/reservations", slot(10), state["book"])
        tally.expect("the reservation's key after the failover: 200 with the same booking",
                     again[0] == 200 and isinstance(again[2], dict) and again[2].get("id") == state.get("booking"),
                     repr(again))
        gone = send(args, tokens, "DELETE", f"/bookings/{state.get('cancelled')}", None, state["cancel"])
        tally.expect("the cancel's key after the failover: 204, replayed",
                     gone[0] == 204 and gone[1].get("Idempotent-Replayed") == "true", repr(gone))
        fresh = send(args, tokens, "POST", "/reservations", slot(12), f"failover-{state['run']}-fresh")
        repeat = send(args, tokens, "POST", "/reservations", slot(12), f"failover-{state['run']}-fresh")
        tally.expect("a keyed reservation on the new primary, and its repeat: 201 then 200, one booking",
                     fresh[0] == 201 and repeat[0] == 200 and isinstance(fresh[2], dict)
                     and isinstance(repeat[2], dict) and fresh[2].get("id") == repeat[2].get("id"),
                     f"{fresh!r} {repeat!r}")
    return tally.report()


if __name__ == "__main__":
    raise SystemExit(main())
