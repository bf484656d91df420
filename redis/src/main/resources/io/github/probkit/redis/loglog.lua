-- HyperLogLog / UltraLogLog: apply a batch of (register, update value), atomically, as the library's
-- add does (loglog_update, loglog-update.lua).
-- KEYS[1]: the registers. ARGV[1] = 'hll' | 'ull', then pairs (register index, value >= 1).
-- Returns 1 or 0 per pair: whether the register changed.
local key, ull = KEYS[1], ARGV[1] == 'ull'
local out = {}
for a = 2, #ARGV - 1, 2 do
  out[#out + 1] = loglog_update(key, ull, tonumber(ARGV[a]), tonumber(ARGV[a + 1]))
end
return out
