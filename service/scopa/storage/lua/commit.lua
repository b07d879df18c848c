-- Compare-and-set commit of one game; every key is passed through KEYS.
-- KEYS[1]  game hash (fields: state, meta, version, req:<request_id>, req@<slot>)
-- KEYS[2]  event log: a list, one entry per version (see scopa/storage/_log.py)
-- KEYS[3]  the event stream of earlier builds (entry ids <version>-<seq>, field 'e'): moved
--          into KEYS[2] by this write, oldest first, then deleted
-- KEYS[4]  the webhook outbox's schedule, KEYS[5] its entries (see outbox.lua)
-- ARGV[1]  expected version
-- ARGV[2]  state
-- ARGV[3]  meta
-- ARGV[4]  ttl in milliseconds
-- ARGV[5]  request mode: '0' no request id, '1' check it, '2' check it and record ARGV[8]
-- ARGV[6]  request hash field (req:<request_id>, or req@<slot> holding a slot's latest request)
-- ARGV[7]  request tag: the field answers this request only if its value starts with it
-- ARGV[8]  the request's record (mode '2' only), stored after the tag:
--          '~' <version> ':' <response length> '~' <response> (see scopa/storage/_redis.py)
-- ARGV[9]  publish command: 'PUBLISH', or 'SPUBLISH' on a Redis Cluster (sharded pub/sub)
-- ARGV[10] pub/sub channel (not a key; it carries the same hash tag, so the same shard)
-- ARGV[11] the log entry of the new version
-- ARGV[12] expected digest: '' none, else the SHA-1 hex of '<#state>:' .. state .. meta as the
--          caller holds them for the expected version; other stored bytes are a conflict too
-- ARGV[13] the outbox's ttl in milliseconds (it outlives the game until its entries are sent)
-- ARGV[14..] webhook entries written with the commit: id, payload, id, payload... (due at once:
--          their due time is the new version, so entries are sent in version order, then by id)
-- A record holds no state while its version is the game's; the commit that moves the game
-- past it appends that state (the one being replaced), so a retry can be answered with it.
-- Returns {0, new_version} | {1, 0} not found | {2, current_version, state, meta} conflict
--       | {3, stored_record, current_state} duplicate request
local game, log, legacy, queue, outbox = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local flat = redis.call('HGETALL', game)
local fields = {}
for i = 1, #flat, 2 do
  fields[flat[i]] = flat[i + 1]
end
local current = fields['version']
if not current then
  return {1, 0}
end
if ARGV[5] ~= '0' then
  local stored = fields[ARGV[6]]
  if stored and string.sub(stored, 1, #ARGV[7]) == ARGV[7] then
    return {3, string.sub(stored, #ARGV[7] + 1), fields['state']}
  end
end
current = tonumber(current)
if current ~= tonumber(ARGV[1])
    or (ARGV[12] ~= '' and redis.sha1hex(#fields['state'] .. ':' .. fields['state'] .. fields['meta']) ~= ARGV[12]) then
  return {2, current, fields['state'], fields['meta']}
end
local version = current + 1
-- The first write (HSET) is the one Redis refuses at maxmemory: then nothing was written.
redis.call('HSET', game, 'state', ARGV[2], 'meta', ARGV[3], 'version', version)
for name, value in pairs(fields) do
  if string.sub(name, 1, 3) == 'req' and not (ARGV[5] == '2' and name == ARGV[6]) then
    -- a tag is empty or '<request id>\n'; records of earlier builds have no '~' header
    local at_version, size, at = string.match(value, '^[%w%._:%-]*\n?~(%d+):(%d+)~()')
    if at_version and tonumber(at_version) == current and #value == at - 1 + tonumber(size) then
      redis.call('HSET', game, name, value .. fields['state'])
    end
  end
end
if ARGV[5] == '2' then
  redis.call('HSET', game, ARGV[6], ARGV[7] .. ARGV[8])
end
if redis.call('EXISTS', legacy) == 1 then
  for _, entry in ipairs(redis.call('XRANGE', legacy, '-', '+')) do
    local entry_fields = entry[2]
    redis.call('RPUSH', log, string.match(entry[1], '^%d+') .. ':' .. entry_fields[2])
  end
  redis.call('DEL', legacy)
end
redis.call('RPUSH', log, ARGV[11])
redis.call('PEXPIRE', game, ARGV[4])
redis.call('PEXPIRE', log, ARGV[4])
for i = 14, #ARGV, 2 do
  redis.call('ZADD', queue, 'NX', version, ARGV[i])
  redis.call('HSET', outbox, ARGV[i], ARGV[i + 1])
end
if #ARGV >= 14 then
  redis.call('PEXPIRE', queue, ARGV[13])
  redis.call('PEXPIRE', outbox, ARGV[13])
end
redis.call(ARGV[9], ARGV[10], version)
return {0, version}
