-- The turn-deadline index of one shard: a sorted set (game id -> deadline in ms since the
-- epoch, by the store's clock) and the game version each entry was set for. Both keys carry
-- the shard's hash tag (not a game's), so on a Redis Cluster they live on one node.
-- KEYS[1]  sorted set of deadlines
-- KEYS[2]  hash: game id -> the version its entry was set for
-- ARGV[1]  game id
-- ARGV[2]  mode: 'set'    the deadline of version ARGV[3] is ARGV[4] ('' = none): applied
--                         unless an entry of a newer version is there already
--                'lower'  before a commit: the entry becomes min(entry, ARGV[4]) (or is
--                         added), so the index never holds a later deadline than the game
--                'forget' the game is gone: drop its entry if its deadline is still ARGV[4]
-- ARGV[3]  version ('set' only)
-- ARGV[4]  deadline in ms ('' with 'set': the game has no deadline)
-- Returns 1 when the index changed, 0 when it was left as it was.
local due, versions, game, mode = KEYS[1], KEYS[2], ARGV[1], ARGV[2]
if mode == 'lower' then
  return redis.call('ZADD', due, 'LT', 'CH', ARGV[4], game)
end
if mode == 'forget' then
  if redis.call('ZSCORE', due, game) == ARGV[4] then
    redis.call('ZREM', due, game)
    redis.call('HDEL', versions, game)
    return 1
  end
  return 0
end
local stored = redis.call('HGET', versions, game)
if stored and tonumber(stored) > tonumber(ARGV[3]) then
  return 0
end
if ARGV[4] == '' then
  redis.call('ZREM', due, game)
  redis.call('HDEL', versions, game)
else
  redis.call('ZADD', due, ARGV[4], game)
  redis.call('HSET', versions, game, ARGV[3])
end
return 1
