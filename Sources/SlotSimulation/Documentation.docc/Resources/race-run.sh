# A teaching backend with the check-then-insert race, on port 8090:
python3 Examples/FaultyBackends/backend.py --port 8090 --fault check-then-insert &

# The simulator: race.json's 20 users and 1,500 requests, 64 in flight at once.
swift run schedule-sim run Examples/FaultyBackends/race.json \
    --target http://127.0.0.1:8090 --adapter Examples/FaultyBackends/adapter.json \
    --concurrency 64 --history race.jsonl --html race.html
echo "exit $?"   # 1: an invariant broke
