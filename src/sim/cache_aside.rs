//! Cache-aside in front of a database with limited capacity, on a real engine in virtual time.
//!
//! Each request reads `item:<k>` (k drawn from a Zipf distribution over `keys` items, Poisson
//! arrivals at `rate_per_s`), or — a `write_ratio` share of them — updates it. Up to three tiers
//! answer a read, nearest first:
//!
//! 1. **A local in-process cache** (`local_size` entries per application instance, LRU, each
//!    entry kept `local_ttl_ms`), as Caffeine or Guava Cache would be: a hit costs nothing and
//!    crosses no network. `instances` application instances each have their own; a request goes
//!    to one of them at random.
//! 2. **Redis** (the engine itself): `GET`; on a miss the database is asked and the value is
//!    written back with `SET item:<k> <value> EX <ttl>`. The engine does the rest as Redis would:
//!    the TTLs expire (lazily and by the active cycle), `maxmemory` with its policy evicts.
//! 3. **The database**, which answers in `db_latency_ms` but serves at most `db_qps` queries per
//!    second.
//!
//! A write updates the database, then (cache-aside's "update the database, delete the cache")
//! `DEL`s the key in Redis and drops the writing instance's local copy. The other instances'
//! local copies stay until their local TTL: that is the staleness a local tier brings, measured
//! here as the age of the newest write a read did not see.
//!
//! ## The capacity model (deterministic, virtual time)
//!
//! The database and Redis are each a FIFO server with a fixed pace: with a capacity of `C`
//! operations per second, an operation arriving at `a` starts at `max(a, previous start + 1/C)`
//! and takes `db_latency_ms` (Redis: the round trip `rtt_ms`) from its start. Below capacity an
//! operation waits only when arrivals bunch up; above it the queue grows by (arrival rate − C) per
//! second and so does the wait, without limit. Queue depth = operations arrived but not started.
//! Capacity 0 means unlimited (the latency alone, as this simulation had before).
//!
//! Deviations from a real database (and Redis), on purpose: the service time is fixed (no slow
//! queries, no buffer-pool misses, no lock waits); `C` is a flat ceiling — a real MySQL often
//! serves *less* when overloaded (contention, thrashing) and its clients time out or their
//! connection pools reject work instead of queueing forever, as here; reads and writes cost the
//! same. Redis's queue only delays replies: the engine executes a command at the moment it
//! arrives, not when its turn comes. The local cache is filled when the reply reaches the
//! application. Nothing here is measured: `db_qps` and `redis_qps` are parameters (e.g. the
//! article's 5,000 and 100,000 for a 4-core machine), and the numbers that come out are what such
//! a queue does with them.
//!
//! The write-back lands after the database's answer, so requests for the same key in between
//! miss too and query the database again (the "thundering herd" a cache without a lock has) —
//! and when the database queues, that window grows with the queue. A read takes the value the
//! database has when it answers; its write-back reaches Redis half a round trip later, so a write
//! committed in between leaves the old value in Redis until its TTL (cache-aside's known race;
//! such reads count as stale too).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;

use crate::engine::{Engine, EngineOptions, DEFAULT_START_MS};
use crate::reply::Reply;

#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub keys: u64,
    /// Zipf exponent (1.0: the k-th most popular item is requested ∝ 1/k).
    pub skew: f64,
    pub rate_per_s: f64,
    pub duration_ms: i64,
    pub db_latency_ms: f64,
    /// The database's capacity, queries per second (0: unlimited).
    pub db_qps: f64,
    /// Redis's capacity, commands per second (0: unlimited).
    pub redis_qps: f64,
    /// false: no Redis tier (the application asks the database, or its local cache).
    pub redis: bool,
    pub rtt_ms: f64,
    /// TTL of a cached value, seconds (0: no TTL).
    pub ttl_s: i64,
    /// Cache size, bytes (0: no limit).
    pub maxmemory: u64,
    pub policy: String,
    pub value_bytes: usize,
    /// Entries per instance in the local in-process cache (0: no local tier).
    pub local_size: u64,
    /// How long a local entry is kept, ms.
    pub local_ttl_ms: f64,
    /// Application instances, each with its own local cache.
    pub instances: u64,
    /// Share of requests that are writes.
    pub write_ratio: f64,
    /// Every item is in Redis (TTL `ttl_s`) before the first request.
    pub prewarm: bool,
    pub seed: u64,
    pub start_ms: i64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            keys: 10_000,
            skew: 1.0,
            rate_per_s: 1_000.0,
            duration_ms: 60_000,
            db_latency_ms: 50.0,
            db_qps: 0.0,
            redis_qps: 0.0,
            redis: true,
            rtt_ms: 0.5,
            ttl_s: 30,
            maxmemory: 0,
            policy: "allkeys-lru".into(),
            value_bytes: 100,
            local_size: 0,
            local_ttl_ms: 1_000.0,
            instances: 1,
            write_ratio: 0.0,
            prewarm: false,
            seed: 1,
            start_ms: DEFAULT_START_MS,
        }
    }
}

#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ConfigInput {
    pub keys: Option<f64>,
    pub skew: Option<f64>,
    pub rate_per_s: Option<f64>,
    pub duration_ms: Option<f64>,
    pub db_latency_ms: Option<f64>,
    pub db_qps: Option<f64>,
    pub redis_qps: Option<f64>,
    pub redis: Option<bool>,
    pub rtt_ms: Option<f64>,
    pub ttl_s: Option<f64>,
    pub maxmemory: Option<f64>,
    pub policy: Option<String>,
    pub value_bytes: Option<f64>,
    pub local_size: Option<f64>,
    pub local_ttl_ms: Option<f64>,
    pub instances: Option<f64>,
    pub write_ratio: Option<f64>,
    pub prewarm: Option<bool>,
    pub seed: Option<f64>,
    pub start_ms: Option<f64>,
}

fn num(name: &str, v: Option<f64>, default: f64, lo: f64, hi: f64, whole: bool) -> Result<f64, String> {
    let Some(v) = v else { return Ok(default) };
    if !(v.is_finite() && v >= lo && v <= hi && (!whole || v.fract() == 0.0)) {
        let kind = if whole { "a whole number" } else { "a number" };
        return Err(format!("{name} must be {kind} from {lo} to {hi} (got {v})"));
    }
    Ok(v)
}

const POLICIES: &[&str] = &[
    "noeviction",
    "allkeys-lru",
    "allkeys-lfu",
    "allkeys-random",
    "volatile-lru",
    "volatile-lfu",
    "volatile-random",
    "volatile-ttl",
];

impl ConfigInput {
    pub fn into_config(self) -> Result<Config, String> {
        let d = Config::default();
        let rate = num("ratePerS", self.rate_per_s, d.rate_per_s, 0.001, 1_000_000.0, false)?;
        let duration = num("durationMs", self.duration_ms, d.duration_ms as f64, 1.0, 86_400_000.0, true)?;
        if rate * duration / 1000.0 > 2_000_000.0 {
            return Err("ratePerS × duration would make more than 2,000,000 requests".into());
        }
        let policy = self.policy.unwrap_or(d.policy);
        if !POLICIES.contains(&policy.as_str()) {
            return Err(format!("policy must be one of {} (got {policy})", POLICIES.join(", ")));
        }
        Ok(Config {
            keys: num("keys", self.keys, d.keys as f64, 1.0, 1_000_000.0, true)? as u64,
            skew: num("skew", self.skew, d.skew, 0.0, 5.0, false)?,
            rate_per_s: rate,
            duration_ms: duration as i64,
            db_latency_ms: num("dbLatencyMs", self.db_latency_ms, d.db_latency_ms, 0.0, 60_000.0, false)?,
            db_qps: num("dbQps", self.db_qps, d.db_qps, 0.0, 100_000_000.0, false)?,
            redis_qps: num("redisQps", self.redis_qps, d.redis_qps, 0.0, 100_000_000.0, false)?,
            redis: self.redis.unwrap_or(d.redis),
            rtt_ms: num("rttMs", self.rtt_ms, d.rtt_ms, 0.0, 10_000.0, false)?,
            ttl_s: num("ttlS", self.ttl_s, d.ttl_s as f64, 0.0, 31_536_000.0, true)? as i64,
            maxmemory: num("maxmemory", self.maxmemory, 0.0, 0.0, 1e12, true)? as u64,
            policy,
            value_bytes: num("valueBytes", self.value_bytes, d.value_bytes as f64, 1.0, 1_000_000.0, true)? as usize,
            local_size: num("localSize", self.local_size, 0.0, 0.0, 1_000_000.0, true)? as u64,
            local_ttl_ms: num("localTtlMs", self.local_ttl_ms, d.local_ttl_ms, 0.0, 86_400_000.0, false)?,
            instances: num("instances", self.instances, 1.0, 1.0, 1_000.0, true)? as u64,
            write_ratio: num("writeRatio", self.write_ratio, 0.0, 0.0, 1.0, false)?,
            prewarm: self.prewarm.unwrap_or(false),
            seed: num("seed", self.seed, d.seed as f64, 0.0, 9_007_199_254_740_991.0, true)? as u64,
            start_ms: num("startMs", self.start_ms, d.start_ms as f64, 0.0, 253_402_300_799_000.0, true)? as i64,
        })
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// Requests made (reads and writes).
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    /// Reads answered by a cache tier (local or Redis), and by the database.
    pub hits: u64,
    pub misses: u64,
    pub hit_ratio: f64,
    /// Reads answered by the local tier, and its share of all reads.
    pub local_hits: u64,
    pub local_hit_ratio: f64,
    /// Of the reads that reached Redis, the share Redis answered.
    pub redis_hit_ratio: f64,
    /// Database queries per second asked for with the caches (reads that missed, and writes),
    /// and without any cache (every request).
    pub db_queries_per_second: f64,
    pub db_queries_per_second_without_cache: f64,
    /// Queries per second the database finished within the run (at most its capacity).
    pub db_qps_served: f64,
    /// Queries waiting for the database: the most at any time, and at the end of the run.
    pub db_queue_max: u64,
    pub db_queue_at_end: u64,
    /// Redis commands per second asked for (GET, SET, DEL) and finished within the run.
    pub redis_commands_per_second: f64,
    pub redis_qps_served: f64,
    pub redis_queue_max: u64,
    /// Share of the requests the database did not have to answer.
    pub load_absorbed: f64,
    /// Read latency (from the request to its answer; a miss includes the write-back's round trip).
    pub mean_latency_ms: f64,
    pub p50_latency_ms: f64,
    pub p99_latency_ms: f64,
    /// Reads answered with a value older than the database's (a write they did not see), and
    /// the most time that had passed since that write.
    pub stale_reads: u64,
    pub max_staleness_ms: f64,
    /// From the engine's INFO.
    pub expired_keys: u64,
    pub evicted_keys: u64,
    pub keys_in_cache: u64,
    /// Hit ratio per tenth of the run (the cache warming up).
    pub hit_ratio_by_tenth: Vec<f64>,
}

/// Zipf(s) over 1..=n by inverse CDF.
struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    fn new(n: u64, s: f64) -> Zipf {
        let mut cdf = Vec::with_capacity(n as usize);
        let mut sum = 0.0;
        for k in 1..=n {
            sum += 1.0 / (k as f64).powf(s);
            cdf.push(sum);
        }
        for v in &mut cdf {
            *v /= sum;
        }
        Zipf { cdf }
    }

    /// A 0-based item (0 = the most popular).
    fn sample(&self, u: f64) -> usize {
        self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1)
    }
}

fn info_field(e: &mut Engine, c: u64, section: &str, field: &str) -> u64 {
    let argv = vec![b"INFO".to_vec(), section.as_bytes().to_vec()];
    let Reply::Bulk(info) = e.execute(c, &argv).into_resp2() else { return 0 };
    let text = String::from_utf8_lossy(&info).into_owned();
    let prefix = format!("{field}:");
    text.lines().find_map(|l| l.strip_prefix(prefix.as_str())).and_then(|v| v.trim().parse().ok()).unwrap_or(0)
}

/// A FIFO server with a fixed pace (see the header): `1/capacity` between two starts.
struct Server {
    /// ms between two starts (0: unlimited).
    interval: f64,
    next_free: f64,
    queue_max: u64,
    admitted: u64,
}

impl Server {
    fn new(capacity_per_s: f64) -> Server {
        let interval = if capacity_per_s > 0.0 { 1000.0 / capacity_per_s } else { 0.0 };
        Server { interval, next_free: f64::NEG_INFINITY, queue_max: 0, admitted: 0 }
    }

    /// An operation arriving at `at` (ms into the run): when its turn starts.
    fn admit(&mut self, at: f64) -> f64 {
        self.admitted += 1;
        if self.interval == 0.0 {
            return at;
        }
        let start = at.max(self.next_free);
        self.next_free = start + self.interval;
        self.queue_max = self.queue_max.max(self.waiting_at(at));
        start
    }

    /// Operations admitted so far that have not started at `t`.
    fn waiting_at(&self, t: f64) -> u64 {
        if self.interval == 0.0 || self.next_free <= t {
            return 0;
        }
        ((self.next_free - t) / self.interval).ceil() as u64 - 1
    }
}

/// Something due later in the run, in virtual ms.
enum Due {
    /// A read that missed Redis (or has no Redis) reaches the database.
    DbRead { key: usize, instance: usize, asked: f64 },
    /// The database answers a read.
    DbAnswer { key: usize, instance: usize },
    /// A write's database update is done: delete the cache.
    DbCommit { key: usize, instance: usize },
    /// The write-back of a value read from the database reaches Redis.
    RedisSet { key: usize, version: u32 },
    /// A value reaches an instance's local cache.
    LocalFill { key: usize, instance: usize, version: u32 },
}

/// One instance's local cache: LRU over `size` entries, each kept `ttl` ms.
struct Local {
    entries: HashMap<usize, (u32, f64, u64)>,
    by_use: BTreeMap<u64, usize>,
    tick: u64,
}

impl Local {
    fn get(&mut self, key: usize, now: f64) -> Option<u32> {
        let (version, expires, used) = *self.entries.get(&key)?;
        if expires <= now {
            self.remove(key);
            return None;
        }
        self.by_use.remove(&used);
        self.tick += 1;
        self.by_use.insert(self.tick, key);
        self.entries.insert(key, (version, expires, self.tick));
        Some(version)
    }

    fn fill(&mut self, key: usize, version: u32, expires: f64, size: u64) {
        self.remove(key);
        self.tick += 1;
        self.entries.insert(key, (version, expires, self.tick));
        self.by_use.insert(self.tick, key);
        while self.entries.len() as u64 > size {
            let Some((_, old)) = self.by_use.pop_first() else { break };
            self.entries.remove(&old);
        }
    }

    fn remove(&mut self, key: usize) {
        if let Some((_, _, used)) = self.entries.remove(&key) {
            self.by_use.remove(&used);
        }
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

pub fn run(cfg: &Config) -> Outcome {
    let mut e = Engine::new(EngineOptions { seed: cfg.seed, start_ms: cfg.start_ms });
    e.set_event_recording(false);
    let c = e.connect();
    let cmd = |e: &mut Engine, args: &[&[u8]]| {
        let argv: Vec<Vec<u8>> = args.iter().map(|a| a.to_vec()).collect();
        let r = e.execute(c, &argv);
        e.before_sleep();
        r
    };
    if cfg.maxmemory > 0 {
        cmd(&mut e, &[b"CONFIG", b"SET", b"maxmemory-policy", cfg.policy.as_bytes()]);
        cmd(&mut e, &[b"CONFIG", b"SET", b"maxmemory", cfg.maxmemory.to_string().as_bytes()]);
    }
    let zipf = Zipf::new(cfg.keys, cfg.skew);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(cfg.seed ^ 0x63_6163_6865);
    let mut uniform = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let value = "v".repeat(cfg.value_bytes);
    let ttl = cfg.ttl_s.to_string();
    let name = |k: usize| format!("item:{}", k + 1);
    let set_argv = |key: usize| {
        let mut argv = vec![b"SET".to_vec(), name(key).into_bytes(), value.as_bytes().to_vec()];
        if cfg.ttl_s > 0 {
            argv.extend([b"EX".to_vec(), ttl.as_bytes().to_vec()]);
        }
        argv
    };
    let advance = |e: &mut Engine, t: f64| {
        let ms = cfg.start_ms + t.floor() as i64;
        if ms > e.now_ms() {
            e.advance_to(ms, u64::MAX);
            e.before_sleep();
        }
    };
    let duration = cfg.duration_ms as f64;
    let local_on = cfg.local_size > 0;
    let mut redis = Server::new(cfg.redis_qps);
    let mut db = Server::new(cfg.db_qps);
    let (mut redis_served, mut db_served) = (0u64, 0u64);
    let mut locals: Vec<Local> =
        (0..cfg.instances).map(|_| Local { entries: HashMap::new(), by_use: BTreeMap::new(), tick: 0 }).collect();
    // The database's version of each item; when each version after the first was written.
    let mut db_version: HashMap<usize, u32> = HashMap::new();
    let mut commits: HashMap<usize, Vec<f64>> = HashMap::new();
    // The version of the value Redis holds for an item (the last SET's).
    let mut redis_version: HashMap<usize, u32> = HashMap::new();
    let mut due: BinaryHeap<Reverse<Event>> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut push = |due: &mut BinaryHeap<Reverse<Event>>, at: f64, what: Due| {
        seq += 1;
        due.push(Reverse(Event { at, seq, what }));
    };
    let mut out = Outcome::default();
    let mut latencies: Vec<f64> = Vec::new();
    let mut tenths = [(0u64, 0u64); 10];
    let mut redis_reads = 0u64;
    let mut redis_hits = 0u64;
    // A read answered with version `v` at `t`: stale if the database has a newer one.
    let check_stale = |out: &mut Outcome,
                       db_version: &HashMap<usize, u32>,
                       commits: &HashMap<usize, Vec<f64>>,
                       key: usize,
                       v: u32,
                       t: f64| {
        if db_version.get(&key).copied().unwrap_or(0) > v {
            out.stale_reads += 1;
            let written = commits[&key][v as usize];
            out.max_staleness_ms = out.max_staleness_ms.max(t - written);
        }
    };

    if cfg.prewarm && cfg.redis {
        for k in 0..cfg.keys as usize {
            e.execute(c, &set_argv(k));
        }
        e.before_sleep();
    }

    let mut t = 0.0f64;
    loop {
        t += -(1000.0 / cfg.rate_per_s) * (1.0 - uniform()).ln();
        let arrival = (t < duration).then_some(t);
        let until = arrival.unwrap_or(duration);
        // What is due before this request (or the end of the run), in time order.
        while due.peek().is_some_and(|Reverse(ev)| ev.at <= until) {
            let Reverse(ev) = due.pop().unwrap();
            match ev.what {
                Due::DbRead { key, instance, asked } => {
                    let start = db.admit(ev.at);
                    let done = start + cfg.db_latency_ms;
                    db_served += u64::from(done <= duration);
                    latencies.push(done - asked + if cfg.redis { cfg.rtt_ms } else { 0.0 });
                    push(&mut due, done, Due::DbAnswer { key, instance });
                }
                Due::DbAnswer { key, instance } => {
                    // The value as the database has it when it answers.
                    let version = db_version.get(&key).copied().unwrap_or(0);
                    if cfg.redis {
                        push(&mut due, ev.at + cfg.rtt_ms / 2.0, Due::RedisSet { key, version });
                    }
                    if local_on {
                        push(&mut due, ev.at, Due::LocalFill { key, instance, version });
                    }
                }
                Due::DbCommit { key, instance } => {
                    let v = db_version.entry(key).or_insert(0);
                    *v += 1;
                    commits.entry(key).or_default().push(ev.at);
                    if cfg.redis {
                        redis_served += u64::from(redis.admit(ev.at) < duration);
                        advance(&mut e, ev.at);
                        cmd(&mut e, &[b"DEL", name(key).as_bytes()]);
                    }
                    locals[instance].remove(key);
                }
                Due::RedisSet { key, version } => {
                    redis_served += u64::from(redis.admit(ev.at) < duration);
                    advance(&mut e, ev.at);
                    e.execute(c, &set_argv(key));
                    e.before_sleep();
                    redis_version.insert(key, version);
                }
                Due::LocalFill { key, instance, version } => {
                    locals[instance].fill(key, version, ev.at + cfg.local_ttl_ms, cfg.local_size);
                }
            }
        }
        let Some(t) = arrival else { break };
        advance(&mut e, t);
        let key = zipf.sample(uniform());
        let instance =
            if cfg.instances > 1 { ((uniform() * cfg.instances as f64) as usize).min(locals.len() - 1) } else { 0 };
        out.requests += 1;
        if cfg.write_ratio > 0.0 && uniform() < cfg.write_ratio {
            out.writes += 1;
            let done = db.admit(t) + cfg.db_latency_ms;
            db_served += u64::from(done <= duration);
            push(&mut due, done, Due::DbCommit { key, instance });
            continue;
        }
        out.reads += 1;
        let tenth = ((t / duration) * 10.0) as usize;
        let tenth = &mut tenths[tenth.min(9)];
        tenth.0 += 1;
        if local_on {
            if let Some(v) = locals[instance].get(key, t) {
                out.hits += 1;
                out.local_hits += 1;
                tenth.1 += 1;
                latencies.push(0.0);
                check_stale(&mut out, &db_version, &commits, key, v, t);
                continue;
            }
        }
        if !cfg.redis {
            out.misses += 1;
            push(&mut due, t, Due::DbRead { key, instance, asked: t });
            continue;
        }
        let start = redis.admit(t);
        redis_served += u64::from(start < duration);
        let reply = start + cfg.rtt_ms;
        redis_reads += 1;
        let hit = !matches!(cmd(&mut e, &[b"GET", name(key).as_bytes()]), Reply::Nil);
        if hit {
            let v = redis_version.get(&key).copied().unwrap_or(0);
            out.hits += 1;
            redis_hits += 1;
            tenth.1 += 1;
            latencies.push(reply - t);
            check_stale(&mut out, &db_version, &commits, key, v, t);
            if local_on {
                push(&mut due, reply, Due::LocalFill { key, instance, version: v });
            }
        } else {
            out.misses += 1;
            // The database answers later; the write-back reaches the cache then.
            push(&mut due, reply, Due::DbRead { key, instance, asked: t });
        }
    }
    // The run is over: its queues as they stand; then the reads still on their way to the
    // database get their answer times (nothing else after the end is played).
    out.db_queue_at_end = db.waiting_at(duration);
    out.db_queue_max = db.queue_max;
    out.redis_queue_max = redis.queue_max;
    let redis_asked = redis.admitted;
    while let Some(Reverse(ev)) = due.pop() {
        if let Due::DbRead { asked, .. } = ev.what {
            let done = db.admit(ev.at) + cfg.db_latency_ms;
            latencies.push(done - asked + if cfg.redis { cfg.rtt_ms } else { 0.0 });
        }
    }
    let secs = duration / 1000.0;
    let ratio = |a: u64, b: u64| if b > 0 { a as f64 / b as f64 } else { 0.0 };
    out.hit_ratio = ratio(out.hits, out.reads);
    out.local_hit_ratio = ratio(out.local_hits, out.reads);
    out.redis_hit_ratio = ratio(redis_hits, redis_reads);
    out.db_queries_per_second = db.admitted as f64 / secs;
    out.db_queries_per_second_without_cache = out.requests as f64 / secs;
    out.db_qps_served = db_served as f64 / secs;
    out.redis_commands_per_second = redis_asked as f64 / secs;
    out.redis_qps_served = redis_served as f64 / secs;
    out.load_absorbed = ratio(out.hits, out.requests);
    if !latencies.is_empty() {
        out.mean_latency_ms = latencies.iter().sum::<f64>() / latencies.len() as f64;
        latencies.sort_by(f64::total_cmp);
        out.p50_latency_ms = percentile(&latencies, 0.5);
        out.p99_latency_ms = percentile(&latencies, 0.99);
    }
    out.hit_ratio_by_tenth = tenths.iter().map(|(n, h)| ratio(*h, *n)).collect();
    out.expired_keys = info_field(&mut e, c, "stats", "expired_keys");
    out.evicted_keys = info_field(&mut e, c, "stats", "evicted_keys");
    out.keys_in_cache = e.dbsize(0) as u64;
    out
}

/// A `Due` and when: ordered by time, then by when it was scheduled.
struct Event {
    at: f64,
    seq: u64,
    what: Due,
}

impl PartialEq for Event {
    fn eq(&self, other: &Event) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}

impl Eq for Event {}

impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Event) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Event {
    fn cmp(&self, other: &Event) -> std::cmp::Ordering {
        self.at.total_cmp(&other.at).then(self.seq.cmp(&other.seq))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small, fast run: 1000 items, 1 s.
    fn small() -> Config {
        Config { keys: 1_000, rate_per_s: 20_000.0, duration_ms: 1_000, db_latency_ms: 10.0, ..Config::default() }
    }

    #[test]
    fn a_paced_server_queues_what_comes_faster_than_its_capacity() {
        let mut s = Server::new(1_000.0); // one start per ms
        let starts: Vec<f64> = (0..5).map(|_| s.admit(0.0)).collect();
        assert_eq!(starts, [0.0, 1.0, 2.0, 3.0, 4.0]);
        assert_eq!(s.queue_max, 4);
        assert_eq!(s.waiting_at(0.0), 4);
        assert_eq!(s.waiting_at(2.5), 2);
        assert_eq!(s.waiting_at(5.0), 0);
        // After an idle gap an arrival starts at once.
        assert_eq!(s.admit(10.0), 10.0);
        let mut unlimited = Server::new(0.0);
        assert_eq!((unlimited.admit(3.0), unlimited.admit(3.0), unlimited.queue_max), (3.0, 3.0, 0));
    }

    #[test]
    fn a_database_past_its_capacity_serves_its_capacity_and_the_queue_and_latency_grow() {
        // No cache: 20,000 reads/s onto a database that serves 5,000.
        let over = run(&Config { redis: false, db_qps: 5_000.0, ..small() });
        assert_eq!(over.hits, 0);
        assert!((over.db_queries_per_second - 20_000.0).abs() < 1_000.0, "{}", over.db_queries_per_second);
        // It finishes at most its capacity (the first queries start at once, the last of the
        // second end with the 10 ms service time).
        assert!(over.db_qps_served <= 5_000.0 && over.db_qps_served > 4_900.0, "{}", over.db_qps_served);
        // ~15,000 of the second's queries still wait at its end; a median read waits ~half a second.
        assert!(over.db_queue_at_end > 14_000 && over.db_queue_at_end < 16_000, "{}", over.db_queue_at_end);
        assert!(over.db_queue_max >= over.db_queue_at_end);
        assert!(over.p50_latency_ms > 1_000.0 && over.p99_latency_ms > 2_500.0, "{over:?}");
        // Under capacity (4,000/s): no lasting queue, latency near the 10 ms service time.
        let under = run(&Config { redis: false, db_qps: 5_000.0, rate_per_s: 4_000.0, ..small() });
        assert!(under.db_queue_at_end < 20, "{}", under.db_queue_at_end);
        assert!(under.p50_latency_ms < 11.0 && under.p99_latency_ms < 15.0, "{under:?}");
        // Unlimited: the latency alone.
        let free = run(&Config { redis: false, ..small() });
        assert!((free.p99_latency_ms - 10.0).abs() < 1e-9 && free.db_queue_max == 0, "{free:?}");
    }

    #[test]
    fn the_local_tier_answers_first_and_takes_load_off_redis() {
        let warm = Config { prewarm: true, ..small() };
        let redis_only = run(&warm);
        assert_eq!((redis_only.local_hits, redis_only.misses), (0, 0));
        assert!((redis_only.redis_commands_per_second - redis_only.reads as f64).abs() < 1.0);
        let local = run(&Config { local_size: 100, local_ttl_ms: 1_000.0, ..warm.clone() });
        // Zipf(1) over 1000 items: the top 100 get 69% of the reads. 100 LRU entries hold the
        // tail's one-off items too, so they answer fewer than that (each item is fetched once).
        let ideal = Zipf::new(1_000, 1.0).cdf[99];
        assert!((0.69..0.70).contains(&ideal), "{ideal}");
        assert!(local.local_hit_ratio > 0.5 && local.local_hit_ratio < ideal, "{}", local.local_hit_ratio);
        assert_eq!(local.hits, local.reads);
        let to_redis = local.reads - local.local_hits;
        assert!((local.redis_commands_per_second - to_redis as f64).abs() < 1.0);
        assert_eq!(local.p50_latency_ms, 0.0);
        // Four instances each fetch their own copy once per local TTL: with a 20 ms TTL, that
        // costs local hits (and Redis reads) that one shared copy would not.
        let one = run(&Config { local_size: 100, local_ttl_ms: 20.0, ..warm.clone() });
        let four = run(&Config { local_size: 100, local_ttl_ms: 20.0, instances: 4, ..warm.clone() });
        assert!(four.local_hits < one.local_hits, "{} {}", four.local_hits, one.local_hits);
        assert!(four.redis_commands_per_second > one.redis_commands_per_second);
        // A tiny local TTL: almost nothing is answered locally.
        let brief = run(&Config { local_size: 100, local_ttl_ms: 0.01, ..warm });
        assert!(brief.local_hit_ratio < 0.05, "{}", brief.local_hit_ratio);
    }

    #[test]
    fn writes_leave_other_instances_local_copies_stale_for_up_to_their_ttl() {
        let base = Config { prewarm: true, local_size: 100, instances: 4, ..small() };
        let none = run(&Config { local_ttl_ms: 500.0, ..base.clone() });
        assert_eq!(none.stale_reads, 0);
        let long = run(&Config { local_ttl_ms: 500.0, write_ratio: 0.01, ..base.clone() });
        let short = run(&Config { local_ttl_ms: 50.0, write_ratio: 0.01, ..base.clone() });
        assert!(long.writes > 100 && long.stale_reads > 0, "{long:?}");
        assert!(short.stale_reads < long.stale_reads, "{} {}", short.stale_reads, long.stale_reads);
        assert!(long.max_staleness_ms > 50.0 && long.max_staleness_ms <= 500.0 + 1.0, "{}", long.max_staleness_ms);
        assert!(short.max_staleness_ms <= 50.0 + 1.0, "{}", short.max_staleness_ms);
        // Without a local tier a write deletes the Redis copy: stale only in the write-back race.
        let redis_only = run(&Config { local_size: 0, write_ratio: 0.01, ..base });
        assert!(redis_only.stale_reads * 20 < long.stale_reads, "{} {}", redis_only.stale_reads, long.stale_reads);
    }

    #[test]
    fn the_same_config_gives_the_same_run_and_bad_input_is_refused() {
        let cfg = Config {
            db_qps: 2_000.0,
            redis_qps: 15_000.0,
            local_size: 50,
            instances: 3,
            write_ratio: 0.02,
            ttl_s: 1,
            ..small()
        };
        let a = run(&cfg);
        assert_eq!(a, run(&cfg));
        assert_ne!(a, run(&Config { seed: 2, ..cfg }));
        let bad = |i: ConfigInput| i.into_config().is_err();
        assert!(bad(ConfigInput { write_ratio: Some(1.5), ..Default::default() }));
        assert!(bad(ConfigInput { instances: Some(0.0), ..Default::default() }));
        assert!(bad(ConfigInput { db_qps: Some(-1.0), ..Default::default() }));
        assert!(bad(ConfigInput { local_ttl_ms: Some(f64::NAN), ..Default::default() }));
        assert!(!bad(ConfigInput { db_qps: Some(5_000.0), redis: Some(false), ..Default::default() }));
    }
}
