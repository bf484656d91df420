local id = table.remove(ARGV)
local g = tonumber(table.remove(ARGV))
for i = 1, g do
  local len = tonumber(table.remove(ARGV))
  check(KEYS[tonumber(table.remove(ARGV))], len, id)
end
return body(KEYS, ARGV, id)
