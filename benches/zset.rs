//! Sorted-set benchmark: ZADD (moving an existing member to a new score), ZRANGEBYSCORE …
//! LIMIT 0 10 and ZRANK against sorted sets of
//! 10³, 10⁵ and 10⁶ members, through `Engine::execute` (dispatch included). A skiplist makes
//! each of them O(log N): the per-operation cost should grow by a small constant per tenfold.
//!
//!     cargo bench --bench zset
//!
//! A benchmark, not a test: it prints figures and asserts nothing about speed.

use std::time::Instant;

use redisplay::{Engine, EngineOptions};

mod support;
use support::{argv, build_zset, Lcg};

fn time_ns(ops: usize, mut f: impl FnMut(usize)) -> f64 {
    let t = Instant::now();
    for i in 0..ops {
        f(i);
    }
    t.elapsed().as_nanos() as f64 / ops as f64
}

fn main() {
    {
        let mut e = Engine::new(EngineOptions { seed: 1, start_ms: 0 });
        let client = e.connect();
        let ping = argv(&["PING".into()]);
        let get = argv(&["GET".into(), "k".into()]);
        let p = time_ns(1_000_000, |_| {
            e.execute(client, &ping);
        });
        let g = time_ns(1_000_000, |_| {
            e.execute(client, &get);
        });
        e.drain_events();
        println!("dispatch baseline: PING {p:.0} ns/op, GET (miss) {g:.0} ns/op");
    }
    for events in [false, true] {
        println!(
            "\n{} (cargo bench --bench zset)",
            if events {
                "with the event log on, as in the page (search paths, inserts, keyspace events)"
            } else {
                "event log off, as in the native CLI"
            }
        );
        run(events);
    }
}

fn run(events: bool) {
    if events {
        println!(
            "{:>9} {:>14} {:>22} {:>14} {:>16}",
            "members", "ZADD ns/op", "ZRANGEBYSCORE ns/op", "ZRANK ns/op", "ZRANK nodes/op"
        );
    } else {
        println!("{:>9} {:>14} {:>22} {:>14}", "members", "ZADD ns/op", "ZRANGEBYSCORE ns/op", "ZRANK ns/op");
    }
    for &n in &[1_000usize, 100_000, 1_000_000] {
        let mut e = Engine::new(EngineOptions { seed: 1, start_ms: 0 });
        e.set_event_recording(events);
        let client = e.connect();
        let mut rng = Lcg(n as u64);
        build_zset(&mut e, client, n, &mut rng);
        let ops = 200_000;
        let queries: Vec<Vec<Vec<u8>>> = (0..ops)
            .map(|_| {
                argv(&[
                    "ZRANGEBYSCORE".into(),
                    "z".into(),
                    (rng.next() % 1_000_000_000).to_string(),
                    "+inf".into(),
                    "LIMIT".into(),
                    "0".into(),
                    "10".into(),
                ])
            })
            .collect();
        let ranks: Vec<Vec<Vec<u8>>> = (0..ops)
            .map(|_| argv(&["ZRANK".into(), "z".into(), format!("member:{}", rng.next() as usize % n)]))
            .collect();
        // ZADD of an existing member with a new score: the set keeps its size, and the member
        // moves (zslUpdateScore deletes and re-inserts it).
        let adds: Vec<Vec<Vec<u8>>> = (0..ops)
            .map(|_| {
                argv(&[
                    "ZADD".into(),
                    "z".into(),
                    (rng.next() % 1_000_000_000).to_string(),
                    format!("member:{}", rng.next() as usize % n),
                ])
            })
            .collect();
        let range = time_ns(ops, |i| {
            e.execute(client, &queries[i]);
        });
        e.drain_events();
        let rank = time_ns(ops, |i| {
            e.execute(client, &ranks[i]);
        });
        // Nodes a ZRANK examines (from the search-path events): the algorithmic cost, free of
        // the cache effects that dominate ns/op at a million members.
        let (evs, _) = e.drain_events();
        let steps: Vec<usize> = evs
            .iter()
            .filter_map(|ev| match ev {
                redisplay::Event::ZsetSearch { path, .. } => Some(path.len()),
                _ => None,
            })
            .collect();
        let avg_steps =
            if steps.is_empty() { f64::NAN } else { steps.iter().sum::<usize>() as f64 / steps.len() as f64 };
        let add = time_ns(ops, |i| {
            e.execute(client, &adds[i]);
        });
        // Keep the event log from growing the measurement: drain once per size.
        e.drain_events();
        if events {
            println!("{:>9} {:>14.0} {:>22.0} {:>14.0} {:>16.1}", n, add, range, rank, avg_steps);
        } else {
            println!("{:>9} {:>14.0} {:>22.0} {:>14.0}", n, add, range, rank);
        }
    }
}
