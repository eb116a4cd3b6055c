"""Bearer tokens for the example service's checks: HS256 JWTs minted with the standard library.

The service (`--auth hs256:SECRET_FILE`) takes a JWT whose `sub` is the user id in decimal and
whose `exp` is in the future, signed with HMAC-SHA256 under the secret in the file (trailing
whitespace dropped, as the service drops it).
"""

import base64
import hashlib
import hmac
import json
import time


def _b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def read_secret(path):
    with open(path, "rb") as f:
        return f.read().rstrip()


def mint(secret, claims, header=None):
    """A JWT of `claims` signed with HS256 under `secret` (bytes); `header` replaces the usual one."""
    head = _b64(json.dumps(header or {"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    body = _b64(json.dumps(claims, separators=(",", ":")).encode())
    signature = hmac.new(secret, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{_b64(signature)}"


class Tokens:
    """One token per user, minted once, valid for `lifetime` seconds."""

    def __init__(self, secret, lifetime=3600):
        self.secret, self.lifetime, self.cache = secret, lifetime, {}

    def token(self, user):
        if user not in self.cache:
            self.cache[user] = mint(self.secret, {"sub": str(user), "exp": int(time.time()) + self.lifetime})
        return self.cache[user]

    def headers(self, user):
        return {} if user is None else {"Authorization": f"Bearer {self.token(user)}"}
