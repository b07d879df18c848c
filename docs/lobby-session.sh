#!/usr/bin/env bash
# The lobby and a turn clock over REST, against a running server's HTTP port (`make run`):
# Ann creates a public game with a 60-second turn clock, Bob finds it in the lobby and takes
# the open seat without an invite code, and the full game leaves the lobby. docs/api.md
# quotes this file; tests/docs runs it.
set -euo pipefail
BASE=${BASE:-http://localhost:8080}
field() { python3 -c "import json, sys; d = json.load(sys.stdin); print($1)"; }

# 1. A public game with one open seat; each turn has 60 s, then a bot plays it for the seat.
created=$(curl -sf -X POST "$BASE/v1/games" -H 'content-type: application/json' \
  -d '{"preset": "scopa", "public": true, "turnTimeoutS": 60,
       "timeoutAction": "TIMEOUT_ACTION_BOT_PLAYS",
       "seats": [{"displayName": "Ann"}, {"open": true}]}')
GAME=$(echo "$created" | field 'd["name"]')
echo "game: $GAME"

# 2. The lobby: public games waiting for players, newest first, with their seats (never a
#    token or an invite code); nextPageToken pages on.
curl -sf "$BASE/v1/games?preset=scopa&pageSize=10" \
  | field "[[s.get('open', False) for s in g['seats']] for g in d['games'] if g['name'] == '$GAME']"

# 3. Bob takes the open seat: a public game needs no invite code. The game starts, and the
#    view carries the deadline of the turn (RFC 3339, by the server's clock).
curl -sf -X POST "$BASE/v1/$GAME:join" -H 'content-type: application/json' \
  -d '{"displayName": "Bob"}' \
  | field '(d["seat"], d["view"]["status"], "turnDeadline" in d["view"])'

# 4. Every seat is taken: the game has left the lobby.
curl -sf "$BASE/v1/games?preset=scopa" \
  | field "'$GAME' in [g['name'] for g in d.get('games', [])]"
