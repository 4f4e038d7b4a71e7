//! An HDR histogram: models deps/hdr_histogram/hdr_histogram.c as Redis 7.0 vendors it —
//! `hdr_calculate_bucket_config()`, `hdr_record_value()`, `hdr_value_at_percentile()` and the
//! logarithmic iterator (`hdr_iter_log_init()`/`log_iter_next()`) — for the per-command latency
//! histograms behind INFO latencystats and LATENCY HISTOGRAM (server.c
//! `updateCommandLatencyHistogram()`: 1 ns to 1 s, 2 significant figures, values in ns).
//!
//! The bucket layout is the library's: `sub_bucket_count` linear sub-buckets (256 for two
//! significant figures) in buckets that double in width, so a value's "equivalent range" is the
//! sub-bucket it falls in and a percentile is reported as the highest value of its range (1000 ns
//! reads back as 1003, hence INFO's `p50=1.003`). Differences: no atomics, no normalising index
//! offset (Redis never shifts its histograms), counts are `u64` in a `Vec`.

#[derive(Debug, Clone, PartialEq)]
pub struct HdrHistogram {
    unit_magnitude: u32,
    sub_bucket_half_count_magnitude: u32,
    sub_bucket_count: i64,
    sub_bucket_half_count: i64,
    sub_bucket_mask: i64,
    counts: Vec<u64>,
    total_count: u64,
}

/// server.h LATENCY_HISTOGRAM_MIN_VALUE / MAX_VALUE / PRECISION.
pub const LATENCY_MIN_NS: i64 = 1;
pub const LATENCY_MAX_NS: i64 = 1_000_000_000;
pub const LATENCY_PRECISION: u32 = 2;

impl HdrHistogram {
    /// `hdr_init(lowest, highest, significant_figures)`; `None` for an invalid configuration.
    pub fn new(lowest: i64, highest: i64, significant_figures: u32) -> Option<HdrHistogram> {
        if lowest < 1 || !(1..=5).contains(&significant_figures) || lowest.checked_mul(2)? > highest {
            return None;
        }
        let largest_single_unit = 2 * 10i64.pow(significant_figures);
        let sub_bucket_count_magnitude = (largest_single_unit as f64).log2().ceil() as u32;
        let sub_bucket_half_count_magnitude = sub_bucket_count_magnitude.max(1) - 1;
        let unit_magnitude = (lowest as f64).log2() as u32;
        let sub_bucket_count = 1i64 << (sub_bucket_half_count_magnitude + 1);
        let sub_bucket_half_count = sub_bucket_count / 2;
        let sub_bucket_mask = (sub_bucket_count - 1) << unit_magnitude;
        if unit_magnitude + sub_bucket_half_count_magnitude > 61 {
            return None;
        }
        // buckets_needed_to_cover_value()
        let mut smallest_untrackable = sub_bucket_count << unit_magnitude;
        let mut bucket_count = 1i64;
        while smallest_untrackable <= highest {
            if smallest_untrackable > i64::MAX / 2 {
                bucket_count += 1;
                break;
            }
            smallest_untrackable <<= 1;
            bucket_count += 1;
        }
        let counts_len = ((bucket_count + 1) * (sub_bucket_count / 2)) as usize;
        Some(HdrHistogram {
            unit_magnitude,
            sub_bucket_half_count_magnitude,
            sub_bucket_count,
            sub_bucket_half_count,
            sub_bucket_mask,
            counts: vec![0; counts_len],
            total_count: 0,
        })
    }

    /// The histogram Redis gives each command (1 ns .. 1 s, 2 significant figures).
    pub fn for_latency() -> HdrHistogram {
        HdrHistogram::new(LATENCY_MIN_NS, LATENCY_MAX_NS, LATENCY_PRECISION).expect("valid configuration")
    }

    pub fn total_count(&self) -> u64 {
        self.total_count
    }

    /// `hdr_get_memory_size()`: the struct (104 bytes on 64-bit) and the counts array.
    pub fn memory_size(&self) -> usize {
        104 + self.counts.len() * 8
    }

    fn bucket_index(&self, value: i64) -> i32 {
        let pow2ceiling = 64 - (value | self.sub_bucket_mask).leading_zeros() as i32;
        pow2ceiling - self.unit_magnitude as i32 - (self.sub_bucket_half_count_magnitude as i32 + 1)
    }

    fn sub_bucket_index(&self, value: i64, bucket_index: i32) -> i64 {
        value >> (bucket_index + self.unit_magnitude as i32)
    }

    fn counts_index(&self, bucket_index: i32, sub_bucket_index: i64) -> i64 {
        let base = ((bucket_index + 1) as i64) << self.sub_bucket_half_count_magnitude;
        base + sub_bucket_index - self.sub_bucket_half_count
    }

    fn value_from_index(&self, bucket_index: i32, sub_bucket_index: i64) -> i64 {
        sub_bucket_index << (bucket_index + self.unit_magnitude as i32)
    }

    fn value_at_index(&self, index: i64) -> i64 {
        let mut bucket_index = (index >> self.sub_bucket_half_count_magnitude) as i32 - 1;
        let mut sub_bucket_index = (index & (self.sub_bucket_half_count - 1)) + self.sub_bucket_half_count;
        if bucket_index < 0 {
            sub_bucket_index -= self.sub_bucket_half_count;
            bucket_index = 0;
        }
        self.value_from_index(bucket_index, sub_bucket_index)
    }

    fn size_of_equivalent_range(&self, bucket_index: i32, sub_bucket_index: i64) -> i64 {
        let adjusted = if sub_bucket_index >= self.sub_bucket_count { bucket_index + 1 } else { bucket_index };
        1i64 << (self.unit_magnitude as i32 + adjusted)
    }

    fn lowest_equivalent_value(&self, value: i64) -> i64 {
        let b = self.bucket_index(value);
        let s = self.sub_bucket_index(value, b);
        self.value_from_index(b, s)
    }

    /// `highest_equivalent_value()`: the last value of `value`'s equivalent range.
    pub fn highest_equivalent_value(&self, value: i64) -> i64 {
        let b = self.bucket_index(value);
        let s = self.sub_bucket_index(value, b);
        self.value_from_index(b, s) + self.size_of_equivalent_range(b, s) - 1
    }

    /// `hdr_record_value()`: false (and nothing counted) for a value out of range.
    pub fn record(&mut self, value: i64) -> bool {
        if value < 0 {
            return false;
        }
        let b = self.bucket_index(value);
        let s = self.sub_bucket_index(value, b);
        let idx = self.counts_index(b, s);
        if idx < 0 || idx as usize >= self.counts.len() {
            return false;
        }
        self.counts[idx as usize] += 1;
        self.total_count += 1;
        true
    }

    /// `hdr_value_at_percentile()`.
    pub fn value_at_percentile(&self, percentile: f64) -> i64 {
        let requested = percentile.min(100.0);
        let count_at = ((requested / 100.0) * self.total_count as f64 + 0.5) as i64;
        let count_at = count_at.min(self.total_count as i64);
        // get_value_from_idx_up_to_count()
        let mut count_to_idx: i64 = 0;
        let mut value_from_idx: i64 = 0;
        let mut sub_bucket_idx: i64 = -1;
        let mut bucket_idx: i32 = 0;
        let mut bucket_base_idx = ((bucket_idx + 1) as i64) << self.sub_bucket_half_count_magnitude;
        while count_to_idx < count_at {
            sub_bucket_idx += 1;
            if sub_bucket_idx >= self.sub_bucket_count {
                sub_bucket_idx = self.sub_bucket_half_count;
                bucket_idx += 1;
                bucket_base_idx = ((bucket_idx + 1) as i64) << self.sub_bucket_half_count_magnitude;
            }
            let i = bucket_base_idx + sub_bucket_idx - self.sub_bucket_half_count;
            count_to_idx += self.counts.get(i as usize).copied().unwrap_or(0) as i64;
            value_from_idx = sub_bucket_idx << (bucket_idx + self.unit_magnitude as i32);
        }
        if percentile == 0.0 {
            self.lowest_equivalent_value(value_from_idx)
        } else {
            self.highest_equivalent_value(value_from_idx)
        }
    }

    /// The logarithmic iteration latency.c `fillCommandCDF()` walks (`hdr_iter_log_init(iter,
    /// h, first, base)` then `hdr_iter_next()` until false): for each step, the iterator's
    /// `highest_equivalent_value` (of the counts slot it stopped on, as the library leaves it)
    /// and the cumulative count so far.
    pub fn log_steps(&self, first: i64, base: f64) -> Vec<(i64, u64)> {
        let mut out = Vec::new();
        let counts_len = self.counts.len() as i64;
        let mut counts_index: i64 = -1;
        let mut cumulative: u64 = 0;
        let mut value: i64 = 0;
        let mut highest_equivalent: i64 = 0;
        let mut next_level = first;
        let mut next_level_lowest = self.lowest_equivalent_value(first);
        loop {
            let has_next = cumulative < self.total_count;
            let peek_greater = counts_index < counts_len && self.value_at_index(counts_index + 1) > next_level_lowest;
            if !(has_next || peek_greater) {
                return out;
            }
            loop {
                if value >= next_level_lowest {
                    next_level = (next_level as f64 * base) as i64;
                    next_level_lowest = self.lowest_equivalent_value(next_level);
                    out.push((highest_equivalent, cumulative));
                    break;
                }
                // move_next()
                counts_index += 1;
                if counts_index >= counts_len {
                    out.push((highest_equivalent, cumulative));
                    break;
                }
                cumulative += self.counts[counts_index as usize];
                value = self.value_at_index(counts_index);
                let b = self.bucket_index(value);
                let s = self.sub_bucket_index(value, b);
                highest_equivalent = self.value_from_index(b, s) + self.size_of_equivalent_range(b, s) - 1;
            }
            if out.len() > 200 {
                return out;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latency_histogram_has_redis_s_shape_and_size() {
        let h = HdrHistogram::for_latency();
        // 23 buckets of 128 half-slots + one: 3072 counters; with the struct, the 24,680 bytes
        // that memory.rs's LATENCY_HISTOGRAM (24,688, measured) rounds to its size class.
        assert_eq!(h.counts.len(), 3072);
        assert_eq!(h.memory_size(), 24_680);
    }

    #[test]
    fn percentiles_read_back_the_highest_equivalent_value() {
        let mut h = HdrHistogram::for_latency();
        h.record(1000);
        // INFO latencystats prints value/1000 with %.3f: 1 µs reads 1.003.
        assert_eq!(h.value_at_percentile(50.0), 1003);
        assert_eq!(h.value_at_percentile(99.9), 1003);
        let mut h = HdrHistogram::for_latency();
        h.record(1);
        assert_eq!(h.value_at_percentile(50.0), 1);
        for v in [13_000, 7_000, 8_000, 3_000] {
            let mut h = HdrHistogram::for_latency();
            h.record(v);
            assert!(h.value_at_percentile(50.0) >= v && h.value_at_percentile(50.0) < v + v / 100);
        }
        // Values seen in INFO from a real server: 13 µs → 13.055, 46 µs → 46.079, 56 → 56.063.
        let p = |v: i64| {
            let mut h = HdrHistogram::for_latency();
            h.record(v);
            h.value_at_percentile(50.0)
        };
        assert_eq!(p(13_000), 13_055);
        assert_eq!(p(46_000), 46_079);
        assert_eq!(p(56_000), 56_063);
        assert_eq!(p(7_000), 7_007);
    }

    #[test]
    fn percentiles_split_a_distribution() {
        let mut h = HdrHistogram::for_latency();
        for _ in 0..99 {
            h.record(2000);
        }
        h.record(500_000);
        assert_eq!(h.value_at_percentile(50.0), 2007);
        assert_eq!(h.value_at_percentile(99.0), 2007);
        assert!(h.value_at_percentile(99.9) >= 500_000);
        assert_eq!(h.total_count(), 100);
    }

    #[test]
    fn the_log_iteration_reports_doubling_levels() {
        let mut h = HdrHistogram::for_latency();
        h.record(1);
        h.record(1);
        h.record(14_000);
        let steps: Vec<(i64, u64)> =
            h.log_steps(1024, 2.0).into_iter().filter(|s| s.1 > 0).map(|(v, c)| (v / 1000, c)).collect();
        // LATENCY HISTOGRAM keeps the steps where the cumulative count grew: 1 µs → 2, 16 → 3.
        let mut kept = Vec::new();
        let mut prev = 0;
        for (us, c) in steps {
            if c > prev {
                kept.push((us, c));
            }
            prev = c;
        }
        assert_eq!(kept, vec![(1, 2), (16, 3)]);
        assert!(HdrHistogram::for_latency().log_steps(1024, 2.0).is_empty());
    }
}
