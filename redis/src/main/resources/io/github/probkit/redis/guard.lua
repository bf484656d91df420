-- Prefixed to every script that reads or writes a structure's data (Scripts.guarded). Each data
-- string ends with the 16 hex digits of its structure's id, written when the structure was created:
-- before the body runs, check(key, len, id) makes sure that each key the batch reads or writes
-- exists, holds len payload bytes and belongs to this structure, not to one deleted and re-created
-- under the same name since the client opened it. A script is atomic, so no write of the body can
-- land in a structure the check did not see. The body is the script itself, as a function.
-- The body's own ARGV come first, then g pairs (index into KEYS, payload bytes), g, and the id: taken
-- off the end, they cost nothing per argument of the body.
local function check(key, len, id)
  local n = redis.call('STRLEN', key)
  if n == 0 then
    error({err = "PROBKIT key '" .. key .. "' does not exist: the structure was deleted, or the key "
      .. "evicted or expired (docs/REDIS.md: maxmemory-policy)"})
  end
  if n ~= len + 16 then
    error({err = "PROBKIT key '" .. key .. "' holds " .. n .. " bytes, not " .. (len + 16)
      .. ": damaged, or not written by probkit"})
  end
  if redis.call('GETRANGE', key, len, len + 15) ~= id then
    error({err = "PROBKIT key '" .. key .. "' belongs to another structure of the same name: "
      .. "it was deleted and re-created since this client opened it"})
  end
end
