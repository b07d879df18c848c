-- One signed-in player's games (the owner index): the games where the player holds a seat,
-- newest first, each with its summary (what a list shows of it, the player's seat included).
-- Every key carries the owner's own hash tag {own-<owner digest>}, so on a Redis Cluster one
-- player's index is one slot and a page one call; it is written beside a game's commit, never
-- inside it (the game's keys live in another slot). Each entry expires with its game: its
-- expiry is the game's, refreshed with every commit, and the keys themselves expire with the
-- latest entry, so the index of a player who stopped playing leaves the store on its own.
-- KEYS[1]  sorted set of every entry (score: the game's creation time, ms)
-- KEYS[2]  sorted set of the entries waiting for players (score: creation time, ms)
-- KEYS[3]  sorted set of the active entries
-- KEYS[4]  sorted set of the finished entries
-- KEYS[5]  sorted set of expiry times (score: ms)
-- KEYS[6]  hash: game id -> its status ('waiting_for_players', 'active' or 'finished')
-- KEYS[7]  hash: game id -> its summary (opaque bytes)
-- ARGV[1]  mode: 'put' (add or refresh), 'remove' or 'page'
-- 'put':    ARGV[2] game id, ARGV[3] status, ARGV[4] creation ms, ARGV[5] expiry ms,
--           ARGV[6] summary; first drops up to 16 entries expired by Redis' clock (a page only
--           reads), so the index of a player who goes on playing does not grow with games gone
-- 'remove': ARGV[2] game id
-- 'page':   ARGV[2] now in ms, ARGV[3] page size, ARGV[4] status ('' every entry),
--           ARGV[5] cursor creation time ('' none: from the newest), ARGV[6] cursor game id:
--           the page holds entries strictly after it (older, or as old with a smaller id).
--           It only reads (EVALSHA_RO): expired entries met on the way are skipped and never
--           count, so the page is only short when no more live entries exist.
-- Returns 1 ('put', 'remove') or the page as a flat list {game id, creation ms, summary, ...}.
local all, expiry, statuses, summaries = KEYS[1], KEYS[5], KEYS[6], KEYS[7]
local by_status = {waiting_for_players = KEYS[2], active = KEYS[3], finished = KEYS[4]}
local mode = ARGV[1]

local function drop(game)
  local status = redis.call('HGET', statuses, game)
  if status and by_status[status] then
    redis.call('ZREM', by_status[status], game)
  end
  redis.call('ZREM', all, game)
  redis.call('ZREM', expiry, game)
  redis.call('HDEL', statuses, game)
  redis.call('HDEL', summaries, game)
end

-- include: page.lua

if mode == 'put' then
  local game, status = ARGV[2], ARGV[3]
  local listed = by_status[status]
  if not listed then
    return redis.error_reply('unknown status')
  end
  local clock = redis.call('TIME')
  local now_ms = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
  for _, gone in ipairs(redis.call('ZRANGEBYSCORE', expiry, '-inf', now_ms, 'LIMIT', 0, 16)) do
    drop(gone)
  end
  local old = redis.call('HGET', statuses, game)
  if old and old ~= status and by_status[old] then
    redis.call('ZREM', by_status[old], game)
  end
  redis.call('ZADD', all, ARGV[4], game)
  redis.call('ZADD', listed, ARGV[4], game)
  redis.call('ZADD', expiry, ARGV[5], game)
  redis.call('HSET', statuses, game, status)
  redis.call('HSET', summaries, game, ARGV[6])
  local last = redis.call('ZRANGE', expiry, -1, -1, 'WITHSCORES')
  for _, key in ipairs({all, listed, expiry, statuses, summaries}) do
    redis.call('PEXPIREAT', key, last[2])
  end
  return 1
end
if mode == 'remove' then
  drop(ARGV[2])
  return 1
end

local now, size = tonumber(ARGV[2]), tonumber(ARGV[3])
local listed = all
if ARGV[4] ~= '' then
  listed = by_status[ARGV[4]]
  if not listed then
    return redis.error_reply('unknown status')
  end
end
return newest_page(listed, expiry, summaries, now, size, ARGV[5], ARGV[6])
