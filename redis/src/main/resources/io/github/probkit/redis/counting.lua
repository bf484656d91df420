-- Counting Bloom filter: add or remove a batch of keys, each atomically, with the library's rules.
-- KEYS: the shards. ARGV[1] = 'add' | 'remove', ARGV[2] = k, then per key k pairs
-- (shard number from 1, Redis bit offset of the counter's 4 bits). Returns 1 or 0 per key: add, a
-- counter changed (0: all were saturated at 15); remove, the key was removed (0: a counter was 0,
-- and nothing changed). Saturated counters stay at 15; a probe repeated is counted twice.
local op, k = ARGV[1], tonumber(ARGV[2])
local out = {}
local a = 3
while a <= #ARGV do
  local vals, orig, order = {}, {}, {}
  for i = 0, k - 1 do
    local id = ARGV[a + 2 * i] .. ':' .. ARGV[a + 2 * i + 1]
    if vals[id] == nil then
      local v = redis.call('BITFIELD', KEYS[tonumber(ARGV[a + 2 * i])], 'GET', 'u4', ARGV[a + 2 * i + 1])[1]
      vals[id], orig[id] = v, v
      order[#order + 1] = id
    end
  end
  local ok, changed = true, false
  for i = 0, k - 1 do
    local id = ARGV[a + 2 * i] .. ':' .. ARGV[a + 2 * i + 1]
    local c = vals[id]
    if op == 'add' then
      if c < 15 then
        vals[id] = c + 1
        changed = true
      end
    else
      if c == 0 then
        ok = false
        break
      end
      if c < 15 then
        vals[id] = c - 1
      end
    end
  end
  if op == 'add' then
    out[#out + 1] = changed and 1 or 0
  else
    out[#out + 1] = ok and 1 or 0
  end
  if ok then
    for _, id in ipairs(order) do
      if vals[id] ~= orig[id] then
        local s, o = string.match(id, '^(%d+):(%d+)$')
        redis.call('BITFIELD', KEYS[tonumber(s)], 'SET', 'u4', o, vals[id])
      end
    end
  end
  a = a + 2 * k
end
return out
