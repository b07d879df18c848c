#!/usr/bin/env bash
# A curl session against a running server's HTTP port (`make run`): the same steps as the
# grpcurl session over REST/JSON. The README quotes this file; tests/docs runs it.
set -euo pipefail
BASE=${BASE:-http://localhost:8080}
field() { python3 -c "import json, sys; d = json.load(sys.stdin); print($1)"; }

# 1. What can be played (the REST routes are the proto's google.api.http annotations).
curl -sf "$BASE/v1/rulesets" | field '[r["id"] for r in d["rulesets"]]'

# 2. Create a game holding both seats; JSON field names are the proto's lowerCamelCase.
REQUEST=$(python3 -c 'import uuid; print(uuid.uuid4())')
created=$(curl -sf -X POST "$BASE/v1/games" -H 'content-type: application/json' \
  -d "{\"preset\": \"scopa\", \"requestId\": \"$REQUEST\",
       \"seats\": [{\"displayName\": \"Ann\"}, {\"displayName\": \"Bob\"}]}")
GAME=$(echo "$created" | field 'd["name"]')
ANN=$(echo "$created" | field 'd["credentials"][0]["token"]')
echo "game: $GAME"

# 3. Seat 0's view; the token goes in the Authorization header (never in the URL). The
#    ETag response header is the game's version tag.
curl -sf -D headers.txt -H "Authorization: Bearer $ANN" "$BASE/v1/$GAME" > view.json
ETAG=$(grep -i '^etag:' headers.txt | cut -d' ' -f2 | tr -d '\r')
field '{k: d["view"][k] for k in ("hand", "table", "turn", "legalMoves")}' < view.json
echo "etag: $ETAG"

# 4. A spectator (no token) sees hand sizes, never the cards.
curl -sf "$BASE/v1/$GAME" | field '(d["view"]["hand"], [s["handSize"] for s in d["view"]["seats"]])'

# 5. Play the first legal move, only if nothing changed since the view (If-Match).
MOVE=$(field 'json.dumps({"card": d["view"]["legalMoves"][0]["card"],
  "capture": {"cards": d["view"]["legalMoves"][0]["capture"]}, "requestId": "readme-move-1"})' < view.json)
curl -sf -X POST "$BASE/v1/$GAME:playCard" -H "Authorization: Bearer $ANN" \
  -H "If-Match: $ETAG" -H 'content-type: application/json' -d "$MOVE" \
  | field '(d["events"][0], d["view"]["turn"])'

# 6. Another play with the now stale etag: 412 with reason STALE_ETAG, nothing changed.
curl -s -X POST "$BASE/v1/$GAME:playCard" -H "Authorization: Bearer $ANN" \
  -H "If-Match: $ETAG" -H 'content-type: application/json' -d "${MOVE/move-1/move-2}" \
  -w '\nHTTP %{http_code}\n'

# 7. Watch the game as Server-Sent Events (one event per version; stopped after 2 s here).
curl -sN --max-time 2 -H "Authorization: Bearer $ANN" "$BASE/v1/$GAME:watch" | head -c 60 || true
echo
rm -f headers.txt view.json
