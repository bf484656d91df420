-- Counting Bloom filter: add or remove a batch of keys, each atomically, with the library's rules.
-- KEYS: the shards. ARGV[1] = 'add' | 'remove', ARGV[2] = k, then per key k pairs (shard number
-- from 1, Redis bit offset of the counter's 4 bits). Returns 1 or 0 per key: add, a counter changed
-- (0: all were saturated at 15); remove, the key was removed (0: a counter was 0, and nothing
-- changed). Saturated counters stay at 15; a probe repeated is counted twice, in probe order.
-- Each key costs one BITFIELD read and at most one write per shard it touches.
local add, k = ARGV[1] == 'add', tonumber(ARGV[2])
local out = {}
local shard, off, cell, val, orig = {}, {}, {}, {}, {}
local a = 3
while a <= #ARGV do
  -- cell[i]: the first probe of the same counter as probe i (a key may probe a counter twice).
  for i = 1, k do
    shard[i], off[i] = ARGV[a + 2 * i - 2], ARGV[a + 2 * i - 1]
    cell[i] = i
    for j = 1, i - 1 do
      if shard[j] == shard[i] and off[j] == off[i] then
        cell[i] = j
        break
      end
    end
  end
  -- Read the key's counters, one BITFIELD per shard.
  local done = {}
  for i = 1, k do
    if cell[i] == i and not done[shard[i]] then
      done[shard[i]] = true
      local args, idx = {}, {}
      for j = i, k do
        if cell[j] == j and shard[j] == shard[i] then
          args[#args + 1], args[#args + 2], args[#args + 3] = 'GET', 'u4', off[j]
          idx[#idx + 1] = j
        end
      end
      local got = redis.call('BITFIELD', KEYS[tonumber(shard[i])], unpack(args))
      for n, j in ipairs(idx) do
        val[j], orig[j] = got[n], got[n]
      end
    end
  end
  -- The library's loop, on the values read.
  local ok, changed = true, false
  for i = 1, k do
    local c = val[cell[i]]
    if add then
      if c < 15 then
        val[cell[i]] = c + 1
        changed = true
      end
    else
      if c == 0 then
        ok = false
        break
      end
      if c < 15 then
        val[cell[i]] = c - 1
      end
    end
  end
  out[#out + 1] = ((add and changed) or (not add and ok)) and 1 or 0
  -- Write back what changed, one BITFIELD per shard.
  if ok then
    done = {}
    for i = 1, k do
      if cell[i] == i and not done[shard[i]] then
        done[shard[i]] = true
        local args = {}
        for j = i, k do
          if cell[j] == j and shard[j] == shard[i] and val[j] ~= orig[j] then
            args[#args + 1], args[#args + 2], args[#args + 3], args[#args + 4] = 'SET', 'u4', off[j], val[j]
          end
        end
        if #args > 0 then
          redis.call('BITFIELD', KEYS[tonumber(shard[i])], unpack(args))
        end
      end
    end
  end
  a = a + 2 * k
end
return out
