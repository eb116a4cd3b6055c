#!/usr/bin/env python3
"""Check the `Idempotency-Key` header of a running BookingService (`--auth hs256:SECRET_FILE`).

On LDN-1, socket 1, eight days ahead (no other check books there), as users 7101-7104:

  - a reservation with a key, sent twice: 201, then 200 with the same booking; the same key for
    another slot: 422 `idempotencyKeyReused`; a key and a body `requestID` that differ: 422;
  - a cancel with a key, sent twice: 204 both times, the second marked `Idempotent-Replayed`;
    the same key on another booking: 422;
  - a hold with a key, sent twice at once: one hold, both answered 201 with it;
  - a key that is not a request id (200 characters): 422 `invalidRequestID`;
  - every error is `application/problem+json` with `type`, `title`, `status`, `reason`, `message`.

Exits 0 when every check passed; the last line is "N passed, M failed".
"""

import argparse
import datetime
import sys
import threading

from fetch import fetch
from tally import Tally
from tokens import Tokens, read_secret


class Checker(Tally):
    def __init__(self, url, tokens):
        super().__init__()
        self.url, self.tokens = url.rstrip("/"), tokens

    def call(self, method, path, body=None, user=7101, key=None):
        headers = dict(self.tokens.headers(user), **({"Idempotency-Key": key} if key is not None else {}))
        status, headers, answer = fetch(self.url + path, method, body, headers)
        if status >= 400:
            problem = isinstance(answer, dict) and all(k in answer for k in ("type", "title", "status", "reason", "message"))
            self.expect(f"{method} {path}: {status} is a problem",
                        problem and headers.get("Content-Type", "").startswith("application/problem+json")
                        and answer["status"] == status, f"{headers.get('Content-Type')} {answer}")
        return status, headers, answer


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--secret", required=True, metavar="FILE")
    args = parser.parse_args()
    c = Checker(args.url, Tokens(read_secret(args.secret)))
    date = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=8)).date().isoformat()

    def slot(hour):
        return {"station": "LDN-1", "socket": "1", "date": date, "hour": hour}

    first = c.call("POST", "/reservations", slot(10), key="key-book-1")
    again = c.call("POST", "/reservations", slot(10), key="key-book-1")
    c.expect("a keyed reservation: 201", first[0] == 201, repr(first))
    c.expect("its repeat: 200 with the same booking", again[0] == 200 and first[2] and again[2]["id"] == first[2]["id"],
             repr(again))
    other = c.call("POST", "/reservations", slot(11), key="key-book-1")
    c.expect("the key for another slot: 422 idempotencyKeyReused",
             other[0] == 422 and other[2].get("reason") == "idempotencyKeyReused", repr(other))
    both = c.call("POST", "/reservations", dict(slot(11), requestID="key-body"), key="key-header")
    c.expect("header and body keys differ: 422", both[0] == 422 and both[2].get("reason") == "idempotencyKeyReused",
             repr(both))
    bad = c.call("POST", "/reservations", slot(12), key="k" * 200)
    c.expect("a key that is not a request id: 422 invalidRequestID",
             bad[0] == 422 and bad[2].get("reason") == "invalidRequestID", repr(bad))

    if first[0] == 201:
        booking = first[2]["id"]
        cancelled = c.call("DELETE", f"/bookings/{booking}", key="key-cancel-1")
        repeated = c.call("DELETE", f"/bookings/{booking}", key="key-cancel-1")
        c.expect("a keyed cancel: 204", cancelled[0] == 204, repr(cancelled))
        c.expect("its repeat: 204, replayed", repeated[0] == 204 and repeated[1].get("Idempotent-Replayed") == "true",
                 repr(repeated))
        unkeyed = c.call("DELETE", f"/bookings/{booking}")
        c.expect("a cancel again without the key: 409 alreadyCancelled",
                 unkeyed[0] == 409 and unkeyed[2].get("reason") == "alreadyCancelled", repr(unkeyed))
        other = c.call("DELETE", "/bookings/999999999", key="key-cancel-1")
        c.expect("the key on another booking: 422", other[0] == 422, repr(other))

    answers = []

    def hold():
        answers.append(c.call("POST", "/holds", slot(13), user=7102, key="key-hold-1"))

    threads = [threading.Thread(target=hold) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    c.expect("a keyed hold sent twice at once: both 201 with one hold",
             len(answers) == 2 and all(a[0] == 201 for a in answers) and answers[0][2] == answers[1][2], repr(answers))
    return c.report()


if __name__ == "__main__":
    sys.exit(main())
