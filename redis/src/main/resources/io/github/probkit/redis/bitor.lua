-- ORs the bytes ARGV[2] into string KEYS[1] from byte ARGV[1], atomically: BITOP needs whole keys,
-- so the range and the bytes go through two scratch keys of the same slot (KEYS[2], KEYS[3]), which
-- exist only inside this script. A shard shorter than the range (deleted meanwhile) is an error, not
-- a new string.
local at = tonumber(ARGV[1])
local len = #ARGV[2]
local cur = redis.call('GETRANGE', KEYS[1], at, at + len - 1)
if #cur ~= len then
  return redis.error_reply('ERR merge: ' .. KEYS[1] .. ' is shorter than ' .. (at + len) .. ' bytes')
end
redis.call('SET', KEYS[2], cur)
redis.call('SET', KEYS[3], ARGV[2])
redis.call('BITOP', 'OR', KEYS[2], KEYS[2], KEYS[3])
redis.call('SETRANGE', KEYS[1], at, redis.call('GET', KEYS[2]))
redis.call('DEL', KEYS[2], KEYS[3])
return 1
