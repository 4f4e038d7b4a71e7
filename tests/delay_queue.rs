//! The delay-queue lab with fixed seeds: what each design does on the same orders, stepped in
//! virtual time (no sleeps). The numbers these tests print (`--nocapture`) are the ones the
//! README and the notes quote.

use redisplay::sim::delay_queue::cli::{parse_cli, run_cli};
use redisplay::sim::delay_queue::{Config, Crash, Fate, Metrics, OrderSpec, Sim, SimEvent};
use redisplay::sim::strategies::Strategy;

fn run(cfg: Config) -> (Metrics, Vec<SimEvent>) {
    let mut sim = Sim::new(cfg).expect("valid config");
    let m = sim.run().clone();
    let (events, dropped) = sim.drain();
    assert_eq!(dropped, 0);
    (m, events)
}

/// An hour of orders at 1/s, due after 5 minutes, half of them paid.
fn base(strategy: Strategy) -> Config {
    Config {
        strategy,
        consumers: 2,
        rtt_ms: 2,
        delay_ms: 300_000,
        pay_mean_ms: 120_000,
        duration_ms: 3_600_000,
        seed: 7,
        ..Default::default()
    }
}

fn fates(events: &[SimEvent]) -> Vec<(String, Fate)> {
    events
        .iter()
        .filter_map(|e| match e {
            SimEvent::Fate { task, fate, .. } => Some((task.clone(), *fate)),
            _ => None,
        })
        .collect()
}

fn orders(events: &[SimEvent]) -> Vec<(String, i64, i64)> {
    events
        .iter()
        .filter_map(|e| match e {
            SimEvent::Order { task, at, due } => Some((task.clone(), *at, *due)),
            _ => None,
        })
        .collect()
}

fn show(name: &str, m: &Metrics) {
    eprintln!(
        "{name}: tasks {} paid {} on-time {} late {} dup {} (+{}) lost {} pending {} · lateness p50 {:?} p99 {:?} max {:?} · {:.2} cmds/s · {} empty polls",
        m.tasks, m.paid, m.on_time, m.late, m.duplicates, m.extra_processings, m.lost, m.pending, m.lateness_p50, m.lateness_p99, m.lateness_max, m.commands_per_second, m.empty_polls
    );
}

#[test]
fn naive_polling_double_processes_and_claiming_or_lua_never_does_on_the_same_orders() {
    let (m1, e1) = run(base(Strategy::PollClaim));
    let (m2, e2) = run(base(Strategy::PollNaive));
    let (m3, e3) = run(base(Strategy::LuaPop));
    show("1 claim", &m1);
    show("2 naive", &m2);
    show("3 lua", &m3);
    // The same orders and payments reach every design.
    assert_eq!(orders(&e1), orders(&e2));
    assert_eq!(orders(&e1), orders(&e3));
    assert!(m1.tasks > 3000);
    assert_eq!((m1.duplicates, m1.extra_processings), (0, 0));
    assert_eq!((m3.duplicates, m3.extra_processings), (0, 0));
    assert!(m2.duplicates > 10, "naive polling with 2 consumers processes tasks twice: {}", m2.duplicates);
    // Every duplicate is two different consumers processing one task (a race, not a loop).
    for (task, fate) in fates(&e2) {
        if fate == Fate::Duplicate {
            let who: Vec<i64> = e2
                .iter()
                .filter_map(|e| match e {
                    SimEvent::Process { consumer, task: t, completed: true, .. } if *t == task => Some(*consumer),
                    _ => None,
                })
                .collect();
            assert!(who.len() >= 2 && who.iter().any(|c| *c != who[0]), "{task}: {who:?}");
        }
    }
    for m in [&m1, &m3] {
        assert_eq!(m.lost, 0);
        assert_eq!(m.tasks, m.paid + m.on_time + m.late + m.duplicates + m.lost + m.pending);
        assert!(m.lateness_max.unwrap() <= 1_000 + 2 * 20 * 10 + 10, "polling every second: {:?}", m.lateness_max);
    }
    // One consumer alone never races, even naively.
    let (solo, _) = run(Config { consumers: 1, ..base(Strategy::PollNaive) });
    assert_eq!(solo.duplicates, 0);
}

#[test]
fn each_process_in_the_events_is_a_claimed_task_and_the_engine_agrees() {
    // Strategy 1: a task is processed only after its ZREM returned 1, by that consumer.
    let (_, events) = run(Config { duration_ms: 900_000, ..base(Strategy::PollClaim) });
    let mut claimed = std::collections::HashMap::new();
    for e in &events {
        match e {
            SimEvent::Command { consumer, cmd, reply, replied, .. }
                if cmd.starts_with("ZREM queue ") && reply == "(integer) 1" =>
            {
                claimed.insert(cmd["ZREM queue ".len()..].to_string(), (*consumer, *replied));
            }
            SimEvent::Process { consumer, task, start, .. } => {
                let (by, at) = claimed.get(task).copied().unwrap_or_else(|| panic!("{task} processed without a claim"));
                assert_eq!(by, *consumer);
                assert!(at <= *start);
            }
            _ => {}
        }
    }
    assert!(!claimed.is_empty());
}

#[test]
fn keyspace_notifications_lose_what_expires_while_the_consumer_is_down_and_are_late_by_expiry() {
    let crash = Crash { consumer: 0, at_ms: 1_200_000, for_ms: 600_000 };
    let cfg = Config { consumers: 1, crashes: vec![crash], ..base(Strategy::KeyspaceEvents) };
    let (m, events) = run(cfg.clone());
    show("4 keyspace, crash 20m+10m", &m);
    assert!(m.lost > 100, "{}", m.lost);
    let due: std::collections::HashMap<String, i64> = orders(&events).into_iter().map(|(t, _, d)| (t, d)).collect();
    let max_late = m.lateness_max.unwrap();
    let mut lost_in_window = 0;
    for (task, fate) in fates(&events) {
        let d = due[&task];
        if fate == Fate::Lost {
            // Its key was reclaimed while nobody listened: due during the outage (or just
            // before it, if the active cycle reached it late).
            assert!(d >= crash.at_ms - max_late - 1_000 && d <= crash.at_ms + crash.for_ms, "{task} due {d}");
            lost_in_window += 1;
        }
    }
    // The same design without the crash loses nothing.
    let (calm, _) = run(Config { crashes: vec![], ..cfg.clone() });
    show("4 keyspace, no crash", &calm);
    assert_eq!(calm.lost, 0);
    assert_eq!(lost_in_window, m.lost);
    // Nearly every unpaid task due in the outage is lost (the rest were reclaimed after it).
    assert!(
        m.lost as f64
            >= 0.9
                * (calm.on_time + calm.late) as f64
                * (crash.for_ms as f64 / (cfg.duration_ms - cfg.delay_ms) as f64),
        "{} lost",
        m.lost
    );

    // Late by the expiry mechanics: the event fires when the active cycle reclaims the key,
    // which takes longer the more keys with a TTL it has to sweep.
    let (lua, _) = run(Config { consumers: 1, poll_ms: 200, ..base(Strategy::LuaPop) });
    let (crowded, _) = run(Config { volatile_keys: 50_000, ..calm_cfg(&cfg) });
    show("3 lua, 200 ms polls", &lua);
    show("4 keyspace, 50k other volatile keys", &crowded);
    assert!(
        calm.lateness_p50.unwrap() > lua.lateness_p50.unwrap(),
        "{:?} vs {:?}",
        calm.lateness_p50,
        lua.lateness_p50
    );
    assert!(
        crowded.lateness_p50.unwrap() > 5 * calm.lateness_p50.unwrap(),
        "{:?} vs {:?}",
        crowded.lateness_p50,
        calm.lateness_p50
    );
    // Two subscribers each get every event: everything is processed twice.
    let (two, _) = run(Config { consumers: 2, crashes: vec![], ..cfg });
    assert_eq!(two.on_time + two.late, 0);
    assert!(two.duplicates > 1000);
}

fn calm_cfg(cfg: &Config) -> Config {
    Config { crashes: vec![], ..cfg.clone() }
}

#[test]
fn a_wakeup_queue_sends_far_fewer_commands_than_200ms_polling_at_similar_lateness() {
    // Fewer orders (one every 10 s on average): polling costs the same, wake-ups cost less.
    let low = |s| Config { rate_per_s: 0.1, ..base(s) };
    let (poll, _) = run(Config { poll_ms: 200, ..low(Strategy::PollClaim) });
    let (wake, events) = run(low(Strategy::ZsetWakeup));
    show("1 claim, 200 ms polls", &poll);
    show("5 wake-up", &wake);
    assert_eq!(wake.duplicates, 0);
    assert_eq!(wake.lost, 0);
    assert!(
        wake.commands_per_second * 10.0 < poll.commands_per_second,
        "{} vs {}",
        wake.commands_per_second,
        poll.commands_per_second
    );
    assert!(
        wake.lateness_p99.unwrap() <= poll.lateness_p99.unwrap(),
        "{:?} vs {:?}",
        wake.lateness_p99,
        poll.lateness_p99
    );
    assert!(events.iter().any(|e| matches!(e, SimEvent::Message { .. })));
    // And at the default rate too, still fewer than 1-second polling.
    let (poll1s, _) = run(base(Strategy::PollClaim));
    let (wake1, _) = run(base(Strategy::ZsetWakeup));
    assert!(wake1.commands_per_second < poll1s.commands_per_second);
}

#[test]
fn a_crash_mid_processing_loses_a_popped_task_but_not_a_naively_polled_one() {
    // One long task, processed for 10 s; the consumer crashes 5 s into it.
    let orders = vec![OrderSpec { at_ms: 0, delay_ms: 1_000, pay_at_ms: None }];
    let cfg = |s| Config {
        strategy: s,
        consumers: 2,
        work_ms: 10_000,
        orders: Some(orders.clone()),
        duration_ms: 60_000,
        ..Default::default()
    };
    // Find which consumer takes the task, then crash that one mid-work.
    for s in [Strategy::LuaPop, Strategy::PollClaim, Strategy::PollNaive] {
        let (_, events) = run(cfg(s));
        let (taker, start) = events
            .iter()
            .find_map(|e| match e {
                SimEvent::Process { consumer, start, .. } => Some((*consumer as usize, *start)),
                _ => None,
            })
            .expect("processed");
        let crashed =
            Config { crashes: vec![Crash { consumer: taker, at_ms: start + 5_000, for_ms: 30_000 }], ..cfg(s) };
        let (m, events) = run(crashed);
        let cut = events.iter().filter(|e| matches!(e, SimEvent::Process { completed: false, .. })).count();
        assert_eq!(cut, 1, "{s:?}");
        if s == Strategy::PollNaive {
            // Still in the queue: the other consumer processes it (at least once).
            assert_eq!((m.lost, m.on_time + m.late), (0, 1), "{s:?} {m:?}");
        } else {
            // Removed before processing: at most once — the crash lost it.
            assert_eq!((m.lost, m.on_time + m.late), (1, 0), "{s:?} {m:?}");
        }
    }
}

#[test]
fn the_walkthrough_one_order_at_noon_due_at_half_past_polled_every_second() {
    let noon = 1_735_732_800_000; // 2025-01-01T12:00:00Z
    let cfg = Config {
        strategy: Strategy::PollClaim,
        consumers: 1,
        poll_ms: 1_000,
        orders: Some(vec![OrderSpec { at_ms: 0, delay_ms: 1_800_000, pay_at_ms: None }]),
        start_ms: noon,
        duration_ms: 1_900_000,
        ..Default::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    // Step to 12:29:59: polled ~1800 times, nothing due yet.
    sim.run_until(1_799_000, u64::MAX);
    let m = sim.metrics().clone();
    assert_eq!((m.tasks, m.pending, m.on_time), (1, 1, 0));
    assert!(m.empty_polls >= 1_795, "{}", m.empty_polls);
    // Step event by event past 12:30.
    while sim.now() < 1_801_100 {
        let next = sim.next_event_ms().unwrap();
        sim.run_until(next, 1);
    }
    let m = sim.metrics().clone();
    assert_eq!(m.on_time, 1, "{m:?}");
    let l = m.lateness_p50.unwrap();
    assert!((0..=1_000 + 4).contains(&l), "{l}");
    sim.run_until(i64::MAX, u64::MAX);
    assert!(sim.is_done());
    assert_eq!(sim.next_event_ms(), None);
}

#[test]
fn runs_are_deterministic_and_partial_runs_add_up_to_a_whole_one() {
    for strategy in [Strategy::PollNaive, Strategy::KeyspaceEvents, Strategy::ZsetWakeup, Strategy::Streams] {
        let cfg = Config {
            duration_ms: 1_200_000,
            crashes: vec![Crash { consumer: 1, at_ms: 400_000, for_ms: 60_000 }],
            ..base(strategy)
        };
        let (m1, e1) = run(cfg.clone());
        let (m2, e2) = run(cfg.clone());
        assert_eq!(m1, m2);
        assert_eq!(e1, e2);
        // In slices, as the page runs it (frames of a few ms of virtual time, a step budget):
        // the same run, event for event.
        for (slice_ms, budget) in [(7, 1000), (333, 50), (10_000, 1000), (60_000, u64::MAX)] {
            let mut sim = Sim::new(cfg.clone()).unwrap();
            let mut events = Vec::new();
            let mut t = 0;
            while !sim.is_done() {
                if !sim.run_until(t, budget) && sim.now() >= t {
                    t += slice_ms;
                }
                events.extend(sim.drain().0);
            }
            assert_eq!(sim.metrics(), &m1, "{strategy:?} in slices of {slice_ms} ms");
            assert!(events == e1, "{strategy:?} in slices of {slice_ms} ms: the events differ");
        }
    }
}

#[test]
fn bad_configs_are_refused_with_a_message() {
    let bad = [
        Config { consumers: 0, ..Default::default() },
        Config { consumers: 17, ..Default::default() },
        Config { rate_per_s: f64::NAN, ..Default::default() },
        Config { rate_per_s: 1000.0, duration_ms: 7 * 86_400_000, ..Default::default() },
        Config { pay_prob: 1.5, ..Default::default() },
        Config { poll_ms: 0, ..Default::default() },
        Config { hz: 0, ..Default::default() },
        Config { crashes: vec![Crash { consumer: 2, at_ms: 0, for_ms: 1 }], ..Default::default() },
        Config { crashes: vec![Crash { consumer: 0, at_ms: -5, for_ms: 1 }], ..Default::default() },
        Config {
            orders: Some(vec![OrderSpec { at_ms: i64::MAX, delay_ms: 1, pay_at_ms: None }]),
            ..Default::default()
        },
    ];
    for cfg in bad {
        let err = Sim::new(cfg.clone()).err().unwrap_or_else(|| panic!("accepted {cfg:?}"));
        assert!(!err.is_empty());
    }
    for args in [
        &["--strategy", "7"][..],
        &["--crash", "1@x+5m"],
        &["--poll"],
        &["--duration", "-5s"],
        &["--nope"],
        &["--rate", "inf"],
    ] {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        assert!(parse_cli(&args).is_err(), "{args:?}");
    }
}

/// The README shows this command and its output; it must stay exactly what the command prints.
#[test]
fn the_readme_shows_the_subcommands_output_for_a_fixed_seed() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let marker = "$ redisplay delay-queue ";
    let start = readme.find(marker).expect("README shows a delay-queue run");
    let line_end = start + readme[start..].find('\n').unwrap();
    let flags: Vec<String> = readme[start + marker.len()..line_end].split_whitespace().map(String::from).collect();
    let block_end = line_end + readme[line_end..].find("```").unwrap();
    let shown = &readme[line_end + 1..block_end];
    let req = parse_cli(&flags).unwrap();
    let printed = run_cli(&req);
    assert_eq!(shown, printed, "README's delay-queue output is stale; the command prints:\n{printed}");
    assert_eq!(run_cli(&req), printed, "stable for a fixed seed");
}

#[test]
fn an_order_on_its_way_to_redis_is_pending_not_lost() {
    // The order is placed at 0; its ZADD reaches the server rtt/2 later. In between, the task is
    // in no queue and no consumer holds it — but it was never lost (the page said "lost 1").
    for strategy in Strategy::ALL {
        let cfg = Config {
            strategy,
            consumers: 1,
            rtt_ms: 10,
            orders: Some(vec![OrderSpec { at_ms: 0, delay_ms: 60_000, pay_at_ms: None }]),
            duration_ms: 120_000,
            ..Default::default()
        };
        let mut sim = Sim::new(cfg).unwrap();
        sim.run_until(1, u64::MAX);
        let m = sim.metrics().clone();
        assert_eq!((m.tasks, m.pending, m.lost), (1, 1, 0), "{strategy:?} before its command arrived: {m:?}");
        sim.run_until(6, u64::MAX);
        let m = sim.metrics().clone();
        assert_eq!((m.tasks, m.pending, m.lost), (1, 1, 0), "{strategy:?} once stored: {m:?}");
    }
}

#[test]
fn a_stream_consumer_that_crashes_mid_task_loses_nothing_xautoclaim_hands_it_on() {
    // Five long tasks due together, two consumers; whoever reads them crashes 5 s into the first
    // one and stays down for the rest of the run. With Lua pop the held tasks are gone; with the
    // stream they stay pending in the group until the other consumer's XAUTOCLAIM takes them.
    let orders: Vec<OrderSpec> = (0..5).map(|_| OrderSpec { at_ms: 0, delay_ms: 1_000, pay_at_ms: None }).collect();
    let cfg = |s| Config {
        strategy: s,
        consumers: 2,
        work_ms: 10_000,
        claim_idle_ms: 30_000,
        orders: Some(orders.clone()),
        duration_ms: 300_000,
        ..Default::default()
    };
    for s in [Strategy::LuaPop, Strategy::Streams] {
        let (_, events) = run(cfg(s));
        let (taker, start) = events
            .iter()
            .find_map(|e| match e {
                SimEvent::Process { consumer, start, .. } => Some((*consumer as usize, *start)),
                _ => None,
            })
            .expect("processed");
        let crash = Crash { consumer: taker, at_ms: start + 5_000, for_ms: 1_000_000 };
        let (m, events) = run(Config { crashes: vec![crash], ..cfg(s) });
        show(&format!("{s:?}, taker crashes"), &m);
        let cut = events.iter().filter(|e| matches!(e, SimEvent::Process { completed: false, .. })).count();
        assert_eq!(cut, 1, "{s:?}");
        if s == Strategy::LuaPop {
            assert_eq!(m.lost, 5, "{m:?}");
            continue;
        }
        assert_eq!((m.lost, m.pending, m.duplicates), (0, 0, 0), "{m:?}");
        assert_eq!(m.on_time + m.late, 5, "{m:?}");
        // The survivor took them over with XAUTOCLAIM, no sooner than the min-idle time after
        // the crashed consumer read them.
        let other = 1 - taker as i64;
        let claimed: Vec<i64> = events
            .iter()
            .filter_map(|e| match e {
                SimEvent::Command { consumer, executed, cmd, reply, .. }
                    if *consumer == other && cmd.starts_with("XAUTOCLAIM") && reply.contains(" entr") =>
                {
                    Some(*executed)
                }
                _ => None,
            })
            .collect();
        assert!(!claimed.is_empty(), "no XAUTOCLAIM took anything");
        assert!(claimed[0] >= start + 30_000, "claimed at {} (read at {start})", claimed[0]);
        for e in &events {
            if let SimEvent::Process { consumer, completed: true, start: st, .. } = e {
                assert!(*consumer == other && *st >= claimed[0], "{e:?}");
            }
        }
    }
}

#[test]
fn the_stream_design_processes_each_task_once_like_lua_pop_on_the_same_orders() {
    let (m3, e3) = run(base(Strategy::LuaPop));
    let (m6, e6) = run(base(Strategy::Streams));
    show("3 lua", &m3);
    show("6 stream", &m6);
    assert_eq!(orders(&e3), orders(&e6));
    assert_eq!((m6.duplicates, m6.extra_processings, m6.lost), (0, 0, 0));
    assert_eq!(m6.on_time + m6.late + m6.paid + m6.pending, m6.tasks);
    // Every processed task went through the stream: one XACK per completed processing.
    let acks = e6
        .iter()
        .filter(
            |e| matches!(e, SimEvent::Command { cmd, reply, .. } if cmd.starts_with("XACK") && reply == "(integer) 1"),
        )
        .count();
    let done = e6.iter().filter(|e| matches!(e, SimEvent::Process { completed: true, .. })).count();
    assert_eq!(acks, done);
    assert!(m6.processed > 1500, "{}", m6.processed);
}

fn processings(events: &[SimEvent]) -> std::collections::BTreeMap<String, (usize, usize)> {
    let mut out = std::collections::BTreeMap::new();
    for e in events {
        if let SimEvent::Process { task, completed: true, failed, .. } = e {
            let entry: &mut (usize, usize) = out.entry(task.clone()).or_default();
            if *failed {
                entry.1 += 1;
            } else {
                entry.0 += 1;
            }
        }
    }
    out
}

#[test]
fn a_task_that_always_fails_is_tried_max_tries_times_then_dead_lettered_in_every_design() {
    let orders: Vec<OrderSpec> =
        (0..3).map(|i| OrderSpec { at_ms: i * 1_000, delay_ms: 5_000, pay_at_ms: None }).collect();
    for strategy in Strategy::ALL {
        let cfg = Config {
            strategy,
            consumers: 1,
            fail_prob: 1.0,
            max_tries: 3,
            backoff_ms: 10_000,
            orders: Some(orders.clone()),
            duration_ms: 600_000,
            ..Default::default()
        };
        let (m, events) = run(cfg);
        show(&format!("{strategy:?} always failing"), &m);
        assert_eq!((m.dead_lettered, m.lost, m.pending, m.processed), (3, 0, 0, 0), "{strategy:?} {m:?}");
        assert_eq!(m.failed, 9, "{strategy:?}");
        for (task, (ok, failed)) in processings(&events) {
            assert_eq!((ok, failed), (0, 3), "{strategy:?} {task}");
        }
        let dead: Vec<&SimEvent> = events.iter().filter(|e| matches!(e, SimEvent::DeadLetter { .. })).collect();
        assert_eq!(dead.len(), 3, "{strategy:?}");
        let fates = fates(&events);
        assert!(fates.iter().all(|(_, f)| *f == Fate::DeadLetter), "{strategy:?} {fates:?}");
        // Backoff: the ZSET designs retry after 10 s then 20 s; the stream after the claim time.
        let retries: Vec<(i64, Option<i64>)> = events
            .iter()
            .filter_map(|e| match e {
                SimEvent::Retry { task, at, due, .. } if task == "order:1" => Some((*at, *due)),
                _ => None,
            })
            .collect();
        match strategy {
            Strategy::Streams => assert!(retries.iter().all(|(_, d)| d.is_none()), "{retries:?}"),
            Strategy::KeyspaceEvents => assert_eq!(retries.len(), 2, "{retries:?}"),
            _ => {
                assert_eq!(retries.len(), 2, "{strategy:?} {retries:?}");
                assert_eq!(retries[0].1.unwrap() - retries[0].0, 10_000);
                assert_eq!(retries[1].1.unwrap() - retries[1].0, 20_000);
            }
        }
    }
}

#[test]
fn with_some_failures_no_task_exceeds_max_tries_nothing_is_lost_and_runs_repeat() {
    for strategy in [Strategy::PollClaim, Strategy::LuaPop, Strategy::ZsetWakeup, Strategy::Streams] {
        let cfg = Config { fail_prob: 0.3, max_tries: 2, duration_ms: 1_200_000, ..base(strategy) };
        let (m, events) = run(cfg.clone());
        show(&format!("{strategy:?} 30% failing"), &m);
        assert_eq!(m.lost, 0, "{strategy:?}");
        assert!(m.failed > 50 && m.retried > 20 && m.dead_lettered > 5, "{strategy:?} {m:?}");
        for (task, (ok, failed)) in processings(&events) {
            assert!(ok + failed <= 2 && ok <= 1, "{strategy:?} {task}: {ok} ok, {failed} failed");
        }
        assert_eq!(m.on_time + m.late + m.duplicates + m.paid + m.pending + m.dead_lettered, m.tasks);
        let (m2, e2) = run(cfg);
        assert_eq!((m, events), (m2, e2), "{strategy:?}: deterministic");
    }
    // No failures: the run is the one without the retry machinery at all.
    let (plain, _) = run(base(Strategy::LuaPop));
    assert_eq!((plain.failed, plain.retried, plain.dead_lettered), (0, 0, 0));
}
