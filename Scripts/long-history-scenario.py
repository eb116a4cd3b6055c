#!/usr/bin/env python3
"""Writes a scenario of TOTAL scripted reservations by USERS users, each booking the next hour every
hour (issue 12: the limit check must not slow down as a user's history grows).

Usage: long-history-scenario.py USERS TOTAL OUT.json
"""
import json, sys, datetime
users = int(sys.argv[1]); total = int(sys.argv[2]); out = sys.argv[3]
per_station = 10
stations_n = (users + per_station - 1) // per_station
stations = [{"id": f"S{s}", "name": f"S{s}", "city": "X", "timeZone": "UTC",
             "sockets": [{"id": str(k), "connector": "CCS", "powerKW": 50} for k in range(min(per_station, users - s * per_station))]}
            for s in range(stations_n)]
start = datetime.datetime(2018, 6, 6, 0, 0, 0)
steps = []
for k in range(total):
    h, u = divmod(k, users)
    at = start + datetime.timedelta(hours=h)
    slot = at + datetime.timedelta(hours=1)
    steps.append({"op": "reserve", "at": at.strftime("%Y-%m-%dT%H:%M:%SZ"), "user": u + 1,
                  "station": f"S{u // per_station}", "socket": str(u % per_station),
                  "date": slot.strftime("%Y-%m-%d"), "hour": slot.hour, "expect": "accepted"})
scenario = {"version": 1, "name": f"long-history-{users}-users",
            "description": f"{total} reservations by {users} users, each booking the next hour, every hour (issue 12).",
            "seed": 1, "stations": stations, "policy": {"maxUpcomingBookings": 10},
            "clock": {"start": start.strftime("%Y-%m-%dT%H:%M:%SZ"), "stepSeconds": 0},
            "users": {"count": users}, "steps": steps}
json.dump(scenario, open(out, "w"))
