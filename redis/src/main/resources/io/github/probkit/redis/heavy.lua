-- Windowed heavy hitters shared by a fleet (RedisWindowedHeavyHitters): one Space-Saving summary
-- per slice, run here exactly as the library's HeavyHitters runs it, so that the same events in the
-- same order leave the same summary. Slice s lives in slot i = s mod R, three keys (rotation.lua,
-- run first, clears all three): KEYS[2 + i] the slice's total (8 bytes, big-endian) and the id,
-- KEYS[2 + R + i] a hash item -> count (8 bytes) .. (2^53 - error) (8 bytes), KEYS[2 + 2R + i] a
-- sorted set, every score 0, of count .. (2^53 - error) .. order hash (8) .. item: in Redis's
-- byte order it is the library's eviction order (smaller count, larger error, smaller public hash,
-- smaller bytes), so its first member is the one to evict. Both are Redis's own keyed hash table
-- and skip list: no item chosen by an outsider makes an add cost more than O(log m).
-- Counts are Lua numbers (doubles): exact up to 2^53, beyond which an add is refused whole.
-- ARGV: id, op, slot payload bytes (8), TTL of a slot in ms, then op's arguments:
--   'add'  m (the capacity), then per event: slice, count, order hash .. item. Returns
--          {generation, 1 | 0 per event: whether its slice is still kept}.
--   'window' from, to: {generation or false, then per slice of max(from, generation - R + 1) ..
--          min(to, generation), oldest first: its total string or false, its hash as a list}.
--   'all'  the same for every slot, in slot order.
--   'put'  slot index, total string, then per item: order hash .. item, count .. (2^53 - error).
--   'generation' g: sets it (an import).
local op = ARGV[2]
local bytes = tonumber(ARGV[3])
idAt, ttl = bytes, tonumber(ARGV[4])
local TOP = 9007199254740992 -- 2^53
local T32 = 4294967296

local function u64(x)
  local hi = math.floor(x / T32)
  return struct.pack('>I4I4', hi, x - hi * T32)
end

local function num(s, at)
  local hi, lo = struct.unpack('>I4I4', s, at)
  return hi * T32 + lo
end

-- A slice's keys, from its slot index in KEYS.
local function items(i)
  return KEYS[i + R]
end
local function order(i)
  return KEYS[i + 2 * R]
end

-- A slot's total and items, when its string is there (a slot freed by its TTL is empty).
local function contents(i, out)
  local total = redis.call('GET', KEYS[i])
  if total then
    out[#out + 1] = total
    out[#out + 1] = redis.call('HGETALL', items(i))
  else
    out[#out + 1] = false
    out[#out + 1] = {}
  end
end

if op == 'add' then
  local m = tonumber(ARGV[5])
  -- Refused before anything changes: a count the doubles could not keep exact.
  local sum = {}
  for a = 6, #ARGV, 3 do
    local e = tonumber(ARGV[a])
    sum[e] = (sum[e] or 0) + tonumber(ARGV[a + 1])
  end
  for e, c in pairs(sum) do
    local t = 0
    if E ~= nil and E - e < R then
      t = redis.call('BITFIELD_RO', slot(e), 'GET', 'i64', 0)[1]
    end
    if c + t > TOP then
      return redis.error_reply('PROBKIT a slice would count ' .. string.format('%.0f', c + t)
        .. ' occurrences, more than 2^53')
    end
  end
  refillFreed()
  local out = {0}
  local touched = {}
  for a = 6, #ARGV, 3 do
    local e, c, key = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), ARGV[a + 2]
    local kept = enter(e)
    if kept and c > 0 then
      local i = slotIndex(e)
      local h, z = items(i), order(i)
      redis.call('BITFIELD', KEYS[i], 'INCRBY', 'i64', 0, c)
      local item = string.sub(key, 9)
      local v = redis.call('HGET', h, item)
      local nv
      if v then
        -- Monitored: its count rises, its error stays.
        redis.call('ZREM', z, v .. key)
        nv = u64(num(v, 1) + c) .. string.sub(v, 9)
      elseif redis.call('HLEN', h) < m then
        nv = u64(c) .. u64(TOP)
      else
        -- The first in eviction order leaves; the newcomer inherits its count as its error.
        local victim = redis.call('ZRANGE', z, 0, 0)[1]
        redis.call('ZREM', z, victim)
        redis.call('HDEL', h, string.sub(victim, 25))
        local low = num(victim, 1)
        nv = u64(low + c) .. u64(TOP - low)
      end
      redis.call('HSET', h, item, nv)
      redis.call('ZADD', z, 0, nv .. key)
      touched[i] = true
    end
    out[#out + 1] = kept and 1 or 0
  end
  -- The slot's string got its TTL when cleared; its other keys live as long, from their last write.
  for i in pairs(touched) do
    redis.call('PEXPIRE', items(i), ttl)
    redis.call('PEXPIRE', order(i), ttl)
  end
  out[1] = E
  return out
elseif op == 'window' then
  return window(tonumber(ARGV[5]), tonumber(ARGV[6]), function(s, out)
    contents(slotIndex(s), out)
  end)
elseif op == 'all' then
  local out = {generationOf()}
  for i = 2, R + 1 do
    contents(i, out)
  end
  return out
elseif op == 'put' then
  local i = 2 + tonumber(ARGV[5])
  redis.call('SET', KEYS[i], ARGV[6] .. id, 'PX', ttl)
  redis.call('DEL', items(i), order(i))
  for a = 7, #ARGV, 2 do
    redis.call('HSET', items(i), string.sub(ARGV[a], 9), ARGV[a + 1])
    redis.call('ZADD', order(i), 0, ARGV[a + 1] .. ARGV[a])
  end
  if #ARGV >= 7 then
    redis.call('PEXPIRE', items(i), ttl)
    redis.call('PEXPIRE', order(i), ttl)
  end
  return 1
end
return generationOrRefuse(op, ARGV[5])
