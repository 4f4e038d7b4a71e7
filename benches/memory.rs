//! Memory per key, natively: the heap a fresh engine holds after `n` × `SET key:N val:NNNNNN`
//! (tools/bench/ops.mjs `measureMemory`'s keys, run as the page runs them: event log on,
//! drained every 10,000 commands, `before_sleep` after each), counted by a global allocator
//! that wraps the system one — live bytes and their peak, per key, and the live allocations by
//! size. The wasm build's linear memory (tools/bench/chromium.mjs --only memory) is what the
//! page pays; this finds where the bytes go without a browser. Pointers are 8 bytes here and 4
//! in wasm32, so the figures are higher than wasm's live heap, not equal to it.
//!
//!     cargo bench --bench memory                         # 10⁶ keys
//!     REDISPLAY_BENCH_MEMORY_KEYS=100000 cargo bench --bench memory

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use redisplay::{Engine, EngineOptions};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Live allocations by size: bucket k holds sizes in (2^(k-1), 2^k].
static COUNT: [AtomicUsize; 48] = [const { AtomicUsize::new(0) }; 48];
static BYTES: [AtomicUsize; 48] = [const { AtomicUsize::new(0) }; 48];

fn bucket(size: usize) -> usize {
    (usize::BITS - size.saturating_sub(1).leading_zeros()) as usize
}

fn add(size: usize) {
    let live = LIVE.fetch_add(size, Relaxed) + size;
    PEAK.fetch_max(live, Relaxed);
    COUNT[bucket(size)].fetch_add(1, Relaxed);
    BYTES[bucket(size)].fetch_add(size, Relaxed);
}

fn sub(size: usize) {
    LIVE.fetch_sub(size, Relaxed);
    COUNT[bucket(size)].fetch_sub(1, Relaxed);
    BYTES[bucket(size)].fetch_sub(size, Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        add(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        sub(layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        add(new_size);
        sub(layout.size());
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn snapshot() -> Vec<(usize, usize)> {
    (0..48).map(|k| (COUNT[k].load(Relaxed), BYTES[k].load(Relaxed))).collect()
}

fn main() {
    let keys: usize =
        std::env::var("REDISPLAY_BENCH_MEMORY_KEYS").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000);
    let mut e = Engine::new(EngineOptions { seed: 1, start_ms: 0 });
    let client = e.connect();
    let set = |e: &mut Engine, k: &str, v: &str| {
        e.execute(client, &[b"SET".to_vec(), k.as_bytes().to_vec(), v.as_bytes().to_vec()]);
        e.before_sleep();
    };
    // As measureMemory: one SET and DEL first, so one-off allocations are not counted per key.
    set(&mut e, "warm", "up");
    e.execute(client, &[b"DEL".to_vec(), b"warm".to_vec()]);
    e.drain_events();
    let (live0, hist0) = (LIVE.load(Relaxed), snapshot());
    PEAK.store(live0, Relaxed);
    for i in 0..keys {
        set(&mut e, &format!("key:{i}"), &format!("val:{i:06}"));
        if i % 10_000 == 9_999 {
            e.drain_events();
        }
    }
    e.drain_events();
    let (live, peak, hist) = (LIVE.load(Relaxed), PEAK.load(Relaxed), snapshot());
    let per = |b: usize| b as f64 / keys as f64;
    println!("native heap, {keys} × SET key:N val:NNNNNN (cargo bench --bench memory)");
    println!("  live  +{:.1} B/key", per(live - live0));
    println!("  peak  +{:.1} B/key", per(peak - live0));
    println!("  live allocations added, by size:");
    for k in 0..48 {
        let (c, b) = (hist[k].0 as i64 - hist0[k].0 as i64, hist[k].1 as i64 - hist0[k].1 as i64);
        if b.abs() as f64 >= keys as f64 * 0.05 {
            let lo = if k == 0 { 0 } else { (1usize << (k - 1)) + 1 };
            println!("    {:>10}..={:<10} {:>9} allocations {:>8.1} B/key", lo, 1usize << k, c, b as f64 / keys as f64);
        }
    }
    std::hint::black_box(&e);
}
