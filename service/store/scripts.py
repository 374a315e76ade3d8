"""The Lua scripts of the Redis store: one per operation, each a compare-and-set in a single step.

Kept apart from the Python that calls them (service.store.redis_store) so that each reads whole.
The hash fields they name (``v``, ``st`` ...) are listed with the Python that reads them.
"""

from __future__ import annotations

# Every script: KEYS = meta, state, log, checkpoints, hint trail, hint path; ARGV[1] = TTL of an open game (ms),
# ARGV[2] = idle time and the idle time of a game nobody has moved yet (version 1), as "idle,fresh" (ms),
# ARGV[3] = TTL of a closed game (ms).
# They return {code, ...}: 1 = done (then the meta hash as a flat list, the server time, and whatever the script
# adds), 0 = version conflict (current version), -1 = not found, -2 = closed (version, status), -3 = expired
# (version), -4 = nothing to undo (version), -5 = exists already.
#
# Redis 7 script flags. A write script is declared without ``allow-oom``: over maxmemory Redis refuses it whole
# before it runs (an old-style script was refused only at its first write that adds memory, after a DEL had
# gone through). The read script runs whatever the memory.
_WRITES = "#!lua\n"
_READS = "#!lua flags=no-writes\n"

#: A game being played keeps its position every this many moves (a checkpoint: the move count, the log's length
#: then, and the encoded state), so that UndoMove replays at most a few dozen moves whatever the game's length.
CHECKPOINT_EVERY = 128

_NOW = """
local t = redis.call('TIME')
local now = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
"""

# ARGV[4] = expected version ('' = any). Defines touch(ttl): bump the version, stamp, refresh every TTL.
_GUARD = (
    _NOW
    + """
local h = redis.call('HMGET', KEYS[1], 'v', 'st', 'ua', 'fa', 'mc', 'uc', 'hc', 'cm', 'ow')
if not h[1] then return {-1} end
local v = tonumber(h[1])
if ARGV[4] ~= '' and v ~= tonumber(ARGV[4]) then return {0, v} end
if h[4] ~= '0' then return {-2, v, h[2]} end
local idle, fresh = string.match(ARGV[2], '^(%d+),(%d+)$')
if v == 1 then idle = fresh end
if tonumber(h[3]) + tonumber(idle) <= tonumber(now) then return {-3, v} end
-- Tell the game's watchers (service.store.changes) its new version: a sharded channel in the game's own slot, so
-- the same script publishes on a single Redis and on a cluster (SPUBLISH with no subscriber costs a lookup).
local function notify(version)
  redis.call('SPUBLISH', KEYS[1] .. ':w', version)
end
local function touch(ttl)
  redis.call('HSET', KEYS[1], 'v', v + 1, 'ua', now)
  redis.call('PEXPIRE', KEYS[1], ttl)
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('PEXPIRE', KEYS[3], ttl)
  redis.call('PEXPIRE', KEYS[4], ttl)
  notify(v + 1)
end
-- After moves that leave the game open at move count mc with the state ARGV[5]: a checkpoint when the last is
-- CHECKPOINT_EVERY moves back or more. A game that closes drops its checkpoints (it is never undone again) and
-- has its log written anew at its own length (APPEND keeps room to grow, up to twice the length).
local function checkpoint(mc, closing, ttl)
  if closing then
    redis.call('DEL', KEYS[4], KEYS[5], KEYS[6])
    local log = redis.call('GET', KEYS[3])
    if log then redis.call('SET', KEYS[3], log, 'PX', ttl) end
  elseif mc - tonumber(h[8] or '0') >= """
    + str(CHECKPOINT_EVERY)
    + """ then
    redis.call('RPUSH', KEYS[4], mc .. ',' .. redis.call('STRLEN', KEYS[3]) .. ',' .. ARGV[5])
    redis.call('HSET', KEYS[1], 'cm', mc)
  end
  redis.call('PEXPIRE', KEYS[4], ttl)
end
-- A win signed before its write (service.store.records.SignedWin): ARGV[w] the certificate ('' or absent: none),
-- ARGV[w + 1] the finish time it names, ARGV[w + 2] and ARGV[w + 3] the hint count and owner it names. The game
-- takes that time and keeps the certificate only if both are still the game's (no hint counted, no owner unlinked
-- since the read it was signed from) and the time lies between the game's last write and now; else it finishes
-- now and keeps nothing (the caller signs again from the reply). The finish time, and the certificate kept or ''.
local function finish(w)
  local ct, fa = ARGV[w] or '', ARGV[w + 1]
  if ct ~= '' and (h[7] or '0') == ARGV[w + 2] and (h[9] or '') == ARGV[w + 3]
     and tonumber(fa) >= tonumber(h[3]) and tonumber(fa) <= tonumber(now) then
    return fa, ct
  end
  return now, ''
end
"""
)

# ARGV[4] = '1' to read the move log too; 'u' to read what UndoMove needs instead: the latest checkpoint before
# the last move (or false) and the log from there on (the whole log when there is no such checkpoint); 'h' to read
# what Hint needs: the hint trail (or false), the path's keys, and the log from the trail's position on (the whole
# log when there is no trail)
FETCH = (
    _READS
    + _NOW
    + """
local m = redis.call('HGETALL', KEYS[1])
if #m == 0 then return {-1} end
local log = false
local cp = false
local trail = false
local path = false
if ARGV[4] == '1' then
  log = redis.call('GET', KEYS[3])
elseif ARGV[4] == 'u' then
  local mc = tonumber(redis.call('HGET', KEYS[1], 'mc'))
  cp = redis.call('LINDEX', KEYS[4], -1)
  if cp and tonumber(string.match(cp, '^(%d+),')) >= mc then cp = redis.call('LINDEX', KEYS[4], -2) end
  if cp then
    log = redis.call('GETRANGE', KEYS[3], tonumber(string.match(cp, '^%d+,(%d+),')), -1)
  else
    log = redis.call('GET', KEYS[3])
  end
elseif ARGV[4] == 'h' then
  local o = redis.call('HGET', KEYS[5], 'o')
  if o then
    trail = redis.call('HGETALL', KEYS[5])
    path = redis.call('GET', KEYS[6])
    log = redis.call('GETRANGE', KEYS[3], tonumber(o), -1)
  else
    log = redis.call('GET', KEYS[3])
  end
end
return {1, m, now, redis.call('GET', KEYS[2]), log, cp, trail, path}
"""
)

# ARGV[4] = state, ARGV[5] = packed log, ARGV[6] = move count, ARGV[7] = status, ARGV[8..] = field/value pairs
CREATE = (
    _WRITES
    + _NOW
    + """
if redis.call('EXISTS', KEYS[1]) == 1 then return {-5} end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6])
-- A game nobody moves is dropped an hour after it expires (readable with its seed meanwhile), or after the
-- retention if that is shorter: an abandoned deal does not hold memory for weeks.
local fresh = tonumber(string.match(ARGV[2], ',(%d+)$'))
local ttl = fresh + math.min(3600000, tonumber(ARGV[3]))
local fa = 0
if ARGV[7] ~= 'in-progress' then
  ttl = ARGV[3]
  fa = now
end
redis.call('HSET', KEYS[1], 'v', 1, 'st', ARGV[7], 'ca', now, 'ua', now, 'fa', fa, 'mc', ARGV[6], 'uc', 0,
           unpack(ARGV, 8))
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('SET', KEYS[2], ARGV[4], 'PX', ttl)
if ARGV[5] ~= '' then redis.call('SET', KEYS[3], ARGV[5], 'PX', ttl) end
return {1, redis.call('HGETALL', KEYS[1]), now}
"""
)

# ARGV[5] = state, ARGV[6] = move, ARGV[7] = closing status or '', ARGV[8] = '1' to return only the fields a
# write changes (v, st, ua, fa, mc, uc), the hint count, the owner (ErasePlayer may have unlinked the game since
# the caller read it) and the certificate kept by this write instead of the whole meta hash; ARGV[9..12] = a win
# signed before the write (finish(9))
SET_STATE = (
    _WRITES
    + _GUARD
    + """
-- The move of every ApplyMove: a few Redis calls (each costs the server a few microseconds), none of them longer
-- with the game's length: the meta hash is written once, the state's TTL comes with its SET, the move is appended.
local mc = tonumber(h[5]) + 1
local st, fa, ttl, ct = h[2], h[4], ARGV[1], ''
if ARGV[7] ~= '' then
  st, ttl = ARGV[7], ARGV[3]
  fa, ct = finish(9)
  redis.call('HSET', KEYS[1], 'v', v + 1, 'ua', now, 'mc', mc, 'st', st, 'fa', fa)
  if st == 'won' then redis.call('HSET', KEYS[1], 'pl', 'moves') end
  if ct ~= '' then redis.call('HSET', KEYS[1], 'ct', ct) end
else
  redis.call('HSET', KEYS[1], 'v', v + 1, 'ua', now, 'mc', mc)
end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('SET', KEYS[2], ARGV[5], 'PX', ttl)
-- APPEND: the log grows by the move whatever its length (a game holds at most --max-moves moves).
redis.call('APPEND', KEYS[3], ARGV[6])
redis.call('PEXPIRE', KEYS[3], ttl)
checkpoint(mc, ARGV[7] ~= '', ttl)
notify(v + 1)
if ARGV[8] == '1' then return {1, {v + 1, st, now, fa, mc, h[6], h[7] or '0', h[9] or '', ct}, now} end
return {1, redis.call('HGETALL', KEYS[1]), now}
"""
)

# ARGV[5] = state, ARGV[6] = the moves, packed, ARGV[7] = how many, ARGV[8] = closing status or '', ARGV[9..12] =
# a win signed before the write (finish(9))
PLAY_MOVES = (
    _WRITES
    + _GUARD
    + """
-- Several moves in one step (AutoPlay): each is in the log and counts as a move, so the version goes up by
-- their number, as if each had been played by ApplyMove.
local n = tonumber(ARGV[7])
local mc = tonumber(h[5]) + n
local ttl = ARGV[1]
redis.call('HSET', KEYS[1], 'v', v + n, 'ua', now, 'mc', mc)
if ARGV[8] ~= '' then
  ttl = ARGV[3]
  local fa, ct = finish(9)
  redis.call('HSET', KEYS[1], 'st', ARGV[8], 'fa', fa)
  if ARGV[8] == 'won' then redis.call('HSET', KEYS[1], 'pl', 'moves') end
  if ct ~= '' then redis.call('HSET', KEYS[1], 'ct', ct) end
end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('SET', KEYS[2], ARGV[5], 'PX', ttl)
redis.call('APPEND', KEYS[3], ARGV[6])
redis.call('PEXPIRE', KEYS[3], ttl)
checkpoint(mc, ARGV[8] ~= '', ttl)
notify(v + n)
return {1, redis.call('HGETALL', KEYS[1]), now}
"""
)

# ARGV[5] = the version the hint is for. A hint is no change to the game: the version, the times and the TTLs
# stay; the count goes up once per version (asking again at the same version gives the same hint).
# ARGV[6] = the trail's version as the hint read it ('0': none), ARGV[7] = '1' to keep a trail, then its encoded
# state, line, line keys and moves to the end, the keys the path gains, and '1' to write the path anew. The trail
# is kept only while the game is at the hint's version and nobody kept another since (a compare-and-set on both;
# a path written anew, walked from the deal, is the same whoever writes it).
COUNT_HINT = (
    _WRITES
    + _GUARD
    + """
if redis.call('HGET', KEYS[1], 'hv') ~= ARGV[5] then
  redis.call('HINCRBY', KEYS[1], 'hc', 1)
  redis.call('HSET', KEYS[1], 'hv', ARGV[5])
end
if ARGV[7] == '1' and v == tonumber(ARGV[5])
   and (ARGV[13] == '1' or (redis.call('HGET', KEYS[5], 'v') or '0') == ARGV[6]) then
  redis.call('HSET', KEYS[5], 'v', v, 'mc', h[5], 'o', redis.call('STRLEN', KEYS[3]), 's', ARGV[8], 'l', ARGV[9],
             'k', ARGV[10], 'n', ARGV[11])
  if ARGV[13] == '1' then redis.call('SET', KEYS[6], ARGV[12]) else redis.call('APPEND', KEYS[6], ARGV[12]) end
  redis.call('PEXPIRE', KEYS[5], ARGV[1])
  redis.call('PEXPIRE', KEYS[6], ARGV[1])
end
return {1, tonumber(redis.call('HGET', KEYS[1], 'hc'))}
"""
)

# ARGV[5] = state, ARGV[6] = packed log, ARGV[7] = move count, ARGV[8] = closing status or '', ARGV[9] = undos,
# ARGV[10] = how a won game was played or '', ARGV[11..14] = a win signed before the write (finish(11))
REPLACE = (
    _WRITES
    + _GUARD
    + """
if ARGV[10] ~= '' then redis.call('HSET', KEYS[1], 'pl', ARGV[10]) end
redis.call('SET', KEYS[2], ARGV[5])
if ARGV[6] == '' then redis.call('DEL', KEYS[3]) else redis.call('SET', KEYS[3], ARGV[6]) end
-- The checkpoints (and the hint trail) were of the log replaced (a replacement that leaves the game open starts
-- without any).
redis.call('DEL', KEYS[4], KEYS[5], KEYS[6])
redis.call('HSET', KEYS[1], 'mc', ARGV[7], 'cm', 0)
redis.call('HINCRBY', KEYS[1], 'uc', ARGV[9])
if ARGV[8] ~= '' then
  local fa, ct = finish(11)
  redis.call('HSET', KEYS[1], 'st', ARGV[8], 'fa', fa)
  if ct ~= '' then redis.call('HSET', KEYS[1], 'ct', ct) end
  touch(ARGV[3])
else
  touch(ARGV[1])
end
return {1, redis.call('HGETALL', KEYS[1]), now}
"""
)

# ARGV[5] = state
UNDO = (
    _WRITES
    + _GUARD
    + """
local log = redis.call('GET', KEYS[3])
if not log or log == '' then return {-4, v} end
-- where the last move starts (engine.movelog.last_move, the same reading)
local n = #log
local b = string.byte(log, n)
local i
if b == 255 then
  i = n - 1 - string.byte(log, n - 1)
elseif b >= 240 then
  i = n
else
  i = n - 1
  while i >= 1 and string.byte(log, i) < 64 do i = i - 1 end
  if i >= 1 then
    local c = string.byte(log, i)
    if c >= 128 and c < 240 then i = i - 1 end
  end
  i = i + 1
end
local undone = string.sub(log, i)
-- The hint trail was of the log before: the next hint walks the path again from the deal.
redis.call('DEL', KEYS[5], KEYS[6])
if i <= 1 then
  redis.call('DEL', KEYS[3])
else
  redis.call('SET', KEYS[3], string.sub(log, 1, i - 1))
end
redis.call('SET', KEYS[2], ARGV[5])
local mc = tonumber(h[5])
-- A checkpoint of the position taken back goes with it; the one before becomes the latest.
if tonumber(h[8] or '0') >= mc then
  redis.call('RPOP', KEYS[4])
  local last = redis.call('LINDEX', KEYS[4], -1)
  redis.call('HSET', KEYS[1], 'cm', last and string.match(last, '^(%d+),') or 0)
end
redis.call('HSET', KEYS[1], 'mc', mc - 1)
redis.call('HINCRBY', KEYS[1], 'uc', 1)
touch(ARGV[1])
return {1, redis.call('HGETALL', KEYS[1]), now, undone}
"""
)

# ARGV[5] = status
# ARGV[1] = the certificate: kept once (HSETNX), so it keeps the bytes it was first issued with.
KEEP_CERTIFICATE = (
    _WRITES
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1} end
redis.call('HSETNX', KEYS[1], 'ct', ARGV[1])
return {1, redis.call('HGET', KEYS[1], 'ct')}
"""
)

FINISH = (
    _WRITES
    + _GUARD
    + """
redis.call('HSET', KEYS[1], 'st', ARGV[5], 'fa', now)
checkpoint(0, true, ARGV[3])
touch(ARGV[3])
return {1, redis.call('HGETALL', KEYS[1]), now, redis.call('GET', KEYS[2])}
"""
)

# ARGV[1] = the owner to remove: the game's owner fields go if they name that player (nothing else changes).
UNLINK_OWNER = (
    _WRITES
    + """
if redis.call('HGET', KEYS[1], 'ow') ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[1], 'ow', 'on', 'ok')
return 1
"""
)

# ARGV[4] = the new token's hash. A new token for a game (a resumed daily game: docs/competition.md): the old one
# stops working. An open game's version goes up (a change, as a move is: its time and TTLs too), so that a replica
# remembering it at the old version (with the old token checked) serves nobody: every write there is a
# compare-and-set on the version.
ROTATE_TOKEN = (
    _WRITES
    + _NOW
    + """
local h = redis.call('HMGET', KEYS[1], 'v', 'fa', 'ua')
if not h[1] then return {-1} end
redis.call('HSET', KEYS[1], 'th', ARGV[4])
local idle, fresh = string.match(ARGV[2], '^(%d+),(%d+)$')
if h[1] == '1' then idle = fresh end
if h[2] == '0' and tonumber(h[3]) + tonumber(idle) > tonumber(now) then
  -- a change to an open game (not expired), as a move is: a version, a time, the open game's TTL on every key
  redis.call('HSET', KEYS[1], 'v', tonumber(h[1]) + 1, 'ua', now)
  for i = 1, 6 do redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
  redis.call('SPUBLISH', KEYS[1] .. ':w', tonumber(h[1]) + 1)  -- its watchers learn the version, as after a move
end
return {1, redis.call('HGETALL', KEYS[1]), now, redis.call('GET', KEYS[2])}
"""
)
