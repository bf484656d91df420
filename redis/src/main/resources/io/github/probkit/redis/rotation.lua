-- The rotation of a windowed structure's slots, shared by window.lua, slices.lua and heavy.lua
-- (Scripts puts it before them). KEYS[1]: the metadata; KEYS[2 .. R + 1]: the R slots, in order;
-- ARGV[1]: the id; a structure whose slice is more than a string (RedisWindowedHeavyHitters) passes
-- after the slots, for each further key of a slice, R more keys in slot order, and Scripts sets
-- SLOT_KEYS, the keys per slice, before this script. The slice (or generation) s lives in slot s
-- mod R; the metadata's field 'generation' is the newest any writer has reached (absent before the
-- first event). Rotating is keyed by slice number, so every slice's slot is cleared exactly once,
-- whichever writer (and clock) gets there first, and a writer whose clock is behind never rotates
-- back. The script sets idAt (where a slot's id goes: the slot's size before it) and ttl (of a
-- slot, in ms) before it writes.
local meta, R, id = KEYS[1], (#KEYS - 1) / SLOT_KEYS, ARGV[1]
if redis.call('HGET', meta, 'id') ~= id then
  return redis.error_reply("PROBKIT structure '" .. meta .. "' was deleted or re-created since "
    .. "this client opened it")
end
local E = tonumber(redis.call('HGET', meta, 'generation'))
local idAt, ttl

-- The index in KEYS of slice s's slot (its further keys are R, 2R, ... after it).
local function slotIndex(s)
  return 2 + s % R
end

local function slot(s)
  return KEYS[slotIndex(s)]
end

-- A cleared slot at its final size, ended by the id, its further keys gone; the TTL only frees a
-- structure no one writes.
local function fresh(i)
  local key = KEYS[i]
  redis.call('DEL', key)
  for p = 1, SLOT_KEYS - 1 do
    redis.call('DEL', KEYS[i + p * R])
  end
  redis.call('SETRANGE', key, idAt, id)
  redis.call('PEXPIRE', key, ttl)
end

-- Before a write: a slot is missing only once its TTL freed it, when it held nothing of the window
-- any more.
local function refillFreed()
  for i = 2, R + 1 do
    if redis.call('EXISTS', KEYS[i]) == 0 then
      fresh(i)
    end
  end
end

-- Moves the generation to slice e, clearing the slot of each slice entered (the first event only
-- sets it, the slots being empty). Returns whether slice e is kept (false for an event older than
-- every slot).
local function enter(e)
  if E == nil then
    E = e
    redis.call('HSET', meta, 'generation', string.format('%.0f', E))
    for j = 2, R + 1 do
      redis.call('PEXPIRE', KEYS[j], ttl)
    end
  elseif e > E then
    for s = math.max(E + 1, e - R + 1), e do
      fresh(slotIndex(s))
    end
    E = e
    redis.call('HSET', meta, 'generation', string.format('%.0f', E))
  end
  return E - e < R
end

-- The generation as a reply: its decimal digits, which the clients parse; false before the first
-- event.
local function generationOf()
  return E and string.format('%.0f', E) or false
end

-- The slices of [from, to] that the slots hold.
local function span(from, to)
  return math.max(from, E - R + 1), math.min(to, E)
end

-- The reply of a 'window' read: {false} before the first event, else the generation, then what
-- read(s, out) appends for each slice s of [from, to] that the slots hold, oldest first.
local function window(from, to, read)
  if E == nil then
    return {false}
  end
  local out = {generationOf()}
  local lo, hi = span(from, to)
  for s = lo, hi do
    read(s, out)
  end
  return out
end

-- The operations every windowed script ends with: 'generation' sets it to g (an import); any other
-- op is refused.
local function generationOrRefuse(op, g)
  if op == 'generation' then
    redis.call('HSET', meta, 'generation', g)
    return 1
  end
  return redis.error_reply('PROBKIT unknown operation ' .. tostring(op))
end

-- Every slot's string (false: missing) after the generation, in slot order: an export's one read.
local function allSlots()
  local out = {generationOf()}
  for i = 2, R + 1 do
    out[i] = redis.call('GET', KEYS[i]) or false
  end
  return out
end
