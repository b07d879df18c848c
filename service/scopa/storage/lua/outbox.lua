-- A game's webhook outbox: the entries its commits wrote (commit.lua, create.lua) until a
-- delivery worker has sent them. Both keys carry the game's hash tag.
-- KEYS[1]  sorted set: entry id -> when it is due (ms by the store's clock; a new entry's is its
--          version, so always past, and entries go in version order; a
--          claimed entry's lease expiry; a failed one's next attempt)
-- KEYS[2]  hash: <id> -> payload, <id>|a -> attempts so far, <id>|l -> the current lease
-- ARGV[1]  mode: 'claim'  lease up to ARGV[4] entries due by ARGV[2] for ARGV[3] ms under the
--                         lease token ARGV[5], counting an attempt for each
--                'finish' entry ARGV[2] leased under ARGV[3]: drop it (ARGV[4] '') or make its
--                         next attempt due at ARGV[4]; nothing if the lease is not ARGV[3]
-- Returns {next due ms or '', claimed id, payload, attempts, ...} ('claim'), or
--         {next due ms or '', 1 applied | 0 lease lost} ('finish').
local queue, entries, mode = KEYS[1], KEYS[2], ARGV[1]
local function next_due()
  local first = redis.call('ZRANGE', queue, 0, 0, 'WITHSCORES')
  if first[2] then
    return first[2]
  end
  return ''
end
if mode == 'claim' then
  local now, lease, token = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[5]
  local claimed = {}
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', queue, '-inf', now, 'LIMIT', 0, ARGV[4])) do
    local payload = redis.call('HGET', entries, id)
    if payload then
      local attempts = redis.call('HINCRBY', entries, id .. '|a', 1)
      redis.call('HSET', entries, id .. '|l', token)
      redis.call('ZADD', queue, now + lease, id)
      claimed[#claimed + 1] = id
      claimed[#claimed + 1] = payload
      claimed[#claimed + 1] = attempts
    else
      redis.call('ZREM', queue, id)
    end
  end
  table.insert(claimed, 1, next_due())
  return claimed
end
local id = ARGV[2]
if redis.call('HGET', entries, id .. '|l') ~= ARGV[3] then
  return {next_due(), 0}
end
if ARGV[4] == '' then
  redis.call('ZREM', queue, id)
  redis.call('HDEL', entries, id, id .. '|a', id .. '|l')
else
  redis.call('ZADD', queue, ARGV[4], id)
end
return {next_due(), 1}
