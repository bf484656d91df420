-- Metadata changes that must not touch a structure deleted and re-created under the same name.
-- KEYS[1]: the metadata; ARGV[1] = 'ready' | 'delete' | 'drop', ARGV[2] = the id this client
-- holds. 'ready' marks the structure ready, 'delete' deletes the metadata, 'drop' deletes KEYS[2] (a
-- string of the same slot); returns 1, or 0 (and changes nothing) when KEYS[1] does not hold that id.
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[2] then
  return 0
end
if ARGV[1] == 'ready' then
  redis.call('HSET', KEYS[1], 'state', 'ready')
elseif ARGV[1] == 'delete' then
  redis.call('DEL', KEYS[1])
else
  redis.call('DEL', KEYS[2])
end
return 1
