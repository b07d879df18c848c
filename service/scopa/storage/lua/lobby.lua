-- The lobby: public games waiting for players, newest first, each with its summary (what a
-- lobby page shows of it). Every key carries the hash tag {lobby}, so on a Redis Cluster the
-- lobby is one slot and a page one call (games leave it when their last seat is taken, when
-- they finish, and once expired by the sweepers' 'purge').
-- KEYS[1]  sorted set of every listed game (score: creation time, ms)
-- KEYS[2]  sorted set of the listed games of one preset (score: creation time, ms)
-- KEYS[3]  sorted set of expiry times (score: ms) of every listed game
-- KEYS[4]  hash: game id -> its preset
-- KEYS[5]  hash: game id -> its summary (opaque bytes; none for an entry listed without one)
-- ARGV[1]  mode: 'add' (or refresh), 'remove', 'purge' or 'page'
-- ARGV[2]  the name of a preset's sorted set without the preset: the sets of an entry's
--          preset are named so (KEYS[2] too), and an entry is removed from its own
-- 'add':    ARGV[3] game id, ARGV[4] preset, ARGV[5] creation time in ms, ARGV[6] expiry time
--           in ms, ARGV[7] summary ('' none)
-- 'remove': ARGV[3] game id
-- 'purge':  ARGV[3] now in ms, ARGV[4] the most entries to drop; drops expired entries, oldest
--           expiry first
-- 'page':   ARGV[3] now in ms, ARGV[4] page size, ARGV[5] '1': list KEYS[2] (one preset), '0':
--           KEYS[1]; ARGV[6] cursor creation time ('' none: from the newest), ARGV[7] cursor
--           game id: the page holds entries strictly after it (older, or as old with a smaller
--           id). It only reads (EVALSHA_RO): expired entries met on the way are skipped and
--           never count, so the page is only short when no more live entries exist; the
--           sweepers' 'purge' drops them.
-- Returns 1 ('add', 'remove'), the number of entries dropped ('purge'), or the page as a flat
-- list {game id, creation ms, summary ('' none), ...} ('page').
local all, by_preset, expiry, presets, summaries = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local mode, prefix = ARGV[1], ARGV[2]

local function drop(game)
  local preset = redis.call('HGET', presets, game)
  redis.call('ZREM', all, game)
  redis.call('ZREM', expiry, game)
  redis.call('HDEL', summaries, game)
  if preset then
    redis.call('ZREM', prefix .. preset, game)
    redis.call('HDEL', presets, game)
  end
end

-- include: page.lua

if mode == 'add' then
  local game = ARGV[3]
  local old = redis.call('HGET', presets, game)
  if old and old ~= ARGV[4] then
    redis.call('ZREM', prefix .. old, game)
  end
  redis.call('ZADD', all, ARGV[5], game)
  redis.call('ZADD', by_preset, ARGV[5], game)
  redis.call('ZADD', expiry, ARGV[6], game)
  redis.call('HSET', presets, game, ARGV[4])
  if ARGV[7] == '' then
    redis.call('HDEL', summaries, game)
  else
    redis.call('HSET', summaries, game, ARGV[7])
  end
  return 1
end
if mode == 'remove' then
  drop(ARGV[3])
  return 1
end

local now = tonumber(ARGV[3])
if mode == 'purge' then
  local expired = redis.call('ZRANGEBYSCORE', expiry, '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))
  for _, game in ipairs(expired) do
    drop(game)
  end
  return #expired
end

local size = tonumber(ARGV[4])
local listed = all
if ARGV[5] == '1' then
  listed = by_preset
end
return newest_page(listed, expiry, summaries, now, size, ARGV[6], ARGV[7])
