-- HyperLogLog / UltraLogLog: apply a batch of (register, update value), atomically, as the library's
-- add does. HyperLogLog registers are 6 bits, four packed little-endian in three bytes; UltraLogLog
-- registers are one byte, u << 2 | seen(u - 1) << 1 | seen(u - 2) (docs/FORMAT.md).
-- KEYS[1]: the registers. ARGV[1] = 'hll' | 'ull', then pairs (register index, value >= 1).
-- Returns 1 or 0 per pair: whether the register changed.
local key, ull = KEYS[1], ARGV[1] == 'ull'
local out = {}
for a = 2, #ARGV - 1, 2 do
  local i, v = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  local changed = 0
  if ull then
    local r = string.byte(redis.call('GETRANGE', key, i, i))
    local u = math.floor(r / 4)
    local nr = r
    if r == 0 then
      nr = v * 4
    elseif v > u then
      local d = v - u
      if d == 1 then
        nr = v * 4 + 2 + math.floor(r / 2) % 2
      elseif d == 2 then
        nr = v * 4 + 1
      else
        nr = v * 4
      end
    elseif v == u - 1 then
      nr = r - r % 4 + 2 + r % 2
    elseif v == u - 2 then
      nr = r - r % 2 + 1
    end
    if nr ~= r then
      redis.call('SETRANGE', key, i, string.char(nr))
      changed = 1
    end
  else
    local g = 3 * math.floor(i / 4)
    local scale = 2 ^ (6 * (i % 4))
    local b0, b1, b2 = string.byte(redis.call('GETRANGE', key, g, g + 2), 1, 3)
    local word = b0 + b1 * 256 + b2 * 65536
    local old = math.floor(word / scale) % 64
    if v > old then
      word = word + (v - old) * scale
      redis.call('SETRANGE', key, g, string.char(word % 256, math.floor(word / 256) % 256, math.floor(word / 65536)))
      changed = 1
    end
  end
  out[#out + 1] = changed
end
return out
