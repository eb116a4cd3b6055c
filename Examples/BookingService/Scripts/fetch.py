"""One HTTP request with a JSON body, as the checks send them (standard library only)."""

import json
import urllib.error
import urllib.request


def fetch(url, method, body=None, headers=None, timeout=10):
    """Sends `body` (as JSON, when given) to `url`: (status, headers, the answer's JSON or None),
    for an error status as for any other."""
    data = json.dumps(body).encode() if body is not None else None
    headers = dict({"Content-Type": "application/json"} if data is not None else {}, **(headers or {}))
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text = response.read()
            return response.status, dict(response.headers), json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        text = error.read()
        return error.code, dict(error.headers), json.loads(text) if text else None
