//! Active-expiry benchmark: 10⁶ keys with TTLs uniform in 1–60 s, then 60 s of virtual time
//! (600 cron ticks) — the real time the engine spends expiring them, per key, with the event
//! log on (as in the page) and off (as in the native CLI).
//!
//!     cargo bench --bench expire

use std::time::Instant;

use redisplay::{Engine, EngineOptions};

fn main() {
    for events in [false, true] {
        let mut e = Engine::new(EngineOptions { seed: 1, start_ms: 1_700_000_000_000 });
        e.set_event_recording(events);
        let t = Instant::now();
        let n = e.populate_volatile(0, 1_000_000, b"k:", 1_000, 60_000, false);
        let populate = t.elapsed();
        let start = e.now_ms();
        let t = Instant::now();
        let mut drained = 0usize;
        for s in 1..=60 {
            e.advance_to(start + s * 1000, u64::MAX);
            drained += e.drain_events().0.len();
        }
        let run = t.elapsed();
        println!(
            "events {}: populate {n} keys {:.0} ns/key; 60 s of cron (600 ticks) {:.0} ms, {:.0} ns per expired key; {} left; {drained} events",
            if events { "on " } else { "off" },
            populate.as_nanos() as f64 / n as f64,
            run.as_secs_f64() * 1000.0,
            run.as_nanos() as f64 / (n - e.dbsize(0)).max(1) as f64,
            e.dbsize(0)
        );
    }
}
