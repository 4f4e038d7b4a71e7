//! Driving the engine directly, without redis-cli's formatting: a fresh engine with one client,
//! and commands given as words.

use redisplay::{ClientId, Engine, EngineOptions, Reply};

/// A fresh engine with `seed` (the clock at its default start) and one connected client.
pub fn engine(seed: u64) -> (Engine, ClientId) {
    let mut e = Engine::new(EngineOptions { seed, ..EngineOptions::default() });
    let c = e.connect();
    (e, c)
}

/// Runs one command given as its arguments.
pub fn execute<A: AsRef<[u8]>>(e: &mut Engine, c: ClientId, args: &[A]) -> Reply {
    let argv: Vec<Vec<u8>> = args.iter().map(|a| a.as_ref().to_vec()).collect();
    e.execute(c, &argv)
}

/// Runs one command written as words separated by single spaces (no quoting).
pub fn run(e: &mut Engine, c: ClientId, line: &str) -> Reply {
    execute(e, c, &line.split(' ').collect::<Vec<_>>())
}
