#!/usr/bin/env python3
"""Check the abuse limits of a running BookingService started with `--user-limit 0.2/10
--address-limit 2/60` (and `--auth hs256:SECRET_FILE`): refills slow enough that a loaded
machine, answering slowly, still sees each burst spent.

  - one user's burst of requests: the first ones answered, then 429 `tooManyRequests` with a
    whole `Retry-After` of at least 1 s; another user from the same address is still served;
  - after waiting `Retry-After`, the user is served again;
  - a burst from one address: 429 once its burst is spent, while probes (`/health/live`,
    `/metrics`) are never limited;
  - `/metrics` counts the answers by status.

Exits 0 when every check passed; the last line is "N passed, M failed".
"""

import argparse
import http.client
import json
import sys
import time
import urllib.parse

from tally import Tally
from tokens import Tokens, read_secret


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--secret", required=True, metavar="FILE")
    args = parser.parse_args()
    parsed = urllib.parse.urlparse(args.url)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=10)
    tokens, c = Tokens(read_secret(args.secret)), Tally()

    def get(path, user=None):
        connection.request("GET", path, headers=tokens.headers(user))
        response = connection.getresponse()
        body = response.read()
        return response.status, dict(response.getheaders()), body

    answers = [get("/me/bookings", user=9001) for _ in range(30)]
    statuses = [status for status, _, _ in answers]
    c.expect("a user's burst: answered first", statuses[:5] == [200] * 5, repr(statuses))
    limited = [(headers, json.loads(body)) for status, headers, body in answers if status == 429]
    c.expect("a user's burst: then 429", len(limited) >= 10, repr(statuses))
    c.expect("429 says tooManyRequests, with a whole Retry-After of at least 1 s", limited and all(
        body.get("reason") == "tooManyRequests" and int(headers.get("Retry-After", "0")) >= 1
        for headers, body in limited), repr(limited[:1]))
    status, _, _ = get("/me/bookings", user=9002)
    c.expect("another user from the same address is served", status == 200, repr(status))
    if limited:
        time.sleep(int(limited[-1][0]["Retry-After"]))
        status, _, _ = get("/me/bookings", user=9001)
        c.expect("after Retry-After the user is served again", status == 200, repr(status))

    statuses = [get("/stations?pageSize=1")[0] for _ in range(200)]
    c.expect("an address's burst: 429 once spent", 429 in statuses and statuses[0] == 200, repr(statuses[-5:]))
    c.expect("probes are never limited", get("/health/live")[0] == 200 and get("/metrics")[0] == 200)
    _, _, metrics = get("/metrics")
    text = metrics.decode()
    c.expect("/metrics counts the 429s", 'http_response_status_code="429"' in text and "hb_requests" in text, text[:300])
    return c.report()


if __name__ == "__main__":
    sys.exit(main())
