//! Two engines wired together in-process through the replication link API — what the page does
//! with a second engine: the replica asks for a link (`repl_link_wanted`), its master sees an
//! ordinary client that speaks the handshake, PSYNC and REPLCONF ACK, and the bytes flow both
//! ways. The replies the replica gives were recorded from a real redis-server 7.0.15 master and
//! replica pair (the replica's expiry rules, READONLY, ROLE, WAIT on a replica).

use redisplay::reply::parse_resp;
use redisplay::{ClientId, Engine, EngineOptions, Reply};

const T0: i64 = 1_700_000_000_000;

fn argv(line: &str) -> Vec<Vec<u8>> {
    redisplay::tokenize::split_args(line.as_bytes()).expect("a line")
}

/// A master, a replica and the link between them.
struct Pair {
    m: Engine,
    r: Engine,
    mc: ClientId,
    rc: ClientId,
    /// The replica's connection as the master sees it.
    link: Option<ClientId>,
    /// Bytes the master sent that the replica has not read yet (a link outage holds them).
    down: bool,
}

impl Pair {
    fn new() -> Pair {
        let mut m = Engine::new(EngineOptions { seed: 1, start_ms: T0 });
        let mut r = Engine::new(EngineOptions { seed: 2, start_ms: T0 });
        m.configure_startup("enable-debug-command", "yes").unwrap();
        let (mc, rc) = (m.connect(), r.connect());
        m.execute(mc, &argv("CONFIG SET repl-diskless-sync-delay 0"));
        Pair { m, r, mc, rc, link: None, down: false }
    }

    fn m(&mut self, line: &str) -> Reply {
        let reply = self.m.execute(self.mc, &argv(line));
        self.m.before_sleep();
        reply
    }

    fn r(&mut self, line: &str) -> Reply {
        let reply = self.r.execute(self.rc, &argv(line));
        self.r.before_sleep();
        reply
    }

    /// Moves bytes until nothing more flows.
    fn pump(&mut self) {
        for _ in 0..100 {
            let mut moved = false;
            if self.link.is_some() && !self.r.repl_link_active() {
                let id = self.link.take().unwrap();
                self.m.disconnect(id);
            }
            if self.link.is_none() && !self.down && self.r.repl_link_wanted().is_some() {
                self.link = Some(self.m.connect());
                self.r.repl_link_connected();
                moved = true;
            }
            let Some(link) = self.link else { return };
            // Replica → master: commands.
            let out = self.r.repl_link_take_output();
            let mut rest = out.as_slice();
            let mut to_replica = Vec::new();
            while let Some((reply, used)) = parse_resp(rest) {
                rest = &rest[used..];
                moved = true;
                let Reply::Array(items) = reply else { panic!("the replica sent a non-command") };
                let cmd: Vec<Vec<u8>> =
                    items.into_iter().map(|i| if let Reply::Bulk(b) = i { b } else { panic!("bulk") }).collect();
                let reply = self.m.execute(link, &cmd);
                if !self.m.reply_dropped(link) && !self.m.is_blocked(link) {
                    reply.encode(2, &mut to_replica);
                }
            }
            self.m.before_sleep();
            if self.m.client(link).is_none() {
                // The master dropped the replica.
                self.link = None;
                self.r.repl_link_closed();
                continue;
            }
            for r in self.m.take_outbox(link) {
                r.encode(2, &mut to_replica);
            }
            if !to_replica.is_empty() {
                moved = true;
                self.r.repl_link_input(&to_replica);
                self.r.before_sleep();
            }
            if !moved {
                return;
            }
        }
        panic!("the link never went quiet");
    }

    /// Both clocks forward, with cron, then the link pumped.
    fn advance(&mut self, ms: i64) {
        let t = self.m.now_ms() + ms;
        self.m.advance_to(t, u64::MAX);
        self.r.advance_to(t, u64::MAX);
        self.pump();
    }
}

fn info_field(e: &mut Engine, c: ClientId, section: &str, name: &str) -> String {
    let Reply::Verbatim(text) = e.execute(c, &argv(&format!("INFO {section}"))) else { panic!("INFO") };
    let text = String::from_utf8_lossy(&text).into_owned();
    text.lines().find_map(|l| l.strip_prefix(&format!("{name}:"))).unwrap_or("?").to_string()
}

fn bulks(items: &[&str]) -> Reply {
    Reply::Array(items.iter().map(|s| Reply::bulk(*s)).collect())
}

fn synced_pair() -> Pair {
    let mut p = Pair::new();
    p.m("SET before 1");
    p.m("RPUSH list a b c");
    assert_eq!(p.r("REPLICAOF master 6379"), Reply::ok());
    p.pump();
    p.advance(1);
    assert_eq!(info_field(&mut p.r, p.rc, "replication", "master_link_status"), "up");
    p
}

#[test]
fn a_replica_full_syncs_then_follows_the_stream() {
    let mut p = synced_pair();
    assert_eq!(p.r("GET before"), Reply::bulk("1"));
    assert_eq!(p.r("LRANGE list 0 -1"), bulks(&["a", "b", "c"]));
    // The stream: writes in another db, a transaction, an expiry made absolute.
    p.m("SELECT 3");
    p.m("SET other x EX 100");
    p.m("MULTI");
    p.m("INCR n");
    p.m("INCR n");
    p.m("EXEC");
    p.m("SELECT 0");
    p.m("DEL before");
    p.pump();
    p.r("SELECT 3");
    assert_eq!(p.r("GET n"), Reply::bulk("2"));
    assert_eq!(p.r("TTL other"), Reply::Integer(100));
    p.r("SELECT 0");
    assert_eq!(p.r("EXISTS before"), Reply::Integer(0));
    // Offsets agree: what the master wrote, the replica applied and (a second later, with its
    // next REPLCONF ACK) acknowledged.
    p.advance(1000);
    p.advance(1000);
    let m_off = info_field(&mut p.m, p.mc, "replication", "master_repl_offset");
    assert_eq!(info_field(&mut p.r, p.rc, "replication", "slave_repl_offset"), m_off);
    assert_eq!(info_field(&mut p.r, p.rc, "replication", "master_repl_offset"), m_off);
    let slave0 = info_field(&mut p.m, p.mc, "replication", "slave0");
    assert!(slave0.starts_with("ip=127.0.0.1,port=6379,state=online,offset="), "{slave0}");
    assert!(slave0.contains(&format!("offset={m_off},")), "{slave0} vs {m_off}");
    // Both share the master's replid.
    let id = info_field(&mut p.m, p.mc, "replication", "master_replid");
    assert_eq!(info_field(&mut p.r, p.rc, "replication", "master_replid"), id);
    assert_eq!(info_field(&mut p.m, p.mc, "stats", "sync_full"), "1");
}

#[test]
fn role_and_info_replication_on_both_sides() {
    let mut p = synced_pair();
    let Reply::Array(role) = p.r("ROLE") else { panic!("ROLE") };
    assert_eq!(
        role[0..4],
        [Reply::bulk("slave"), Reply::bulk("master"), Reply::Integer(6379), Reply::bulk("connected")]
    );
    let Reply::Array(role) = p.m("ROLE") else { panic!("ROLE") };
    assert_eq!(role[0], Reply::bulk("master"));
    let Reply::Array(replicas) = &role[2] else { panic!("replicas") };
    assert_eq!(replicas.len(), 1);
    for (field, want) in [
        ("role", "slave"),
        ("master_host", "master"),
        ("master_port", "6379"),
        ("master_sync_in_progress", "0"),
        ("slave_priority", "100"),
        ("slave_read_only", "1"),
        ("replica_announced", "1"),
        ("connected_slaves", "0"),
        ("repl_backlog_active", "1"),
        ("master_replid2", "0000000000000000000000000000000000000000"),
        ("second_repl_offset", "-1"),
    ] {
        assert_eq!(info_field(&mut p.r, p.rc, "replication", field), want, "{field}");
    }
    assert_eq!(info_field(&mut p.m, p.mc, "replication", "connected_slaves"), "1");
    // REPLICAOF the same master again; errors as 7.0.15 gives them.
    assert_eq!(p.r("REPLICAOF master 6379"), Reply::Status("OK Already connected to specified master".into()));
    assert_eq!(p.r("REPLICAOF master 70000"), Reply::err("ERR Invalid master port"));
    assert_eq!(p.r("REPLICAOF no two"), Reply::err("ERR Invalid master port"));
    // NO ONE: a master again, the old id kept as the second one up to the offset.
    let old_id = info_field(&mut p.r, p.rc, "replication", "master_replid");
    let off: i64 = info_field(&mut p.r, p.rc, "replication", "master_repl_offset").parse().unwrap();
    assert_eq!(p.r("REPLICAOF NO ONE"), Reply::ok());
    p.pump();
    assert_eq!(info_field(&mut p.r, p.rc, "replication", "role"), "master");
    assert_eq!(info_field(&mut p.r, p.rc, "replication", "master_replid2"), old_id);
    assert_eq!(info_field(&mut p.r, p.rc, "replication", "second_repl_offset"), (off + 1).to_string());
    assert_ne!(info_field(&mut p.r, p.rc, "replication", "master_replid"), old_id);
    assert_eq!(p.r("SET now writable"), Reply::ok());
}

#[test]
fn a_replica_keeps_expired_keys_until_its_master_deletes_them() {
    let mut p = synced_pair();
    p.m("DEBUG SET-ACTIVE-EXPIRE 0");
    p.m("FLUSHALL");
    p.m("SET k v PX 100");
    p.m("SET live v");
    p.m("HSET h f v");
    p.m("PEXPIRE h 100");
    p.pump();
    p.advance(400);
    // As a 7.0.15 replica answers (recorded): gone for reads, still counted.
    assert_eq!(p.r("GET k"), Reply::Nil);
    assert_eq!(p.r("EXISTS k h live"), Reply::Integer(1));
    assert_eq!(p.r("TTL k"), Reply::Integer(-2));
    assert_eq!(p.r("PTTL h"), Reply::Integer(-2));
    assert_eq!(p.r("TYPE k"), Reply::Status("none".into()));
    assert_eq!(p.r("DBSIZE"), Reply::Integer(3));
    assert_eq!(p.r("KEYS *"), bulks(&["live"]));
    assert_eq!(p.r("SCAN 0"), Reply::Array(vec![Reply::bulk("0"), bulks(&["live"])]));
    assert_eq!(p.r("HGETALL h"), Reply::Map(vec![]));
    assert_eq!(p.r("RANDOMKEY"), Reply::bulk("live"));
    // Reads deleted nothing; the replica's cron neither.
    p.advance(5000);
    assert_eq!(p.r("DBSIZE"), Reply::Integer(3));
    // The master's lazy expiry sends DEL: now the replica drops it.
    assert_eq!(p.m("GET k"), Reply::Nil);
    p.pump();
    assert_eq!(p.r("DBSIZE"), Reply::Integer(2));
    // The master's active expiry sends the other.
    p.m("DEBUG SET-ACTIVE-EXPIRE 1");
    p.advance(1000);
    assert_eq!(p.r("DBSIZE"), Reply::Integer(1));
    assert_eq!(p.r("KEYS *"), bulks(&["live"]));
}

#[test]
fn a_read_only_replica_refuses_writes_from_its_clients() {
    let mut p = synced_pair();
    let ro = Reply::err("READONLY You can't write against a read only replica.");
    assert_eq!(p.r("SET x 1"), ro);
    assert_eq!(p.r("DEL before"), ro);
    assert_eq!(p.r("MULTI"), Reply::ok());
    assert_eq!(p.r("GET k"), Reply::Status("QUEUED".into()));
    assert_eq!(p.r("SET y 1"), ro);
    assert_eq!(p.r("EXEC"), Reply::err("EXECABORT Transaction discarded because of previous errors."));
    assert_eq!(
        p.r("WAIT 0 0"),
        Reply::err("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.")
    );
    assert_eq!(
        p.r("EVAL \"return redis.call('set','z','1')\" 0"),
        Reply::err("READONLY You can't write against a read only replica. script: 8d3e32b04b6d82ab5c7826c1fe224244ae331d5c, on @user_script:1.")
    );
    // With replica-read-only no, writes are local.
    p.r("CONFIG SET replica-read-only no");
    assert_eq!(p.r("SET x 1"), Reply::ok());
}

#[test]
fn wait_and_min_replicas_to_write() {
    let mut p = synced_pair();
    p.m("SET a 1");
    // WAIT blocks until the replica acks the client's write (REPLCONF GETACK, then ACK).
    let c = p.mc;
    p.m.execute(c, &argv("WAIT 1 0"));
    assert!(p.m.is_blocked(c));
    p.m.before_sleep();
    p.pump();
    assert!(!p.m.is_blocked(c));
    assert_eq!(p.m.take_outbox(c), vec![Reply::Integer(1)]);
    // Two replicas wanted, one there: the timeout answers how many acked.
    p.m.execute(c, &argv("WAIT 2 100"));
    assert!(p.m.is_blocked(c));
    p.advance(300);
    assert_eq!(p.m.take_outbox(c), vec![Reply::Integer(1)]);
    // min-replicas-to-write 2 with one good replica: NOREPLICAS.
    p.m("CONFIG SET min-replicas-to-write 2");
    assert_eq!(p.m("SET a 2"), Reply::err("NOREPLICAS Not enough good replicas to write."));
    assert_eq!(info_field(&mut p.m, p.mc, "replication", "min_slaves_good_slaves"), "1");
    p.m("CONFIG SET min-replicas-to-write 1");
    assert_eq!(p.m("SET a 2"), Reply::ok());
}

#[test]
fn a_lost_link_resyncs_partially_from_the_backlog() {
    let mut p = synced_pair();
    p.m("SET a 1");
    p.pump();
    // The master kills the replica's connection; writes go on meanwhile.
    p.down = true;
    assert_eq!(p.m("CLIENT KILL TYPE replica"), Reply::Integer(1));
    p.pump();
    p.link = None;
    p.r.repl_link_closed();
    p.m("SET b 2");
    p.m("INCR a");
    assert_eq!(info_field(&mut p.r, p.rc, "replication", "master_link_status"), "down");
    p.down = false;
    p.advance(1000);
    assert_eq!(info_field(&mut p.r, p.rc, "replication", "master_link_status"), "up");
    assert_eq!(info_field(&mut p.m, p.mc, "stats", "sync_partial_ok"), "1");
    assert_eq!(info_field(&mut p.m, p.mc, "stats", "sync_full"), "1");
    assert_eq!(p.r("MGET a b"), bulks(&["2", "2"]));
    // From the replica's side: CLIENT KILL TYPE master, then the same.
    assert_eq!(p.r("CLIENT KILL TYPE master"), Reply::Integer(1));
    p.m("SET c 3");
    p.advance(1000);
    assert_eq!(info_field(&mut p.m, p.mc, "stats", "sync_partial_ok"), "2");
    assert_eq!(p.r("GET c"), Reply::bulk("3"));
}

#[test]
fn masterauth_and_replica_announce_ip_in_the_handshake() {
    let mut p = Pair::new();
    p.m("CONFIG SET requirepass s3cret");
    p.r("CONFIG SET masterauth wrong");
    p.r("CONFIG SET replica-announce-ip 10.0.0.7");
    p.r("REPLICAOF master 6379");
    p.advance(1);
    // AUTH refused: the handshake is dropped and tried again each second, in vain.
    assert_eq!(info_field(&mut p.r, p.rc, "replication", "master_link_status"), "down");
    assert!(p.r.take_log().iter().any(|l| l.message.starts_with("Unable to AUTH to MASTER: -WRONGPASS")));
    p.r("CONFIG SET masterauth s3cret");
    p.advance(1000);
    assert_eq!(info_field(&mut p.r, p.rc, "replication", "master_link_status"), "up");
    p.m.execute(p.mc, &argv("AUTH s3cret"));
    let slave0 = info_field(&mut p.m, p.mc, "replication", "slave0");
    assert!(slave0.starts_with("ip=10.0.0.7,port=6379,state=online"), "{slave0}");
}

#[test]
fn after_an_eof_payload_the_stream_waits_for_the_first_ack() {
    let mut p = Pair::new();
    let link = p.m.connect();
    for line in ["REPLCONF capa eof capa psync2", "PSYNC ? -1"] {
        p.m.execute(link, &argv(line));
    }
    p.m.before_sleep();
    let raw = |replies: Vec<Reply>| -> Vec<u8> {
        let mut out = Vec::new();
        for r in replies {
            r.encode(2, &mut out);
        }
        out
    };
    let payload = raw(p.m.take_outbox(link));
    assert!(payload.starts_with(b"+OK\r\n+FULLRESYNC ") || payload.starts_with(b"+FULLRESYNC "), "{payload:?}");
    assert!(payload.windows(5).any(|w| w == b"$EOF:"));
    // A write now: nothing follows the mark until the replica acks (it finds the end of the
    // payload by the mark being the last bytes it read).
    p.m("SET x 1");
    assert!(raw(p.m.take_outbox(link)).is_empty());
    p.m.execute(link, &argv("REPLCONF ACK 0"));
    let stream = raw(p.m.take_outbox(link));
    assert_eq!(stream, b"*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$1\r\n1\r\n");
}
