#!/usr/bin/env python3
"""Scaling of schedule-sim in the size of its input: each shape at sizes 1x, 4x and 16x, with the
wall time, peak memory (max RSS of the child) and the time ratios 4x/1x and 16x/4x. A linear
(or n log n) cost gives ratios near 4; a quadratic one near 16.

Usage: Scripts/scaling/scaling.py BIN [BASE] [SHAPE...]
  BIN   the schedule-sim binary (release: swift build -c release --show-bin-path)
  BASE  the 1x size of each shape (default 5000; sockets use BASE / 20)
Shapes: displaced (changeAvailability steps with expectDisplaced, deterministic run),
requestids (reserve steps with request ids, --threads 2), sockets (one station of many
sockets, `check`), oneuser (one user reserving and cancelling, --threads 2), parse (reserve
steps, `check` only).
"""
import json
import os
import subprocess
import sys
import tempfile
import time


def station(sockets):
    return {
        "id": "s",
        "timeZone": "Europe/London",
        "sockets": [{"id": str(i), "connector": "CCS", "powerKW": 50} for i in range(sockets)],
    }


def base(sockets=4, users=1000):
    return {
        "version": 1,
        "name": "scaling",
        "seed": 1,
        "stations": [station(sockets)],
        "policy": {"maxUpcomingBookings": 100000},
        "clock": {"start": "2018-06-07T08:00:00Z", "stepSeconds": 1},
        "users": {"count": users},
    }


def day(i):
    return "2018-%02d-%02d" % (7 + (i // 28) % 5, 1 + i % 28)


def displaced(n):
    s = base(sockets=4)
    steps = []
    for i in range(n // 2):
        d = day(i // 96)
        label = "b%d" % i
        socket, hour = str(i % 4), (i // 4) % 24
        steps.append({"op": "reserve", "user": 1 + i % 900, "station": "s", "socket": socket, "date": d,
                      "hour": hour, "label": label})
        steps.append({"op": "changeAvailability", "user": 1, "station": "s", "socket": socket, "date": d,
                      "hours": [h for h in range(24) if h != hour], "expectDisplaced": [label]})
    s["steps"] = steps
    return s, ["run"]


def requestids(n):
    s = base(sockets=4)
    s["steps"] = [{"op": "reserve", "user": 1 + i % 900, "station": "s", "socket": str(i % 4),
                   "date": day(i // 96), "hour": (i // 4) % 24, "requestID": "r%d" % i} for i in range(n)]
    return s, ["run", "--threads", "2"]


def sockets(n):
    s = base(sockets=max(1, n // 20))
    s["steps"] = [{"op": "query", "user": 1, "station": "s", "socket": "0", "date": "2018-06-10", "hour": 9}]
    s["workload"] = {"operations": 0, "mix": {"reserve": 1}, "dates": {"from": "2018-06-08", "days": 4}}
    return s, ["check"]


def oneuser(n):
    s = base(sockets=4, users=1)
    s["policy"]["maxUpcomingBookings"] = 3
    s["workload"] = {"operations": n, "mix": {"reserve": 1, "cancel": 1},
                     "dates": {"from": "2018-06-08", "days": 28}}
    return s, ["run", "--threads", "2"]


def parse(n):
    s, _ = requestids(n)
    return s, ["check"]


SHAPES = {"displaced": displaced, "requestids": requestids, "sockets": sockets, "oneuser": oneuser,
          "parse": parse}


def measure(binary, shape, n, folder):
    scenario, args = SHAPES[shape](n)
    path = os.path.join(folder, "%s-%d.json" % (shape, n))
    with open(path, "w") as f:
        json.dump(scenario, f)
    command = [binary] + args[:1] + [path] + args[1:] + (["--quiet"] if args[0] == "run" else [])
    before = time.monotonic()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.monotonic() - before
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    returncode = os.waitstatus_to_exitcode(status)
    peak = usage.ru_maxrss / 1024  # kB on Linux
    verdict = (stdout.strip().splitlines() or [stderr.strip()[:120]])[-1]
    return seconds, peak, os.path.getsize(path), returncode, verdict


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(64)
    binary = sys.argv[1]
    unit = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    shapes = sys.argv[3:] or list(SHAPES)
    failed = False
    with tempfile.TemporaryDirectory() as folder:
        print("%-11s %9s %9s %9s %8s %5s  %s" % ("shape", "size", "bytes", "seconds", "peak MB", "exit", "ratio"))
        for shape in shapes:
            previous = None
            for factor in (1, 4, 16):
                n = unit * factor
                seconds, peak, size, code, verdict = measure(binary, shape, n, folder)
                ratio = "" if previous is None else "x%.1f" % (seconds / max(previous, 1e-3))
                print("%-11s %9d %9d %9.2f %8.0f %5d  %s   %s" % (shape, n, size, seconds, peak, code, ratio, verdict))
                sys.stdout.flush()
                previous = seconds
                failed = failed or code not in (0,)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
