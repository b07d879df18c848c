-- The lobby: public games waiting for players, newest first. Every key carries the hash tag
-- {lobby}, so on a Redis Cluster the lobby is one slot (a small set: games leave it when their
-- last seat is taken, when they finish and when they expire).
-- KEYS[1]  sorted set of every listed game (score: creation time, ms)
-- KEYS[2]  sorted set of the listed games of one preset (score: creation time, ms)
-- KEYS[3]  sorted set of expiry times (score: ms) of every listed game
-- KEYS[4]  hash: game id -> its preset
-- ARGV[1]  mode: 'add' (or refresh) or 'remove'
-- ARGV[2]  game id
-- ARGV[3]  preset ('add')
-- ARGV[4]  creation time in ms ('add')
-- ARGV[5]  expiry time in ms ('add')
-- Returns 1.
local all, by_preset, expiry, presets = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local game = ARGV[2]
if ARGV[1] == 'add' then
  redis.call('ZADD', all, ARGV[4], game)
  redis.call('ZADD', by_preset, ARGV[4], game)
  redis.call('ZADD', expiry, ARGV[5], game)
  redis.call('HSET', presets, game, ARGV[3])
else
  redis.call('ZREM', all, game)
  redis.call('ZREM', by_preset, game)
  redis.call('ZREM', expiry, game)
  redis.call('HDEL', presets, game)
end
return 1
