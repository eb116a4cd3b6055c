#!/usr/bin/env python3
"""Traces of the example service reach an OpenTelemetry receiver (--otlp-endpoint).

Starts an OTLP/HTTP receiver (protobuf, decoded with PyPI's opentelemetry-proto), starts the
service with --otlp-endpoint pointing at it, makes a reservation, reads a booking with a W3C
traceparent of its own, stops the service with SIGTERM (the exporter sends what it holds as the
service stops), and checks what arrived:
  - a server span for POST /reservations, with its method and path;
  - the store's span for the reservation (slotscheduler.reserve) under it, in the same trace;
  - the span of the read continues the caller's trace (its trace id and parent);
  - the service is named BookingService.

    python3 Scripts/otlp_check.py --service BIN --scenario FILE --secret FILE
"""
import argparse
import gzip
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

sys.path.insert(0, os.path.dirname(__file__))
from tokens import Tokens, read_secret  # noqa: E402

SPANS, SERVICE_NAMES = [], set()


class Receiver(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        request = trace_service_pb2.ExportTraceServiceRequest()
        request.ParseFromString(body)
        for resource_spans in request.resource_spans:
            for attribute in resource_spans.resource.attributes:
                if attribute.key == "service.name":
                    SERVICE_NAMES.add(attribute.value.string_value)
            for scope in resource_spans.scope_spans:
                SPANS.extend(scope.spans)
        answer = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


def attributes(span):
    return {a.key: a.value.string_value or a.value.int_value for a in span.attributes}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--service", required=True)
    parser.add_argument("--scenario", required=True)
    parser.add_argument("--secret", required=True)
    args = parser.parse_args()

    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    endpoint = f"http://127.0.0.1:{receiver.server_address[1]}/v1/traces"
    service = subprocess.Popen(
        [args.service, "--scenario", args.scenario, "--port", "0", "--auth", f"hs256:{args.secret}",
         "--otlp-endpoint", endpoint],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = None
    deadline = time.monotonic() + 60
    while url is None and time.monotonic() < deadline:
        line = service.stdout.readline()
        match = re.match(r"listening on (\S+):(\d+)", line)
        if match:
            url = f"http://{match.group(1)}:{match.group(2)}"
    if url is None:
        service.kill()
        sys.exit("FAIL: the service did not start")
    threading.Thread(target=service.stdout.read, daemon=True).start()

    tokens = Tokens(read_secret(args.secret))
    scenario = json.load(open(args.scenario))
    station = scenario["stations"][0]
    when = time.gmtime(time.time() + 3 * 86400)
    body = {"station": station["id"], "socket": station["sockets"][0]["id"],
            "date": time.strftime("%Y-%m-%d", when), "hour": 12}
    request = urllib.request.Request(
        url + "/reservations", data=json.dumps(body).encode(), method="POST",
        headers={"Content-Type": "application/json", **tokens.headers(31)})
    booking = json.load(urllib.request.urlopen(request, timeout=10))["id"]
    trace_id, parent_id = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    read = urllib.request.Request(
        url + f"/bookings/{booking}",
        headers={"traceparent": f"00-{trace_id}-{parent_id}-01", **tokens.headers(31)})
    urllib.request.urlopen(read, timeout=10).read()
    service.send_signal(signal.SIGTERM)
    service.wait(timeout=60)
    receiver.shutdown()

    checks = {}
    servers = [s for s in SPANS if s.kind == s.SPAN_KIND_SERVER]
    reserve = [s for s in servers if s.name == "/reservations" and attributes(s).get("http.request.method") == "POST"]
    checks["a server span for POST /reservations"] = bool(reserve)
    store = [s for s in SPANS if s.name == "slotscheduler.reserve"]
    checks["the store's span under it, in its trace"] = any(
        s.trace_id == r.trace_id and s.parent_span_id == r.span_id for s in store for r in reserve)
    continued = [s for s in servers if s.trace_id.hex() == trace_id]
    checks["the read continues the caller's trace"] = any(s.parent_span_id.hex() == parent_id for s in continued)
    checks["the service is named BookingService"] = SERVICE_NAMES == {"BookingService"}
    failed = [name for name, ok in checks.items() if not ok]
    for name, ok in checks.items():
        print(("ok   " if ok else "FAIL ") + name)
    print(f"{len(SPANS)} spans received: {sorted({s.name for s in SPANS})}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
