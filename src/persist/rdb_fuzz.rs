//! Hostile payloads through the loader (rdb.rs): random bytes, valid payloads with bytes flipped,
//! cut, inserted and spliced (the footer recomputed so they get past the CRC, as a crafted
//! payload would), and huge declared lengths. Ports the intent of redis 7.0's
//! tests/integration/corrupt-dump-fuzzer.tcl: nothing may panic, hang or allocate what the
//! payload cannot back; what loads must dump and load again to the same value.

use super::crc64::crc64;
use super::rdb::*;
use super::rdb_load::*;
use crate::ds::intset::Intset;
use crate::ds::map::Map;
use crate::object::{Hash, List, Set, StrValue, Value, Zset};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn with_footer(mut body: Vec<u8>) -> Vec<u8> {
    body.extend_from_slice(&RDB_VERSION.to_le_bytes());
    let crc = crc64(0, &body);
    body.extend_from_slice(&crc.to_le_bytes());
    body
}

/// Valid payloads of every type and encoding, small and large.
fn seeds(rng: &mut Rng) -> Vec<Vec<u8>> {
    let mut level = || 1 + (rng.next() % 4) as usize;
    let mut big_zset = Zset::Listpack((0..200).map(|i| (format!("m{i}").into_bytes(), i as f64 * 0.5)).collect());
    crate::zset::convert_to_skiplist(&mut big_zset, &mut level);
    let mut is = Intset::new();
    for v in [-70000, -3, 0, 12, 1 << 40] {
        is.add(v);
    }
    let mut table = Map::default();
    for i in 0..40 {
        table.insert(format!("f{i}").into_bytes(), format!("{i}").repeat(i % 7 + 1).into_bytes());
    }
    let values = vec![
        Value::Str(StrValue::Embstr(b"hello".to_vec())),
        Value::Str(StrValue::Int { value: 70000, shared: false }),
        Value::Str(StrValue::Raw("abcabcabcabd".repeat(9).into_bytes(), 0)),
        Value::List(["a", "1", "-5000", "zz"].iter().map(|s| s.as_bytes().to_vec()).collect::<List>()),
        Value::List((0..900).map(|i| format!("e{i}").into_bytes()).collect::<List>()),
        Value::Set(Set::Intset(is)),
        Value::Set(Set::Table(["x", "y", "z"].iter().map(|s| s.as_bytes().to_vec()).collect())),
        Value::Zset(Zset::Listpack(vec![(b"a".to_vec(), -1.5), (b"b".to_vec(), 2.0), (b"c".to_vec(), f64::INFINITY)])),
        Value::Zset(big_zset),
        Value::Hash(Hash::Listpack(vec![(b"k".to_vec(), b"v".to_vec()), (b"n".to_vec(), b"12".to_vec())])),
        Value::Hash(Hash::Table(table)),
    ];
    let mut out: Vec<Vec<u8>> = values.iter().map(|v| create_dump_payload(v, &SaveOptions::default())).collect();
    // Older encodings: a ziplist list, a zipmap hash, text-score zset, plain list.
    out.push(with_footer(b"\x0a\x12\x12\x00\x00\x00\x0f\x00\x00\x00\x02\x00\x00\x03abc\x05\xf2\xff".to_vec()));
    out.push(with_footer(b"\x09\x0f\x02\x01a\x01\x001\x02bc\x01\x02x..\xff".to_vec()));
    out.push(with_footer(b"\x03\x02\x01a\x031.5\x01b\xfe".to_vec()));
    out.push(with_footer(b"\x01\x03\x01a\xc0\x05\x02bc".to_vec()));
    out
}

fn check(p: &[u8], opts: &LoadOptions, rng: &mut Rng) {
    let mut level = || 1 + (rng.next() % 3) as usize;
    if let Ok(v) = restore_payload(p, opts, &mut level) {
        // Whatever loads is a sane value: it dumps and loads back to itself.
        let again = create_dump_payload(&v, &SaveOptions::default());
        let back = restore_payload(&again, opts, &mut level).expect("a dumped value restores");
        assert_eq!(back, v);
    }
}

#[test]
fn mutated_and_random_payloads_never_panic() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let opts = LoadOptions::default();
    let seeds = seeds(&mut rng);
    for s in &seeds {
        assert!(restore_payload(s, &opts, &mut || 1).is_ok(), "seed {:?}", &s[..s.len().min(16)]);
    }
    for round in 0..6000 {
        let base = &seeds[rng.below(seeds.len())];
        let mut body = base[..base.len() - 10].to_vec();
        match round % 5 {
            0 => {
                for _ in 0..1 + rng.below(4) {
                    let i = rng.below(body.len());
                    body[i] = rng.next() as u8;
                }
            }
            1 => body.truncate(rng.below(body.len())),
            2 => {
                let i = rng.below(body.len() + 1);
                let junk: Vec<u8> = (0..1 + rng.below(8)).map(|_| rng.next() as u8).collect();
                body.splice(i..i, junk);
            }
            3 => {
                let other = &seeds[rng.below(seeds.len())];
                let cut = rng.below(body.len());
                let from = rng.below(other.len() - 10);
                body.truncate(cut);
                body.extend_from_slice(&other[from..other.len() - 10]);
            }
            _ => {
                body = (0..rng.below(64)).map(|_| rng.next() as u8).collect();
                if !body.is_empty() {
                    body[0] = (rng.next() % 21) as u8;
                }
            }
        }
        check(&with_footer(body), &opts, &mut rng);
    }
}

#[test]
fn huge_declared_lengths_allocate_nothing() {
    let opts = LoadOptions::default();
    let cases: &[&[u8]] = &[
        b"\x00\x80\xff\xff\xff\xff",                           // a 4 GB string, 0 bytes follow
        b"\x00\x81\xff\xff\xff\xff\xff\xff\xff\xff",           // a 2^64-1 byte string
        b"\x00\xc3\x01\x80\xff\xff\xff\xffa",                  // LZF to 4 GB from one byte
        b"\x00\xc3\x80\xff\xff\xff\xff\x05",                   // 4 GB of compressed bytes
        b"\x02\x80\xff\xff\xff\xff\x01a",                      // a set of 4 billion members
        b"\x04\x81\xff\xff\xff\xff\xff\xff\xff\xff\x01a\x01b", // a hash of 2^64-1 pairs
        b"\x05\x80\xff\xff\xff\xff",                           // a zset of 4 billion members
        b"\x12\x80\xff\xff\xff\xff\x02",                       // a quicklist of 4 billion nodes
        b"\x0b\x08\x02\x00\x00\x00\xff\xff\xff\xff",           // an intset claiming 4 billion members
        b"\x10\x09\xff\xff\xff\x7f\x01\x00\x80\x01\xff",       // a listpack claiming 2 GB
    ];
    for c in cases {
        let r = restore_payload(&with_footer(c.to_vec()), &opts, &mut || 1);
        assert!(r.is_err(), "{c:?}");
    }
    // A valid LZF string bigger than the allocation limit is refused before decompressing.
    let small = LoadOptions { max_alloc: 1000, ..Default::default() };
    let big = create_dump_payload(&Value::Str(StrValue::Raw(vec![b'z'; 5000], 0)), &SaveOptions::default());
    assert_eq!(restore_payload(&big, &small, &mut || 1), Err(LoadError::TooBig { bytes: 5000 }));
}
