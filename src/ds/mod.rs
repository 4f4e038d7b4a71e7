//! Data structures that know nothing of commands or replies.

pub mod long_double;
pub mod skiplist;
pub mod intset;
