//! INFO: models server.c `infoCommand()`, `genInfoSectionDict()` and `genRedisInfoString()`
//! (with `genRedisInfoStringCommandStats()`, `genRedisInfoStringLatencyStats()` and
//! `fillPercentileDistributionLatencies()`): every section and field redis-server 7.0.15
//! prints, in its order and formats, several sections in one call, `default`, `all` and
//! `everything`, names without case; unknown section names are ignored.
//!
//! Values come from the engine where it models them — clients, the memory model (src/memory.rs
//! and object.rs's overhead), the keyspace, expiry, eviction, Pub/Sub, the error and command
//! counters, the latency histograms, the replication id, the virtual clock, and CPU time from
//! the cost model's virtual CPU clock. What a playground has no notion of is a plausible
//! constant, named here: the build (`redis_git_sha1`, `redis_build_id`, `gcc_version`,
//! `executable` /usr/bin/redis-server), the process (`process_id` derived from the seed,
//! `monotonic_clock`, `multiplexing_api`), `os` (`redisplay <version> <arch>`), the machine's
//! memory (`total_system_memory` 8 GiB), the allocator's and RSS figures (object.rs
//! `MemOverhead`), the Lua VMs' memory (`used_memory_vm_eval` 32768, `used_memory_vm_functions`
//! 33792, as an idle 7.0.15 reports them), network byte counters and instantaneous rates (0:
//! no sockets are modelled), and everything about forks, AOF/RDB, replicas, defrag and I/O
//! threads (what a server that never forked reports). `total_reads_processed` and
//! `total_writes_processed` count one read and one write per command.
//!
//! Not Redis: `redisplay_memory:modelled` closes the memory section, and a `# Playground`
//! section (the clock, the seed, the expiry algorithm, the cost model's constants) follows
//! Keyspace when asked for by name or with `everything`, where Redis puts modules' sections.

use std::fmt::Write;

use crate::command::call::Call;
use crate::command::object::memory_overhead;
use crate::engine::Engine;
use crate::memory::bytes_to_human;
use crate::reply::Reply;

/// `genInfoSectionDict()`'s default sections (`module_list` is the Modules section).
const DEFAULT_SECTIONS: &[&str] = &[
    "server",
    "clients",
    "memory",
    "persistence",
    "stats",
    "replication",
    "cpu",
    "module_list",
    "errorstats",
    "cluster",
    "keyspace",
];

/// The sections `all` prints, in order.
const ALL_SECTIONS: &[&str] = &[
    "server",
    "clients",
    "memory",
    "persistence",
    "stats",
    "replication",
    "cpu",
    "modules",
    "commandstats",
    "errorstats",
    "latencystats",
    "cluster",
    "keyspace",
];

/// The plausible constant `total_system_memory` (8 GiB).
const TOTAL_SYSTEM_MEMORY: u64 = 8 << 30;

/// server.c `infoCommand()`.
pub fn info(e: &mut Engine, c: &Call) -> Reply {
    // addReplyVerbatim(…, "txt"): a bulk over RESP2.
    Reply::Verbatim(info_string(e, &c.argv[1..]).into_bytes())
}

/// server.c `genInfoSectionDict()` + `genRedisInfoString()` for INFO's arguments.
pub fn info_string(e: &Engine, args: &[Vec<u8>]) -> String {
    let mut wanted: Vec<String> = Vec::new();
    let (mut all, mut everything) = (false, false);
    if args.is_empty() {
        wanted.extend(DEFAULT_SECTIONS.iter().map(|s| s.to_string()));
    }
    for a in args {
        let a = String::from_utf8_lossy(a).to_ascii_lowercase();
        match a.as_str() {
            "default" => wanted.extend(DEFAULT_SECTIONS.iter().map(|s| s.to_string())),
            "all" => all = true,
            "everything" => {
                all = true;
                everything = true;
            }
            _ => wanted.push(a),
        }
    }
    let has = |name: &str| all || wanted.iter().any(|w| w == name);
    let mut out = String::new();
    let mut sections = 0;
    for &name in ALL_SECTIONS {
        let selected = match name {
            "modules" => has("modules") || has("module_list"),
            _ => has(name),
        };
        if !selected {
            continue;
        }
        if sections > 0 {
            out.push_str("\r\n");
        }
        sections += 1;
        section(e, name, &mut out);
    }
    // Where Redis adds modules' own sections: the playground's.
    if everything || wanted.iter().any(|w| w == "playground") {
        if sections > 0 {
            out.push_str("\r\n");
        }
        section(e, "playground", &mut out);
    }
    out
}

/// `getSafeInfoString()`: `#`, `:`, CR and LF become `_` in names INFO prints.
fn safe(name: &[u8]) -> String {
    let mut s = String::from_utf8_lossy(name).into_owned();
    s = s.replace(['#', ':', '\n', '\r'], "_");
    s
}

/// Writes a section: `# Title` then `field:value` lines, each ending in CRLF.
struct Lines<'a>(&'a mut String);

impl Lines<'_> {
    fn title(&mut self, title: &str) {
        let _ = write!(self.0, "# {title}\r\n");
    }
    fn kv(&mut self, k: &str, v: impl std::fmt::Display) {
        let _ = write!(self.0, "{k}:{v}\r\n");
    }
}

fn section(e: &Engine, name: &str, out: &mut String) {
    let mut w = Lines(out);
    match name {
        "server" => {
            w.title("Server");
            let uptime = (e.now_ms - e.start_ms).max(0) / 1000;
            w.kv("redis_version", "7.0.15");
            w.kv("redis_git_sha1", "00000000");
            w.kv("redis_git_dirty", 0);
            w.kv("redis_build_id", "ae4d7c971a948f0");
            w.kv("redis_mode", "standalone");
            w.kv("os", format!("redisplay {} {}", env!("CARGO_PKG_VERSION"), std::env::consts::ARCH));
            w.kv("arch_bits", 64);
            w.kv("monotonic_clock", "POSIX clock_gettime");
            w.kv("multiplexing_api", "epoll");
            w.kv("atomicvar_api", "c11-builtin");
            w.kv("gcc_version", "12.2.0");
            w.kv("process_id", 1000 + e.seed % 30_000);
            w.kv("process_supervised", "no");
            w.kv("run_id", &e.run_id);
            w.kv("tcp_port", e.tcp_port);
            w.kv("server_time_usec", e.ustime());
            w.kv("uptime_in_seconds", uptime);
            w.kv("uptime_in_days", uptime / (3600 * 24));
            w.kv("hz", e.hz());
            w.kv("configured_hz", e.config.int("hz"));
            w.kv("lru_clock", e.lruclock);
            w.kv("executable", "/usr/bin/redis-server");
            w.kv("config_file", "");
            w.kv("io_threads_active", 0);
        }
        "clients" => {
            w.title("Clients");
            w.kv("connected_clients", e.clients.len());
            w.kv("cluster_connections", 0);
            w.kv("maxclients", e.config.int("maxclients"));
            w.kv("client_recent_max_input_buffer", 0);
            w.kv("client_recent_max_output_buffer", 0);
            w.kv("blocked_clients", e.blocked_clients());
            w.kv("tracking_clients", e.tracking_clients());
            w.kv(
                "clients_in_timeout_table",
                e.clients.values().filter(|c| c.blocked.as_ref().is_some_and(|b| b.timeout_ms > 0)).count(),
            );
        }
        "memory" => {
            w.title("Memory");
            let m = memory_overhead(e);
            let human = |n: u64| bytes_to_human(n as f64);
            let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { (a as f32 / b as f32) as f64 };
            let vm_eval: u64 = 32768;
            let vm_functions: u64 = 33792;
            let maxmemory = e.config.int("maxmemory") as u64;
            w.kv("used_memory", m.used);
            w.kv("used_memory_human", human(m.used));
            w.kv("used_memory_rss", m.rss);
            w.kv("used_memory_rss_human", human(m.rss));
            w.kv("used_memory_peak", m.peak);
            w.kv("used_memory_peak_human", human(m.peak));
            w.kv("used_memory_peak_perc", format!("{:.2}%", m.peak_perc()));
            w.kv("used_memory_overhead", m.total);
            w.kv("used_memory_startup", m.startup);
            w.kv("used_memory_dataset", m.dataset());
            w.kv("used_memory_dataset_perc", format!("{:.2}%", m.dataset_perc()));
            w.kv("allocator_allocated", m.allocated);
            w.kv("allocator_active", m.active);
            w.kv("allocator_resident", m.resident);
            w.kv("total_system_memory", TOTAL_SYSTEM_MEMORY);
            w.kv("total_system_memory_human", human(TOTAL_SYSTEM_MEMORY));
            w.kv("used_memory_lua", vm_eval);
            w.kv("used_memory_vm_eval", vm_eval);
            w.kv("used_memory_lua_human", human(vm_eval));
            w.kv("used_memory_scripts_eval", m.lua_caches);
            w.kv("number_of_cached_scripts", e.scripts.len());
            w.kv("number_of_functions", e.scripts.libs.function_count());
            w.kv("number_of_libraries", e.scripts.libs.library_count());
            w.kv("used_memory_vm_functions", vm_functions);
            w.kv("used_memory_vm_total", vm_eval + vm_functions);
            w.kv("used_memory_vm_total_human", human(vm_eval + vm_functions));
            w.kv("used_memory_functions", m.functions_caches);
            w.kv("used_memory_scripts", m.lua_caches + m.functions_caches);
            w.kv("used_memory_scripts_human", human(m.lua_caches + m.functions_caches));
            w.kv("maxmemory", maxmemory);
            w.kv("maxmemory_human", human(maxmemory));
            w.kv("maxmemory_policy", e.config.str("maxmemory-policy"));
            w.kv("allocator_frag_ratio", format!("{:.2}", ratio(m.active, m.allocated)));
            w.kv("allocator_frag_bytes", m.active - m.allocated);
            w.kv("allocator_rss_ratio", format!("{:.2}", ratio(m.resident, m.active)));
            w.kv("allocator_rss_bytes", m.resident - m.active);
            w.kv("rss_overhead_ratio", format!("{:.2}", ratio(m.rss, m.resident)));
            w.kv("rss_overhead_bytes", m.rss - m.resident);
            w.kv("mem_fragmentation_ratio", format!("{:.2}", ratio(m.rss, m.used)));
            w.kv("mem_fragmentation_bytes", m.rss as i64 - m.used as i64);
            w.kv("mem_not_counted_for_evict", 0);
            w.kv("mem_replication_backlog", 0);
            w.kv("mem_total_replication_buffers", 0);
            w.kv("mem_clients_slaves", 0);
            w.kv("mem_clients_normal", m.clients_normal);
            w.kv("mem_cluster_links", 0);
            w.kv("mem_aof_buffer", e.prop.aof.as_ref().map_or(0, |s| s.buf.capacity()));
            w.kv("mem_allocator", "jemalloc-5.3.0");
            w.kv("active_defrag_running", 0);
            w.kv("lazyfree_pending_objects", 0);
            w.kv("lazyfreed_objects", e.stats.lazyfreed_objects);
            w.kv("redisplay_memory", "modelled");
        }
        "persistence" => {
            w.title("Persistence");
            let aof = e.persist.aof.status != crate::engine::AofStatus::Off;
            w.kv("loading", 0);
            w.kv("async_loading", 0);
            // A fork child's copy-on-write and progress (engine ForkCow): keys written so far
            // in proportion to its virtual time.
            let child = e.persist.bgsave.as_ref().map(|b| (&b.cow, b.start_ms, b.done_ms)).or(e
                .persist
                .aof
                .rewrite
                .as_ref()
                .map(|r| (&r.cow, r.start_ms, r.done_ms)));
            let (cow, processed, total) = match child {
                Some((cow, start, done)) => {
                    let part = if done > start { (e.now_ms - start) as f64 / (done - start) as f64 } else { 1.0 };
                    (cow.bytes, (cow.keys_total as f64 * part.clamp(0.0, 1.0)) as u64, cow.keys_total)
                }
                None => (0, 0, 0),
            };
            w.kv("current_cow_peak", cow);
            w.kv("current_cow_size", cow);
            w.kv("current_cow_size_age", 0);
            let perc = if total > 0 { processed as f64 / total as f64 * 100.0 } else { 0.0 };
            w.kv("current_fork_perc", format!("{perc:.2}"));
            w.kv("current_save_keys_processed", processed);
            w.kv("current_save_keys_total", total);
            w.kv("rdb_changes_since_last_save", e.stats.dirty);
            let child_start = e.persist.bgsave.as_ref().map(|b| b.start_ms);
            w.kv("rdb_bgsave_in_progress", child_start.is_some() as u8);
            w.kv("rdb_last_save_time", e.persist.lastsave);
            w.kv("rdb_last_bgsave_status", if e.persist.lastbgsave_ok { "ok" } else { "err" });
            w.kv("rdb_last_bgsave_time_sec", e.persist.last_bgsave_time_sec);
            w.kv("rdb_current_bgsave_time_sec", child_start.map_or(-1, |s| (e.now_ms - s).div_euclid(1000)));
            w.kv("rdb_saves", e.persist.rdb_saves);
            w.kv("rdb_last_cow_size", e.persist.rdb_last_cow_size);
            w.kv("rdb_last_load_keys_expired", e.persist.last_load_keys_expired);
            w.kv("rdb_last_load_keys_loaded", e.persist.last_load_keys_loaded);
            let a = &e.persist.aof;
            let ok = |b: bool| if b { "ok" } else { "err" };
            let rewrite_start = a.rewrite.as_ref().map(|r| r.start_ms);
            w.kv("aof_enabled", aof as u8);
            w.kv("aof_rewrite_in_progress", rewrite_start.is_some() as u8);
            w.kv("aof_rewrite_scheduled", a.rewrite_scheduled as u8);
            w.kv("aof_last_rewrite_time_sec", a.rewrite_time_last);
            w.kv("aof_current_rewrite_time_sec", rewrite_start.map_or(-1, |s| (e.now_ms - s).div_euclid(1000)));
            w.kv("aof_last_bgrewrite_status", ok(a.lastbgrewrite_ok));
            w.kv("aof_rewrites", a.rewrites);
            w.kv("aof_rewrites_consecutive_failures", a.consecutive_failures);
            w.kv("aof_last_write_status", ok(a.last_write_ok));
            w.kv("aof_last_cow_size", e.persist.aof_last_cow_size);
            w.kv("module_fork_in_progress", 0);
            w.kv("module_fork_last_cow_size", 0);
            if a.status != crate::engine::AofStatus::Off {
                w.kv("aof_current_size", a.current_size);
                w.kv("aof_base_size", a.rewrite_base_size);
                w.kv("aof_pending_rewrite", a.rewrite_scheduled as u8);
                w.kv("aof_buffer_length", e.prop.aof.as_ref().map_or(0, |s| s.buf.len()));
                w.kv("aof_pending_bio_fsync", 0);
                w.kv("aof_delayed_fsync", 0);
            }
        }
        "stats" => {
            w.title("Stats");
            let s = &e.stats;
            w.kv("total_connections_received", s.total_connections_received);
            w.kv("total_commands_processed", s.total_commands_processed);
            w.kv("instantaneous_ops_per_sec", 0);
            w.kv("total_net_input_bytes", 0);
            w.kv("total_net_output_bytes", 0);
            w.kv("total_net_repl_input_bytes", 0);
            w.kv("total_net_repl_output_bytes", 0);
            w.kv("instantaneous_input_kbps", "0.00");
            w.kv("instantaneous_output_kbps", "0.00");
            w.kv("instantaneous_input_repl_kbps", "0.00");
            w.kv("instantaneous_output_repl_kbps", "0.00");
            w.kv("rejected_connections", 0);
            w.kv("sync_full", e.repl.sync_full);
            w.kv("sync_partial_ok", e.repl.sync_partial_ok);
            w.kv("sync_partial_err", e.repl.sync_partial_err);
            w.kv("expired_keys", s.expired_keys);
            w.kv("expired_stale_perc", format!("{:.2}", s.expired_stale_perc * 100.0));
            w.kv("expired_time_cap_reached_count", s.expired_time_cap_reached_count);
            w.kv("expire_cycle_cpu_milliseconds", s.expire_cycle_time_used_us / 1000);
            w.kv("evicted_keys", s.evicted_keys);
            w.kv("evicted_clients", 0);
            w.kv("total_eviction_exceeded_time", 0);
            w.kv("current_eviction_exceeded_time", 0);
            w.kv("keyspace_hits", s.keyspace_hits);
            w.kv("keyspace_misses", s.keyspace_misses);
            w.kv("pubsub_channels", e.pubsub.channels.len());
            w.kv("pubsub_patterns", e.pubsub.patterns.len());
            w.kv("pubsubshard_channels", e.shard_channels.len());
            w.kv("latest_fork_usec", 0);
            w.kv("total_forks", 0);
            w.kv("migrate_cached_sockets", 0);
            w.kv("slave_expires_tracked_keys", 0);
            w.kv("active_defrag_hits", 0);
            w.kv("active_defrag_misses", 0);
            w.kv("active_defrag_key_hits", 0);
            w.kv("active_defrag_key_misses", 0);
            w.kv("total_active_defrag_time", 0);
            w.kv("current_active_defrag_time", 0);
            let (keys, items, prefixes) = e.tracking_totals();
            w.kv("tracking_total_keys", keys);
            w.kv("tracking_total_items", items);
            w.kv("tracking_total_prefixes", prefixes);
            w.kv("unexpected_error_replies", s.unexpected_error_replies);
            w.kv("total_error_replies", s.total_error_replies);
            w.kv("dump_payload_sanitizations", 0);
            w.kv("total_reads_processed", s.total_commands_processed);
            w.kv("total_writes_processed", s.total_commands_processed);
            w.kv("io_threaded_reads_processed", 0);
            w.kv("io_threaded_writes_processed", 0);
            w.kv("reply_buffer_shrinks", 0);
            w.kv("reply_buffer_expands", 0);
        }
        "replication" => {
            w.title("Replication");
            let mut fields = Vec::new();
            e.info_replication(&mut |k, v| fields.push((k.to_string(), v)));
            for (k, v) in fields {
                w.kv(&k, v);
            }
        }
        "cpu" => {
            w.title("CPU");
            // The cost model's virtual CPU time, all of it user time on the main thread.
            let us = e.cpu.ns / 1000;
            let user = format!("{}.{:06}", us / 1_000_000, us % 1_000_000);
            w.kv("used_cpu_sys", "0.000000");
            w.kv("used_cpu_user", &user);
            w.kv("used_cpu_sys_children", "0.000000");
            w.kv("used_cpu_user_children", "0.000000");
            w.kv("used_cpu_sys_main_thread", "0.000000");
            w.kv("used_cpu_user_main_thread", user);
        }
        "modules" => w.title("Modules"),
        "commandstats" => {
            w.title("Commandstats");
            for (name, st) in e.stats.commands_by_name() {
                if st.calls == 0 && st.failed_calls == 0 && st.rejected_calls == 0 {
                    continue;
                }
                // `(float)c->microseconds/c->calls`.
                let per_call = if st.calls == 0 { 0.0 } else { (st.usec as f32 / st.calls as f32) as f64 };
                w.kv(
                    &format!("cmdstat_{}", safe(name.as_bytes())),
                    format!(
                        "calls={},usec={},usec_per_call={per_call:.2},rejected_calls={},failed_calls={}",
                        st.calls, st.usec, st.rejected_calls, st.failed_calls
                    ),
                );
            }
        }
        "errorstats" => {
            w.title("Errorstats");
            for (prefix, count) in &e.stats.errors {
                w.kv(&format!("errorstat_{}", safe(prefix)), format!("count={count}"));
            }
        }
        "latencystats" => {
            w.title("Latencystats");
            if e.hot.latency_tracking {
                let percentiles = crate::config::percentiles(e.config.str("latency-tracking-info-percentiles"));
                for (name, st) in e.stats.commands_by_name() {
                    let Some(h) = &st.histogram else { continue };
                    let values: Vec<String> = percentiles
                        .iter()
                        .map(|&p| {
                            let label = crate::config::trim_double(&format!("{p:.6}"));
                            // `((double)hdr_value_at_percentile(h, p))/1000.0f`
                            format!("p{label}={:.3}", h.value_at_percentile(p) as f64 / 1000.0)
                        })
                        .collect();
                    w.kv(&format!("latency_percentiles_usec_{}", safe(name.as_bytes())), values.join(","));
                }
            }
        }
        "cluster" => {
            w.title("Cluster");
            w.kv("cluster_enabled", 0);
        }
        "keyspace" => {
            w.title("Keyspace");
            for (i, db) in e.dbs.iter().enumerate() {
                if !db.is_empty() || !db.expires.is_empty() {
                    w.kv(
                        &format!("db{i}"),
                        format!("keys={},expires={},avg_ttl={}", db.len(), db.expires.len(), db.avg_ttl),
                    );
                }
            }
        }
        _ => {
            // Not Redis: what the playground models and the constants it models them with.
            use crate::cost::*;
            w.title("Playground");
            w.kv("clock", "virtual");
            w.kv("seed", e.seed);
            w.kv("cron_loops", e.cronloops);
            w.kv("expire_algorithm", e.config.str("playground-expire-algorithm"));
            w.kv("cost_percent", e.config.int("playground-cost-percent"));
            w.kv("cost_call_ns", CALL_NS);
            w.kv("cost_arg_ns", ARG_NS);
            w.kv("cost_reply_element_ns", REPLY_ELEMENT_NS);
            w.kv("cost_payload_kib_ns", PAYLOAD_KIB_NS);
            w.kv("cost_scan_key_ns", SCAN_KEY_NS);
            w.kv("cost_examine_key_ns", EXAMINE_KEY_NS);
            w.kv("cost_visit_bucket_ns", VISIT_BUCKET_NS);
            w.kv("cost_delete_key_ns", DELETE_KEY_NS);
            w.kv("cost_free_zset_member_ns", FREE_ZSET_MEMBER_NS);
            w.kv("cost_free_hash_field_ns", FREE_HASH_FIELD_NS);
            w.kv("cost_free_set_member_ns", FREE_SET_MEMBER_NS);
            w.kv("cost_free_list_node_ns", FREE_LIST_NODE_NS);
            w.kv("cost_free_string_kib_ns", FREE_STRING_KIB_NS);
            w.kv("lazyfree_threshold", LAZYFREE_THRESHOLD);
            w.kv("main_thread_free_us", e.stats.free_time_ns / 1000);
            w.kv("cpu_virtual_ns", e.cpu.ns);
        }
    }
}
