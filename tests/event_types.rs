//! The page's types for the data the engine hands to JavaScript, generated from the Rust types
//! so the two cannot drift: `www/types/events.d.ts` (every `Event` the page drains, every
//! delay-queue lab event) and `www/types/snapshots.d.ts` (the views' windowed snapshots, the
//! lab's metrics, the LRU experiment).
//!
//! How: one sample of every variant (an exhaustive `match` numbers them, so a new variant does
//! not compile until it is numbered here, and the test fails until it has a sample), serialized
//! with serde_json; the TypeScript types are inferred from the JSON and compared with the
//! committed files. A renamed field, a new one, a changed type or a new variant fails the test
//! with a diff; `REDISPLAY_REGEN=1 cargo test --test event_types` rewrites the files.
//!
//! Why serde_json stands for what JavaScript gets: src/wasm.rs hands these values over with
//! serde-wasm-bindgen's JSON-compatible serializer, which gives the same shapes — structs as
//! plain objects with the Rust field names (or their serde renames), `Option::None` as `null`,
//! integers as numbers (a value above 2^53 makes the whole drain unreadable, which engine.js
//! reports, rather than a BigInt), `Box`es and `Cow`s transparently, tuples as arrays. One
//! difference the types cannot show: a non-finite f64 (an `inf` score) is `Infinity` in
//! JavaScript where serde_json writes `null`, so the samples use finite values.
//!
//! What inference cannot see is given as hints by path: which objects get a name (and which
//! Rust struct documents them), which strings are enums, which arrays are tuples. Every hint
//! must match something, so a renamed field cannot leave one behind unnoticed. The inference
//! and the writing are tests/support/ts_types.rs; this file holds the samples and the files.

use std::borrow::Cow;
use std::collections::BTreeMap;

use redisplay::events::{
    CycleKind, Event, EvictionReport, ExaminedKey, ExpireCycleReport, ExpireRound, ExpiredBy, PoolEntry, Sample,
    SearchStep,
};
use redisplay::introspect;
use redisplay::sim::delay_queue::{Fate, Metrics, SimEvent};
use redisplay::{Engine, EngineOptions};
use serde_json::Value;

const T0: i64 = 1_735_689_600_000;

// ---------------------------------------------------------------------------------------------
// Samples: one of every variant, numbered by an exhaustive match
// ---------------------------------------------------------------------------------------------

/// Every `Event` variant has a number below EVENT_VARIANTS. A new variant does not compile until
/// it gets one (and EVENT_VARIANTS grows); the test fails until `event_samples` has it.
const EVENT_VARIANTS: usize = 14;
fn event_variant(e: &Event) -> usize {
    match e {
        Event::Command { .. } => 0,
        Event::Keyspace { .. } => 1,
        Event::Expired { .. } => 2,
        Event::Stall { .. } => 3,
        Event::Eviction { .. } => 4,
        Event::ExpireCycle { .. } => 5,
        Event::Cron { .. } => 6,
        Event::ClockSet { .. } => 7,
        Event::Config { .. } => 8,
        Event::ZsetInsert { .. } => 9,
        Event::ZsetRemove { .. } => 10,
        Event::ZsetConvert { .. } => 11,
        Event::ZsetSearch { .. } => 12,
        Event::Propagated { .. } => 13,
    }
}

const EXPIRED_BY_VARIANTS: usize = 2;
fn expired_by_variant(b: ExpiredBy) -> usize {
    match b {
        ExpiredBy::Lazy => 0,
        ExpiredBy::Active => 1,
    }
}

const CYCLE_KIND_VARIANTS: usize = 2;
fn cycle_kind_variant(k: CycleKind) -> usize {
    match k {
        CycleKind::Slow => 0,
        CycleKind::Fast => 1,
    }
}

const SIM_EVENT_VARIANTS: usize = 11;
fn sim_event_variant(e: &SimEvent) -> usize {
    match e {
        SimEvent::Order { .. } => 0,
        SimEvent::Paid { .. } => 1,
        SimEvent::Command { .. } => 2,
        SimEvent::Message { .. } => 3,
        SimEvent::Process { .. } => 4,
        SimEvent::Sleep { .. } => 5,
        SimEvent::Crash { .. } => 6,
        SimEvent::Restart { .. } => 7,
        SimEvent::Fate { .. } => 8,
        SimEvent::Retry { .. } => 9,
        SimEvent::DeadLetter { .. } => 10,
    }
}

const FATE_VARIANTS: usize = 7;
fn fate_variant(f: Fate) -> usize {
    match f {
        Fate::OnTime => 0,
        Fate::Late => 1,
        Fate::Duplicate => 2,
        Fate::Lost => 3,
        Fate::Paid => 4,
        Fate::Pending => 5,
        Fate::DeadLetter => 6,
    }
}

/// A score above 2^53: evict.rs writes it as decimal text (volatile-ttl scores are this big).
const HUGE_SCORE: u64 = u64::MAX - 1_735_689_600_000;

fn eviction_report() -> EvictionReport {
    let entry = |idle, key: &str| PoolEntry { idle, key: key.as_bytes().to_vec(), db: 0 };
    EvictionReport {
        policy: "allkeys-lru".into(),
        samples: vec![
            Sample { db: 0, key: "user:1".into(), score: 1200 },
            Sample { db: 0, key: "user:2".into(), score: HUGE_SCORE },
        ],
        pool_before: vec![Some(entry(1200, "user:1")), Some(entry(HUGE_SCORE, "user:2")), None],
        pool_after: vec![Some(entry(1200, "user:1")), None],
        victim_db: 0,
        victim: "user:2".into(),
        ghosts: 0,
        bytes_freed: 72,
        used_before: 1_048_700,
        maxmemory: 1_048_576,
    }
}

fn expire_cycle_report(kind: CycleKind) -> ExpireCycleReport {
    ExpireCycleReport {
        kind,
        algorithm: "7.0".into(),
        budget_us: 25_000,
        time_used_us: 180,
        cap_reached: false,
        dbs_visited: vec![0],
        sampled: 20,
        expired: 3,
        round_count: 1,
        rounds: vec![ExpireRound {
            db: 0,
            iteration: 1,
            sampled: 20,
            expired: 3,
            buckets: 12,
            cursor: 12,
            table_size: 64,
            keys: vec![ExaminedKey { key: "session:9".into(), bucket: 4, ttl_ms: -35, expired: true }],
            stale_percent: 15.0,
            repeat: false,
            reason: "3 of 20 stale: at most 10% is acceptable".into(),
            elapsed_us: 180,
        }],
        cursors_after: vec![(0, 12, 12)],
        stale_perc_after: 4.5,
        keys_per_loop: 20,
        acceptable_stale: 10,
    }
}

fn event_samples() -> Vec<Event> {
    vec![
        Event::Command { at_ms: T0, client: 3, db: 0, name: Cow::Borrowed("config|get"), argc: 3, error: false },
        Event::Keyspace { at_ms: T0, db: 0, event: "set".into(), key: "user:1".into() },
        Event::Expired {
            at_ms: T0,
            db: 0,
            key: "user:1".into(),
            by: ExpiredBy::Lazy,
            late_ms: 250,
            command: Some("GET"),
        },
        Event::Expired { at_ms: T0, db: 0, key: "user:2".into(), by: ExpiredBy::Active, late_ms: 40, command: None },
        Event::Stall { at_ms: T0, db: 0, key: "big".into(), cause: "DEL", us: 19_000 },
        Event::Eviction { at_ms: T0, report: Box::new(eviction_report()) },
        Event::ExpireCycle { at_ms: T0, report: Box::new(expire_cycle_report(CycleKind::Slow)) },
        Event::ExpireCycle { at_ms: T0, report: Box::new(expire_cycle_report(CycleKind::Fast)) },
        Event::Cron { at_ms: T0, ticks: 10, hz: 10 },
        Event::ClockSet { from_ms: T0, to_ms: T0 + 60_000 },
        Event::Config { at_ms: T0, name: "maxmemory-policy".into(), value: "allkeys-lru".into() },
        Event::ZsetInsert {
            at_ms: T0,
            db: 0,
            key: "board".into(),
            member: "alice".into(),
            score: 100.5,
            rank: 0,
            level: 2,
        },
        Event::ZsetRemove { at_ms: T0, db: 0, key: "board".into(), members: vec!["bob".into()] },
        Event::ZsetConvert {
            at_ms: T0,
            db: 0,
            key: "board".into(),
            from: "listpack".into(),
            to: "skiplist".into(),
            len: 129,
        },
        Event::ZsetSearch {
            at_ms: T0,
            db: 0,
            key: "board".into(),
            command: "zrank".into(),
            path: vec![SearchStep { level: 1, rank: 0, moved: true, member: "alice".into(), score: 100.5 }],
        },
        Event::Propagated {
            at_ms: T0,
            db: Some(0),
            argv: vec!["SET".into(), "k".into(), "v".into(), "PXAT".into(), "1700000060000".into()],
            aof: true,
            repl: true,
            cause: Some("client 3: SET k v EX 60".into()),
        },
        Event::Propagated { at_ms: T0, db: None, argv: vec!["EXEC".into()], aof: true, repl: true, cause: None },
    ]
}

fn sim_event_samples() -> Vec<SimEvent> {
    let mut samples = vec![
        SimEvent::Order { task: "order:1".into(), at: 0, due: 1_800_000 },
        SimEvent::Paid { task: "order:1".into(), at: 60_000, removed: true },
        SimEvent::Command {
            consumer: 0,
            sent: 100,
            executed: 101,
            replied: 102,
            cmd: "ZRANGEBYSCORE delayed -inf 100 LIMIT 0 10".into(),
            reply: "(empty array)".into(),
            empty: true,
        },
        SimEvent::Message { consumer: 1, task: "order:2".into(), published: 1_800_010, delivered: 1_800_011 },
        SimEvent::Process {
            consumer: 0,
            task: "order:2".into(),
            start: 1_800_012,
            end: 1_800_062,
            completed: true,
            failed: false,
        },
        SimEvent::Retry { consumer: 0, task: "order:3".into(), at: 1_800_070, tries: 1, due: Some(1_810_070) },
        SimEvent::Retry { consumer: 1, task: "order:4".into(), at: 1_800_080, tries: 2, due: None },
        SimEvent::DeadLetter { consumer: 0, task: "order:5".into(), at: 1_800_090 },
        SimEvent::Sleep { consumer: -1, from: 0, until: 1000 },
        SimEvent::Crash { consumer: 1, at: 5000 },
        SimEvent::Restart { consumer: 1, at: 9000 },
    ];
    for (i, fate) in
        [Fate::OnTime, Fate::Late, Fate::Duplicate, Fate::Lost, Fate::Paid, Fate::Pending, Fate::DeadLetter]
            .into_iter()
            .enumerate()
    {
        let lateness =
            if matches!(fate, Fate::OnTime | Fate::Late | Fate::Duplicate) { Some(i as i64 * 500) } else { None };
        samples.push(SimEvent::Fate { task: format!("order:{i}"), fate, lateness });
    }
    samples
}

/// Checks that `numbers` holds every number below `count`: each variant has a sample.
fn assert_covered(what: &str, count: usize, numbers: impl IntoIterator<Item = usize>) {
    let mut seen = vec![false; count];
    for n in numbers {
        assert!(n < count, "{what}: variant number {n} is not below the count ({count}); raise the count");
        seen[n] = true;
    }
    let missing: Vec<usize> = (0..count).filter(|&n| !seen[n]).collect();
    assert!(missing.is_empty(), "{what}: no sample of variant number(s) {missing:?}; add one");
}

fn json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("the sample serializes")
}

#[path = "support/ts_types.rs"]
mod ts_types;
use ts_types::{check_file, merge, render, rust_docs, tagged_union, write_types, Hint, Schema, Ty};

// ---------------------------------------------------------------------------------------------
// The files
// ---------------------------------------------------------------------------------------------

const HEADER: &str = "// Generated by tests/event_types.rs from the Rust types (serde's JSON shapes, as src/wasm.rs
// hands them to JavaScript). Do not edit: after changing one of them, run
//   REDISPLAY_REGEN=1 cargo test --test event_types
// Integers are numbers (a drain holding one above 2^53 is unreadable, never a BigInt); Option
// fields are `T | null`.
";

fn all_docs() -> BTreeMap<String, String> {
    let mut docs = BTreeMap::new();
    for src in [
        include_str!("../src/events.rs"),
        include_str!("../src/evict.rs"),
        include_str!("../src/expire.rs"),
        include_str!("../src/introspect.rs"),
        include_str!("../src/sim/delay_queue/mod.rs"),
        include_str!("../src/sim/lru_experiment.rs"),
        include_str!("../src/replication/link.rs"),
        include_str!("../src/session/servers.rs"),
    ] {
        docs.extend(rust_docs(src));
    }
    docs
}

fn events_file() -> String {
    let events = event_samples();
    assert_covered("Event", EVENT_VARIANTS, events.iter().map(event_variant));
    let by = events.iter().filter_map(|e| if let Event::Expired { by, .. } = e { Some(*by) } else { None });
    assert_covered("ExpiredBy", EXPIRED_BY_VARIANTS, by.map(expired_by_variant));
    let kinds =
        events.iter().filter_map(|e| if let Event::ExpireCycle { report, .. } = e { Some(report.kind) } else { None });
    assert_covered("CycleKind", CYCLE_KIND_VARIANTS, kinds.map(cycle_kind_variant));
    let sims = sim_event_samples();
    assert_covered("SimEvent", SIM_EVENT_VARIANTS, sims.iter().map(sim_event_variant));
    let fates = sims.iter().filter_map(|e| if let SimEvent::Fate { fate, .. } = e { Some(*fate) } else { None });
    assert_covered("Fate", FATE_VARIANTS, fates.map(fate_variant));

    let docs = all_docs();
    let mut schema = Schema::new(&[
        ("ExpiredEvent.by", Hint::Enum("ExpiredBy")),
        ("EvictionEvent.report", Hint::Name { ts: "EvictionReport", rust: "EvictionReport" }),
        ("EvictionEvent.report.samples[]", Hint::Name { ts: "EvictionSample", rust: "Sample" }),
        ("EvictionEvent.report.pool_before[]", Hint::Name { ts: "PoolEntry", rust: "PoolEntry" }),
        ("EvictionEvent.report.pool_after[]", Hint::Name { ts: "PoolEntry", rust: "PoolEntry" }),
        ("ExpireCycleEvent.report", Hint::Name { ts: "ExpireCycleReport", rust: "ExpireCycleReport" }),
        ("ExpireCycleEvent.report.kind", Hint::Enum("CycleKind")),
        ("ExpireCycleEvent.report.rounds[]", Hint::Name { ts: "ExpireRound", rust: "ExpireRound" }),
        ("ExpireCycleEvent.report.rounds[].keys[]", Hint::Name { ts: "ExaminedKey", rust: "ExaminedKey" }),
        ("ExpireCycleEvent.report.cursors_after[]", Hint::Tuple(&["db", "cursor", "bucket"])),
        ("ZsetSearchEvent.path[]", Hint::Name { ts: "SearchStep", rust: "SearchStep" }),
        ("DelayQueueFateEvent.fate", Hint::Enum("Fate")),
    ]);
    let mut tail = tagged_union(&mut schema, &docs, "Event", "Event", events.iter().map(json).collect());
    tail.push_str(
        "\n/** The `kind` of an engine event. */\nexport type EventKind = Event[\"kind\"];\n\
         \n/** One engine event of a given kind: `EventOf<\"expired\">`. */\n\
         export type EventOf<K extends EventKind> = Extract<Event, { kind: K }>;\n",
    );
    tail.push_str(&tagged_union(&mut schema, &docs, "SimEvent", "DelayQueueEvent", sims.iter().map(json).collect()));
    assert_eq!(schema.unused_hints(), Vec::<&str>::new(), "hints that matched nothing (a field was renamed?)");
    let header = format!(
        "{HEADER}//\n// `Event`: what Playground.drain_events() returns (src/events.rs); `DelayQueueEvent`: what\n\
         // DelayQueueLab.drain() returns (src/sim/delay_queue.rs `SimEvent`).\n"
    );
    write_types(&schema, &docs, &header, &tail)
}

fn exec(e: &mut Engine, client: u64, args: &[&str]) {
    let argv: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
    e.execute(client, &argv);
}

fn snapshots_file() -> String {
    // Real snapshots of a small keyspace: a plain key, a key past its TTL (not yet reclaimed), a
    // listpack sorted set and a skiplist one.
    let mut e = Engine::new(EngineOptions { seed: 1, start_ms: T0 });
    let c = e.connect();
    exec(&mut e, c, &["SET", "plain", "v"]);
    exec(&mut e, c, &["SET", "soon", "v", "PX", "100"]);
    exec(&mut e, c, &["SET", "later", "v", "EX", "3600"]);
    exec(&mut e, c, &["ZADD", "small", "1", "a", "2", "b"]);
    let mut zadd = vec!["ZADD".to_string(), "big".to_string()];
    for i in 0..200 {
        zadd.extend([i.to_string(), format!("m{i}")]);
    }
    exec(&mut e, c, &zadd.iter().map(String::as_str).collect::<Vec<_>>());
    e.set_time(T0 + 1000);
    let keyspace = introspect::keyspace_page(&e, 0, 0, 10, None);
    let windows = [introspect::zset_window(&e, 0, b"small", 0, 2), introspect::zset_window(&e, 0, b"big", 0, 3)];
    let field = introspect::expire_field(&e, 0, 4).expect("db 0 exists");
    let buckets = introspect::expire_buckets(&e, 0, 0, 64);
    let lru = redisplay::sim::lru_experiment::run(200, 5, 1);
    exec(&mut e, c, &["CONFIG", "SET", "appendonly", "yes"]);
    let persistence = introspect::persistence(&e);
    // Two servers, the second a replica of the first through a link with latency, a write in
    // flight.
    let mut servers = redisplay::session::servers::Servers::new(EngineOptions { seed: 1, start_ms: T0 });
    let replica = servers.open_console_on(1);
    servers.run_line_on(0, b"CONFIG SET repl-diskless-sync-delay 0");
    servers.run_line_on(replica, b"REPLICAOF 127.0.0.1 6379");
    servers.run_line_on(0, b"CLOCK ADVANCE 2000");
    servers.set_link_latency(100);
    servers.run_line_on(0, b"SET k v EX 60");
    servers.run_line_on(0, b"SET gone v PX 10");
    servers.run_line_on(0, b"CLOCK ADVANCE 20");
    let replication = servers.replication();
    let metrics = [
        Metrics::default(),
        Metrics { lateness_p50: Some(12), lateness_p99: Some(40), lateness_max: Some(90), ..Metrics::default() },
    ];

    let docs = all_docs();
    let mut schema = Schema::new(&[
        ("KeyspacePage.keys[]", Hint::Name { ts: "KeyInfo", rust: "KeyInfo" }),
        ("ZsetWindow.entries[]", Hint::Name { ts: "ZsetEntry", rust: "ZsetEntry" }),
        ("ExpireField.cells[]", Hint::Name { ts: "ExpireCell", rust: "ExpireCell" }),
        ("ExpireBuckets[]", Hint::Name { ts: "BucketView", rust: "BucketView" }),
        ("ExpireBuckets[].keys[]", Hint::Name { ts: "BucketKey", rust: "BucketKey" }),
        ("PersistenceSnapshot.files[]", Hint::Name { ts: "FileInfo", rust: "FileInfo" }),
        ("ReplicationSnapshot.servers[]", Hint::Name { ts: "ReplicationSide", rust: "ReplicationSide" }),
        ("ReplicationSnapshot.servers[].replicas[]", Hint::Name { ts: "ReplicaAck", rust: "ReplicaAck" }),
        ("ReplicationSnapshot.servers[].expiredKeys[]", Hint::Name { ts: "ExpiredKey", rust: "ExpiredKey" }),
        ("ReplicationSnapshot.network", Hint::Name { ts: "NetworkSnapshot", rust: "NetworkSnapshot" }),
        ("ReplicationSnapshot.network.chunks[]", Hint::Name { ts: "LinkChunk", rust: "Chunk" }),
        ("ReplicationSnapshot.network.notes[]", Hint::Name { ts: "LinkNote", rust: "LinkNote" }),
    ]);
    let id = |t: Ty| t;
    schema.root("KeyspacePage", Some("KeyspacePage"), &[json(&keyspace)], id);
    schema.root(
        "ZsetWindow",
        Some("ZsetWindow"),
        &windows.iter().map(|w| json(w.as_ref().unwrap())).collect::<Vec<_>>(),
        id,
    );
    schema.root("ExpireField", Some("ExpireField"), &[json(&field)], id);
    schema.root("ExpireBuckets", None, &[json(&buckets)], id);
    schema.doc(
        "ExpireBuckets",
        "Buckets `start..start+count` of a db's expires table (src/introspect.rs `expire_buckets`).",
    );
    schema.root("LruExperimentResult", Some("ExperimentResult"), &[json(&lru)], id);
    schema.root("PersistenceSnapshot", Some("PersistenceSnapshot"), &[json(&persistence)], id);
    schema.root("ReplicationSnapshot", Some("ReplicationSnapshot"), &[json(&replication)], id);
    schema.root("DelayQueueMetrics", Some("Metrics"), &metrics.iter().map(json).collect::<Vec<_>>(), id);
    assert_eq!(schema.unused_hints(), Vec::<&str>::new(), "hints that matched nothing (a field was renamed?)");
    let header = format!(
        "{HEADER}//\n// The views' windowed snapshots (src/introspect.rs, through Playground.keyspace, zset_window,\n\
         // expire_field, expire_buckets, persistence, replication), the LRU experiment (src/sim/lru_experiment.rs) and the\n\
         // delay-queue lab's metrics (src/sim/delay_queue.rs).\n"
    );
    write_types(&schema, &docs, &header, "")
}

#[test]
fn events_d_ts_matches_the_rust_types() {
    check_file("www/types/events.d.ts", &events_file());
}

#[test]
fn snapshots_d_ts_matches_the_rust_types() {
    check_file("www/types/snapshots.d.ts", &snapshots_file());
}

#[test]
fn a_renamed_field_is_a_difference() {
    // The inference sees field names: the same sample with one field renamed gives another type.
    let mut schema = Schema::new(&[]);
    let a = schema.infer(&json(&Event::Cron { at_ms: 1, ticks: 2, hz: 10 }), "x");
    let mut renamed = json(&Event::Cron { at_ms: 1, ticks: 2, hz: 10 });
    let hz = renamed.as_object_mut().unwrap().remove("hz").unwrap();
    renamed.as_object_mut().unwrap().insert("hertz".into(), hz);
    let b = schema.infer(&renamed, "x");
    assert_ne!(a, b);
}

#[test]
fn options_and_mixed_scores_widen_the_type() {
    let mut schema = Schema::new(&[]);
    let t = merge(schema.infer(&serde_json::json!([1, null]), "x"), schema.infer(&serde_json::json!(["2"]), "x"), "x");
    assert_eq!(render(&t, "x"), "(number | string | null)[]");
}
