-- Count-min sketch: add a batch of (item, count), each atomically, with the library's rules: the
-- conservative rule, or the standard one on a sketch of several strings. Counters are the library's,
-- kept big-endian (RedisCountMinSketch says why), saturating at 2^63 - 1. Lua numbers are doubles
-- (exact to 2^53), so each counter is two exact 32-bit halves, BITFIELD u32: one read and one write
-- per item and string.
-- KEYS: the shards, then the total (conservative rule). ARGV[1] = 'standard' | 'conservative',
-- ARGV[2] = depth d, then per item: count high 32 bits, count low 32 bits, and d triples (shard
-- number from 1, Redis bit offset of the counter's high half, of its low half). Returns the number
-- of items added.
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

-- Reads the rows' counters: hi, lo arrays; one BITFIELD per key.
local function read(keys, his, los, d)
  local byKey, hs, ls = {}, {}, {}
  for r = 1, d do
    local g = byKey[keys[r]]
    if g == nil then
      g = {args = {}, rows = {}}
      byKey[keys[r]] = g
    end
    local n = #g.args
    g.args[n + 1], g.args[n + 2], g.args[n + 3] = 'GET', 'u32', his[r]
    g.args[n + 4], g.args[n + 5], g.args[n + 6] = 'GET', 'u32', los[r]
    g.rows[#g.rows + 1] = r
  end
  for key, g in pairs(byKey) do
    local got = redis.call('BITFIELD', key, unpack(g.args))
    for j, r in ipairs(g.rows) do
      hs[r], ls[r] = got[2 * j - 1], got[2 * j]
    end
  end
  return hs, ls
end

-- Writes (hi, lo) into the rows whose flag is set; one BITFIELD per key.
local function write(keys, his, los, d, set, hi, lo)
  local byKey = {}
  for r = 1, d do
    if set[r] then
      local args = byKey[keys[r]]
      if args == nil then
        args = {}
        byKey[keys[r]] = args
      end
      local n = #args
      args[n + 1], args[n + 2], args[n + 3], args[n + 4] = 'SET', 'u32', his[r], hi[r]
      args[n + 5], args[n + 6], args[n + 7], args[n + 8] = 'SET', 'u32', los[r], lo[r]
    end
  end
  for key, args in pairs(byKey) do
    redis.call('BITFIELD', key, unpack(args))
  end
end

local conservative, d = ARGV[1] == 'conservative', tonumber(ARGV[2])
local total = {KEYS[#KEYS]}
local oneKey = #KEYS == 2 -- one shard (and the total): one read and one write per item
local keys, his, los, set, nh, nl = {}, {}, {}, {}, {}, {}
local getArgs, setArgs = {}, {}
local addedHi, addedLo = 0, 0
local a, n = 3, 0
while a <= #ARGV do
  local chi, clo = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  for r = 1, d do
    local at = a + 3 * r - 1
    keys[r], his[r], los[r] = KEYS[tonumber(ARGV[at])], ARGV[at + 1], ARGV[at + 2]
  end
  local hs, ls
  if oneKey then
    for r = 1, d do
      local g = 6 * r - 6
      getArgs[g + 1], getArgs[g + 2], getArgs[g + 3] = 'GET', 'u32', his[r]
      getArgs[g + 4], getArgs[g + 5], getArgs[g + 6] = 'GET', 'u32', los[r]
    end
    local got = redis.call('BITFIELD', KEYS[1], unpack(getArgs, 1, 6 * d))
    hs, ls = {}, {}
    for r = 1, d do
      hs[r], ls[r] = got[2 * r - 1], got[2 * r]
    end
  else
    hs, ls = read(keys, his, los, d)
  end
  if conservative then
    local mh, ml = MAXHI, T32 - 1
    for r = 1, d do
      if hs[r] < mh or (hs[r] == mh and ls[r] < ml) then
        mh, ml = hs[r], ls[r]
      end
    end
    local th, tl = plus(mh, ml, chi, clo)
    for r = 1, d do
      set[r] = hs[r] < th or (hs[r] == th and ls[r] < tl)
      nh[r], nl[r] = th, tl
    end
    -- Saturating sums of non-negative counts: the batch's total can be added once at the end.
    addedHi, addedLo = plus(addedHi, addedLo, chi, clo)
  else
    for r = 1, d do
      nh[r], nl[r] = plus(hs[r], ls[r], chi, clo)
      set[r] = true
    end
  end
  if oneKey then
    local m = 0
    for r = 1, d do
      if set[r] then
        setArgs[m + 1], setArgs[m + 2], setArgs[m + 3], setArgs[m + 4] = 'SET', 'u32', his[r], nh[r]
        setArgs[m + 5], setArgs[m + 6], setArgs[m + 7], setArgs[m + 8] = 'SET', 'u32', los[r], nl[r]
        m = m + 8
      end
    end
    if m > 0 then
      redis.call('BITFIELD', KEYS[1], unpack(setArgs, 1, m))
    end
  else
    write(keys, his, los, d, set, nh, nl)
  end
  n = n + 1
  a = a + 2 + 3 * d
end
if conservative and n > 0 then
  local h0, l0 = read(total, {'0'}, {'32'}, 1)
  local sh, sl = plus(h0[1], l0[1], addedHi, addedLo)
  write(total, {'0'}, {'32'}, 1, {true}, {sh}, {sl})
end
return n
