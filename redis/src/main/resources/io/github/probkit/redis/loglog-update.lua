-- One (register, value) update of a HyperLogLog (6-bit registers, four packed little-endian in three
-- bytes) or UltraLogLog (a byte each: u << 2 | seen(u - 1) << 1 | seen(u - 2)) kept in string
-- key, as the library's add applies it (docs/FORMAT.md). Returns 1 if the register changed, else 0.
-- Shared by loglog.lua and slices.lua (Scripts prepends it).
local function loglog_update(key, ull, i, v)
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
  return changed
end
