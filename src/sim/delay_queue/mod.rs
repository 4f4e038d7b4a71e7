//! The delay-queue lab: producers and consumers racing on a real engine in virtual time.
//!
//! "Cancel the order if it is unpaid after 30 minutes": a producer creates orders (Poisson
//! arrivals), some get paid (the payment removes the task), and consumers run one of the six
//! designs in strategies.rs. Every client is a real client of one engine. A discrete-event loop
//! orders everything by virtual time: a command sent at `t` reaches the engine at `t + rtt/2`,
//! runs there interleaved with every other client's commands and the server's cron ticks, and
//! its reply is back at `t + rtt`. Pub/Sub messages (the `expired` keyevent, the wake-ups) leave
//! the engine when Redis publishes them — an `expired` event when the active cycle or a lookup
//! reclaims the key, not at TTL zero — and reach the consumer `rtt/2` later. So races come from
//! timing: two consumers read the same due tasks because both polls ran before either ZREM.
//!
//! Crashes: a consumer that crashes loses what it held (a task it claimed but had not finished
//! is lost — at-most-once — unless its design leaves the task in Redis until done) and its
//! connections (a subscriber misses every message published while it is down).
//!
//! Not modelled: the consumers' own clocks are the server's (no skew); the network delivers in
//! order and never drops; processing takes a fixed `work_ms`.
//!
//! Beside it: `cli.rs` (the `redisplay delay-queue` flags and table) and `input.rs` (the config
//! object the page and the labs send).

pub mod cli;
pub mod input;

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashSet, VecDeque};

use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;

use super::strategies::{Strategy, DEAD_KEY, GROUP, MOVE_DUE, POP_DUE, RETRY, RETRY_KEY, STREAM_KEY, TRIES_KEY};
use crate::engine::{ClientId, Engine, EngineOptions, DEFAULT_START_MS};
use crate::reply::Reply;

/// A wake-up strategy re-checks at least this often even without a message (Redisson's and
/// BullMQ's safety net for a lost wake-up).
pub const MAX_IDLE_MS: i64 = 60_000;
/// A task first processed more than this after its due time counts as late.
pub const LATE_MS: i64 = 1_000;
/// Sim events kept between drains (older ones are dropped and counted).
pub const EVENT_CAPACITY: usize = 200_000;
/// Orders one run may create.
pub const MAX_ORDERS: usize = 200_000;
const DAY_MS: i64 = 86_400_000;

/// A consumer crash: `consumer` (0-based) goes down at `at_ms` for `for_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Crash {
    pub consumer: usize,
    pub at_ms: i64,
    pub for_ms: i64,
}

/// An explicit order (the walkthrough): created at `at_ms`, due `delay_ms` later, paid at
/// `pay_at_ms` if given.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct OrderSpec {
    pub at_ms: i64,
    pub delay_ms: i64,
    pub pay_at_ms: Option<i64>,
}

/// A scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub strategy: Strategy,
    pub consumers: usize,
    pub poll_ms: i64,
    pub limit: usize,
    pub work_ms: i64,
    pub rtt_ms: i64,
    /// Orders per second (Poisson arrivals).
    pub rate_per_s: f64,
    pub delay_ms: i64,
    pub pay_prob: f64,
    /// Mean time from order to payment (exponential).
    pub pay_mean_ms: i64,
    pub duration_ms: i64,
    pub seed: u64,
    pub hz: i64,
    pub start_ms: i64,
    pub crashes: Vec<Crash>,
    /// Other keys with long TTLs in the same db: a bigger expires table for the active cycle
    /// to sweep (strategy 4's lateness grows with it).
    pub volatile_keys: usize,
    /// Explicit orders instead of the random producer.
    pub orders: Option<Vec<OrderSpec>>,
    /// Strategy 6: XAUTOCLAIM's min-idle-time (a task pending this long is taken over).
    pub claim_idle_ms: i64,
    /// The chance that one processing fails (the task is retried).
    pub fail_prob: f64,
    /// Processings a task gets before it goes to the dead-letter set.
    pub max_tries: usize,
    /// The first retry's delay (doubling with each failure; strategy 6 retries after
    /// `claim_idle_ms` instead, through XAUTOCLAIM).
    pub backoff_ms: i64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            strategy: Strategy::PollClaim,
            consumers: 2,
            poll_ms: 1000,
            limit: 10,
            work_ms: 20,
            rtt_ms: 2,
            rate_per_s: 1.0,
            delay_ms: 1_800_000,
            pay_prob: 0.5,
            pay_mean_ms: 600_000,
            duration_ms: 3_600_000,
            seed: 1,
            hz: 10,
            start_ms: DEFAULT_START_MS,
            crashes: Vec::new(),
            volatile_keys: 0,
            orders: None,
            claim_idle_ms: 30_000,
            fail_prob: 0.0,
            max_tries: 3,
            backoff_ms: 10_000,
        }
    }
}

impl Config {
    /// Checks every field; the message names the field and its range.
    pub fn validate(&self) -> Result<(), String> {
        fn range(name: &str, v: i64, lo: i64, hi: i64) -> Result<(), String> {
            if v < lo || v > hi {
                return Err(format!("{name} must be between {lo} and {hi} (got {v})"));
            }
            Ok(())
        }
        range("consumers", self.consumers as i64, 1, 16)?;
        range("pollMs", self.poll_ms, 1, DAY_MS)?;
        range("limit", self.limit as i64, 1, 1000)?;
        range("workMs", self.work_ms, 0, DAY_MS)?;
        range("rttMs", self.rtt_ms, 0, 60_000)?;
        range("delayMs", self.delay_ms, 0, 7 * DAY_MS)?;
        range("payMeanMs", self.pay_mean_ms, 1, 7 * DAY_MS)?;
        range("durationMs", self.duration_ms, 1, 7 * DAY_MS)?;
        range("hz", self.hz, 1, 500)?;
        range("startMs", self.start_ms, 0, 253_402_300_799_000)?;
        range("volatileKeys", self.volatile_keys as i64, 0, 1_000_000)?;
        range("claimIdleMs", self.claim_idle_ms, 1, DAY_MS)?;
        range("maxTries", self.max_tries as i64, 1, 100)?;
        range("backoffMs", self.backoff_ms, 0, DAY_MS)?;
        if !(self.fail_prob.is_finite() && (0.0..=1.0).contains(&self.fail_prob)) {
            return Err(format!("failProb must be between 0 and 1 (got {})", self.fail_prob));
        }
        if !(self.rate_per_s.is_finite() && (0.0..=1000.0).contains(&self.rate_per_s)) {
            return Err(format!("ratePerS must be between 0 and 1000 orders per second (got {})", self.rate_per_s));
        }
        if self.orders.is_none() && self.rate_per_s * self.duration_ms as f64 / 1000.0 > MAX_ORDERS as f64 {
            return Err(format!("ratePerS × duration would create more than {MAX_ORDERS} orders"));
        }
        if !(self.pay_prob.is_finite() && (0.0..=1.0).contains(&self.pay_prob)) {
            return Err(format!("payProb must be between 0 and 1 (got {})", self.pay_prob));
        }
        if self.crashes.len() > 64 {
            return Err("at most 64 crashes".into());
        }
        for c in &self.crashes {
            if c.consumer >= self.consumers {
                return Err(format!(
                    "a crash names consumer {} but there are {} (0-based)",
                    c.consumer, self.consumers
                ));
            }
            range("crash atMs", c.at_ms, 0, 7 * DAY_MS)?;
            range("crash forMs", c.for_ms, 1, 7 * DAY_MS)?;
        }
        if let Some(orders) = &self.orders {
            if orders.len() > MAX_ORDERS {
                return Err(format!("at most {MAX_ORDERS} orders"));
            }
            for o in orders {
                range("order atMs", o.at_ms, 0, 7 * DAY_MS)?;
                range("order delayMs", o.delay_ms, 0, 7 * DAY_MS)?;
                if let Some(p) = o.pay_at_ms {
                    range("order payAtMs", p, 0, 14 * DAY_MS)?;
                }
            }
        }
        Ok(())
    }
}

/// What the lab shows, as plain data (times in ms since the start; consumer −1 = producer).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SimEvent {
    Order {
        task: String,
        at: i64,
        due: i64,
    },
    Paid {
        task: String,
        at: i64,
        removed: bool,
    },
    Command {
        consumer: i64,
        sent: i64,
        executed: i64,
        replied: i64,
        cmd: String,
        reply: String,
        empty: bool,
    },
    Message {
        consumer: i64,
        task: String,
        published: i64,
        delivered: i64,
    },
    Process {
        consumer: i64,
        task: String,
        start: i64,
        end: i64,
        completed: bool,
        failed: bool,
    },
    /// A failed task put back: its `tries` so far and when it is due again (strategy 6: it stays
    /// pending until XAUTOCLAIM; `due` is None).
    Retry {
        consumer: i64,
        task: String,
        at: i64,
        tries: i64,
        due: Option<i64>,
    },
    /// A task given up after `max_tries`: put into the dead-letter set.
    DeadLetter {
        consumer: i64,
        task: String,
        at: i64,
    },
    Sleep {
        consumer: i64,
        from: i64,
        until: i64,
    },
    Crash {
        consumer: i64,
        at: i64,
    },
    Restart {
        consumer: i64,
        at: i64,
    },
    Fate {
        task: String,
        fate: Fate,
        lateness: Option<i64>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fate {
    OnTime,
    Late,
    Duplicate,
    Lost,
    Paid,
    Pending,
    DeadLetter,
}

/// Run metrics (lateness over tasks processed at least once, from due to the start of the
/// first processing that completed).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Metrics {
    pub now: i64,
    pub tasks: usize,
    pub paid: usize,
    pub processed: usize,
    pub on_time: usize,
    pub late: usize,
    pub duplicates: usize,
    pub extra_processings: usize,
    pub lost: usize,
    pub pending: usize,
    pub lateness_p50: Option<i64>,
    pub lateness_p99: Option<i64>,
    pub lateness_max: Option<i64>,
    pub consumer_commands: u64,
    pub producer_commands: u64,
    pub commands_per_second: f64,
    pub empty_polls: u64,
    pub messages: u64,
    /// Processings that failed.
    pub failed: u64,
    /// Failed tasks put back for another try.
    pub retried: u64,
    /// Tasks in the dead-letter set (given up after `max_tries`).
    pub dead_lettered: usize,
}

/// One task's record.
#[derive(Debug, Clone)]
struct Task {
    name: String,
    due: i64,
    paid_removed: bool,
    /// The producer's command that puts it into Redis has reached the server (until then the
    /// task is in flight, not lost).
    stored: bool,
    /// Completed processings: (consumer, start).
    completions: Vec<(usize, i64)>,
}

/// Why a command was sent.
#[derive(Debug, Clone)]
enum Purpose {
    /// The producer's SET or ZADD that puts task `i` into Redis.
    Store(usize),
    Produce,
    Pay(usize),
    Subscribe,
    Poll,
    Claim(String),
    Ack,
    Peek,
    /// Strategy 6: the script that moves due tasks into the stream, then XREADGROUP, then
    /// XAUTOCLAIM, then XACK of one task.
    Move,
    Read,
    AutoClaim,
    XAck(String),
    /// The retry script for a failed task.
    Retry(String),
    /// Strategy 6: the delivery counts of the entries XAUTOCLAIM handed over.
    Deliveries,
    /// Strategy 6: ZADD dead … before the XACK of a task past its tries.
    Dead(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Conn {
    Producer,
    Cmd(usize),
    Sub(usize),
}

#[derive(Debug)]
enum Ev {
    Order(usize),
    Pay(usize),
    Arrive {
        conn: Conn,
        gen: u32,
        argv: Vec<Vec<u8>>,
        sent: i64,
        purpose: Purpose,
    },
    Reply {
        conn: Conn,
        gen: u32,
        reply: Reply,
        purpose: Purpose,
    },
    Deliver {
        consumer: usize,
        gen: u32,
        payload: Vec<u8>,
        published: i64,
    },
    /// A sleep ends or a processing completes (`token` guards against a cancelled one).
    Wake {
        consumer: usize,
        gen: u32,
        token: u64,
    },
    Start(usize),
    Crash(usize, i64),
    Restart(usize),
}

/// What a consumer is doing.
#[derive(Debug, Clone, PartialEq)]
enum Doing {
    Down,
    /// Waiting for a reply.
    Waiting,
    Sleeping {
        from: i64,
        until: i64,
    },
    Processing {
        task: String,
        start: i64,
        then_ack: bool,
    },
    /// Strategy 4: nothing to do until a message.
    Listening,
}

#[derive(Debug)]
struct Consumer {
    gen: u32,
    cmd: Option<ClientId>,
    sub: Option<ClientId>,
    doing: Doing,
    /// Tasks of the current batch still to handle (or, for strategy 4, messages to process).
    batch: VecDeque<String>,
    /// The size of the batch the last poll returned.
    last_batch: usize,
    token: u64,
    /// Strategy 5: the earliest due time announced while it was not sleeping.
    announced: Option<i64>,
    /// Down after a crash until its restart.
    crashed: bool,
    /// Strategy 6: the stream entry id of each task in the batch, and its delivery count.
    entry_ids: BTreeMap<String, String>,
    deliveries: BTreeMap<String, i64>,
    /// Strategy 6: when it last ran XAUTOCLAIM.
    last_claim: i64,
}

impl Consumer {
    fn new() -> Consumer {
        Consumer {
            gen: 0,
            cmd: None,
            sub: None,
            doing: Doing::Down,
            batch: VecDeque::new(),
            last_batch: 0,
            token: 0,
            announced: None,
            crashed: false,
            entry_ids: BTreeMap::new(),
            deliveries: BTreeMap::new(),
            last_claim: 0,
        }
    }
}

pub struct Sim {
    cfg: Config,
    engine: Engine,
    /// Orders and payments (the same for every strategy on one seed).
    rng: Xoshiro256PlusPlus,
    /// The consumers' start phases.
    phase_rng: Xoshiro256PlusPlus,
    now: i64,
    seq: u64,
    heap: BinaryHeap<Reverse<(i64, u64, usize)>>,
    /// Event payloads by slot (the heap orders (time, seq, slot)).
    slots: Vec<Option<Ev>>,
    free: Vec<usize>,
    producer: ClientId,
    consumers: Vec<Consumer>,
    tasks: Vec<Task>,
    by_name: BTreeMap<String, usize>,
    events: VecDeque<SimEvent>,
    dropped: u64,
    m: Metrics,
    done: bool,
    next_random_order: bool,
    /// Strategy 6: tasks in the stream and not yet acknowledged (from the replies of the
    /// script that moved them and of XACK, as the server executed them).
    in_stream: HashSet<String>,
    /// Tasks in the dead-letter set (from the replies as the server executed them).
    dead: HashSet<String>,
    /// Whether each processing fails (its own stream, so the rest of a run does not change
    /// with the failure rate).
    fail_rng: Xoshiro256PlusPlus,
}

fn argv(parts: &[&str]) -> Vec<Vec<u8>> {
    parts.iter().map(|p| p.as_bytes().to_vec()).collect()
}

/// Strategy 6: consumer `c`'s name in the group (1-based, as the page numbers them).
fn consumer_name(c: usize) -> String {
    format!("consumer-{}", c + 1)
}

fn task_name(i: usize) -> String {
    format!("order:{}", i + 1)
}

/// A command line as the timeline labels it (the script shortened to its name).
fn command_text(argv: &[Vec<u8>]) -> String {
    let mut out = String::new();
    for (i, a) in argv.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if a.as_slice() == POP_DUE.as_bytes() {
            out.push_str("POP_DUE");
        } else if a.as_slice() == MOVE_DUE.as_bytes() {
            out.push_str("MOVE_DUE");
        } else if a.as_slice() == RETRY.as_bytes() {
            out.push_str("RETRY");
        } else if a.as_slice() == RETRY_KEY.as_bytes() {
            out.push_str("RETRY_KEY");
        } else {
            out.push_str(&String::from_utf8_lossy(a));
        }
    }
    out
}

/// A reply in a few words: `(integer) 1`, `(empty array)`, `3 items: order:1, order:2, …`.
fn reply_text(r: &Reply) -> String {
    match r {
        Reply::Array(items) if items.is_empty() => "(empty array)".into(),
        Reply::Array(items) => {
            let shown: Vec<String> = items.iter().take(3).map(reply_text).collect();
            let more = if items.len() > 3 { ", …" } else { "" };
            format!("{} item{}: {}{more}", items.len(), if items.len() == 1 { "" } else { "s" }, shown.join(", "))
        }
        Reply::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
        Reply::Integer(n) => format!("(integer) {n}"),
        Reply::Nil | Reply::NilArray => "(nil)".into(),
        Reply::Status(s) => s.clone(),
        Reply::Error(e) => format!("(error) {}", String::from_utf8_lossy(e)),
        Reply::Double(d) => crate::util::fmt_double(*d),
        rich => reply_text(&rich.as_resp2()),
    }
}

fn strings_of(r: &Reply) -> Vec<String> {
    match r {
        Reply::Array(items) => items
            .iter()
            .filter_map(|i| match i {
                Reply::Bulk(b) => Some(String::from_utf8_lossy(b).into_owned()),
                Reply::Double(d) => Some(crate::util::fmt_double(*d)),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Stream entries `[[id, [field, value, …]], …]` → (id, the `task` field).
fn entries_of(r: &Reply) -> Vec<(String, String)> {
    let Reply::Array(items) = r else { return Vec::new() };
    items
        .iter()
        .filter_map(|e| match e {
            Reply::Array(pair) => match (pair.first(), pair.get(1)) {
                (Some(Reply::Bulk(id)), Some(Reply::Array(fields))) => match fields.get(1) {
                    Some(Reply::Bulk(task)) => {
                        Some((String::from_utf8_lossy(id).into_owned(), String::from_utf8_lossy(task).into_owned()))
                    }
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// XREADGROUP's reply (one stream, or nil) → its entries.
fn read_entries(r: &Reply) -> Vec<(String, String)> {
    match r {
        Reply::Array(streams) => match streams.first() {
            Some(Reply::Array(s)) => s.get(1).map(entries_of).unwrap_or_default(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// XAUTOCLAIM's reply `[cursor, entries, deleted]` → the entries.
fn autoclaim_entries(r: &Reply) -> Vec<(String, String)> {
    match r {
        Reply::Array(parts) => parts.get(1).map(entries_of).unwrap_or_default(),
        _ => Vec::new(),
    }
}

fn percentile(sorted: &[i64], p: f64) -> Option<i64> {
    if sorted.is_empty() {
        return None;
    }
    // Nearest rank.
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    Some(sorted[rank.min(sorted.len()) - 1])
}

impl Sim {
    pub fn new(cfg: Config) -> Result<Sim, String> {
        cfg.validate()?;
        let mut engine = Engine::new(EngineOptions { seed: cfg.seed, start_ms: cfg.start_ms });
        engine.set_event_recording(false);
        let admin = engine.connect();
        let hz = cfg.hz.to_string();
        engine.execute(admin, &argv(&["CONFIG", "SET", "hz", &hz]));
        if cfg.strategy == Strategy::KeyspaceEvents {
            engine.execute(admin, &argv(&["CONFIG", "SET", "notify-keyspace-events", "Ex"]));
        }
        if cfg.strategy == Strategy::Streams {
            engine.execute(admin, &argv(&["XGROUP", "CREATE", STREAM_KEY, GROUP, "$", "MKSTREAM"]));
        }
        if cfg.volatile_keys > 0 {
            engine.populate_volatile(0, cfg.volatile_keys, b"other:", DAY_MS, 2 * DAY_MS, false);
        }
        engine.disconnect(admin);
        let producer = engine.connect();
        let mut sim = Sim {
            rng: Xoshiro256PlusPlus::seed_from_u64(cfg.seed ^ 0x6465_6c61_7971_7565),
            phase_rng: Xoshiro256PlusPlus::seed_from_u64(cfg.seed ^ 0x7068_6173_6573),
            engine,
            now: 0,
            seq: 0,
            heap: BinaryHeap::new(),
            slots: Vec::new(),
            free: Vec::new(),
            producer,
            consumers: (0..cfg.consumers).map(|_| Consumer::new()).collect(),
            tasks: Vec::new(),
            by_name: BTreeMap::new(),
            events: VecDeque::new(),
            dropped: 0,
            m: Metrics::default(),
            done: false,
            next_random_order: false,
            in_stream: HashSet::new(),
            dead: HashSet::new(),
            fail_rng: Xoshiro256PlusPlus::seed_from_u64(cfg.seed ^ 0x6661_696c_7572_6573),
            cfg,
        };
        // The orders: explicit, or Poisson arrivals drawn one ahead.
        if let Some(orders) = sim.cfg.orders.clone() {
            for (i, o) in orders.iter().enumerate() {
                sim.add_task(o.at_ms + o.delay_ms);
                sim.schedule(o.at_ms, Ev::Order(i));
                if let Some(p) = o.pay_at_ms {
                    sim.schedule(p, Ev::Pay(i));
                }
            }
        } else if sim.cfg.rate_per_s > 0.0 {
            sim.next_random_order = true;
            let first = sim.exp_ms(1000.0 / sim.cfg.rate_per_s);
            if first < sim.cfg.duration_ms {
                let due = first + sim.cfg.delay_ms;
                sim.add_task(due);
                sim.schedule(first, Ev::Order(0));
            }
        }
        // Consumers start at staggered moments within one poll interval (subscribers at once).
        for c in 0..sim.cfg.consumers {
            let u = (sim.phase_rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let offset =
                if sim.cfg.strategy == Strategy::KeyspaceEvents { 0 } else { (u * sim.cfg.poll_ms as f64) as i64 };
            sim.schedule(offset, Ev::Start(c));
        }
        for cr in sim.cfg.crashes.clone() {
            sim.schedule(cr.at_ms, Ev::Crash(cr.consumer, cr.for_ms));
        }
        Ok(sim)
    }

    // -----------------------------------------------------------------------------------------
    // Plumbing
    // -----------------------------------------------------------------------------------------

    fn uniform(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn exp_ms(&mut self, mean: f64) -> i64 {
        let u = self.uniform();
        (-mean * (1.0 - u).ln()).round() as i64
    }

    fn add_task(&mut self, due: i64) -> usize {
        let i = self.tasks.len();
        let name = task_name(i);
        self.by_name.insert(name.clone(), i);
        self.tasks.push(Task { name, due, paid_removed: false, stored: false, completions: Vec::new() });
        i
    }

    fn schedule(&mut self, at: i64, ev: Ev) {
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s] = Some(ev);
                s
            }
            None => {
                self.slots.push(Some(ev));
                self.slots.len() - 1
            }
        };
        self.seq += 1;
        self.heap.push(Reverse((at, self.seq, slot)));
    }

    fn emit(&mut self, e: SimEvent) {
        if self.events.len() >= EVENT_CAPACITY {
            self.events.pop_front();
            self.dropped += 1;
        }
        self.events.push_back(e);
    }

    fn abs(&self, t: i64) -> i64 {
        self.cfg.start_ms + t
    }

    fn half_rtt(&self) -> i64 {
        self.cfg.rtt_ms / 2
    }

    fn client_of(&self, conn: Conn) -> Option<ClientId> {
        match conn {
            Conn::Producer => Some(self.producer),
            Conn::Cmd(c) => self.consumers[c].cmd,
            Conn::Sub(c) => self.consumers[c].sub,
        }
    }

    fn gen_of(&self, conn: Conn) -> u32 {
        match conn {
            Conn::Producer => 0,
            Conn::Cmd(c) | Conn::Sub(c) => self.consumers[c].gen,
        }
    }

    fn send(&mut self, conn: Conn, argv: Vec<Vec<u8>>, purpose: Purpose) {
        match conn {
            Conn::Producer => self.m.producer_commands += 1,
            _ => self.m.consumer_commands += 1,
        }
        let gen = self.gen_of(conn);
        let at = self.now + self.half_rtt();
        self.schedule(at, Ev::Arrive { conn, gen, argv, sent: self.now, purpose });
    }

    /// Moves the engine's clock to `t` (ms since start), one cron tick at a time when expiry
    /// matters so each message leaves at the tick that published it.
    fn engine_to(&mut self, t: i64) {
        let target = self.abs(t);
        loop {
            let next_cron = self.engine.next_cron_ms();
            if next_cron > target {
                break;
            }
            if self.engine.cron_has_work() {
                self.engine.advance_to(next_cron, 1);
                self.now = next_cron - self.cfg.start_ms;
                self.collect_messages();
            } else {
                // Nothing observable happens in these ticks.
                self.engine.advance_to(target, u64::MAX);
                break;
            }
        }
        self.engine.advance_to(target, u64::MAX);
        self.now = t;
    }

    /// Takes what the engine published for the subscribers and sends it on its way.
    fn collect_messages(&mut self) {
        for c in 0..self.consumers.len() {
            let Some(sub) = self.consumers[c].sub else { continue };
            let gen = self.consumers[c].gen;
            for r in self.engine.take_outbox(sub).into_iter().map(Reply::into_resp2) {
                if let Reply::Array(parts) = &r {
                    if let (Some(Reply::Bulk(kind)), Some(Reply::Bulk(payload))) = (parts.first(), parts.get(2)) {
                        if kind.as_slice() == b"message" {
                            let at = self.now + self.half_rtt();
                            self.schedule(
                                at,
                                Ev::Deliver { consumer: c, gen, payload: payload.clone(), published: self.now },
                            );
                        }
                    }
                }
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // Running
    // -----------------------------------------------------------------------------------------

    pub fn now(&self) -> i64 {
        self.now
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// When the next thing happens (ms since start), or None once the run is over.
    pub fn next_event_ms(&self) -> Option<i64> {
        if self.done {
            return None;
        }
        let next = self.heap.peek().map(|Reverse((t, _, _))| *t).unwrap_or(i64::MAX);
        Some(next.min(self.cfg.duration_ms).max(self.now))
    }

    /// Runs everything due up to `t` (capped at the duration), at most `max_steps` events;
    /// returns whether the run is over.
    pub fn run_until(&mut self, t: i64, max_steps: u64) -> bool {
        if self.done {
            return true;
        }
        let t = t.min(self.cfg.duration_ms);
        let mut steps = 0u64;
        // Whatever comes first — a cron tick with work to do (it may publish `expired`
        // messages, delivered rtt/2 later) or the next event — happens first, so a run is
        // the same however it is sliced into calls.
        loop {
            if steps >= max_steps {
                return self.done;
            }
            let next_ev = self.heap.peek().map_or(i64::MAX, |Reverse((at, _, _))| *at);
            let next_tick = self.engine.next_cron_ms() - self.cfg.start_ms;
            if self.engine.cron_has_work() && next_tick <= next_ev.min(t) {
                self.engine.advance_to(self.abs(next_tick), 1);
                self.now = next_tick;
                self.collect_messages();
                steps += 1;
                continue;
            }
            if next_ev > t {
                break;
            }
            let Some(Reverse((at, _, slot))) = self.heap.pop() else { break };
            let ev = self.slots[slot].take().expect("scheduled event");
            self.free.push(slot);
            self.engine_to(at.max(self.now));
            self.handle(ev);
            steps += 1;
        }
        if t > self.now {
            self.engine_to(t);
        }
        if t >= self.cfg.duration_ms {
            self.finish();
        }
        self.done
    }

    /// Runs the whole scenario.
    pub fn run(&mut self) -> &Metrics {
        self.run_until(self.cfg.duration_ms, u64::MAX);
        self.metrics()
    }

    pub fn drain(&mut self) -> (Vec<SimEvent>, u64) {
        (self.events.drain(..).collect(), std::mem::take(&mut self.dropped))
    }

    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::Order(i) => self.on_order(i),
            Ev::Pay(i) => {
                let name = self.tasks[i].name.clone();
                let cmd = if self.cfg.strategy.uses_zset() { vec!["ZREM", "queue", &name] } else { vec!["DEL", &name] };
                self.send(Conn::Producer, argv(&cmd), Purpose::Pay(i));
            }
            Ev::Arrive { conn, gen, argv, sent, purpose } => {
                if gen != self.gen_of(conn) {
                    return; // the sender crashed: its connection is gone
                }
                let Some(client) = self.client_of(conn) else { return };
                let reply = self.engine.execute(client, &argv).into_resp2(); // the sim's clients speak RESP2
                match &purpose {
                    Purpose::Store(i) => self.tasks[*i].stored = true,
                    Purpose::Move => self.in_stream.extend(strings_of(&reply)),
                    Purpose::XAck(task) if reply == Reply::Integer(1) => {
                        self.in_stream.remove(task);
                    }
                    Purpose::Retry(task) if reply == Reply::Integer(0) => {
                        self.dead.insert(task.clone());
                    }
                    Purpose::Dead(task) => {
                        self.dead.insert(task.clone());
                    }
                    _ => {}
                }
                self.engine.before_sleep();
                if matches!(conn, Conn::Sub(_)) {
                    // The subscription confirmations are not messages.
                    self.engine.take_outbox(client);
                }
                self.collect_messages();
                let executed = self.now;
                let back = self.now + (self.cfg.rtt_ms - self.half_rtt());
                // A poll that found nothing (strategy 6: an XAUTOCLAIM after an empty XREADGROUP).
                let empty = matches!(conn, Conn::Cmd(_))
                    && match purpose {
                        Purpose::Poll => matches!(&reply, Reply::Array(v) if v.is_empty()),
                        Purpose::AutoClaim => {
                            autoclaim_entries(&reply).is_empty()
                                && matches!(conn, Conn::Cmd(c) if self.consumers[c].batch.is_empty())
                        }
                        _ => false,
                    };
                if empty {
                    self.m.empty_polls += 1;
                }
                let (consumer, shown) = match conn {
                    Conn::Producer => (-1, reply_text(&reply)),
                    Conn::Cmd(c) => (c as i64, self.shown_reply(&purpose, &reply)),
                    // (The subscription confirmations were taken from the outbox above.)
                    Conn::Sub(c) => (c as i64, "subscribed".to_string()),
                };
                let e = SimEvent::Command {
                    consumer,
                    sent,
                    executed,
                    replied: back,
                    cmd: command_text(&argv),
                    reply: shown,
                    empty,
                };
                self.emit(e);
                self.schedule(back, Ev::Reply { conn, gen, reply, purpose });
            }
            Ev::Reply { conn, gen, reply, purpose } => {
                if gen != self.gen_of(conn) {
                    return;
                }
                match conn {
                    Conn::Producer => {
                        if let Purpose::Pay(i) = purpose {
                            let removed = reply == Reply::Integer(1);
                            self.tasks[i].paid_removed = removed;
                            let e = SimEvent::Paid { task: self.tasks[i].name.clone(), at: self.now, removed };
                            self.emit(e);
                        }
                    }
                    Conn::Cmd(c) | Conn::Sub(c) => self.on_reply(c, purpose, reply),
                }
            }
            Ev::Deliver { consumer, gen, payload, published } => {
                if gen != self.consumers[consumer].gen || self.consumers[consumer].doing == Doing::Down {
                    return;
                }
                self.m.messages += 1;
                let task = String::from_utf8_lossy(&payload).into_owned();
                self.emit(SimEvent::Message {
                    consumer: consumer as i64,
                    task: task.clone(),
                    published,
                    delivered: self.now,
                });
                self.on_message(consumer, task);
            }
            Ev::Wake { consumer, gen, token } => {
                let c = &self.consumers[consumer];
                if gen != c.gen || token != c.token {
                    return;
                }
                self.on_wake(consumer);
            }
            Ev::Start(c) => {
                // A consumer that crashed before it started begins at its restart.
                if !self.consumers[c].crashed {
                    self.start_consumer(c);
                }
            }
            Ev::Crash(c, for_ms) => self.crash(c, for_ms),
            Ev::Restart(c) => {
                if self.consumers[c].crashed {
                    self.consumers[c].crashed = false;
                    self.emit(SimEvent::Restart { consumer: c as i64, at: self.now });
                    self.start_consumer(c);
                }
            }
        }
    }

    fn on_order(&mut self, i: usize) {
        let name = self.tasks[i].name.clone();
        let due = self.tasks[i].due;
        self.emit(SimEvent::Order { task: name.clone(), at: self.now, due });
        match self.cfg.strategy {
            Strategy::KeyspaceEvents => {
                let px = (due - self.now).max(1).to_string();
                self.send(Conn::Producer, argv(&["SET", &name, "pending", "PX", &px]), Purpose::Store(i));
            }
            s => {
                let score = self.abs(due).to_string();
                self.send(Conn::Producer, argv(&["ZADD", "queue", &score, &name]), Purpose::Store(i));
                if s == Strategy::ZsetWakeup {
                    self.send(Conn::Producer, argv(&["PUBLISH", "queue:wake", &score]), Purpose::Produce);
                }
            }
        }
        if self.cfg.orders.is_none() {
            // This order's payment, then the next order.
            if self.uniform() < self.cfg.pay_prob {
                let pay_at = self.now + self.exp_ms(self.cfg.pay_mean_ms as f64);
                if pay_at < self.cfg.duration_ms {
                    self.schedule(pay_at, Ev::Pay(i));
                }
            }
            if self.next_random_order && self.tasks.len() < MAX_ORDERS {
                let next = self.now + self.exp_ms(1000.0 / self.cfg.rate_per_s);
                if next < self.cfg.duration_ms {
                    let j = self.add_task(next + self.cfg.delay_ms);
                    self.schedule(next, Ev::Order(j));
                }
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // Consumers: the loops of strategies.rs as state machines
    // -----------------------------------------------------------------------------------------

    fn start_consumer(&mut self, c: usize) {
        let strategy = self.cfg.strategy;
        let cmd = self.engine.connect();
        let con = &mut self.consumers[c];
        con.cmd = Some(cmd);
        con.batch.clear();
        con.announced = None;
        con.doing = Doing::Waiting;
        match strategy {
            Strategy::KeyspaceEvents => {
                let sub = self.engine.connect();
                self.consumers[c].sub = Some(sub);
                self.consumers[c].doing = Doing::Listening;
                self.send(Conn::Sub(c), argv(&["SUBSCRIBE", "__keyevent@0__:expired"]), Purpose::Subscribe);
            }
            Strategy::ZsetWakeup => {
                let sub = self.engine.connect();
                self.consumers[c].sub = Some(sub);
                self.send(Conn::Sub(c), argv(&["SUBSCRIBE", "queue:wake"]), Purpose::Subscribe);
                self.poll(c);
            }
            _ => self.poll(c),
        }
    }

    fn crash(&mut self, c: usize, for_ms: i64) {
        if self.consumers[c].crashed {
            return;
        }
        if let Doing::Processing { task, start, .. } = self.consumers[c].doing.clone() {
            self.emit(SimEvent::Process {
                consumer: c as i64,
                task,
                start,
                end: self.now,
                completed: false,
                failed: false,
            });
        }
        if let Doing::Sleeping { from, .. } = self.consumers[c].doing {
            self.emit(SimEvent::Sleep { consumer: c as i64, from, until: self.now });
        }
        let con = &mut self.consumers[c];
        con.gen += 1;
        con.token += 1;
        con.doing = Doing::Down;
        con.crashed = true;
        con.batch.clear();
        con.entry_ids.clear();
        con.deliveries.clear();
        for id in [con.cmd.take(), con.sub.take()].into_iter().flatten() {
            self.engine.disconnect(id);
        }
        self.emit(SimEvent::Crash { consumer: c as i64, at: self.now });
        self.schedule(self.now + for_ms, Ev::Restart(c));
    }

    fn poll(&mut self, c: usize) {
        self.consumers[c].doing = Doing::Waiting;
        let now = self.abs(self.now).to_string();
        let limit = self.cfg.limit.to_string();
        let cmd = match self.cfg.strategy {
            Strategy::PollClaim | Strategy::PollNaive => {
                argv(&["ZRANGEBYSCORE", "queue", "-inf", &now, "LIMIT", "0", &limit])
            }
            Strategy::Streams => {
                self.send(
                    Conn::Cmd(c),
                    argv(&["EVAL", MOVE_DUE, "2", "queue", STREAM_KEY, &now, &limit]),
                    Purpose::Move,
                );
                return;
            }
            _ => argv(&["EVAL", POP_DUE, "1", "queue", &now, &limit]),
        };
        self.send(Conn::Cmd(c), cmd, Purpose::Poll);
    }

    /// A consumer's reply as the timeline labels it (stream entries by their tasks).
    fn shown_reply(&self, purpose: &Purpose, reply: &Reply) -> String {
        let entries = match purpose {
            Purpose::Read => read_entries(reply),
            Purpose::AutoClaim => autoclaim_entries(reply),
            _ => return reply_text(reply),
        };
        if entries.is_empty() {
            return reply_text(reply);
        }
        let shown: Vec<&str> = entries.iter().take(3).map(|(_, t)| t.as_str()).collect();
        let more = if entries.len() > 3 { ", …" } else { "" };
        let noun = if entries.len() == 1 { "entry" } else { "entries" };
        format!("{} {noun}: {}{more}", entries.len(), shown.join(", "))
    }

    fn sleep(&mut self, c: usize, until: i64) {
        let until = until.max(self.now);
        let con = &mut self.consumers[c];
        con.token += 1;
        con.doing = Doing::Sleeping { from: self.now, until };
        let (gen, token) = (con.gen, con.token);
        self.schedule(until, Ev::Wake { consumer: c, gen, token });
    }

    fn process(&mut self, c: usize, task: String, then_ack: bool) {
        let con = &mut self.consumers[c];
        con.token += 1;
        con.doing = Doing::Processing { task, start: self.now, then_ack };
        let (gen, token) = (con.gen, con.token);
        self.schedule(self.now + self.cfg.work_ms, Ev::Wake { consumer: c, gen, token });
    }

    fn on_reply(&mut self, c: usize, purpose: Purpose, reply: Reply) {
        match purpose {
            Purpose::Subscribe | Purpose::Store(_) | Purpose::Produce | Purpose::Pay(_) => {}
            Purpose::Poll => {
                let tasks = strings_of(&reply);
                self.consumers[c].last_batch = tasks.len();
                if tasks.is_empty() && self.cfg.strategy != Strategy::ZsetWakeup {
                    self.sleep(c, self.now + self.cfg.poll_ms);
                    return;
                }
                self.consumers[c].batch = tasks.into();
                self.next_in_batch(c);
            }
            Purpose::Claim(task) => {
                if reply == Reply::Integer(1) {
                    self.process(c, task, false);
                } else {
                    self.next_in_batch(c);
                }
            }
            Purpose::Ack | Purpose::XAck(_) => self.next_in_batch(c),
            Purpose::Retry(task) => {
                let at = self.now;
                match reply {
                    Reply::Integer(0) => self.emit(SimEvent::DeadLetter { consumer: c as i64, task, at }),
                    Reply::Integer(n) => {
                        self.m.retried += 1;
                        let backoff = self.cfg.backoff_ms.saturating_mul(1i64 << (n - 1).clamp(0, 40));
                        let due = if self.cfg.strategy == Strategy::KeyspaceEvents { None } else { Some(at + backoff) };
                        self.emit(SimEvent::Retry { consumer: c as i64, task, at, tries: n, due });
                    }
                    _ => {}
                }
                self.next_in_batch(c);
            }
            Purpose::Dead(task) => {
                self.emit(SimEvent::DeadLetter { consumer: c as i64, task: task.clone(), at: self.now });
                let id = self.consumers[c].entry_ids.remove(&task).unwrap_or_default();
                self.send(Conn::Cmd(c), argv(&["XACK", STREAM_KEY, GROUP, &id]), Purpose::XAck(task));
            }
            Purpose::Deliveries => {
                // [[id, consumer, idle, deliveries], …]
                if let Reply::Array(rows) = &reply {
                    let by_id: BTreeMap<String, String> =
                        self.consumers[c].entry_ids.iter().map(|(t, id)| (id.clone(), t.clone())).collect();
                    for row in rows {
                        if let Reply::Array(f) = row {
                            if let (Some(Reply::Bulk(id)), Some(Reply::Integer(n))) = (f.first(), f.get(3)) {
                                if let Some(task) = by_id.get(String::from_utf8_lossy(id).as_ref()) {
                                    self.consumers[c].deliveries.insert(task.clone(), *n);
                                }
                            }
                        }
                    }
                }
                self.next_in_batch(c);
            }
            Purpose::Move => {
                let me = consumer_name(c);
                let limit = self.cfg.limit.to_string();
                let cmd = argv(&["XREADGROUP", "GROUP", GROUP, &me, "COUNT", &limit, "STREAMS", STREAM_KEY, ">"]);
                self.send(Conn::Cmd(c), cmd, Purpose::Read);
            }
            Purpose::Read => {
                // New entries: this batch. XAUTOCLAIM when there are none, and at least once
                // every claim_idle_ms anyway (a busy consumer still rescues a crashed one's).
                let entries = read_entries(&reply);
                let con = &mut self.consumers[c];
                con.last_batch = entries.len();
                con.batch = entries.iter().map(|(_, t)| t.clone()).collect();
                con.entry_ids = entries.into_iter().map(|(id, t)| (t, id)).collect();
                con.deliveries.clear();
                if con.batch.is_empty() || self.now - con.last_claim >= self.cfg.claim_idle_ms {
                    con.last_claim = self.now;
                    let me = consumer_name(c);
                    let (idle, limit) = (self.cfg.claim_idle_ms.to_string(), self.cfg.limit.to_string());
                    let cmd = argv(&["XAUTOCLAIM", STREAM_KEY, GROUP, &me, &idle, "0-0", "COUNT", &limit]);
                    self.send(Conn::Cmd(c), cmd, Purpose::AutoClaim);
                } else {
                    self.next_in_batch(c);
                }
            }
            Purpose::AutoClaim => {
                let stale = autoclaim_entries(&reply);
                if stale.is_empty() {
                    if self.consumers[c].batch.is_empty() {
                        self.sleep(c, self.now + self.cfg.poll_ms);
                    } else {
                        self.next_in_batch(c);
                    }
                    return;
                }
                // Taken over, handled first: how many times was each delivered? Past
                // max_tries → dead letter.
                let (first, last) = (stale[0].0.clone(), stale[stale.len() - 1].0.clone());
                let con = &mut self.consumers[c];
                con.last_batch += stale.len();
                for (id, t) in stale.into_iter().rev() {
                    con.batch.push_front(t.clone());
                    con.entry_ids.insert(t, id);
                }
                let me = consumer_name(c);
                let cmd = argv(&["XPENDING", STREAM_KEY, GROUP, &first, &last, "1000", &me]);
                self.send(Conn::Cmd(c), cmd, Purpose::Deliveries);
            }
            Purpose::Peek => {
                let parts = strings_of(&reply);
                let until = match parts.get(1).and_then(|s| s.parse::<f64>().ok()) {
                    Some(score) => ((score as i64) - self.cfg.start_ms).min(self.now + MAX_IDLE_MS),
                    None => self.now + MAX_IDLE_MS,
                };
                let until = match self.consumers[c].announced.take() {
                    Some(a) => until.min(a),
                    None => until,
                };
                if until <= self.now {
                    self.poll(c);
                } else {
                    self.sleep(c, until);
                }
            }
        }
    }

    /// The next task of the batch, or the next poll once the batch is done.
    fn next_in_batch(&mut self, c: usize) {
        let Some(task) = self.consumers[c].batch.pop_front() else {
            self.batch_done(c);
            return;
        };
        match self.cfg.strategy {
            Strategy::PollClaim => {
                self.consumers[c].doing = Doing::Waiting;
                self.send(Conn::Cmd(c), argv(&["ZREM", "queue", &task]), Purpose::Claim(task));
            }
            Strategy::Streams => {
                let tries = self.consumers[c].deliveries.get(&task).copied().unwrap_or(1);
                if tries > self.cfg.max_tries as i64 {
                    self.consumers[c].doing = Doing::Waiting;
                    let now = self.abs(self.now).to_string();
                    self.send(Conn::Cmd(c), argv(&["ZADD", DEAD_KEY, &now, &task]), Purpose::Dead(task));
                } else {
                    if tries > 1 {
                        self.m.retried += 1;
                    }
                    self.process(c, task, true);
                }
            }
            Strategy::PollNaive => self.process(c, task, true),
            _ => self.process(c, task, false),
        }
    }

    fn batch_done(&mut self, c: usize) {
        match self.cfg.strategy {
            Strategy::KeyspaceEvents => self.consumers[c].doing = Doing::Listening,
            Strategy::ZsetWakeup if self.consumers[c].last_batch < self.cfg.limit => {
                self.consumers[c].doing = Doing::Waiting;
                self.send(Conn::Cmd(c), argv(&["ZRANGE", "queue", "0", "0", "WITHSCORES"]), Purpose::Peek);
            }
            _ => self.poll(c),
        }
    }

    fn on_wake(&mut self, c: usize) {
        match self.consumers[c].doing.clone() {
            Doing::Sleeping { from, .. } => {
                self.emit(SimEvent::Sleep { consumer: c as i64, from, until: self.now });
                self.poll(c);
            }
            Doing::Processing { task, start, then_ack } => {
                let failed = self.cfg.fail_prob > 0.0
                    && ((self.fail_rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < self.cfg.fail_prob;
                self.emit(SimEvent::Process {
                    consumer: c as i64,
                    task: task.clone(),
                    start,
                    end: self.now,
                    completed: true,
                    failed,
                });
                if failed {
                    self.m.failed += 1;
                    self.on_failure(c, task);
                    return;
                }
                if let Some(&i) = self.by_name.get(&task) {
                    self.tasks[i].completions.push((c, start));
                }
                if then_ack && self.cfg.strategy == Strategy::Streams {
                    self.consumers[c].doing = Doing::Waiting;
                    let id = self.consumers[c].entry_ids.remove(&task).unwrap_or_default();
                    self.send(Conn::Cmd(c), argv(&["XACK", STREAM_KEY, GROUP, &id]), Purpose::XAck(task));
                } else if then_ack {
                    self.consumers[c].doing = Doing::Waiting;
                    self.send(Conn::Cmd(c), argv(&["ZREM", "queue", &task]), Purpose::Ack);
                } else {
                    self.next_in_batch(c);
                }
            }
            _ => {}
        }
    }

    /// A processing failed: the retry script puts the task back (or dead-letters it); the
    /// stream design leaves it pending, unacknowledged, for XAUTOCLAIM.
    fn on_failure(&mut self, c: usize, task: String) {
        let (now, backoff, max) =
            (self.abs(self.now).to_string(), self.cfg.backoff_ms.to_string(), self.cfg.max_tries.to_string());
        let cmd = match self.cfg.strategy {
            Strategy::Streams => {
                self.consumers[c].entry_ids.remove(&task);
                let tries = self.consumers[c].deliveries.get(&task).copied().unwrap_or(1);
                self.emit(SimEvent::Retry { consumer: c as i64, task, at: self.now, tries, due: None });
                self.next_in_batch(c);
                return;
            }
            Strategy::KeyspaceEvents => {
                argv(&["EVAL", RETRY_KEY, "3", &task, DEAD_KEY, TRIES_KEY, &task, &now, &backoff, &max])
            }
            _ => argv(&["EVAL", RETRY, "3", "queue", DEAD_KEY, TRIES_KEY, &task, &now, &backoff, &max]),
        };
        self.consumers[c].doing = Doing::Waiting;
        self.send(Conn::Cmd(c), cmd, Purpose::Retry(task));
    }

    fn on_message(&mut self, c: usize, task: String) {
        match self.cfg.strategy {
            Strategy::KeyspaceEvents => {
                if !self.by_name.contains_key(&task) {
                    return; // another key expired (the background keys)
                }
                self.consumers[c].batch.push_back(task);
                if self.consumers[c].doing == Doing::Listening {
                    self.next_in_batch(c);
                }
            }
            Strategy::ZsetWakeup => {
                // The message carries the new task's due time (ms since the epoch).
                let Ok(due) = task.parse::<i64>() else { return };
                let due = due - self.cfg.start_ms;
                match self.consumers[c].doing {
                    Doing::Sleeping { until, .. } if due < until => {
                        // Sleep until the new earliest instead (or poll now if it is due).
                        let con = &mut self.consumers[c];
                        con.token += 1;
                        let (gen, token) = (con.gen, con.token);
                        con.doing = match con.doing {
                            Doing::Sleeping { from, .. } => Doing::Sleeping { from, until: due.max(self.now) },
                            ref d => d.clone(),
                        };
                        self.schedule(due.max(self.now), Ev::Wake { consumer: c, gen, token });
                    }
                    Doing::Sleeping { .. } => {}
                    _ => {
                        let con = &mut self.consumers[c];
                        con.announced = Some(con.announced.map_or(due, |a| a.min(due)));
                    }
                }
            }
            _ => {}
        }
    }

    // -----------------------------------------------------------------------------------------
    // The end: fates and metrics
    // -----------------------------------------------------------------------------------------

    /// Tasks a consumer holds or a message carries right now (not lost: on their way).
    fn in_hand(&self) -> HashSet<String> {
        let mut held = HashSet::new();
        for c in &self.consumers {
            held.extend(c.batch.iter().cloned());
            if let Doing::Processing { task, .. } = &c.doing {
                held.insert(task.clone());
            }
        }
        for ev in self.slots.iter().flatten() {
            match ev {
                Ev::Deliver { payload, .. } if self.cfg.strategy == Strategy::KeyspaceEvents => {
                    held.insert(String::from_utf8_lossy(payload).into_owned());
                }
                Ev::Reply { reply, purpose: Purpose::Poll, .. } => held.extend(strings_of(reply)),
                Ev::Reply { purpose: Purpose::Claim(t) | Purpose::Retry(t) | Purpose::Dead(t), .. }
                | Ev::Arrive { purpose: Purpose::Claim(t) | Purpose::Retry(t) | Purpose::Dead(t), .. } => {
                    held.insert(t.clone());
                }
                _ => {}
            }
        }
        held
    }

    /// Whether the task is still in Redis (for strategy 4, its key — even past its TTL but not
    /// yet reclaimed: its `expired` event is still to come). Reads without touching the key.
    fn in_redis(&self, task: &str) -> bool {
        let db = &self.engine.dbs[0];
        if self.in_stream.contains(task) {
            return true;
        }
        if self.cfg.strategy.uses_zset() {
            match db.get(b"queue").map(|o| &o.value) {
                Some(crate::object::Value::Zset(z)) => crate::zset::score(z, task.as_bytes()).is_some(),
                _ => false,
            }
        } else {
            db.contains(task.as_bytes())
        }
    }

    fn fate(&self, t: &Task, held: &HashSet<String>, created: bool) -> (Fate, Option<i64>) {
        let lateness = t.completions.first().map(|(_, start)| start - t.due);
        let fate = match t.completions.len() {
            0 if t.paid_removed => Fate::Paid,
            0 if self.dead.contains(&t.name) => Fate::DeadLetter,
            0 if !created || !t.stored || held.contains(&t.name) || self.in_redis(&t.name) => Fate::Pending,
            0 => Fate::Lost,
            1 if lateness.unwrap_or(0) > LATE_MS => Fate::Late,
            1 => Fate::OnTime,
            _ => Fate::Duplicate,
        };
        (fate, lateness)
    }

    fn finish(&mut self) {
        if self.done {
            return;
        }
        self.done = true;
        let held = self.in_hand();
        let fates: Vec<(String, Fate, Option<i64>)> = self
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| {
                // An order scheduled for after the end never reached Redis.
                let created = self.cfg.orders.as_ref().is_none_or(|o| o[i].at_ms <= self.cfg.duration_ms);
                let (f, l) = self.fate(t, &held, created);
                (t.name.clone(), f, l)
            })
            .collect();
        for (task, fate, lateness) in fates {
            self.emit(SimEvent::Fate { task, fate, lateness });
        }
    }

    /// The metrics now (fates are final once the run is over; before, an unprocessed task
    /// that left Redis counts as lost only if nobody holds it).
    pub fn metrics(&mut self) -> &Metrics {
        let held = self.in_hand();
        let mut m = Metrics {
            now: self.now,
            consumer_commands: self.m.consumer_commands,
            producer_commands: self.m.producer_commands,
            empty_polls: self.m.empty_polls,
            messages: self.m.messages,
            failed: self.m.failed,
            retried: self.m.retried,
            ..Default::default()
        };
        let mut lateness = Vec::new();
        for (i, t) in self.tasks.iter().enumerate() {
            let created = match &self.cfg.orders {
                Some(o) => o[i].at_ms <= self.now,
                None => t.due - self.cfg.delay_ms <= self.now,
            };
            if !created {
                continue;
            }
            m.tasks += 1;
            let (fate, l) = self.fate(t, &held, true);
            match fate {
                Fate::OnTime => m.on_time += 1,
                Fate::Late => m.late += 1,
                Fate::Duplicate => m.duplicates += 1,
                Fate::Lost => m.lost += 1,
                Fate::Paid => m.paid += 1,
                Fate::Pending => m.pending += 1,
                Fate::DeadLetter => m.dead_lettered += 1,
            }
            if !t.completions.is_empty() {
                m.processed += 1;
                m.extra_processings += t.completions.len() - 1;
            }
            if let Some(l) = l {
                lateness.push(l);
            }
        }
        lateness.sort_unstable();
        m.lateness_p50 = percentile(&lateness, 50.0);
        m.lateness_p99 = percentile(&lateness, 99.0);
        m.lateness_max = lateness.last().copied();
        m.commands_per_second = if self.now > 0 { m.consumer_commands as f64 * 1000.0 / self.now as f64 } else { 0.0 };
        self.m = m;
        &self.m
    }
}

/// `redisplay delay-queue`'s table: one row per run.
pub fn table(rows: &[(String, Metrics)]) -> String {
    fn ms(v: Option<i64>) -> String {
        v.map_or("-".into(), |v| v.to_string())
    }
    let mut out = String::from(
        "| strategy | tasks | paid | on time | late | twice+ | lost | pending | retried | dead | p50 ms | p99 ms | max ms | cmds/s | empty polls |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (name, m) in rows {
        out.push_str(&format!(
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2} | {} |\n",
            m.tasks,
            m.paid,
            m.on_time,
            m.late,
            m.duplicates,
            m.lost,
            m.pending,
            m.retried,
            m.dead_lettered,
            ms(m.lateness_p50),
            ms(m.lateness_p99),
            ms(m.lateness_max),
            m.commands_per_second,
            m.empty_polls
        ));
    }
    out
}
