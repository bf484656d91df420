-- Deletes data string KEYS[1] of a structure whose id is ARGV[1], unless it belongs to another
-- structure of the same name (one re-created meanwhile): KEYS[2] is the string whose id decides
-- (KEYS[1] itself for a shard; the first shard for the strings without an id), ARGV[2] its payload
-- bytes. Returns 1 when deleted.
local n = tonumber(ARGV[2])
if redis.call('GETRANGE', KEYS[2], n, n + 15) ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1])
return 1
