//! Time: the virtual clock, server.c `serverCron()` (once per `1000/hz` ms crossed: the LRU
//! clock, the slow active-expire cycle, databasesCron's table shrinking, the eviction timer, the
//! end of a client pause) and `beforeSleep()` (blocked clients' timeouts, commands a pause held,
//! the fast cycle, BCAST invalidations), and the event log the host drains after them.

use super::{Advance, Engine, MAX_CLOCK_MS};
use crate::events::Event;

impl Engine {
    /// How many serverCron ticks lie between now and `t`.
    pub fn ticks_until(&self, t: i64) -> u64 {
        if t < self.next_cron_ms {
            0
        } else {
            ((t - self.next_cron_ms) / self.cron_period_ms()) as u64 + 1
        }
    }

    /// Sets the clock without running cron (it may go backwards, like a real server's clock).
    /// Clamped to 0..=MAX_CLOCK_MS.
    pub fn set_time(&mut self, ms: i64) {
        let ms = ms.clamp(0, MAX_CLOCK_MS);
        let from = self.now_ms;
        self.now_ms = ms;
        self.next_cron_ms = ms.saturating_add(self.cron_period_ms());
        self.lruclock = self.lru_clock_at(ms);
        self.events.push(Event::ClockSet { from_ms: from, to_ms: ms });
    }

    /// Moves the clock forward to `t`, running serverCron for every tick crossed, at most
    /// `max_ticks` of them (then the clock stops at the last tick run and the lag is returned).
    pub fn advance_to(&mut self, t: i64, max_ticks: u64) -> Advance {
        let t = t.clamp(0, MAX_CLOCK_MS);
        // No timer runs while a script does (Redis serves only file events then): the host
        // runs the script's slices (run_script_slice) and the clock waits.
        if self.scripts.busy() {
            return Advance { ticks: 0, lag_ms: t.saturating_sub(self.now_ms).max(0) };
        }
        if t < self.now_ms {
            self.set_time(t);
            return Advance::default();
        }
        let mut ticks = 0u64;
        let mut last_tick_ms = None;
        while self.next_cron_ms <= t {
            if ticks >= max_ticks {
                let at = last_tick_ms.unwrap_or(self.now_ms);
                self.now_ms = at;
                self.push_cron_event(ticks);
                return Advance { ticks, lag_ms: t - at };
            }
            if !self.cron_has_work() && !self.pause_ends_by(self.next_cron_ms) {
                // No volatile key and no table to shrink: a tick only bumps its counters and
                // decays the stale-percentage average, so jump to the last one (or to the last
                // before a client pause ends: the tick after it ends the pause).
                let period = self.cron_period_ms();
                let mut remaining = ((t - self.next_cron_ms) / period) as u64 + 1;
                if let Some(end) = self.pause_end_ms() {
                    remaining = remaining.min(((end - self.next_cron_ms) / period) as u64 + 1);
                }
                let n = remaining.min(max_ticks - ticks);
                let at = self.next_cron_ms + (n as i64 - 1) * period;
                self.now_ms = at;
                self.cronloops += n;
                self.lruclock = self.lru_clock_at(at);
                self.next_cron_ms = at + period;
                self.stats.expired_stale_perc *= 0.95f64.powi(n.min(100_000) as i32);
                self.expire.timelimit_exit = false;
                ticks += n;
                last_tick_ms = Some(at);
                continue;
            }
            self.now_ms = self.next_cron_ms;
            // Cron's work is its own, not the command's that moved the clock (CLOCK ADVANCE):
            // what it propagates goes out at once, unwrapped, as from Redis's serverCron.
            let outer = std::mem::replace(&mut self.in_cron, true);
            self.server_cron();
            self.before_sleep();
            self.in_cron = outer;
            ticks += 1;
            last_tick_ms = Some(self.now_ms);
            self.next_cron_ms = self.now_ms + self.cron_period_ms();
        }
        self.now_ms = t;
        self.push_cron_event(ticks);
        Advance { ticks, lag_ms: 0 }
    }

    fn push_cron_event(&mut self, ticks: u64) {
        if ticks > 0 {
            let hz = self.hz();
            self.events.push(Event::Cron { at_ms: self.now_ms, ticks, hz });
        }
    }

    /// server.c `serverCron()`: one timer tick — the LRU clock, dynamic hz, and
    /// `databasesCron()` (the slow active-expire cycle, then shrinking tables).
    fn server_cron(&mut self) {
        // DEBUG PAUSE-CRON 1 (`server.pause_cron`).
        if self.debug.pause_cron {
            return;
        }
        self.lruclock = self.lru_clock_at(self.now_ms);
        self.update_hz();
        self.cronloops += 1;
        // A replica waits for its master's DELs (replication.rs).
        if !self.is_replica() {
            self.active_expire_cycle(crate::events::CycleKind::Slow);
        }
        self.try_resize_tables();
        // A BGSAVE child that is done, a save point that is due; the AOF's rewrites.
        self.rdb_cron();
        self.aof_cron();
        // Clear the paused clients state if needed.
        self.check_client_pause_timeout();
        self.replication_cron_tick();
        self.replication_feed();
    }

    /// server.c `beforeSleep()`: the fast active-expire cycle (under its gating rules). Redis
    /// runs it on every event-loop iteration; the engine runs it after each cron tick and the
    /// console after each line it runs.
    pub fn before_sleep(&mut self) {
        if self.scripts.busy() {
            return;
        }
        self.handle_blocked_clients_timeout();
        // The AOF buffer to its file, before any reply is written.
        if self.persist.aof.status != crate::engine::AofStatus::Off {
            self.flush_append_only_file();
        }
        // Keys made ready outside a command (a stream deleted by expiry or eviction).
        self.flush_new_key_events();
        self.handle_clients_blocked_on_keys();
        // Commands postponed by a client pause that ended run now.
        self.process_unblocked_clients();
        if !self.is_replica() {
            self.active_expire_cycle(crate::events::CycleKind::Fast);
        }
        // evict.c evictionTimeProc(): keep evicting between commands once started.
        if self.evict.timer_running {
            self.perform_evictions();
        }
        // Client-side caching in BCAST mode: the keys changed since the last time.
        self.tracking_broadcast_invalidation_messages();
        // Expired keys' DELs, then WAIT's GETACK and the clients it can answer.
        self.replication_feed();
        self.replication_before_sleep();
    }

    /// Takes every queued event and the number dropped since the last drain.
    pub fn drain_events(&mut self) -> (Vec<Event>, u64) {
        self.events.drain()
    }
}
