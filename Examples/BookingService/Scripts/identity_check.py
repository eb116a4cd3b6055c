#!/usr/bin/env python3
"""Check that nobody acts as someone else on a running BookingService.

Against --url, with the service's HS256 secret (--secret, `--auth hs256:FILE`), or with the
private key behind its JSON Web Key Set (--jwks-key, `--auth jwks:FILE`; `--make-jwks DIR`
writes a fresh RSA key and its set there and exits). Needs `cryptography` for --jwks-key and
--make-jwks only.

  - without a token, with a header that is not `Bearer`, a token that is not a JWT, signed with
    another key, with `alg: none`, HS256 over the public key (algorithm confusion), expired,
    without `exp`, not yet valid (`nbf`), whose `sub` is not a user id in decimal (or has leading
    zeros), or (HS256) whose header names another algorithm or a `crit` extension, or whose
    header or payload names a member twice: every operation that acts for a
    user answers 401 `unauthenticated` with `WWW-Authenticate: Bearer realm="BookingService"`
    (and `error="invalid_token"` when a token was sent) and changes nothing;
  - what needs no identity (stations, a day view, health) answers without a token;
  - a valid token books; a body naming a user is refused (400);
  - another user's booking, read, cancelled, checked in, checked out or rescheduled, answers 404
    with exactly the body a missing booking gets, and stays as it was;
  - the user's own list holds only their bookings.

Exits 0 when every check passed; the last line is "N passed, M failed".
"""

import argparse
import base64
import datetime
import json
import os
import sys
import time
import urllib.request

from fetch import fetch
from privacy import same_as_missing
from tally import Tally
from tokens import mint, read_secret

REALM = 'Bearer realm="BookingService"'


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def mint_text(secret, header, payload):
    """An HS256 JWT of the JSON texts `header` and `payload` as they are (a dict cannot name a
    member twice)."""
    import hashlib
    import hmac
    signed = f"{b64(header.encode())}.{b64(payload.encode())}"
    return f"{signed}.{b64(hmac.new(secret, signed.encode(), hashlib.sha256).digest())}"


class RS256:
    """Signs with an RSA private key (PEM), as an identity provider behind a JWKS would."""

    def __init__(self, path):
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import padding
        with open(path, "rb") as f:
            self.key = serialization.load_pem_private_key(f.read(), password=None)
        self.hashes, self.padding = hashes, padding
        numbers = self.key.public_key().public_numbers()
        self.public_jwk = json.dumps({"kty": "RSA", "kid": "k1", "alg": "RS256", "n": b64(
            numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")), "e": b64(
            numbers.e.to_bytes(3, "big"))}, separators=(",", ":")).encode()

    def mint(self, claims):
        head = b64(json.dumps({"alg": "RS256", "typ": "JWT", "kid": "k1"}).encode())
        body = b64(json.dumps(claims).encode())
        signature = self.key.sign(f"{head}.{body}".encode(), self.padding.PKCS1v15(), self.hashes.SHA256())
        return f"{head}.{body}.{b64(signature)}"


def make_jwks(directory):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    with open(os.path.join(directory, "private.pem"), "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    signer = RS256(os.path.join(directory, "private.pem"))
    with open(os.path.join(directory, "jwks.json"), "wb") as f:
        f.write(b'{"keys":[' + signer.public_jwk + b"]}")


class Checker(Tally):
    def __init__(self, url, sign):
        super().__init__()
        self.url, self.sign = url.rstrip("/"), sign

    def token(self, user, lifetime=3600, **extra):
        return self.sign(dict({"sub": str(user), "exp": int(time.time()) + lifetime}, **extra))

    def call(self, method, path, body=None, token=None, authorization=None):
        headers = {}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        if authorization is not None:
            headers["Authorization"] = authorization
        return fetch(self.url + path, method, body, headers)


def run(c, secret_or_none, station, date, hour):
    slot = {"station": station, "socket": "A", "date": date, "hour": hour}
    now = int(time.time())
    bad = {
        "no token": dict(),
        "Basic credentials": dict(authorization="Basic dXNlcjpwYXNz"),
        "an empty bearer": dict(authorization="Bearer "),
        "not a JWT": dict(token="not-a-jwt"),
        "another key": dict(token=mint(b"x" * 32 + b"another secret", {"sub": "7001", "exp": now + 600})),
        "alg none": dict(token=b64(b'{"alg":"none","typ":"JWT"}') + "." + b64(
            json.dumps({"sub": "7001", "exp": now + 600}).encode()) + "."),
        "expired": dict(token=c.token(7001, lifetime=-5)),
        "no exp": dict(token=c.sign({"sub": "7001"})),
        "sub not decimal": dict(token=c.token("abc")),
        "negative sub": dict(token=c.token(-1)),
        "sub past UInt64": dict(token=c.token(18446744073709551616)),
        "numeric sub": dict(token=c.sign({"sub": 7001, "exp": now + 600})),
        # One user, one subject: "07001" is not another spelling of 7001.
        "sub with a leading zero": dict(token=c.token("07001")),
        "nbf in the future": dict(token=c.token(7001, nbf=now + 600)),
    }
    if secret_or_none is not None:  # HS256 signatures under headers the service must refuse
        claims = {"sub": "7001", "exp": now + 600}
        bad["a header naming HS512"] = dict(token=mint(secret_or_none, claims, {"alg": "HS512", "typ": "JWT"}))
        bad["crit naming an extension"] = dict(token=mint(
            secret_or_none, claims, {"alg": "HS256", "typ": "JWT", "crit": ["x-unknown"], "x-unknown": 1}))
        # A claim named twice: which one counts differs from reader to reader (user 7002 or 7001?).
        bad["sub named twice"] = dict(token=mint_text(
            secret_or_none, '{"alg":"HS256","typ":"JWT"}', '{"sub":"7002","sub":"7001","exp":%d}' % (now + 600)))
        bad["exp named twice"] = dict(token=mint_text(
            secret_or_none, '{"alg":"HS256","typ":"JWT"}', '{"sub":"7001","exp":%d,"exp":1}' % (now + 600)))
        bad["alg named twice"] = dict(token=mint_text(
            secret_or_none, '{"alg":"HS256","alg":"HS256","typ":"JWT"}', '{"sub":"7001","exp":%d}' % (now + 600)))
    if secret_or_none is None:  # JWKS: HS256 keyed with the public key's bytes
        bad["HS256 over the public key"] = dict(token=mint(c.public_jwk, {"sub": "7001", "exp": now + 600},
                                                           {"alg": "HS256", "typ": "JWT", "kid": "k1"}))
    operations = [
        ("POST", "/reservations", slot), ("POST", "/holds", slot), ("GET", "/bookings/1", None),
        ("DELETE", "/bookings/1", None), ("POST", "/bookings/1/check-in", None),
        ("POST", "/bookings/1/check-out", None), ("GET", "/me/bookings", None),
    ]
    for name, credentials in bad.items():
        for method, path, body in operations:
            code, headers, answer = c.call(method, path, body, **credentials)
            challenge = headers.get("WWW-Authenticate", "")
            c.expect(f"{name}: {method} {path} is 401 unauthenticated", code == 401 and isinstance(answer, dict)
                     and answer.get("reason") == "unauthenticated" and answer.get("message"), f"{code} {answer}")
            c.expect(f"{name}: {method} {path} challenges", challenge.startswith(REALM) and (
                ("error=" in challenge) == (name != "no token")), repr(challenge))
    code, _, view = c.call("GET", f"/stations/{station}/days/{date}")
    c.expect("nothing was booked by a refused token", code == 200 and all(
        row["hours"][hour] == "free" for row in view["sockets"] if row["socket"] == "A"), f"{code}")
    for path in ("/stations", f"/stations/{station}/days/{date}", "/health/live", "/health/ready", "/openapi.yaml"):
        request = urllib.request.Request(c.url + path)
        with urllib.request.urlopen(request, timeout=10) as response:
            c.expect(f"{path} needs no token", response.status == 200)

    code, _, _ = c.call("GET", "/me/bookings", token=c.token(7001, nbf=now - 5))
    c.expect("a token whose nbf has passed is taken", code == 200, f"{code}")
    # RFC 9110 11.1: the scheme is case-insensitive; RFC 6750 2.1: one or more spaces after it.
    for spelling in ("bearer {}", "BEARER {}", "Bearer  {}", "bEaReR {}"):
        code, _, _ = c.call("GET", "/me/bookings", authorization=spelling.format(c.token(7001)))
        c.expect(f"the scheme written {spelling.split(' ')[0]!r} with {spelling.count(' ')} space(s) is taken",
                 code == 200, f"{code}")
    for spelling in ("Bearer{}", "Bearers {}", "Token {}"):
        code, _, _ = c.call("GET", "/me/bookings", authorization=spelling.format(c.token(7001)))
        c.expect(f"{spelling.format('<token>')!r} is not a bearer token: 401", code == 401, f"{code}")
    owner, other = c.token(7001), c.token(7002)
    code, _, booking = c.call("POST", "/reservations", dict(slot, user=7002), token=owner)
    c.expect("a body naming a user is 400", code == 400 and booking.get("reason") == "malformedRequest", repr(booking))
    code, _, booking = c.call("POST", "/reservations", slot, token=owner)
    c.expect("a valid token books", code == 201 and booking.get("user") == 7001, f"{code} {booking}")
    if code != 201:
        return
    bid, unknown = booking["id"], "999999999999"
    moved = dict(slot, hour=hour + 1)
    for method, suffix, body in (("GET", "", None), ("DELETE", "", None), ("POST", "/check-in", None),
                                 ("POST", "/check-out", None), ("POST", "/reschedule", moved)):
        code, _, answer = c.call(method, f"/bookings/{bid}{suffix}", body, token=other)
        missing_code, _, missing = c.call(method, f"/bookings/{unknown}{suffix}", body, token=other)
        same = same_as_missing(answer, bid, missing, unknown)
        c.expect(f"{method} another user's booking{suffix} is a missing one's 404",
                 code == 404 == missing_code and same, f"{code} {answer} / {missing_code} {missing}")
    code, _, mine = c.call("GET", f"/bookings/{bid}", token=owner)
    c.expect("the owner's booking is unchanged", code == 200 and mine["status"] == "active"
             and mine["slot"]["hour"] == hour and mine.get("checkedInAt") is None
             and mine.get("checkedOutAt") is None, f"{code} {mine}")
    code, _, padded = c.call("GET", f"/bookings/0{bid}", token=owner)
    c.expect("the owner's booking id with a leading zero is an id never issued: 404",
             code == 404 and padded.get("reason") == "unknownBooking", f"{code} {padded}")
    code, _, theirs = c.call("GET", "/me/bookings", token=other)
    c.expect("another user's list does not hold it", code == 200 and bid not in [b["id"] for b in theirs["bookings"]])
    code, _, listed = c.call("GET", "/me/bookings", token=owner)
    c.expect("the owner's list holds it", code == 200 and [b["id"] for b in listed["bookings"]] == [bid],
             f"{code} {listed}")
    code, _, _ = c.call("DELETE", f"/bookings/{bid}", token=owner)
    c.expect("the owner cancels it", code == 204)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url")
    parser.add_argument("--secret", metavar="FILE", help="the service's HS256 secret (--auth hs256:FILE)")
    parser.add_argument("--jwks-key", metavar="PEM", help="the private key of the service's JWKS (--auth jwks:FILE)")
    parser.add_argument("--make-jwks", metavar="DIR", help="write DIR/private.pem and DIR/jwks.json, and exit")
    parser.add_argument("--station", default="IST-1")
    args = parser.parse_args()
    if args.make_jwks:
        make_jwks(args.make_jwks)
        return 0
    if args.secret:
        secret = read_secret(args.secret)
        c = Checker(args.url, lambda claims: mint(secret, claims))
    else:
        signer = RS256(args.jwks_key)
        c = Checker(args.url, signer.mint)
        c.public_jwk, secret = signer.public_jwk, None
    code, _, page = c.call("GET", "/stations?q=&pageSize=500")
    stations = {s["id"]: s for s in page["stations"]} if code == 200 else {}
    if args.station not in stations:
        print(f"station {args.station} not served ({code})", file=sys.stderr)
        return 1
    # Six days ahead (seven with --jwks-key), at the first opening hour from 9: a date and slot no
    # other check books.
    days = 6 if args.secret else 7
    date = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=days)).date().isoformat()
    hour = [h for h in stations[args.station]["openingHours"] if 9 <= h <= 20][0]
    run(c, secret, args.station, date, hour)
    return c.report()


if __name__ == "__main__":
    sys.exit(main())
