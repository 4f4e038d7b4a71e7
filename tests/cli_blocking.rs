//! The native CLI (`redisplay FILE`) with a blocking command and nobody to serve it: like
//! redis-cli against redis-server 7.0, it waits for the timeout — and Redis notices a blocked
//! client's timeout only when its event loop wakes, which with nothing else happening is at the
//! next serverCron tick (whose active expire cycle may reclaim keys first). Checked against a
//! live redis-server: the same lines, the same output.

#[path = "support/live_server.rs"]
mod live_server;

use std::io::Write;
use std::process::{Command, Stdio};

fn redisplay(script: &[u8]) -> Vec<u8> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_redisplay"))
        .args(["--seed", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("redisplay runs");
    child.stdin.take().unwrap().write_all(script).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    out.stdout
}

#[test]
fn a_short_blocking_wait_lets_the_next_cron_tick_expire_keys() {
    live_server::check_tools();
    let server = live_server::Server::start();
    // The key expires at once; BLPOP's 10 ms wait ends at the next cron tick, after its slow
    // expire cycle: DBSIZE is 0 on redis-server 7.0.15 (a PING instead of BLPOP leaves it at 1).
    let script = b"SET k v PX 1\nBLPOP nolist 0.01\nDBSIZE\n";
    let real = server.cli(script);
    assert_eq!(String::from_utf8_lossy(&real), "OK\n(nil)\n(integer) 0\n", "redis-server changed its mind");
    assert_eq!(String::from_utf8_lossy(&redisplay(script)), String::from_utf8_lossy(&real));
}
