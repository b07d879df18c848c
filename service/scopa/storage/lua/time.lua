-- The store's clock: Redis TIME ({seconds, microseconds}) of the node that holds KEYS[1]
-- (deadline shard 0), so every replica reads the same server's clock, on a Cluster too.
-- KEYS[1]  a key naming the node to ask (it is not read)
return redis.call('TIME')
