-- A time-based age-partitioned Bloom filter (RedisWindowedBloomFilter): R slots, each one slice of
-- the library's filter followed by its adds (8 bytes, big-endian) and the structure's id. The slice
-- of generation g lives in slot g mod R; rotation.lua, run first, moves between generations.
-- KEYS[1]: the metadata; KEYS[2 .. R + 1]: the slots, in order.
-- ARGV: id, op, k, l, slice bytes, TTL of a slot in ms, then op's arguments:
--   'add'   per key: its generation e, then the Redis bit offsets of its bit in the slices of
--           generations e, e - 1, ..., e - k + 1. Returns {generation, changed 1 | 0 per key}.
--   'query' e0 (the generation the offsets were computed for), n, then per key n offsets, for the
--           generations e0, e0 - 1, ..., e0 - n + 1. Returns {generation, 1 | 0 per key}, or
--           {generation} alone when it is no longer e0 (the client computes again).
--   A key's offsets are one argument of 4 bytes each, big-endian: parsing one argument per offset
--   cost Redis more than the bits themselves, and a query decodes only the few its walk reads.
--   'read'  returns {generation or false, then each slot's string or false}.
--   'put'   slot index, bytes: writes the slot (an import); 'generation' g: sets it (an import).
local op = ARGV[2]
local k, l, bytes = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
idAt, ttl = bytes + 8, tonumber(ARGV[6])

local function offset(packed, i)
  local b1, b2, b3, b4 = string.byte(packed, 4 * i + 1, 4 * i + 4)
  return ((b1 * 256 + b2) * 256 + b3) * 256 + b4
end

if op == 'add' then
  refillFreed()
  local out = {0}
  local i = 7
  while i <= #ARGV do
    local e = tonumber(ARGV[i])
    enter(e)
    local changed = 0
    if E - e <= l then
      redis.call('BITFIELD', slot(e), 'INCRBY', 'i64', bytes * 8, 1)
      for j = 0, k - 1 do
        if redis.call('SETBIT', slot(e - j), offset(ARGV[i + 1], j), 1) == 0 then
          changed = 1
        end
      end
    end
    out[#out + 1] = changed
    i = i + 2
  end
  out[1] = E
  return out
elseif op == 'query' then
  local e0, n = tonumber(ARGV[7]), tonumber(ARGV[8])
  if E ~= e0 then
    return {E}
  end
  local out = {E}
  for arg = 9, #ARGV do
    local packed = ARGV[arg]
    -- A run of k set bits among ages [0, n) from e0; a window [start, start + k) is tested from
    -- its oldest end, and a clear bit at age a moves the next window past a (the library's walk).
    local found, start, checked = 0, 0, -1
    while start + k <= n do
      local a = start + k - 1
      while a > checked do
        if redis.call('GETBIT', slot(e0 - a), offset(packed, a)) == 0 then
          break
        end
        a = a - 1
      end
      if a == checked then
        found = 1
        break
      end
      checked = start + k - 1
      start = a + 1
    end
    out[#out + 1] = found
  end
  return out
elseif op == 'read' then
  return allSlots()
elseif op == 'put' then
  local key = KEYS[2 + tonumber(ARGV[7])]
  redis.call('SET', key, ARGV[8] .. id, 'PX', ttl)
  return 1
end
return generationOrRefuse(op, ARGV[7])
