//! Simulated workloads that run against an engine (no commands of their own): experiments the
//! page and the CLI can run and show.
//! - `delay_queue/`: the delay-queue lab (producers, consumers, crashes in virtual time), with
//!   `strategies.rs` holding each design's client code;
//! - `pipeline.rs`: round trips vs pipelining under a network delay;
//! - `cache_aside.rs`: a cache in front of a slow database;
//! - `lru_experiment.rs`: true LRU vs Redis's sampled approximation.

pub mod cache_aside;
pub mod delay_queue;
pub mod lru_experiment;
pub mod pipeline;
pub mod strategies;
