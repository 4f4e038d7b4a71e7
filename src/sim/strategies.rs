//! The six delay-queue designs the lab compares, as the client code a developer writes (shown in
//! the page next to the timeline and printed by `redisplay delay-queue --code`). The state
//! machines in delay_queue/mod.rs run exactly these loops, command for command.

/// A delay-queue design.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Strategy {
    /// 1. Poll ZRANGEBYSCORE … LIMIT, claim each task with ZREM, process only if ZREM returned 1.
    PollClaim = 1,
    /// 2. Poll, process, then ZREM without checking: double-processes under concurrency.
    PollNaive = 2,
    /// 3. A Lua script pops the due tasks atomically.
    LuaPop = 3,
    /// 4. `SET order EX …` and keyspace notifications for `expired`.
    KeyspaceEvents = 4,
    /// 5. The ZSET plus a pub/sub wake-up: sleep until the earliest due task (BullMQ/Redisson).
    ZsetWakeup = 5,
    /// 6. The ZSET as the schedule, a stream with a consumer group as the work queue: a script
    ///    moves due tasks into the stream, consumers XREADGROUP and XACK, XAUTOCLAIM takes over
    ///    what a crashed consumer left pending.
    Streams = 6,
}

impl Strategy {
    pub const ALL: [Strategy; 6] = [
        Strategy::PollClaim,
        Strategy::PollNaive,
        Strategy::LuaPop,
        Strategy::KeyspaceEvents,
        Strategy::ZsetWakeup,
        Strategy::Streams,
    ];

    pub fn from_number(n: i64) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| *s as i64 == n)
    }

    pub fn number(self) -> u8 {
        self as u8
    }

    pub fn name(self) -> &'static str {
        match self {
            Strategy::PollClaim => "poll + ZREM check",
            Strategy::PollNaive => "poll, naive",
            Strategy::LuaPop => "Lua atomic pop",
            Strategy::KeyspaceEvents => "keyspace notifications",
            Strategy::ZsetWakeup => "ZSET + pub/sub wake-up",
            Strategy::Streams => "stream + consumer group",
        }
    }

    /// Whether the tasks live in the `queue` sorted set (all but keyspace notifications).
    pub fn uses_zset(self) -> bool {
        self != Strategy::KeyspaceEvents
    }

    /// The design's client code, with how it handles a failed processing.
    pub fn code(self) -> String {
        let retry = match self {
            Strategy::Streams => CODE_RETRY_STREAM,
            Strategy::KeyspaceEvents => CODE_RETRY_KEY,
            _ => CODE_RETRY,
        };
        format!("{}\n\n{retry}", self.loop_code())
    }

    fn loop_code(self) -> &'static str {
        match self {
            Strategy::PollClaim => CODE_POLL_CLAIM,
            Strategy::PollNaive => CODE_POLL_NAIVE,
            Strategy::LuaPop => CODE_LUA_POP,
            Strategy::KeyspaceEvents => CODE_KEYSPACE,
            Strategy::ZsetWakeup => CODE_WAKEUP,
            Strategy::Streams => CODE_STREAMS,
        }
    }
}

/// The script strategies 3 and 5 run (EVAL; the same text a developer would load).
pub const POP_DUE: &str = "local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])\n\
if #due > 0 then redis.call('ZREM', KEYS[1], unpack(due)) end\n\
return due";

/// The script strategy 6 runs: moves the due tasks from the sorted set into the stream.
pub const MOVE_DUE: &str = "local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])\n\
for _, task in ipairs(due) do\n\
  redis.call('ZREM', KEYS[1], task)\n\
  redis.call('XADD', KEYS[2], '*', 'task', task)\n\
end\n\
return due";

/// A failed task goes back with a later score, or after `max` tries into the dead-letter set
/// (strategies 1, 2, 3, 5). KEYS: queue, dead, tries; ARGV: task, now, backoff, max. Returns the
/// failures so far, or 0 once dead-lettered. Backoff doubles with each failure.
pub const RETRY: &str = "local n = redis.call('HINCRBY', KEYS[3], ARGV[1], 1)\n\
if n >= tonumber(ARGV[4]) then\n\
  redis.call('HDEL', KEYS[3], ARGV[1])\n\
  redis.call('ZREM', KEYS[1], ARGV[1])\n\
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])\n\
  return 0\n\
end\n\
redis.call('ZADD', KEYS[1], string.format('%d', ARGV[2] + ARGV[3] * 2 ^ (n - 1)), ARGV[1])\n\
return n";

/// Strategy 4's retry: the task's key is set again with the backoff as its TTL (its `expired`
/// event fires again). KEYS: the task's key, dead, tries; ARGV: task, now, backoff, max.
pub const RETRY_KEY: &str = "local n = redis.call('HINCRBY', KEYS[3], ARGV[1], 1)\n\
if n >= tonumber(ARGV[4]) then\n\
  redis.call('HDEL', KEYS[3], ARGV[1])\n\
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])\n\
  return 0\n\
end\n\
redis.call('SET', KEYS[1], 'pending', 'PX', string.format('%d', ARGV[3] * 2 ^ (n - 1)))\n\
return n";

/// The dead-letter set (a sorted set scored by when the task gave up) and the tries hash.
pub const DEAD_KEY: &str = "dead";
pub const TRIES_KEY: &str = "tries";

/// Strategy 6's stream and consumer group.
pub const STREAM_KEY: &str = "tasks";
pub const GROUP: &str = "workers";

const CODE_RETRY: &str = r#"// A failed processing (failProb): RETRY puts the task back with a later
// score (BACKOFF_MS, doubling), or after MAX_TRIES into the "dead" set.
const RETRY = `
local n = redis.call('HINCRBY', KEYS[3], ARGV[1], 1)
if n >= tonumber(ARGV[4]) then
  redis.call('HDEL', KEYS[3], ARGV[1])
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
  return 0
end
redis.call('ZADD', KEYS[1], string.format('%d', ARGV[2] + ARGV[3] * 2 ^ (n - 1)), ARGV[1])
return n`;
async function process(task) {
  try { await work(task); } catch {
    await redis.eval(RETRY, 3, "queue", "dead", "tries", task, Date.now(), BACKOFF_MS, MAX_TRIES);
  }
}"#;

const CODE_RETRY_KEY: &str = r#"// A failed processing (failProb): RETRY_KEY sets the key again with the
// backoff as its TTL (BACKOFF_MS, doubling), or after MAX_TRIES puts the task
// into the "dead" set.
const RETRY_KEY = `
local n = redis.call('HINCRBY', KEYS[3], ARGV[1], 1)
if n >= tonumber(ARGV[4]) then
  redis.call('HDEL', KEYS[3], ARGV[1])
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
  return 0
end
redis.call('SET', KEYS[1], 'pending', 'PX', string.format('%d', ARGV[3] * 2 ^ (n - 1)))
return n`;
async function process(task) {
  try { await work(task); } catch {
    await redis.eval(RETRY_KEY, 3, task, "dead", "tries", task, Date.now(), BACKOFF_MS, MAX_TRIES);
  }
}"#;

const CODE_RETRY_STREAM: &str = r#"// A failed processing (failProb): no XACK — the entry stays pending, and
// XAUTOCLAIM hands it out again after CLAIM_IDLE_MS, counting deliveries.
// Entries taken over with XAUTOCLAIM: past MAX_TRIES deliveries, dead letter.
async function takeOver(entries) {
  const [first, last] = [entries[0][0], entries[entries.length - 1][0]];
  const counts = new Map((await redis.xpending("tasks", "workers", first, last, 1000, ME))
    .map(([id, , , deliveries]) => [id, deliveries]));
  for (const [id, [, task]] of entries) {
    if (counts.get(id) > MAX_TRIES) {
      await redis.zadd("dead", Date.now(), task);
      await redis.xack("tasks", "workers", id);
    } else {
      try { await work(task); await redis.xack("tasks", "workers", id); } catch {}
    }
  }
}"#;

const CODE_POLL_CLAIM: &str = r#"// 1. Poll, then claim each task with ZREM: only the consumer whose
//    ZREM returns 1 processes it.
// producer: await redis.zadd("queue", Date.now() + DELAY_MS, `order:${id}`);
// payment:  await redis.zrem("queue", `order:${id}`);
while (true) {
  const due = await redis.zrangebyscore("queue", "-inf", Date.now(), "LIMIT", 0, LIMIT);
  if (due.length === 0) { await sleep(POLL_MS); continue; }
  for (const task of due) {
    if (await redis.zrem("queue", task) === 1) await process(task);
  }
}"#;

const CODE_POLL_NAIVE: &str = r#"// 2. Naive: process what the poll returned, then remove it
//    (nobody checks who removed it).
// producer: await redis.zadd("queue", Date.now() + DELAY_MS, `order:${id}`);
// payment:  await redis.zrem("queue", `order:${id}`);
while (true) {
  const due = await redis.zrangebyscore("queue", "-inf", Date.now(), "LIMIT", 0, LIMIT);
  if (due.length === 0) { await sleep(POLL_MS); continue; }
  for (const task of due) {
    await process(task);
    await redis.zrem("queue", task);
  }
}"#;

const CODE_LUA_POP: &str = r#"// 3. A Lua script pops the due tasks atomically.
const POP_DUE = `
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
if #due > 0 then redis.call('ZREM', KEYS[1], unpack(due)) end
return due`;
// producer: await redis.zadd("queue", Date.now() + DELAY_MS, `order:${id}`);
// payment:  await redis.zrem("queue", `order:${id}`);
while (true) {
  const due = await redis.eval(POP_DUE, 1, "queue", Date.now(), LIMIT);
  if (due.length === 0) { await sleep(POLL_MS); continue; }
  for (const task of due) await process(task);
}"#;

const CODE_KEYSPACE: &str = r#"// 4. A key per order with a TTL; the consumer listens for `expired`.
//    CONFIG SET notify-keyspace-events Ex
// producer: await redis.set(`order:${id}`, "pending", "PX", DELAY_MS);
// payment:  await redis.del(`order:${id}`);
const sub = redis.duplicate();
await sub.subscribe("__keyevent@0__:expired");
sub.on("message", (channel, key) => work.push(key));
// one at a time, in arrival order:
for await (const task of work) await process(task);"#;

const CODE_WAKEUP: &str = r#"// 5. The sorted set plus a pub/sub wake-up (BullMQ, Redisson):
//    sleep until the earliest task is due; a new task wakes the consumer.
// producer: await redis.zadd("queue", Date.now() + DELAY_MS, `order:${id}`);
//           await redis.publish("queue:wake", dueMs);
// payment:  await redis.zrem("queue", `order:${id}`);
const sub = redis.duplicate();
await sub.subscribe("queue:wake");
sub.on("message", (ch, dueMs) => wakeBy(Number(dueMs)));  // sleep no later than that
while (true) {
  const due = await redis.eval(POP_DUE, 1, "queue", Date.now(), LIMIT);
  for (const task of due) await process(task);
  if (due.length === LIMIT) continue;
  const [, next] = await redis.zrange("queue", 0, 0, "WITHSCORES");
  await sleepUntil(Math.min(next ? Number(next) : Infinity, Date.now() + MAX_IDLE_MS));
}"#;

const CODE_STREAMS: &str = r#"// 6. The sorted set is the schedule, a stream with a consumer group the
//    work queue: a task stays pending (in the group's PEL) until XACK, so a
//    crashed consumer's tasks are taken over with XAUTOCLAIM.
//    XGROUP CREATE tasks workers $ MKSTREAM
const MOVE_DUE = `
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
for _, task in ipairs(due) do
  redis.call('ZREM', KEYS[1], task)
  redis.call('XADD', KEYS[2], '*', 'task', task)
end
return due`;
// producer: await redis.zadd("queue", Date.now() + DELAY_MS, `order:${id}`);
// payment:  await redis.zrem("queue", `order:${id}`);
let lastClaim = 0;
while (true) {
  await redis.eval(MOVE_DUE, 2, "queue", "tasks", Date.now(), LIMIT);  // any consumer moves
  const res = await redis.xreadgroup("GROUP", "workers", ME, "COUNT", LIMIT,
                                     "STREAMS", "tasks", ">");
  const entries = res ? res[0][1] : [];
  // Nothing new, or CLAIM_IDLE_MS since the last time: take over entries another
  // consumer read but never acknowledged (it crashed, or its processing failed).
  if (entries.length === 0 || Date.now() - lastClaim >= CLAIM_IDLE_MS) {
    lastClaim = Date.now();
    const [, stale] = await redis.xautoclaim("tasks", "workers", ME, CLAIM_IDLE_MS, "0-0",
                                             "COUNT", LIMIT);
    if (stale.length > 0) await takeOver(stale);
    else if (entries.length === 0) { await sleep(POLL_MS); continue; }
  }
  for (const [id, [, task]] of entries) {
    try { await work(task); await redis.xack("tasks", "workers", id); } catch {}
  }
}"#;
