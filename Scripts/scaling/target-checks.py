#!/usr/bin/env python3
"""Growth of the checks of `schedule-sim run --target` in the history's length: a record of a run
against a correct booking API is made up (deterministic, seeded) at 250 k and 1 M operations, and
`schedule-sim verify-target` checks each at both levels. Prints, per size and level, the time the
checks took (as verify-target reports it), the whole command's wall time (reading the record
included) and its peak memory, and the ratios 1 M / 250 k: near 4 for a linear cost, 16 for a
quadratic one.

Usage: Scripts/scaling/target-checks.py BIN [SIZE...]
  BIN   the schedule-sim binary (release: swift build -c release --product schedule-sim --show-bin-path)
  SIZE  operations per record (default 250000 1000000)

The made-up API is correct: it applies each request at its invocation, in order, while up to 64
are in flight (each answered 0.2 ms after the next 64th is sent). 3,000 users (limit 3) reserve
among 24 sockets x 30 days x 24 hours, repeat earlier keys and cancel their bookings.
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import time

START = 1893456000  # 2030-01-01T00:00:00Z: every slot below is ahead of the target's clock
SOCKETS, DAYS, USERS, LIMIT, IN_FLIGHT = 24, 30, 3000, 3, 64


def scenario():
    return {
        "version": 1,
        "name": "target-checks",
        "seed": 1,
        "stations": [{
            "id": "S", "name": "S", "city": "London", "timeZone": "UTC",
            "sockets": [{"id": str(i), "connector": "CCS", "powerKW": 50} for i in range(SOCKETS)],
        }],
        "policy": {"maxUpcomingBookings": LIMIT},
        "clock": {"start": "2030-01-01T00:00:00Z", "stepSeconds": 1},
        "users": {"count": USERS, "firstID": 1},
    }


def adapter():
    return {
        "version": 1,
        "operations": {
            "reserve": {"method": "POST", "path": "/r"},
            "cancel": {"method": "DELETE", "path": "/b/{booking}"},
            "bookings": {"method": "GET", "path": "/me"},
        },
        "answers": {
            "accepted": [200, 201, 204], "refused": [409], "reason": "/reason", "booking": "/id",
            "list": {"items": "", "id": "/id", "station": "/s", "socket": "/k", "date": "/d", "hour": "/h"},
        },
    }


def date(day):
    return time.strftime("%Y-%m-%d", time.gmtime(START + (2 + day) * 86400))


def record(path, operations, seed=1):
    rng = random.Random(seed)
    holder, live, keys, sent = {}, {}, {}, []  # slot -> booking; booking -> (user, slot); key -> booking
    made = {}  # booking -> (user, slot)
    per_user = [0] * (USERS + 1)
    step = 1_000_000 // IN_FLIGHT  # ns between invocations
    with open(path, "w") as out:
        out.write(json.dumps({"kind": "run", "version": 1, "scenario": "target-checks", "target": "made up",
                              "shiftDays": 0, "clockStart": START, "clockTolerance": 1.5}) + "\n")
        events = []
        for i in range(operations):
            invoke = i * step
            done = invoke + IN_FLIGHT * step + 200_000
            roll = rng.random()
            if roll < 0.2 and live:
                booking = rng.choice(list(live)) if len(live) < 64 else next(iter(live))
                user, slot = live.pop(booking)
                del holder[slot]
                per_user[user] -= 1
                base = {"index": i, "process": i % IN_FLIGHT, "operation": "cancel", "user": user, "booking": booking}
                events.append((invoke, dict(base, kind="invoke", time=invoke)))
                events.append((done, dict(base, kind="ok", status=204, time=done)))
                continue
            if roll < 0.3 and sent:
                user, key, slot = sent[rng.randrange(len(sent))]
            else:
                user = rng.randrange(1, USERS + 1)
                key = f"k{i}"
                slot = f"S/{rng.randrange(SOCKETS)}/{date(rng.randrange(DAYS))}/{rng.randrange(24)}"
            base = {"index": i, "process": i % IN_FLIGHT, "operation": "reserve", "user": user, "slot": slot,
                    "requestID": key}
            events.append((invoke, dict(base, kind="invoke", time=invoke)))
            if (user, key) in keys:
                answer = dict(base, kind="ok", status=200, booking=keys[(user, key)])
            elif slot in holder:
                answer = dict(base, kind="fail", status=409, reason="slotTaken")
            elif per_user[user] >= LIMIT:
                answer = dict(base, kind="fail", status=409, reason="userLimitReached")
            else:
                booking = f"b{i}"
                holder[slot], live[booking], keys[(user, key)] = booking, (user, slot), booking
                made[booking] = (user, slot)
                per_user[user] += 1
                sent.append((user, key, slot))
                answer = dict(base, kind="ok", status=201, booking=booking)
            events.append((done, dict(answer, time=done)))
        events.sort(key=lambda e: (e[0], e[1]["index"]))
        for _, event in events:
            out.write(json.dumps(event, separators=(",", ":")) + "\n")
        for booking, (user, slot) in sorted(made.items()):
            out.write(json.dumps({"kind": "listed", "when": "after", "booking": booking, "user": user,
                                  "slot": slot, "live": booking in live}) + "\n")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary = sys.argv[1]
    sizes = [int(s) for s in sys.argv[2:]] or [250_000, 1_000_000]
    results = {}
    with tempfile.TemporaryDirectory() as work:
        paths = {name: os.path.join(work, name + ".json") for name in ("scenario", "adapter")}
        for name, value in (("scenario", scenario()), ("adapter", adapter())):
            with open(paths[name], "w") as f:
                json.dump(value, f)
        print(f"{'operations':>10} {'level':>6} {'checks s':>9} {'wall s':>7} {'peak MiB':>9}  verdict")
        for size in sizes:
            path = os.path.join(work, f"record-{size}.jsonl")
            record(path, size)
            for level in ("safety", "rules"):
                start = time.monotonic()
                with open(os.path.join(work, "out"), "w+") as out, open(os.path.join(work, "err"), "w+") as err:
                    child = subprocess.Popen([binary, "verify-target", path, "--scenario", paths["scenario"],
                                              "--adapter", paths["adapter"], "--check", level], stdout=out, stderr=err)
                    _, status, usage = os.wait4(child.pid, 0)  # its own peak memory, not the largest child's
                    wall = time.monotonic() - start
                    out.seek(0)
                    err.seek(0)
                    run = subprocess.CompletedProcess(child.args, os.waitstatus_to_exitcode(status), out.read(), err.read())
                peak = usage.ru_maxrss
                checks = next((float(line.split(" in ")[1].split()[0]) for line in run.stdout.splitlines()
                               if line.startswith("checked ")), float("nan"))
                verdict = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr.strip()
                results[(size, level)] = (checks, wall)
                print(f"{size:>10} {level:>6} {checks:>9.2f} {wall:>7.2f} {peak / 1024:>9.0f}  {verdict}",
                      flush=True)
                if run.returncode != 0:
                    print(run.stdout[-3000:], run.stderr[-2000:])
                    sys.exit(f"verify-target exited {run.returncode} on a correct API's record")
    if len(sizes) >= 2:
        low, high = sizes[0], sizes[-1]
        for level in ("safety", "rules"):
            (c0, w0), (c1, w1) = results[(low, level)], results[(high, level)]
            print(f"{level}: {high}/{low} operations = {high / low:.0f}x; checks {c1 / c0:.2f}x, wall {w1 / w0:.2f}x")


if __name__ == "__main__":
    main()
