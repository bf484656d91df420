-- An import's chunk: ARGV[2] into KEYS[1] at byte ARGV[1].
redis.call('SETRANGE', KEYS[1], ARGV[1], ARGV[2])
return 1
