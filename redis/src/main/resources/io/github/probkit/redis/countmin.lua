-- Count-min sketch: add a batch of (item, count), each atomically, with the library's rules: the
-- conservative rule, or the standard one on a sketch of several strings. Counters are the library's,
-- kept big-endian (RedisCountMinSketch says why), saturating at 2^63 - 1.
-- KEYS: the shards, then the total (conservative rule). ARGV[1] = 'standard' | 'conservative',
-- ARGV[2] = depth d; the batch in two msgpack arrays of u32 (Redis pays per argument, and
-- cmsgpack.unpack makes each a table in one call): ARGV[3] its distinct counters sorted by shard,
-- each the shard number (from 1) and the counter's bit offset; ARGV[4] per item the count's high and
-- low 32 bits, then per row the index (from 1) of its counter in ARGV[3]. Returns the number of
-- items added.
local T32 = 4294967296
local MAXHI = 2147483647

local function plus(hi, lo, chi, clo)
  lo = lo + clo
  if lo >= T32 then
    lo = lo - T32
    hi = hi + 1
  end
  hi = hi + chi
  if hi > MAXHI then
    return MAXHI, T32 - 1
  end
  return hi, lo
end

-- Lua numbers are doubles, exact to 2^53: a counter at or above it is held as two u32 halves.
local EXACT = 9007199254740992
-- BITFIELD sub-commands per call, so that unpack stays within Lua's stack.
local CHUNK = 500
-- A shard's counters are read with one GETRANGE of the bytes from the batch's first to its last
-- counter, and the changed ones written back with one SETRANGE, when that range has at most DENSE
-- bytes per counter. Whole batches cost about 2.4 µs of Redis per counter with a BITFIELD
-- sub-command for each read and write, about 1 µs per counter plus 10 ns per byte of range with the
-- range (bench/NOTES.md): even at about 140 bytes per counter. DENSE stays below that, so that a wide
-- sketch is neither copied nor replicated whole for a few counters. A range is held in the script's
-- memory, with its splice beside it: never more than RANGE_MAX bytes.
local DENSE = 100
local RANGE_MAX = 8388608

-- Each shard's counters: first and last index into the counters, and, read as a range, the range's
-- first byte (from 0) and its bytes.
local function groups(cs, m)
  local out, j = {}, 1
  while j <= m do
    local g = {shard = cs[2 * j - 1], first = j}
    while j < m and cs[2 * j + 1] == g.shard do
      j = j + 1
    end
    g.last = j
    local from, to = cs[2 * g.first] / 8, cs[2 * g.last] / 8 + 8
    if to - from <= math.min(DENSE * (g.last - g.first + 1), RANGE_MAX) then
      g.at, g.bytes = from, redis.call('GETRANGE', KEYS[g.shard], from, to - 1)
    end
    out[#out + 1] = g
    j = j + 1
  end
  return out
end

-- Calls BITFIELD on shard g's counters, at most CHUNK at a time (unpack stays within Lua's stack):
-- each(j, args, k) appends counter j's sub-commands at args[k + 1] and returns how many;
-- done(j0, reply), when given, takes the reply of the chunk that starts at counter j0.
local function bitfields(g, each, done)
  local j = g.first
  while j <= g.last do
    local args, k, j0 = {}, 0, j
    while j <= g.last and j - j0 < CHUNK do
      k = k + each(j, args, k)
      j = j + 1
    end
    if k > 0 then
      local reply = redis.call('BITFIELD', KEYS[g.shard], unpack(args, 1, k))
      if done then
        done(j0, reply)
      end
    end
  end
end

-- v[j] = counter j as a number (not exact at or above 2^53).
local function read(cs, gs, v)
  for _, g in ipairs(gs) do
    if g.bytes then
      for j = g.first, g.last do
        v[j] = struct.unpack('>I8', g.bytes, cs[2 * j] / 8 - g.at + 1)
      end
    else
      bitfields(g, function(j, args, k)
        args[k + 1], args[k + 2], args[k + 3] = 'GET', 'i64', cs[2 * j]
        return 3
      end, function(j0, got)
        for i = 1, #got do
          v[j0 + i - 1] = got[i]
        end
      end)
    end
  end
end

-- The items applied in order to exact numbers: every value stays below 2^53 (the caller checked).
local function apply(items, d, conservative, v, dirty)
  for p = 1, #items, d + 2 do
    local c = items[p] * T32 + items[p + 1]
    if conservative then
      local min = v[items[p + 2]]
      for q = p + 3, p + d + 1 do
        if v[items[q]] < min then
          min = v[items[q]]
        end
      end
      local target = min + c
      for q = p + 2, p + d + 1 do
        local j = items[q]
        if v[j] < target then
          v[j], dirty[j] = target, true
        end
      end
    else
      for q = p + 2, p + d + 1 do
        local j = items[q]
        v[j], dirty[j] = v[j] + c, true
      end
    end
  end
end

-- The same on counters held as exact halves, saturating at 2^63 - 1; afterwards v[j] is the counter
-- when below 2^53, else false and its halves are hi[j], lo[j].
local function applyExact(cs, gs, items, d, conservative, v, dirty)
  local hi, lo = {}, {}
  for _, g in ipairs(gs) do
    for j = g.first, g.last do
      if v[j] < EXACT then
        lo[j] = v[j] % T32
        hi[j] = (v[j] - lo[j]) / T32
      elseif g.bytes then
        hi[j], lo[j] = struct.unpack('>I4I4', g.bytes, cs[2 * j] / 8 - g.at + 1)
      else
        local h = redis.call('BITFIELD', KEYS[g.shard], 'GET', 'u32', cs[2 * j], 'GET', 'u32', cs[2 * j] + 32)
        hi[j], lo[j] = h[1], h[2]
      end
    end
  end
  for p = 1, #items, d + 2 do
    local chi, clo = items[p], items[p + 1]
    local th, tl
    if conservative then
      local mh, ml = MAXHI, T32 - 1
      for q = p + 2, p + d + 1 do
        local j = items[q]
        if hi[j] < mh or (hi[j] == mh and lo[j] < ml) then
          mh, ml = hi[j], lo[j]
        end
      end
      th, tl = plus(mh, ml, chi, clo)
    end
    for q = p + 2, p + d + 1 do
      local j = items[q]
      local nh, nl = th, tl
      if not conservative then
        nh, nl = plus(hi[j], lo[j], chi, clo)
      end
      if hi[j] < nh or (hi[j] == nh and lo[j] < nl) then
        hi[j], lo[j], dirty[j] = nh, nl, true
      end
    end
  end
  for j in pairs(dirty) do
    v[j] = hi[j] < EXACT / T32 and hi[j] * T32 + lo[j]
  end
  return hi, lo
end

-- Writes each changed counter once: a range's changed counters spliced into its bytes and written by
-- one SETRANGE (from its first changed counter to its last), other shards' by BITFIELD SET.
local function write(cs, gs, v, hi, lo, dirty)
  for _, g in ipairs(gs) do
    if g.bytes then
      local parts, np, at, from = {}, 0, nil, nil
      for j = g.first, g.last do
        if dirty[j] then
          local b = cs[2 * j] / 8 - g.at + 1
          if not at then
            from = b
          elseif b > at then
            np = np + 1
            parts[np] = string.sub(g.bytes, at, b - 1)
          end
          np = np + 1
          parts[np] = v[j] and struct.pack('>I8', v[j]) or struct.pack('>I4I4', hi[j], lo[j])
          at = b + 8
        end
      end
      if from then
        redis.call('SETRANGE', KEYS[g.shard], g.at + from - 1, table.concat(parts, '', 1, np))
      end
    else
      bitfields(g, function(j, args, k)
        local off = cs[2 * j]
        if not dirty[j] then
          return 0
        elseif v[j] then
          -- string.format: a number would be sent with whatever precision this Redis formats it
          args[k + 1], args[k + 2], args[k + 3], args[k + 4] = 'SET', 'i64', off, string.format('%.0f', v[j])
          return 4
        end
        args[k + 1], args[k + 2], args[k + 3], args[k + 4] = 'SET', 'u32', off, hi[j]
        args[k + 5], args[k + 6], args[k + 7], args[k + 8] = 'SET', 'u32', off + 32, lo[j]
        return 8
      end)
    end
  end
end

local conservative, d = ARGV[1] == 'conservative', tonumber(ARGV[2])
local cs, items = cmsgpack.unpack(ARGV[3]), cmsgpack.unpack(ARGV[4])
local m, n = #cs / 2, #items / (d + 2)
local gs, v, dirty = groups(cs, m), {}, {}
read(cs, gs, v)
-- Plain numbers are exact while every counter stays below 2^53: no counter ends above the largest
-- read plus the batch's counts (each taken d times by the standard rule, should an item ever name a
-- counter twice). Sums of doubles round monotonically, so a sum that would reach 2^53 is
-- never computed below it.
local top, per = 0, conservative and 1 or d
for j = 1, m do
  if v[j] > top then
    top = v[j]
  end
end
for p = 1, #items, d + 2 do
  top = top + per * (items[p] * T32 + items[p + 1])
end
local hi, lo
if top < EXACT then
  apply(items, d, conservative, v, dirty)
else
  hi, lo = applyExact(cs, gs, items, d, conservative, v, dirty)
end
write(cs, gs, v, hi, lo, dirty)
if conservative and n > 0 then
  -- Saturating sums of non-negative counts: the batch's total is added once.
  local addedHi, addedLo = 0, 0
  for p = 1, #items, d + 2 do
    addedHi, addedLo = plus(addedHi, addedLo, items[p], items[p + 1])
  end
  local t = redis.call('BITFIELD', KEYS[#KEYS], 'GET', 'u32', 0, 'GET', 'u32', 32)
  local sh, sl = plus(t[1], t[2], addedHi, addedLo)
  redis.call('BITFIELD', KEYS[#KEYS], 'SET', 'u32', 0, sh, 'SET', 'u32', 32, sl)
end
return n
