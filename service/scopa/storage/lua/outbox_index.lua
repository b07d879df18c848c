-- The index of games with webhook entries to send, one shard: which game to look at when.
-- Both keys carry the shard's hash tag (not a game's): on a Redis Cluster the index cannot be
-- written in the game's commit, so it is a hint written BEFORE the commit ('touch') and kept
-- until a worker saw the game's outbox empty with no commit possibly in flight ('settle').
-- KEYS[1]  sorted set: game id -> when to look at its outbox (ms by the store's clock)
-- KEYS[2]  hash: game id -> when a commit last touched the entry (ms)
-- ARGV[1]  game id
-- ARGV[2]  mode: 'touch'  a commit with entries follows at ARGV[3] (now): due at once
--                'settle' a worker claimed at ARGV[4] and then saw the outbox's next entry
--                         due at ARGV[3] ('' none left); ARGV[5] is the grace (ms) within
--                         which a touched commit may still be on its way
-- Returns 1 when the game stays indexed, 0 when its entry was dropped.
local due, touched, game = KEYS[1], KEYS[2], ARGV[1]
if ARGV[2] == 'touch' then
  redis.call('ZADD', due, 'LT', ARGV[3], game)
  redis.call('HSET', touched, game, ARGV[3])
  return 1
end
local at = tonumber(redis.call('HGET', touched, game) or '0')
local claimed, grace = tonumber(ARGV[4]), tonumber(ARGV[5])
local score = nil
if ARGV[3] ~= '' then
  score = tonumber(ARGV[3])
end
if at > claimed - grace then
  -- a commit touched the entry after (or shortly before) the claim: its entries may not have
  -- been there to see; look again when it is surely committed (at once if it came after)
  local again = at + grace
  if at >= claimed then
    again = at
  end
  if score == nil or again < score then
    score = again
  end
end
if score == nil then
  redis.call('ZREM', due, game)
  redis.call('HDEL', touched, game)
  return 0
end
redis.call('ZADD', due, score, game)
return 1
