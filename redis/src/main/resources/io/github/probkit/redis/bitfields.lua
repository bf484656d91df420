-- BITFIELD or BITFIELD_RO commands on keys of one hash slot. ARGV: per command, the index of its key
-- in KEYS, its argument count n, the command, then its n arguments. Returns the list of their
-- replies.
local out = {}
local a = 1
while a <= #ARGV do
  local key, n = KEYS[tonumber(ARGV[a])], tonumber(ARGV[a + 1])
  out[#out + 1] = redis.call(ARGV[a + 2], key, unpack(ARGV, a + 3, a + 2 + n))
  a = a + 3 + n
end
return out
