//! Bitmaps (src/command/bitops.rs) where the playground departs from Redis on purpose: a
//! string may not grow past `playground-max-alloc`, so SETBIT and BITFIELD can't make a tab
//! allocate the 512 MB Redis would. Everything else about these commands is pinned by the
//! golden transcripts (tests/scripts/bitops-*.redis) and the live differential.

use redisplay::{EngineOptions, Session};

fn session() -> Session {
    Session::new(EngineOptions { seed: 1, start_ms: 1_735_689_600_000 })
}

fn run(s: &mut Session, line: &str) -> String {
    String::from_utf8(s.run_line(line.as_bytes()).text).unwrap()
}

#[test]
fn a_512_mb_bitmap_is_refused_not_allocated() {
    let mut s = session();
    for line in [
        "SETBIT k 4294967295 1",
        "BITFIELD k SET u8 4294967280 1",
        "BITFIELD k OVERFLOW FAIL INCRBY u8 4294967280 1000",
        "BITFIELD k GET u8 0 SET i64 #67108863 -1",
    ] {
        let out = run(&mut s, line);
        assert!(out.starts_with("(error) ERR playground limit: this would allocate"), "{line} → {out}");
    }
    assert_eq!(run(&mut s, "EXISTS k"), "(integer) 0\n", "nothing was created");
    // Reads past the end allocate nothing and answer as Redis does.
    assert_eq!(run(&mut s, "GETBIT k 4294967295"), "(integer) 0\n");
    assert_eq!(run(&mut s, "BITFIELD_RO k GET u8 4294967280"), "1) (integer) 0\n");
    // An existing string can't be grown past the limit either, and stays as it was.
    run(&mut s, "SET k abc");
    let out = run(&mut s, "SETBIT k 4294967295 1");
    assert!(out.starts_with("(error) ERR playground limit"), "{out}");
    assert_eq!(run(&mut s, "GET k"), "\"abc\"\n");
    assert_eq!(run(&mut s, "OBJECT ENCODING k"), "\"embstr\"\n");
    // Redis's own checks come first: type, then the protocol bound on the offset.
    run(&mut s, "LPUSH l x");
    assert!(run(&mut s, "SETBIT l 4294967295 1").starts_with("(error) WRONGTYPE"));
    assert!(run(&mut s, "SETBIT k 4294967296 1").starts_with("(error) ERR bit offset is not an integer"));
}

#[test]
fn the_limit_follows_the_config() {
    let mut s = session();
    assert_eq!(run(&mut s, "CONFIG SET playground-max-alloc 1024"), "OK\n");
    assert_eq!(run(&mut s, "SETBIT k 8191 1"), "(integer) 0\n", "1024 bytes is allowed");
    assert!(run(&mut s, "SETBIT k 8192 1").starts_with("(error) ERR playground limit: this would allocate 1025 bytes"));
    assert_eq!(run(&mut s, "STRLEN k"), "(integer) 1024\n");
    assert!(run(&mut s, "BITFIELD k SET u16 8185 1").starts_with("(error) ERR playground limit"));
    assert_eq!(run(&mut s, "BITFIELD k SET u16 8176 257"), "1) (integer) 1\n");
    assert_eq!(run(&mut s, "BITCOUNT k"), "(integer) 2\n");
}
