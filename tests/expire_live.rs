//! Active expiry side by side with a real redis-server 7.0: the same workload — 5,000 keys with a
//! 300 ms TTL among 5,000 keys with an hour's TTL, never accessed — runs on both, and we count
//! how many of the short keys are left 50 ms and 250 ms after they expired, and read
//! `expired_stale_perc`. The engine steps its virtual clock; the real server needs real time,
//! so this test waits about 0.6 s per trial on the server side (and only there).
//!
//! What a real server does (measured here in six trials while this test was written:
//! +50 ms: 5000, 4999, 5000, 5000, 5000, 4791 left; +250 ms: 0, 0, 0, 0, 0, 72; stale 7.07,
//! 2.59, 2.37, 2.37, 2.37, 5.20 %):
//! - +50 ms: either nothing was reclaimed yet (no cron tick fell in those 50 ms) or nearly
//!   everything was (a tick fell in them: one slow cycle deletes thousands);
//! - +250 ms: (nearly) everything is gone — at least two slow cycles have run; on a busy machine
//!   a cycle can hit its real-time cap early and leave a few dozen;
//! - the stale average is a few percent.
//!
//! The engine must land in the same band for every cron phase.

#[path = "support/live_server.rs"]
mod live_server;

use live_server::{check_tools, Server};
use redisplay::{Engine, EngineOptions};

const SHORT: usize = 5000;
const LIVE: usize = 5000;

struct Outcome {
    left_at_50: usize,
    left_at_250: usize,
    stale_perc: f64,
}

fn commands() -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    let live =
        (0..LIVE).map(|i| vec!["SET".into(), format!("live:{i}"), "v".into(), "EX".into(), "3600".into()]).collect();
    let short =
        (0..SHORT).map(|i| vec!["SET".into(), format!("short:{i}"), "v".into(), "PX".into(), "300".into()]).collect();
    (live, short)
}

fn engine_trial(phase_ms: i64) -> Outcome {
    let mut e = Engine::new(EngineOptions { seed: 11, start_ms: 1_700_000_000_000 });
    let c = e.connect();
    let run = |e: &mut Engine, args: &[String]| {
        let argv: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        e.execute(c, &argv)
    };
    let t0 = e.now_ms() + phase_ms;
    e.advance_to(t0, u64::MAX);
    let (live, short) = commands();
    for cmd in live.iter().chain(&short) {
        run(&mut e, cmd);
    }
    run(&mut e, &["CONFIG".into(), "RESETSTAT".into()]);
    e.advance_to(t0 + 350, u64::MAX);
    let left_at_50 = e.dbsize(0) - LIVE;
    e.advance_to(t0 + 550, u64::MAX);
    let left_at_250 = e.dbsize(0) - LIVE;
    let info = run(&mut e, &["INFO".into(), "stats".into()]);
    let redisplay::Reply::Bulk(text) = info.into_resp2() else { panic!("INFO") };
    let text = String::from_utf8(text).unwrap();
    let stale = text.lines().find_map(|l| l.strip_prefix("expired_stale_perc:")).unwrap().trim().parse().unwrap();
    Outcome { left_at_50, left_at_250, stale_perc: stale }
}

fn server_trial(server: &Server) -> Outcome {
    let mut r = server.connect();
    r.call(&["FLUSHALL"]);
    let (live, short) = commands();
    r.pipeline(&live);
    r.call(&["CONFIG", "RESETSTAT"]);
    let t0 = std::time::Instant::now();
    r.pipeline(&short);
    let wait_until = |ms: u64| {
        let target = t0 + std::time::Duration::from_millis(ms);
        let now = std::time::Instant::now();
        if target > now {
            std::thread::sleep(target - now);
        }
    };
    wait_until(350);
    let left_at_50 = r.call(&["DBSIZE"]).parse::<usize>().unwrap() - LIVE;
    wait_until(550);
    let left_at_250 = r.call(&["DBSIZE"]).parse::<usize>().unwrap() - LIVE;
    let stale_perc = r.info_field("expired_stale_perc").parse().unwrap();
    Outcome { left_at_50, left_at_250, stale_perc }
}

/// +50 ms: nothing reclaimed (no tick yet) or nearly all of it (a tick ran): never half.
fn bimodal(left: usize) -> bool {
    left <= SHORT / 20 || left >= SHORT - SHORT / 20
}

#[test]
fn active_expiry_lands_in_the_same_band_as_redis_server() {
    check_tools();
    let server = Server::start();
    let mut report = Vec::new();
    // The real server's cycles are bounded by real CPU time: on a loaded machine one can hit its
    // cap and leave keys a quiet server would have reclaimed. Such a trial says something about
    // the machine, not about Redis, so it is reported and another one runs: at least two of at
    // most six trials must show the quiet-server band (six trials were all in it when this test
    // was written; one trial in CI left 3618 at +50 ms and 453 at +250 ms while cargo was busy).
    let in_band =
        |o: &Outcome| bimodal(o.left_at_50) && o.left_at_250 <= SHORT / 20 && o.stale_perc > 0.0 && o.stale_perc < 20.0;
    let mut good = 0;
    for trial in 0..6 {
        let o = server_trial(&server);
        let ok = in_band(&o);
        report.push(format!(
            "redis-server trial {trial}: +50 ms {} left, +250 ms {} left, stale {:.2}%{}",
            o.left_at_50,
            o.left_at_250,
            o.stale_perc,
            if ok { "" } else { "  (outside the band: a loaded machine?)" }
        ));
        good += ok as usize;
        if good == 3 {
            break;
        }
    }
    assert!(good >= 2, "redis-server is not in the band this test assumes:\n{}", report.join("\n"));
    let mut reclaimed_early = 0;
    for phase in (0..100).step_by(10) {
        let o = engine_trial(phase);
        report.push(format!(
            "engine, cron phase {phase:>2} ms: +50 ms {} left, +250 ms {} left, stale {:.2}%",
            o.left_at_50, o.left_at_250, o.stale_perc
        ));
        assert!(bimodal(o.left_at_50), "{}", report.join("\n"));
        assert_eq!(o.left_at_250, 0, "{}", report.join("\n"));
        assert!(o.stale_perc > 0.0 && o.stale_perc < 20.0, "{}", report.join("\n"));
        if o.left_at_50 <= SHORT / 20 {
            reclaimed_early += 1;
        }
    }
    // A tick falls in a 50 ms window for about half of the phases (ticks are 100 ms apart).
    assert!((3..=7).contains(&reclaimed_early), "{}", report.join("\n"));
    eprintln!("{}", report.join("\n"));
}
