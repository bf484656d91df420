-- Count-min sketch: add a batch of (item, count), each atomically, with the library's rules. Counters
-- are the library's: unsigned 64-bit little-endian, saturating at 2^63 - 1. Lua numbers are doubles,
-- so each is handled as two exact 32-bit halves.
-- KEYS: the shards, then the total (conservative rule). ARGV[1] = 'standard' | 'conservative',
-- ARGV[2] = depth d, then per item: count high 32 bits, count low 32 bits, and d pairs (shard number
-- from 1, byte offset of the row's counter). Returns the number of items added.
local T32 = 4294967296
local MAXHI = 2147483647

local function get(key, o)
  local b1, b2, b3, b4, b5, b6, b7, b8 = string.byte(redis.call('GETRANGE', key, o, o + 7), 1, 8)
  return ((b8 * 256 + b7) * 256 + b6) * 256 + b5, ((b4 * 256 + b3) * 256 + b2) * 256 + b1
end

local function bytes4(x)
  return x % 256, math.floor(x / 256) % 256, math.floor(x / 65536) % 256, math.floor(x / 16777216)
end

local function put(key, o, hi, lo)
  local l1, l2, l3, l4 = bytes4(lo)
  local h1, h2, h3, h4 = bytes4(hi)
  redis.call('SETRANGE', key, o, string.char(l1, l2, l3, l4, h1, h2, h3, h4))
end

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

local conservative, d = ARGV[1] == 'conservative', tonumber(ARGV[2])
local total = KEYS[#KEYS]
local a, n = 3, 0
while a <= #ARGV do
  local chi, clo = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  if conservative then
    local hs, ls = {}, {}
    local mh, ml = MAXHI, T32 - 1
    for r = 0, d - 1 do
      hs[r], ls[r] = get(KEYS[tonumber(ARGV[a + 2 + 2 * r])], tonumber(ARGV[a + 3 + 2 * r]))
      if hs[r] < mh or (hs[r] == mh and ls[r] < ml) then
        mh, ml = hs[r], ls[r]
      end
    end
    local th, tl = plus(mh, ml, chi, clo)
    for r = 0, d - 1 do
      if hs[r] < th or (hs[r] == th and ls[r] < tl) then
        put(KEYS[tonumber(ARGV[a + 2 + 2 * r])], tonumber(ARGV[a + 3 + 2 * r]), th, tl)
      end
    end
    local nh, nl = get(total, 0)
    put(total, 0, plus(nh, nl, chi, clo))
  else
    for r = 0, d - 1 do
      local key, o = KEYS[tonumber(ARGV[a + 2 + 2 * r])], tonumber(ARGV[a + 3 + 2 * r])
      local h, l = get(key, o)
      put(key, o, plus(h, l, chi, clo))
    end
  end
  n = n + 1
  a = a + 2 + 2 * d
end
return n
