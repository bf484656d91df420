-- One consistent read of several strings: GET of each key, in order (the keys share a hash slot).
local out = {}
for i = 1, #KEYS do
  out[i] = redis.call('GET', KEYS[i]) or false
end
return out
