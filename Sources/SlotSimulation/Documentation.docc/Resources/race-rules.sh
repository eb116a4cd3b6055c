# The same race, checked again from its record, without the backend:
swift run schedule-sim verify-target race.jsonl \
    --scenario Examples/FaultyBackends/race.json --adapter Examples/FaultyBackends/adapter.json

# A backend whose cancel leaves the slot taken loses nothing a safety check sees...
python3 Examples/FaultyBackends/backend.py --port 8091 --fault cancel-keeps-slot &
swift run schedule-sim run Examples/FaultyBackends/race.json \
    --target http://127.0.0.1:8091 --adapter Examples/FaultyBackends/adapter.json --check rules
# ...but no order of the rules explains refusing a slot whose booking was cancelled:
#   FINDING linearizable per slot: the operations of slot DUN-1/1 2026-11-30 08:00 have no order
#   the rules accept (the shortest such beginning: 3 operations; its last 3 shown)
#       52.672 ms p14 invoke reserve user 12 slot DUN-1/1/2026-11-30/8 key sim-7-69
#      115.246 ms p14 ok reserve user 12 slot DUN-1/1/2026-11-30/8 key sim-7-69 booking r27 → 201
#      361.270 ms p40 invoke cancel user 12 booking r27
#      366.292 ms p40 ok cancel user 12 booking r27 → 204
#      626.407 ms p61 invoke reserve user 19 slot DUN-1/1/2026-11-30/8 key sim-7-893
#      673.515 ms p61 fail reserve user 19 slot DUN-1/1/2026-11-30/8 key sim-7-893 → 409 taken
echo "exit $?"   # 2: not linearizable
