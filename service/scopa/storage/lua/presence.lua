-- Presence of one game: which seats have a stream open (WatchGame, SSE, a session) on any
-- replica, and how many spectators do. Each open stream holds an entry scored by its expiry
-- (the store's clock, ms) and refreshes it every few seconds; a clean close drops it, and an
-- entry of a dead replica's stream lapses. Every key carries the game's hash tag.
-- KEYS[1]  sorted set of the seats' streams: member '<seat>|<connection id>', score expiry ms
-- KEYS[2]  sorted set of the spectators' streams: member '<connection id>', score expiry ms
-- KEYS[3]  hash: seat -> when it was last seen (ms): its last refresh, or its stream's close
-- KEYS[4]  ('load' only) the game's hash, read in the same call (one round trip for GetState)
-- ARGV[1]  mode: 'touch' (add or refresh an entry), 'drop' (a stream closed), 'read' or 'load'
-- 'touch', 'drop': ARGV[2] holder (a seat number, or '*' for a spectator), ARGV[3] connection
--          id, ARGV[4] ttl ms (touch), ARGV[5] how long the keys outlive their last write (ms),
--          ARGV[6] publish command ('PUBLISH' or 'SPUBLISH'), ARGV[7] the game's channel.
--          Entries that lapsed are dropped first. When the set of connected seats or the
--          number of spectators changed (a lapsed entry counts as a change), 'p' is published
--          on the channel.
-- 'load':  ARGV[2..] the fields of KEYS[4] to read.
-- Returns 1 if something changed, else 0 ('touch', 'drop'); {now ms, spectators, seat,
-- connected (1/0), last seen ms, ...} for every seat ever seen ('read'); {the fields' values,
-- what 'read' returns} ('load').
local seats, spectators, seen = KEYS[1], KEYS[2], KEYS[3]
local mode = ARGV[1]
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)

-- The seats with an entry ('all'), or with an entry not lapsed by now.
local function holders(all)
  local members
  if all then
    members = redis.call('ZRANGE', seats, 0, -1)
  else
    members = redis.call('ZRANGE', seats, '(' .. now, '+inf', 'BYSCORE')
  end
  local out, count = {}, 0
  for _, member in ipairs(members) do
    local seat = string.match(member, '^([^|]*)|')
    if not out[seat] then
      out[seat] = true
      count = count + 1
    end
  end
  return out, count
end

local function same(a, a_count, b, b_count)
  if a_count ~= b_count then
    return false
  end
  for seat in pairs(a) do
    if not b[seat] then
      return false
    end
  end
  return true
end

local function read()
  local live = holders(false)
  local out = {now, redis.call('ZCOUNT', spectators, '(' .. now, '+inf')}
  local flat = redis.call('HGETALL', seen)
  for i = 1, #flat, 2 do
    out[#out + 1] = flat[i]
    out[#out + 1] = live[flat[i]] and 1 or 0
    out[#out + 1] = flat[i + 1]
  end
  return out
end

if mode == 'read' then
  return read()
end
if mode == 'load' then
  -- HGET per field, not HMGET: INFO commandstats counts a script's calls too, and the
  -- benchmarks count HMGETs as round trips (bench/service_procs.py).
  local values = {}
  for i = 2, #ARGV do
    values[i - 1] = redis.call('HGET', KEYS[4], ARGV[i])
  end
  return {values, read()}
end

local holder, connection, keep = ARGV[2], ARGV[3], ARGV[5]
local all_before, all_count = holders(true)
local live_before, live_count = holders(false)
local spectators_all = redis.call('ZCARD', spectators)
local spectators_live = redis.call('ZCOUNT', spectators, '(' .. now, '+inf')
redis.call('ZREMRANGEBYSCORE', seats, '-inf', now)
redis.call('ZREMRANGEBYSCORE', spectators, '-inf', now)
if mode == 'touch' then
  local expires = now + tonumber(ARGV[4])
  if holder == '*' then
    redis.call('ZADD', spectators, expires, connection)
  else
    redis.call('ZADD', seats, expires, holder .. '|' .. connection)
    redis.call('HSET', seen, holder, now)
  end
elseif holder == '*' then
  redis.call('ZREM', spectators, connection)
elseif redis.call('ZREM', seats, holder .. '|' .. connection) == 1 then
  redis.call('HSET', seen, holder, now)
end
local after, after_count = holders(false)
local spectators_after = redis.call('ZCARD', spectators)
for _, key in ipairs({seats, spectators, seen}) do
  redis.call('PEXPIRE', key, keep)
end
if same(after, after_count, all_before, all_count) and same(after, after_count, live_before, live_count)
    and spectators_after == spectators_all and spectators_after == spectators_live then
  return 0
end
redis.call(ARGV[6], ARGV[7], 'p')
return 1
