//! Counting the 32-byte sectors that the lanes' byte ranges touch.

/// Bytes per sector.
pub const SECTOR_BYTES: i64 = 32;

/// Distinct 32-byte-aligned sectors touched by byte ranges `[start, start + width)`.
pub fn sectors(ranges: &[(i64, u64)]) -> usize {
    let mut touched: Vec<i64> = Vec::with_capacity(ranges.len() * 2);
    for &(start, width) in ranges {
        let last = start.saturating_add(width.max(1) as i64 - 1);
        let (first, last) = (start.div_euclid(SECTOR_BYTES), last.div_euclid(SECTOR_BYTES));
        touched.extend(first..=last.min(first + 64));
    }
    touched.sort_unstable();
    touched.dedup();
    touched.len()
}

/// The sectors the same distinct bytes would need if they were contiguous and aligned.
pub fn ideal_sectors(ranges: &[(i64, u64)]) -> usize {
    let mut spans: Vec<(i64, i64)> = ranges.iter().map(|&(s, w)| (s, s.saturating_add(w as i64))).collect();
    spans.sort_unstable();
    let mut bytes = 0i64;
    let mut covered_to = i64::MIN;
    for (start, end) in spans {
        let from = start.max(covered_to);
        if end > from {
            bytes += end - from;
        }
        covered_to = covered_to.max(end);
    }
    (bytes.max(0) as usize).div_ceil(SECTOR_BYTES as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lanes(stride: i64, width: u64, base: i64) -> Vec<(i64, u64)> {
        (0..32).map(|l| (base + l * stride, width)).collect()
    }

    #[test]
    fn the_documented_figures() {
        assert_eq!(sectors(&lanes(4, 4, 0)), 4);
        assert_eq!(sectors(&lanes(4, 4, 4)), 5);
        assert_eq!(sectors(&lanes(8, 4, 0)), 8);
        assert_eq!(sectors(&lanes(32, 4, 0)), 32);
        assert_eq!(sectors(&lanes(24, 4, 12)), 24);
        assert_eq!(sectors(&lanes(0, 4, 100)), 1);
        assert_eq!(sectors(&lanes(16, 16, 0)), 16);
        assert_eq!(sectors(&lanes(3, 1, 0)), 3);
        assert_eq!(sectors(&lanes(8, 8, 0)), 8);
    }

    #[test]
    fn ideal_counts_distinct_bytes() {
        assert_eq!(ideal_sectors(&lanes(32, 4, 0)), 4);
        assert_eq!(ideal_sectors(&lanes(0, 4, 0)), 1);
        assert_eq!(ideal_sectors(&lanes(1, 1, 0)), 1);
        assert_eq!(ideal_sectors(&lanes(16, 16, 8)), 16);
    }
}
