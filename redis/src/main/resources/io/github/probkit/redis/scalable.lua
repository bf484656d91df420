-- Scalable Bloom filter: add a batch of keys, each atomically, as the library's add does: a key
-- present in some layer is not added; otherwise its bits are set in the newest layer, whose key
-- count grows by one, and a new layer is created first when the newest is full.
-- Its strings end with the structure's id (guard.lua); a new layer is created with it.
-- KEYS[1]: the counts (u64 little-endian per layer, as in the file); KEYS[2..]: layers 0, 1, ...
-- ARGV[1] = P, the layers the client sent positions for; then per layer l < P: capacity (-1: the
-- layer cannot exist), bytes, probes k_l; then per key, for each layer l < P, k_l Redis bit offsets.
-- Stops at the first key it cannot handle (a layer it has no positions for). Returns
-- {per processed key 1 (added) or 0 (present), the layer count}.
local P = tonumber(ARGV[1])
local cap, len, kk = {}, {}, {}
local a = 2
for l = 0, P - 1 do
  cap[l], len[l], kk[l] = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  a = a + 3
end
local L = redis.call('STRLEN', KEYS[1]) / 8
if L < 1 or L ~= math.floor(L) then
  error({err = "PROBKIT key '" .. KEYS[1] .. "' holds " .. (8 * L) .. " bytes, not a count per layer: "
    .. "it was deleted, evicted or expired, or is damaged"})
end
-- Layer 0 was checked before the body (guard.lua); the others the client knows of are checked here.
for l = 1, math.min(L, P) - 1 do
  check(KEYS[l + 2], len[l], ID)
end

local function count(l)
  local b = {string.byte(redis.call('GETRANGE', KEYS[1], 8 * l, 8 * l + 7), 1, 8)}
  local v = 0
  for i = 8, 1, -1 do
    v = v * 256 + b[i]
  end
  return v
end

local function setCount(l, v)
  local b = {}
  for i = 1, 8 do
    b[i] = v % 256
    v = math.floor(v / 256)
  end
  redis.call('SETRANGE', KEYS[1], 8 * l, string.char(unpack(b)))
end

local out = {}
while a <= #ARGV and L <= P do
  local offs, idx = {}, a
  for l = 0, P - 1 do
    offs[l] = idx
    idx = idx + kk[l]
  end
  local present = false
  for l = L - 1, 0, -1 do
    local all = true
    for i = 0, kk[l] - 1 do
      if redis.call('GETBIT', KEYS[l + 2], ARGV[offs[l] + i]) == 0 then
        all = false
        break
      end
    end
    if all then
      present = true
      break
    end
  end
  local top = L - 1
  local n = 0
  if not present then
    n = count(top)
    if n >= cap[top] then
      if L >= P or cap[L] < 0 then
        break
      end
      redis.call('DEL', KEYS[L + 2])
      redis.call('SETRANGE', KEYS[L + 2], len[L], ID)
      redis.call('APPEND', KEYS[1], '\0\0\0\0\0\0\0\0')
      L = L + 1
      top = L - 1
      n = 0
    end
    for i = 0, kk[top] - 1 do
      redis.call('SETBIT', KEYS[top + 2], ARGV[offs[top] + i], 1)
    end
    setCount(top, n + 1)
  end
  out[#out + 1] = present and 0 or 1
  a = idx
end
return {out, L}
