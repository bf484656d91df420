-- Windowed sketches shared by a fleet (RedisWindowedCardinality, RedisWindowedCountMin): R slots,
-- each the payload of one slice's sketch followed by the structure's id. The slice s (event time
-- floor(t / slice length)) lives in slot s mod R; rotation.lua, run first, moves between slices.
-- KEYS[1]: the metadata; KEYS[2 .. R + 1]: the slots, in order.
-- ARGV: id, op, slot payload bytes, TTL of a slot in ms, then op's arguments:
--   'hll' | 'ull'  per key: slice, register, value. Returns {generation, changed 1 | 0 per key}.
--   'cms'  d, then per item: slice, count, d Redis bit offsets of its i64 counters (big-endian).
--          Returns {generation, 1 | 0 per item: whether its slice is still kept}.
--   'window' from, to: {generation or false, then the slots of slices max(from, generation - R + 1)
--          .. min(to, generation), oldest first, each its string or false}.
--   'estimate' from, to, d, then per item d Redis bit offsets: {generation or false, then per item
--          the high and low 32 bits of the sum over those slices of the item's smallest counter}.
--   'all'  {generation or false, then every slot's string or false, in slot order}.
--   'put'  slot index, bytes (an import); 'generation' g: sets it (an import).
--   'merge' the source's newest slice, then per slice it holds: slice, n, then n pairs of a Redis
--          bit offset and the i64 to add there (RedisWindowedCountMin.merge). Returns {generation,
--          then per slice 1 | 0: whether it is still kept}.
local op = ARGV[2]
local bytes = tonumber(ARGV[3])
idAt, ttl = bytes, tonumber(ARGV[4])

local T32 = 4294967296
local MAXHI = 2147483647

if op == 'hll' or op == 'ull' or op == 'cms' then
  refillFreed()
  local out = {0}
  if op == 'cms' then
    local d = tonumber(ARGV[5])
    local args = {'OVERFLOW', 'SAT'}
    for i = 6, #ARGV, 2 + d do
      local kept = enter(tonumber(ARGV[i]))
      if kept then
        for r = 1, d do
          args[4 * r - 1], args[4 * r], args[4 * r + 1], args[4 * r + 2] =
            'INCRBY', 'i64', ARGV[i + 1 + r], ARGV[i + 1]
        end
        redis.call('BITFIELD', slot(tonumber(ARGV[i])), unpack(args, 1, 2 + 4 * d))
      end
      out[#out + 1] = kept and 1 or 0
    end
  else
    local ull = op == 'ull'
    for i = 5, #ARGV, 3 do
      local e = tonumber(ARGV[i])
      local changed = 0
      if enter(e) then
        changed = loglog_update(slot(e), ull, tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]))
      end
      out[#out + 1] = changed
    end
  end
  out[1] = E
  return out
elseif op == 'merge' then
  -- The source's newest slice first, as the library's merge moves its ring there before adding:
  -- a slice too old for the moved ring is then left out whatever the order of the rest.
  refillFreed()
  enter(tonumber(ARGV[5]))
  local out = {0}
  local i = 6
  while i <= #ARGV do
    local s, n = tonumber(ARGV[i]), tonumber(ARGV[i + 1])
    local kept = enter(s)
    if kept then
      -- At most 500 counters per BITFIELD, so that unpack stays within Lua's stack.
      for first = 0, n - 1, 500 do
        local args, k = {'OVERFLOW', 'SAT'}, 2
        for j = first, math.min(n, first + 500) - 1 do
          local at = i + 2 + 2 * j
          args[k + 1], args[k + 2], args[k + 3], args[k + 4] = 'INCRBY', 'i64', ARGV[at], ARGV[at + 1]
          k = k + 4
        end
        redis.call('BITFIELD', slot(s), unpack(args, 1, k))
      end
    end
    out[#out + 1] = kept and 1 or 0
    i = i + 2 + 2 * n
  end
  out[1] = E
  return out
elseif op == 'window' then
  return window(tonumber(ARGV[5]), tonumber(ARGV[6]), function(s, out)
    out[#out + 1] = redis.call('GET', slot(s)) or false
  end)
elseif op == 'estimate' then
  if E == nil then
    return {false}
  end
  local lo, hi = span(tonumber(ARGV[5]), tonumber(ARGV[6]))
  local d = tonumber(ARGV[7])
  local n = (#ARGV - 7) / d
  -- Exact 64-bit counters as two u32 halves (Lua numbers are doubles), compared and summed
  -- (saturating at 2^63 - 1, as the library's counters) without ever forming the whole number.
  local sh, sl = {}, {}
  for j = 1, n do
    sh[j], sl[j] = 0, 0
  end
  -- One BITFIELD_RO per slice for up to 'per' items: a call per item and slice cost more than the
  -- counters themselves. A slot freed by its TTL reads as zeros.
  local per = math.max(1, math.floor(6000 / (6 * d)))
  local args = {}
  for s = lo, hi do
    local key = slot(s)
    for first = 1, n, per do
      local last = math.min(n, first + per - 1)
      local m = 0
      for j = first, last do
        for r = 1, d do
          local off = tonumber(ARGV[7 + (j - 1) * d + r])
          args[m + 1], args[m + 2], args[m + 3] = 'GET', 'u32', off
          args[m + 4], args[m + 5], args[m + 6] = 'GET', 'u32', off + 32
          m = m + 6
        end
      end
      local got = redis.call('BITFIELD_RO', key, unpack(args, 1, m))
      local g = 0
      for j = first, last do
        local mh, ml = got[g + 1], got[g + 2]
        for r = 2, d do
          local h, l = got[g + 2 * r - 1], got[g + 2 * r]
          if h < mh or (h == mh and l < ml) then
            mh, ml = h, l
          end
        end
        g = g + 2 * d
        local l2 = sl[j] + ml
        local h2 = sh[j] + mh
        if l2 >= T32 then
          l2 = l2 - T32
          h2 = h2 + 1
        end
        if h2 > MAXHI then
          h2, l2 = MAXHI, T32 - 1
        end
        sh[j], sl[j] = h2, l2
      end
    end
  end
  local out = {generationOf()}
  for j = 1, n do
    out[2 * j], out[2 * j + 1] = sh[j], sl[j]
  end
  return out
elseif op == 'all' then
  return allSlots()
elseif op == 'put' then
  redis.call('SET', KEYS[2 + tonumber(ARGV[5])], ARGV[6] .. id, 'PX', ttl)
  return 1
end
return generationOrRefuse(op, ARGV[5])
