-- Creates data string KEYS[1] of a structure being created: ARGV[1] zero bytes, followed by the
-- structure's id ARGV[2] when ARGV[3] is '1' (guard.lua). One SETRANGE allocates the string at its
-- final size. With KEYS[2], the metadata, nothing is written unless it still holds that id: the
-- structure may have been deleted and re-created since it was claimed.
if KEYS[2] and redis.call('HGET', KEYS[2], 'id') ~= ARGV[2] then
  return redis.error_reply("PROBKIT structure '" .. KEYS[2] .. "' was deleted or re-created while "
    .. "it was being created")
end
redis.call('DEL', KEYS[1])
if ARGV[3] == '1' then
  redis.call('SETRANGE', KEYS[1], tonumber(ARGV[1]), ARGV[2])
else
  redis.call('SETRANGE', KEYS[1], tonumber(ARGV[1]) - 1, '\0')
end
return 1
