-- One page of a sorted set of entries scored by their creation time (ms), newest first: the
-- paging of lobby.lua and owned.lua, each of which includes this file (a line
-- '-- include: page.lua', replaced by this text when the store loads the script, so Redis runs
-- and names by SHA1 one whole script).
-- listed     the sorted set to page through (score: creation time, ms)
-- expiry     sorted set of the entries' expiry times (score: ms)
-- summaries  hash: game id -> its summary (opaque bytes; '' for none)
-- now, size  now in ms, the page size (numbers)
-- cursor, cursor_game  the previous page's last creation time ('' none: from the newest) and
--            game id: the page holds entries strictly after it (older, or as old with a
--            smaller id)
-- The page only reads (EVALSHA_RO, which Redis runs under CLIENT PAUSE WRITE): expired entries
-- met on the way are skipped and never count, so the page is only short when no more live
-- entries exist.
-- Returns the page as a flat list {game id, creation ms, summary, ...}.
local function newest_page(listed, expiry, summaries, now, size, cursor, cursor_game)
  local top, cursor_ms = '+inf', nil
  if cursor ~= '' then
    top = cursor
    cursor_ms = tonumber(cursor)
  end
  local chunk = size + 16
  local page, count, offset = {}, 0, 0
  while count < size do
    local rows = redis.call('ZREVRANGEBYSCORE', listed, top, '-inf', 'WITHSCORES', 'LIMIT', offset, chunk)
    if #rows == 0 then
      break
    end
    for i = 1, #rows, 2 do
      local game, created = rows[i], rows[i + 1]
      local expires = redis.call('ZSCORE', expiry, game)
      local live = expires and tonumber(expires) > now
      if live and count < size and not (cursor_ms and tonumber(created) == cursor_ms and game >= cursor_game) then
        page[#page + 1] = game
        page[#page + 1] = created
        page[#page + 1] = redis.call('HGET', summaries, game) or ''
        count = count + 1
      end
    end
    if #rows < 2 * chunk then
      break
    end
    offset = offset + #rows / 2
  end
  return page
end
