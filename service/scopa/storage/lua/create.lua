-- Atomic creation of one game at version 1; every key is passed through KEYS.
-- KEYS[1]  game hash (fields: state, meta, version, req:<request_id>)
-- KEYS[2]  event log: a list, one entry per version (see scopa/storage/_log.py)
-- KEYS[3]  the event stream of earlier builds (deleted: a stale one must not be migrated)
-- KEYS[4]  the webhook outbox's schedule, KEYS[5] its entries (see outbox.lua; an expired
--          game's pending entries stay: their ids are unique)
-- ARGV[1]  state
-- ARGV[2]  meta
-- ARGV[3]  ttl in milliseconds
-- ARGV[4]  request mode: '0' no request id, '1' check it, '2' check it and record ARGV[7]
-- ARGV[5]  request hash field (req:<request_id>)
-- ARGV[6]  request tag: the field answers this request only if its value starts with it
-- ARGV[7]  response recorded for the request (mode '2' only), after the tag
-- ARGV[8]  the log entry of version 1
-- ARGV[9]  the outbox's ttl in milliseconds
-- ARGV[10..] webhook entries written with the game: id, payload, id, payload... (due at once: at
--          'time' 1, the version, as commit.lua does)
-- Returns {0, 1} created | {3, current_version, stored_response} created earlier by
--         this request | {4, current_version} exists
local game, log, legacy, queue, outbox = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local current = redis.call('HGET', game, 'version')
if current then
  if ARGV[4] ~= '0' then
    local stored = redis.call('HGET', game, ARGV[5])
    if stored and string.sub(stored, 1, #ARGV[6]) == ARGV[6] then
      return {3, tonumber(current), string.sub(stored, #ARGV[6] + 1)}
    end
  end
  return {4, tonumber(current)}
end
-- The first write must be one Redis refuses at maxmemory (HSET, not DEL): a script that
-- started writing is allowed to finish, so a refused first write leaves nothing behind.
redis.call('HSET', game, 'state', ARGV[1], 'meta', ARGV[2], 'version', 1)
-- A stale log may outlive its expired game by a few milliseconds.
redis.call('DEL', log, legacy)
if ARGV[4] == '2' then
  redis.call('HSET', game, ARGV[5], ARGV[6] .. ARGV[7])
end
redis.call('RPUSH', log, ARGV[8])
redis.call('PEXPIRE', game, ARGV[3])
redis.call('PEXPIRE', log, ARGV[3])
for i = 10, #ARGV, 2 do
  redis.call('ZADD', queue, 'NX', 1, ARGV[i])
  redis.call('HSET', outbox, ARGV[i], ARGV[i + 1])
end
if #ARGV >= 10 then
  redis.call('PEXPIRE', queue, ARGV[9])
  redis.call('PEXPIRE', outbox, ARGV[9])
end
return {0, 1}
