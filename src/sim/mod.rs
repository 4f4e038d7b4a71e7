//! Simulated workloads that run against an engine (no commands of their own): experiments the
//! page and the CLI can run and show.

pub mod cache_aside;
pub mod delay_queue;
pub mod lru_experiment;
pub mod pipeline;
pub mod strategies;
