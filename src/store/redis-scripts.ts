// The Lua scripts of the Valkey/Redis store (redis-store.ts). Each runs atomically in the server:
// a load sees one moment of the store, a commit lands whole or not at all. Keys are built from the
// prefix and the generation (a reset starts a new one), so the scripts need a single server
// (standalone, or a primary with replicas), not a Redis Cluster.
//
//   P:gen                 the generation (a reset or a whole snapshot brought back starts the next)
//   P:clock               how far the simulated clock is ahead of the machines' (ms)
//   P:g<gen>:a:<id>       an account: v (version), bv (version of its base), b (base, JSON)
//   P:g<gen>:l:<id>       its changes since the base, one JSON list of changes per version
//   P:g<gen>:j:<id>       its planned steps (members: JSON, scores: due time)
//   P:g<gen>:x:<map>      an index of the state (keys, emails, numbers, sign-ups ...)
//   P:g<gen>:c            counters (eventSeq, jobSeq, numbersIssued), only ever raised
//   P:g<gen>:due          account id -> when its next step is due (or its claim's lease ends)
//   P:g<gen>:accts        every account id
//   P:g<gen>:idem:<key>   an Idempotency-Key in flight (a lease, ended by the commit of its run)
//   P:snap:<name>, P:snaps   named snapshots and their list
//   channel P:events      "<gen> <replica> <account id>" after a commit with events

/**
 * What the scripts begin with: the prefix (ARGV[1]); the current generation and its keys (`G`) for
 * all but REPLACE, which starts the next; and `redue`, which sets an account's due time from its
 * first planned step.
 */
const PRELUDE = `
local function redue(G, id)
  local first = redis.call('ZRANGE', G .. ':j:' .. id, 0, 0, 'WITHSCORES')
  if first[2] then redis.call('ZADD', G .. ':due', first[2], id) else redis.call('ZREM', G .. ':due', id) end
end
local P = ARGV[1]
`;
const AT_GENERATION = `${PRELUDE}local gen = redis.call('GET', P .. ':gen') or '0'
local G = P .. ':g' .. gen
`;

/** Loads: the generation, the clock, the counters, index entries, accounts (whole, or the changes after a version the caller holds). */
export const LOAD = `${AT_GENERATION}local req = cjson.decode(ARGV[2])
local clock = redis.call('GET', P .. ':clock') or '0'
local counters = redis.call('HGETALL', G .. ':c')
local idx = {}
for i, pair in ipairs(req.x) do
  local value = redis.call('HGET', G .. ':x:' .. pair[1], pair[2])
  idx[i] = value or ''
  if pair[1] == 'keys' and value and req.follow then req.a[value] = req.a[value] or -1 end
end
local accounts = {}
for id, held in pairs(req.a) do
  local key = G .. ':a:' .. id
  local h = redis.call('HMGET', key, 'v', 'bv')
  local v = tonumber(h[1] or '0')
  local bv = tonumber(h[2] or '0')
  if v == 0 then
    table.insert(accounts, {id, 0, 0, '', {}, {}})
  elseif held == v and req.gen == gen then
    table.insert(accounts, {id, v, bv, '', {}, false})
  elseif held >= bv and held < v and req.gen == gen then
    table.insert(accounts, {id, v, held, '', redis.call('LRANGE', G .. ':l:' .. id, held - bv, -1), redis.call('ZRANGE', G .. ':j:' .. id, 0, -1)})
  else
    table.insert(accounts, {id, v, bv, redis.call('HGET', key, 'b'), redis.call('LRANGE', G .. ':l:' .. id, 0, -1), redis.call('ZRANGE', G .. ':j:' .. id, 0, -1)})
  end
end
return {gen, clock, counters, idx, accounts}
`;

/**
 * Commits one run if nothing it read changed since it loaded it: the generation, each account's
 * version, each index entry. ARGV: prefix, generation, the plan (JSON), then the texts it names.
 * The plan's `lease` ([name, token], an Idempotency-Key the run held) ends with the commit: what
 * the run stored and the end of its lease land together, or neither.
 */
export const COMMIT = `${AT_GENERATION}if gen ~= ARGV[2] then return 'CONFLICT' end
local plan = cjson.decode(ARGV[3])
for id, v in pairs(plan.checkA) do
  if tonumber(redis.call('HGET', G .. ':a:' .. id, 'v') or '0') ~= v then return 'CONFLICT' end
end
for _, c in ipairs(plan.checkX) do
  local value = redis.call('HGET', G .. ':x:' .. c[1], c[2]) or ''
  if value ~= c[3] then return 'CONFLICT' end
end
for _, w in ipairs(plan.x) do
  if w[3] == '' then redis.call('HDEL', G .. ':x:' .. w[1], w[2]) else redis.call('HSET', G .. ':x:' .. w[1], w[2], w[3]) end
end
for name, value in pairs(plan.c) do
  local now = tonumber(redis.call('HGET', G .. ':c', name) or '0')
  if value > now then redis.call('HSET', G .. ':c', name, string.format('%.0f', value)) end
end
for _, w in ipairs(plan.a) do
  local id = w.id
  local key = G .. ':a:' .. id
  if w.del then
    redis.call('DEL', key, G .. ':l:' .. id, G .. ':j:' .. id)
    redis.call('SREM', G .. ':accts', id)
    redis.call('ZREM', G .. ':due', id)
  else
    local v = tonumber(redis.call('HGET', key, 'v') or '0') + 1
    if w.base then
      redis.call('HSET', key, 'v', v, 'bv', v, 'b', ARGV[w.base])
      redis.call('DEL', G .. ':l:' .. id)
      redis.call('SADD', G .. ':accts', id)
    else
      redis.call('HSET', key, 'v', v)
      redis.call('RPUSH', G .. ':l:' .. id, ARGV[w.log])
    end
    local jobs = G .. ':j:' .. id
    for _, member in ipairs(w.jrem) do redis.call('ZREM', jobs, ARGV[member]) end
    for _, add in ipairs(w.jadd) do redis.call('ZADD', jobs, add[1], ARGV[add[2]]) end
    redue(G, id)
  end
end
if plan.lease and redis.call('GET', plan.lease[1]) == plan.lease[2] then redis.call('DEL', plan.lease[1]) end
for _, id in ipairs(plan.events) do redis.call('PUBLISH', P .. ':events', gen .. ' ' .. plan.replica .. ' ' .. id) end
return 'OK'
`;

/** Ends a lease of an Idempotency-Key (KEYS[1]) if it is still the holder's (ARGV[1]): the run that held it committed nothing. */
export const RELEASE_LEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

/** Claims up to ARGV[4] accounts with a step due by ARGV[2] for a lease of ARGV[3] ms; returns them and the next due time. */
export const CLAIM = `${AT_GENERATION}local due = redis.call('ZRANGEBYSCORE', G .. ':due', '-inf', ARGV[2], 'LIMIT', 0, tonumber(ARGV[4]))
for _, id in ipairs(due) do redis.call('ZADD', G .. ':due', tonumber(ARGV[2]) + tonumber(ARGV[3]), id) end
local next = redis.call('ZRANGE', G .. ':due', 0, 0, 'WITHSCORES')
return {gen, due, next[2] or ''}
`;

/** Sets an account's due time from its steps again (a claim that found nothing left to run). */
export const REDUE = `${AT_GENERATION}if gen ~= ARGV[2] then return 0 end
redue(G, ARGV[3])
return 1
`;

/** Everything of the current generation, at one moment (a snapshot of every account). */
export const DUMP = `${AT_GENERATION}local maps = {}
for i, name in ipairs(cjson.decode(ARGV[2])) do maps[i] = redis.call('HGETALL', G .. ':x:' .. name) end
local accounts = {}
for _, id in ipairs(redis.call('SMEMBERS', G .. ':accts')) do
  table.insert(accounts, {id, redis.call('HGET', G .. ':a:' .. id, 'b') or '', redis.call('LRANGE', G .. ':l:' .. id, 0, -1), redis.call('ZRANGE', G .. ':j:' .. id, 0, -1)})
end
return {gen, redis.call('HGETALL', G .. ':c'), maps, accounts}
`;

/**
 * Starts the next generation with the given state (a reset to the seed, a snapshot brought back):
 * ARGV: prefix, the plan (JSON: maps, counters, accounts with their steps), then the texts it names.
 */
export const REPLACE = `${PRELUDE}local plan = cjson.decode(ARGV[2])
local gen = tostring(redis.call('INCR', P .. ':gen'))
local G = P .. ':g' .. gen
for name, entries in pairs(plan.x) do
  for key, value in pairs(entries) do redis.call('HSET', G .. ':x:' .. name, key, value) end
end
for name, value in pairs(plan.c) do redis.call('HSET', G .. ':c', name, string.format('%.0f', value)) end
for _, a in ipairs(plan.a) do
  redis.call('HSET', G .. ':a:' .. a.id, 'v', 1, 'bv', 1, 'b', ARGV[a.base])
  redis.call('SADD', G .. ':accts', a.id)
  for _, add in ipairs(a.jadd) do redis.call('ZADD', G .. ':j:' .. a.id, add[1], ARGV[add[2]]) end
  redue(G, a.id)
end
redis.call('PUBLISH', P .. ':events', gen .. ' ' .. plan.replica .. ' *')
return gen
`;
