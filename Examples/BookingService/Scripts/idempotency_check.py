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

With `--second-url` (another instance on the same PostgreSQL database), as users 7105-7107 on
hours 14-16, with keys of their own each run: a keyed cancel and a keyed hold answered by the first
instance, repeated to the second: the same status and body, `Idempotent-Replayed: true`; the same
keys with another request there: 422 `idempotencyKeyReused`; a keyed hold sent to both at once:
one hold, both 201 with it, one of them replayed. The holds are released at the end.

Exits 0 when every check passed; the last line is "N passed, M failed".
"""

import argparse
import datetime
import sys
import threading
import uuid

from fetch import fetch
from tally import Tally
from tokens import Tokens, read_secret


class Checker(Tally):
    def __init__(self, url, tokens):
        super().__init__()
        self.url, self.tokens = url.rstrip("/"), tokens

    def call(self, method, path, body=None, user=7101, key=None, url=None):
        headers = dict(self.tokens.headers(user), **({"Idempotency-Key": key} if key is not None else {}))
        status, headers, answer = fetch((url or self.url) + path, method, body, headers)
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
    parser.add_argument("--second-url", help="another instance on the same PostgreSQL database: repeats sent there")
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
    if args.second_url:
        across_instances(c, args.second_url.rstrip("/"), slot)
    return c.report()


def across_instances(c, second, slot):
    """Repeats answered by another instance on the same database (the kept answers are shared)."""
    run = uuid.uuid4().hex[:12]

    def replayed(answer):
        return answer[1].get("Idempotent-Replayed") == "true"

    booked = c.call("POST", "/reservations", slot(14), user=7105)
    c.expect("across instances: a reservation on the first: 201", booked[0] == 201, repr(booked))
    if booked[0] == 201:
        path, key = f"/bookings/{booked[2]['id']}", f"x-cancel-{run}"
        first = c.call("DELETE", path, user=7105, key=key)
        again = c.call("DELETE", path, user=7105, key=key, url=second)
        c.expect("across instances: a keyed cancel on the first: 204, not replayed",
                 first[0] == 204 and not replayed(first), repr(first))
        c.expect("its repeat on the second: 204, the same body, Idempotent-Replayed",
                 again[0] == first[0] and again[2] == first[2] and replayed(again), repr(again))
        other = c.call("DELETE", "/bookings/999999999", user=7105, key=key, url=second)
        c.expect("the key on another booking, on the second: 422 idempotencyKeyReused",
                 other[0] == 422 and other[2].get("reason") == "idempotencyKeyReused", repr(other))

    key = f"x-hold-{run}"
    first = c.call("POST", "/holds", slot(15), user=7106, key=key)
    again = c.call("POST", "/holds", slot(15), user=7106, key=key, url=second)
    c.expect("across instances: a keyed hold on the first: 201, not replayed",
             first[0] == 201 and not replayed(first), repr(first))
    c.expect("its repeat on the second: 201, the same hold, Idempotent-Replayed",
             again[0] == first[0] and again[2] == first[2] and replayed(again)
             and again[1].get("Content-Type") == first[1].get("Content-Type"), repr(again))
    other = c.call("POST", "/holds", slot(16), user=7106, key=key, url=second)
    c.expect("the key with another body, on the second: 422 idempotencyKeyReused",
             other[0] == 422 and other[2].get("reason") == "idempotencyKeyReused", repr(other))

    key, answers = f"x-hold-both-{run}", []

    def hold(url):
        answers.append(c.call("POST", "/holds", slot(16), user=7107, key=key, url=url))

    threads = [threading.Thread(target=hold, args=(url,)) for url in (c.url, second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    c.expect("a keyed hold sent to both instances at once: both 201 with one hold, one replayed",
             len(answers) == 2 and all(a[0] == 201 for a in answers) and answers[0][2] == answers[1][2]
             and sum(replayed(a) for a in answers) == 1, repr(answers))

    for user, hour in ((7106, 15), (7107, 16)):
        released = c.call("POST", "/holds/release", slot(hour), user=user, url=second)
        c.expect(f"user {user}'s hold released on the second: 200", released[0] == 200, repr(released))


if __name__ == "__main__":
    sys.exit(main())
