#!/usr/bin/env bash
# A grpcurl session against a running server (`make run`): list the rulesets, create a
# two-player game, look at it as seat 0, play seat 0's first legal move, and see a wrong move
# refused. The README quotes this file; tests/docs runs it.
set -euo pipefail
# grpcurl comes with the dev dependencies: `make test` installs it into .venv/bin.
PATH="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.venv/bin:$PATH"
ADDR=${ADDR:-localhost:50051}
call() { grpcurl -plaintext -emit-defaults "$@"; }
field() { python3 -c "import json, sys; d = json.load(sys.stdin); print($1)"; }

# 1. What can be played: presets and options, with defaults and sources.
call -d '{}' "$ADDR" scopa.v1.GameService/ListRulesets | field '[r["id"] for r in d["rulesets"]]'

# 2. Create a game; the creator holds both seats here, so it gets both tokens. A request_id
#    (a fresh UUID per request, kept private) makes a retry return the same game and tokens.
REQUEST=$(python3 -c 'import uuid; print(uuid.uuid4())')
created=$(call -d "{\"preset\": \"scopa\", \"request_id\": \"$REQUEST\",
  \"seats\": [{\"display_name\": \"Ann\"}, {\"display_name\": \"Bob\"}]}" \
  "$ADDR" scopa.v1.GameService/CreateGame)
GAME=$(echo "$created" | field 'd["name"]')
ANN=$(echo "$created" | field 'd["credentials"][0]["token"]')
echo "game: $GAME"

# 3. Seat 0's view: its own hand, the table, and every legal move (card + exact capture).
view=$(call -H "authorization: Bearer $ANN" -d "{\"name\": \"$GAME\"}" \
  "$ADDR" scopa.v1.GameService/GetState)
echo "$view" | field '{k: d["view"][k] for k in ("hand", "table", "turn", "legal_moves")}'

# 4. Play the first legal move; the response carries the events and the new view.
move=$(echo "$view" | field 'json.dumps({"card": d["view"]["legal_moves"][0]["card"],
  "capture": {"cards": d["view"]["legal_moves"][0]["capture"]}})')
call -H "authorization: Bearer $ANN" \
  -d "{\"name\": \"$GAME\", \"request_id\": \"readme-move-1\", \"card\": $(echo "$move" | field 'json.dumps(d["card"])'), \"capture\": $(echo "$move" | field 'json.dumps(d["capture"])')}" \
  "$ADDR" scopa.v1.GameService/PlayCard | field '(d["events"][0], d["view"]["turn"])'

# 5. Seat 0 again, out of turn: FAILED_PRECONDITION with ErrorInfo reason NOT_YOUR_TURN.
if call -H "authorization: Bearer $ANN" \
  -d "{\"name\": \"$GAME\", \"card\": $(echo "$move" | field 'json.dumps(d["card"])')}" \
  "$ADDR" scopa.v1.GameService/PlayCard 2> error.txt; then
  echo "expected an error" >&2; exit 1
fi
cat error.txt; rm -f error.txt
