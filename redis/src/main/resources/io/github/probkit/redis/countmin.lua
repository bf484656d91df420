-- Count-min sketch: add a batch of (item, count), each atomically, with the library's rules: the
-- conservative rule, or the standard one on a sketch of several strings. Counters are the library's,
-- kept big-endian (RedisCountMinSketch says why), saturating at 2^63 - 1.
-- KEYS: the shards, then the total (conservative rule). ARGV[1] = 'standard' | 'conservative',
-- ARGV[2] = depth d; the batch packed in two arguments (Redis pays per argument), each number a
-- big-endian u32: ARGV[3] its distinct counters sorted by shard, each the shard number (from 1) and
-- the counter's bit offset; ARGV[4] per item the count's high and low 32 bits, then per row the
-- index (from 1) of its counter in ARGV[3]. Returns the number of items added.
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

-- Counters at or above 2^53 are not exact as Lua numbers: such a counter is read and written as
-- two u32 halves, every other one as one i64.
local EXACT = 9007199254740992
-- BITFIELD sub-commands per call, so that unpack stays within Lua's stack.
local CHUNK = 500

-- Calls BITFIELD on the shards of counters first..last (the client sorts them by shard), at most
-- CHUNK sub-commands at a time: each(j, args, k) appends counter j's sub-commands at args[k + 1]
-- and returns how many; done(j0, j1, reply) takes the reply for counters j0..j1.
local function bitfields(cshard, first, last, each, done)
  local j = first
  while j <= last do
    local s, args, k, j0 = cshard[j], {}, 0, j
    while j <= last and cshard[j] == s and j - j0 < CHUNK do
      k = k + each(j, args, k)
      j = j + 1
    end
    local reply = k > 0 and redis.call('BITFIELD', KEYS[s], unpack(args, 1, k)) or {}
    done(j0, j - 1, reply)
  end
end

-- The batch: ARGV[3] its distinct counters (shard, bit offset), ARGV[4] its items (count halves,
-- then the index of each row's counter). Every counter read once, the items applied in order to
-- those values (the result of adding them one by one: the script is atomic), each changed counter
-- written once.
local function batch(d, counters, items, conservative)
  local m = #counters / 8
  local cshard, coff, hi, lo, dirty = {}, {}, {}, {}, {}
  local pos = 1
  for j = 1, m do
    cshard[j], coff[j], pos = struct.unpack('>I4I4', counters, pos)
  end
  bitfields(cshard, 1, m, function(j, args, k)
    args[k + 1], args[k + 2], args[k + 3] = 'GET', 'i64', coff[j]
    return 3
  end, function(j0, j1, got)
    for j = j0, j1 do
      local v = got[j - j0 + 1]
      if v >= EXACT then
        local h = redis.call('BITFIELD', KEYS[cshard[j]], 'GET', 'u32', coff[j], 'GET', 'u32', coff[j] + 32)
        hi[j], lo[j] = h[1], h[2]
      else
        hi[j] = math.floor(v / T32)
        lo[j] = v - hi[j] * T32
      end
    end
  end)
  local n, addedHi, addedLo, idx = 0, 0, 0, {}
  pos = 1
  while pos <= #items do
    local chi, clo
    chi, clo, pos = struct.unpack('>I4I4', items, pos)
    for r = 1, d do
      idx[r], pos = struct.unpack('>I4', items, pos)
    end
    local th, tl
    if conservative then
      local mh, ml = MAXHI, T32 - 1
      for r = 1, d do
        local j = idx[r]
        if hi[j] < mh or (hi[j] == mh and lo[j] < ml) then
          mh, ml = hi[j], lo[j]
        end
      end
      th, tl = plus(mh, ml, chi, clo)
    end
    for r = 1, d do
      local j = idx[r]
      local nh, nl = th, tl
      if not conservative then
        nh, nl = plus(hi[j], lo[j], chi, clo)
      end
      if hi[j] < nh or (hi[j] == nh and lo[j] < nl) then
        hi[j], lo[j], dirty[j] = nh, nl, true
      end
    end
    -- Saturating sums of non-negative counts: the batch's total can be added once at the end.
    addedHi, addedLo = plus(addedHi, addedLo, chi, clo)
    n = n + 1
  end
  bitfields(cshard, 1, m, function(j, args, k)
    if not dirty[j] then
      return 0
    elseif hi[j] < EXACT / T32 then
      args[k + 1], args[k + 2], args[k + 3] = 'SET', 'i64', coff[j]
      args[k + 4] = string.format('%.0f', hi[j] * T32 + lo[j])
      return 4
    end
    args[k + 1], args[k + 2], args[k + 3], args[k + 4] = 'SET', 'u32', coff[j], hi[j]
    args[k + 5], args[k + 6], args[k + 7], args[k + 8] = 'SET', 'u32', coff[j] + 32, lo[j]
    return 8
  end, function() end)
  return n, addedHi, addedLo
end

local conservative, d = ARGV[1] == 'conservative', tonumber(ARGV[2])
local n, addedHi, addedLo = batch(d, ARGV[3], ARGV[4], conservative)
if conservative and n > 0 then
  local t = redis.call('BITFIELD', KEYS[#KEYS], 'GET', 'u32', 0, 'GET', 'u32', 32)
  local sh, sl = plus(t[1], t[2], addedHi, addedLo)
  redis.call('BITFIELD', KEYS[#KEYS], 'SET', 'u32', 0, sh, 'SET', 'u32', 32, sl)
end
return n
