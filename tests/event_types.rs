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
//! must match something, so a renamed field cannot leave one behind unnoticed.

use std::borrow::Cow;
use std::collections::BTreeMap;

use redisplay::events::{Event, ExpiredBy, SearchStep};
use redisplay::evict::{EvictionReport, PoolEntry, Sample};
use redisplay::expire::{CycleKind, ExaminedKey, ExpireCycleReport, ExpireRound};
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
const EVENT_VARIANTS: usize = 13;
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

const SIM_EVENT_VARIANTS: usize = 9;
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
    }
}

const FATE_VARIANTS: usize = 6;
fn fate_variant(f: Fate) -> usize {
    match f {
        Fate::OnTime => 0,
        Fate::Late => 1,
        Fate::Duplicate => 2,
        Fate::Lost => 3,
        Fate::Paid => 4,
        Fate::Pending => 5,
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
        SimEvent::Process { consumer: 0, task: "order:2".into(), start: 1_800_012, end: 1_800_062, completed: true },
        SimEvent::Sleep { consumer: -1, from: 0, until: 1000 },
        SimEvent::Crash { consumer: 1, at: 5000 },
        SimEvent::Restart { consumer: 1, at: 9000 },
    ];
    for (i, fate) in
        [Fate::OnTime, Fate::Late, Fate::Duplicate, Fate::Lost, Fate::Paid, Fate::Pending].into_iter().enumerate()
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

// ---------------------------------------------------------------------------------------------
// Inference: JSON samples → TypeScript types
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum Ty {
    /// The element of an empty list: a sample is missing (never left in the output).
    Never,
    Null,
    Bool,
    Num,
    Str,
    Lit(String),
    Arr(Box<Ty>),
    Tuple(Vec<(&'static str, Ty)>),
    Obj(Vec<(String, Ty)>),
    Union(Vec<Ty>),
    Ref(String),
}

#[derive(Clone, Copy)]
enum Hint {
    /// An object type named `ts`, documented by the Rust struct `rust`.
    Name { ts: &'static str, rust: &'static str },
    /// Strings from a Rust enum: the union of the literals seen, named.
    Enum(&'static str),
    /// An array that is a Rust tuple, with names for its members.
    Tuple(&'static [&'static str]),
}

/// One named type of the output.
struct Named {
    name: String,
    doc: String,
    rust: Option<&'static str>,
    ty: Ty,
}

struct Schema {
    hints: Vec<(&'static str, Hint, bool)>,
    named: Vec<Named>,
}

fn same_kind(a: &Ty, b: &Ty) -> bool {
    matches!((a, b), (Ty::Arr(_), Ty::Arr(_)) | (Ty::Obj(_), Ty::Obj(_)) | (Ty::Tuple(_), Ty::Tuple(_))) || a == b
}

fn members(t: Ty) -> Vec<Ty> {
    match t {
        Ty::Union(m) => m,
        Ty::Never => vec![],
        t => vec![t],
    }
}

/// The type of a value that is sometimes `a` and sometimes `b`.
fn merge(a: Ty, b: Ty, path: &str) -> Ty {
    match (a, b) {
        (Ty::Never, t) | (t, Ty::Never) => t,
        (a, b) if a == b => a,
        (Ty::Arr(x), Ty::Arr(y)) => Ty::Arr(Box::new(merge(*x, *y, &format!("{path}[]")))),
        (Ty::Obj(x), Ty::Obj(y)) => {
            let keys = |o: &[(String, Ty)]| o.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
            assert_eq!(keys(&x), keys(&y), "{path}: two samples have different fields");
            Ty::Obj(
                x.into_iter().zip(y).map(|((k, a), (_, b))| (k.clone(), merge(a, b, &format!("{path}.{k}")))).collect(),
            )
        }
        (Ty::Tuple(x), Ty::Tuple(y)) => {
            Ty::Tuple(x.into_iter().zip(y).map(|((k, a), (_, b))| (k, merge(a, b, &format!("{path}.{k}")))).collect())
        }
        (a, b) => {
            let mut out = members(a);
            for m in members(b) {
                match out.iter().position(|o| same_kind(o, &m)) {
                    Some(i) => {
                        let o = std::mem::replace(&mut out[i], Ty::Never);
                        out[i] = merge(o, m, path);
                    }
                    None => out.push(m),
                }
            }
            if out.len() == 1 {
                out.pop().unwrap()
            } else {
                Ty::Union(out)
            }
        }
    }
}

impl Schema {
    fn new(hints: &[(&'static str, Hint)]) -> Schema {
        Schema { hints: hints.iter().map(|&(p, h)| (p, h, false)).collect(), named: vec![] }
    }

    fn hint(&mut self, path: &str) -> Option<Hint> {
        let h = self.hints.iter_mut().find(|(p, _, _)| *p == path)?;
        h.2 = true;
        Some(h.1)
    }

    /// Adds (or widens) a named type: `ty` is what this sample showed.
    fn name(&mut self, name: &str, rust: Option<&'static str>, ty: Ty, path: &str) {
        match self.named.iter_mut().find(|n| n.name == name) {
            Some(n) => {
                let old = std::mem::replace(&mut n.ty, Ty::Never);
                n.ty = merge(old, ty, path);
            }
            None => self.named.push(Named { name: name.to_string(), doc: String::new(), rust, ty }),
        }
    }

    fn infer(&mut self, v: &Value, path: &str) -> Ty {
        let hint = self.hint(path);
        let ty = match v {
            Value::Null => Ty::Null,
            Value::Bool(_) => Ty::Bool,
            Value::Number(_) => Ty::Num,
            Value::String(s) if matches!(hint, Some(Hint::Enum(_))) => Ty::Lit(s.clone()),
            Value::String(_) => Ty::Str,
            Value::Array(items) => match hint {
                Some(Hint::Tuple(labels)) => {
                    assert_eq!(items.len(), labels.len(), "{path}: the tuple's length");
                    Ty::Tuple(
                        labels.iter().zip(items).map(|(l, it)| (*l, self.infer(it, &format!("{path}.{l}")))).collect(),
                    )
                }
                _ => {
                    let elem = format!("{path}[]");
                    let mut t = Ty::Never;
                    for it in items {
                        let i = self.infer(it, &elem);
                        t = merge(t, i, &elem);
                    }
                    Ty::Arr(Box::new(t))
                }
            },
            Value::Object(map) => {
                Ty::Obj(map.iter().map(|(k, v)| (k.clone(), self.infer(v, &format!("{path}.{k}")))).collect())
            }
        };
        match hint {
            Some(Hint::Name { .. }) if ty == Ty::Null => ty,
            Some(Hint::Name { ts, rust }) => {
                assert!(matches!(ty, Ty::Obj(_)), "{path}: the hint names an object, but it is not one");
                self.name(ts, Some(rust), ty, path);
                Ty::Ref(ts.to_string())
            }
            Some(Hint::Enum(name)) => {
                assert!(matches!(ty, Ty::Lit(_)), "{path}: the hint says enum, but it is not a string");
                self.name(name, None, ty, path);
                Ty::Ref(name.to_string())
            }
            _ => ty,
        }
    }

    /// A top-level type from its samples: `name` is also the root of the hints' paths.
    fn root(&mut self, name: &str, rust: Option<&'static str>, samples: &[Value], fix: impl Fn(Ty) -> Ty) {
        let mut ty = Ty::Never;
        for s in samples {
            let t = self.infer(s, name);
            ty = merge(ty, t, name);
        }
        self.name(name, rust, fix(ty), name);
    }

    fn doc(&mut self, name: &str, doc: &str) {
        let n = self.named.iter_mut().find(|n| n.name == name).expect("a named type");
        n.doc = doc.to_string();
    }

    fn unused_hints(&self) -> Vec<&'static str> {
        self.hints.iter().filter(|h| !h.2).map(|h| h.0).collect()
    }
}

/// A variant's object with its `kind` as a literal (serde's internal tag).
fn tagged(kind: &str) -> impl Fn(Ty) -> Ty + '_ {
    move |t| match t {
        Ty::Obj(fields) => Ty::Obj(
            fields
                .into_iter()
                .map(|(k, t)| if k == "kind" { (k, Ty::Lit(kind.to_string())) } else { (k, t) })
                .collect(),
        ),
        t => panic!("{kind}: a tagged variant is not an object: {t:?}"),
    }
}

fn render(t: &Ty, path: &str) -> String {
    match t {
        Ty::Never => panic!("{path}: every sample of this list is empty; give one with an element"),
        Ty::Null => "null".into(),
        Ty::Bool => "boolean".into(),
        Ty::Num => "number".into(),
        Ty::Str => "string".into(),
        Ty::Lit(s) => serde_json::to_string(s).unwrap(),
        Ty::Ref(n) => n.clone(),
        Ty::Arr(x) => match **x {
            Ty::Union(_) => format!("({})[]", render(x, path)),
            _ => format!("{}[]", render(x, path)),
        },
        Ty::Tuple(items) => {
            let parts: Vec<String> = items.iter().map(|(l, t)| format!("{l}: {}", render(t, path))).collect();
            format!("[{}]", parts.join(", "))
        }
        Ty::Obj(_) => panic!("{path}: an object without a name; add a Hint::Name for it"),
        Ty::Union(ms) => {
            // Null last, the rest in the order first seen.
            let mut parts: Vec<String> = ms.iter().filter(|m| **m != Ty::Null).map(|m| render(m, path)).collect();
            if ms.contains(&Ty::Null) {
                parts.push("null".into());
            }
            parts.join(" | ")
        }
    }
}

/// `///` docs of a Rust source: `Type` → its doc, `Type.member` → a field's or variant's doc.
fn rust_docs(src: &str) -> BTreeMap<String, String> {
    let mut docs = BTreeMap::new();
    let mut pending: Vec<String> = vec![];
    let mut current: Option<String> = None;
    for line in src.lines() {
        let t = line.trim();
        if let Some(d) = t.strip_prefix("///") {
            pending.push(d.strip_prefix(' ').unwrap_or(d).to_string());
            continue;
        }
        if t.starts_with("#[") {
            continue;
        }
        let doc = pending.join("\n");
        pending.clear();
        let item = ["pub struct ", "pub enum "].iter().find_map(|p| t.strip_prefix(p));
        if let Some(rest) = item {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !doc.is_empty() {
                docs.insert(name.clone(), doc);
            }
            current = if t.ends_with('{') { Some(name) } else { None };
            continue;
        }
        if line.starts_with('}') {
            current = None;
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        if let (Some(cur), 4, false) = (&current, indent, doc.is_empty()) {
            let ident: String =
                t.trim_start_matches("pub ").chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !ident.is_empty() {
                docs.insert(format!("{cur}.{ident}"), doc);
            }
        }
    }
    docs
}

fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn comment(doc: &str, indent: &str) -> String {
    if doc.is_empty() {
        return String::new();
    }
    let doc = doc.replace("*/", "*\\/");
    let lines: Vec<&str> = doc.lines().collect();
    if lines.len() == 1 {
        return format!("{indent}/** {} */\n", lines[0]);
    }
    let mut out = format!("{indent}/**\n");
    for l in lines {
        out.push_str(&format!("{indent} *{}{l}\n", if l.is_empty() { "" } else { " " }));
    }
    out.push_str(&format!("{indent} */\n"));
    out
}

fn write_types(schema: &Schema, docs: &BTreeMap<String, String>, header: &str, tail: &str) -> String {
    let mut out = String::from(header);
    for n in &schema.named {
        out.push('\n');
        let doc = if n.doc.is_empty() {
            n.rust.and_then(|r| docs.get(r)).cloned().unwrap_or_default()
        } else {
            n.doc.clone()
        };
        out.push_str(&comment(&doc, ""));
        match &n.ty {
            Ty::Obj(fields) => {
                out.push_str(&format!("export interface {} {{\n", n.name));
                for (k, t) in fields {
                    let field_doc = n.rust.and_then(|r| {
                        docs.get(&format!("{r}.{k}")).or_else(|| docs.get(&format!("{r}.{}", snake_case(k))))
                    });
                    out.push_str(&comment(field_doc.map(String::as_str).unwrap_or(""), "  "));
                    out.push_str(&format!("  {k}: {};\n", render(t, &format!("{}.{k}", n.name))));
                }
                out.push_str("}\n");
            }
            t => out.push_str(&format!("export type {} = {};\n", n.name, render(t, &n.name))),
        }
    }
    out.push_str(tail);
    out
}

/// Compares with the committed file; `REDISPLAY_REGEN=1` writes it instead.
fn check_file(rel: &str, generated: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed == generated {
        return;
    }
    if std::env::var_os("REDISPLAY_REGEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, generated).unwrap();
        eprintln!("event_types: wrote {rel}");
        return;
    }
    let (a, b): (Vec<&str>, Vec<&str>) = (committed.lines().collect(), generated.lines().collect());
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..].iter().rev().zip(b[head..].iter().rev()).take_while(|(x, y)| x == y).count();
    let mut diff = format!("@@ line {} @@\n", head + 1);
    for l in &a[head..a.len() - tail] {
        diff.push_str(&format!("-{l}\n"));
    }
    for l in &b[head..b.len() - tail] {
        diff.push_str(&format!("+{l}\n"));
    }
    panic!(
        "{rel} is not what the Rust types give (- committed, + generated):\n{diff}\n\
         If the change is intended, update the views that read it and run\n  \
         REDISPLAY_REGEN=1 cargo test --test event_types"
    );
}

fn pascal_case(snake: &str) -> String {
    snake
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default()
        })
        .collect()
}

/// Groups tagged samples by `kind`, in the order first seen: `[(kind, samples)]`.
fn by_kind(values: Vec<Value>) -> Vec<(String, Vec<Value>)> {
    let mut out: Vec<(String, Vec<Value>)> = vec![];
    for v in values {
        let kind = v["kind"].as_str().expect("a tagged variant has a kind").to_string();
        match out.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, list)) => list.push(v),
            None => out.push((kind, vec![v])),
        }
    }
    out
}

/// Each variant of a tagged enum as `<union_name><Variant>Event`, then the union.
fn tagged_union(
    schema: &mut Schema,
    docs: &BTreeMap<String, String>,
    rust_enum: &str,
    union_name: &str,
    samples: Vec<Value>,
) -> String {
    let mut names = vec![];
    let prefix = union_name.strip_suffix("Event").unwrap_or(union_name);
    for (kind, values) in by_kind(samples) {
        let name = format!("{prefix}{}Event", pascal_case(&kind));
        schema.root(&name, None, &values, tagged(&kind));
        let doc = docs.get(&format!("{rust_enum}.{}", pascal_case(&kind))).cloned().unwrap_or_default();
        schema.doc(&name, &doc);
        names.push(name);
    }
    let doc = comment(docs.get(rust_enum).map(String::as_str).unwrap_or(""), "");
    format!(
        "\n{doc}export type {union_name} =\n{};\n",
        names.iter().map(|n| format!("  | {n}")).collect::<Vec<_>>().join("\n")
    )
}

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
        include_str!("../src/sim/delay_queue.rs"),
        include_str!("../src/sim/lru_experiment.rs"),
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
    schema.root("DelayQueueMetrics", Some("Metrics"), &metrics.iter().map(json).collect::<Vec<_>>(), id);
    assert_eq!(schema.unused_hints(), Vec::<&str>::new(), "hints that matched nothing (a field was renamed?)");
    let header = format!(
        "{HEADER}//\n// The views' windowed snapshots (src/introspect.rs, through Playground.keyspace, zset_window,\n\
         // expire_field, expire_buckets), the LRU experiment (src/sim/lru_experiment.rs) and the\n\
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
