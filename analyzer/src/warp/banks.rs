//! Counting shared-memory wavefronts: 32 banks of 4-byte words, lanes that read one word share
//! it, and wide accesses are served a part of the warp at a time.

use super::lanes::WARP_SIZE;

/// Banks of shared memory.
pub const BANKS: i64 = 32;
/// Bytes of one bank word.
pub const BANK_BYTES: i64 = 4;

/// Two lanes of one phase that fall in one bank at different words: why a request conflicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Collision {
    /// The two lanes, lower first.
    pub lanes: [usize; 2],
    /// The bank both fall in.
    pub bank: i64,
    /// The 4-byte words they read or write, counted from the start of the array.
    pub words: [i64; 2],
}

/// What one warp request costs in shared memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wavefronts {
    /// Passes through the shared-memory pipeline: the sum over phases of each phase's degree.
    pub wavefronts: usize,
    /// The passes without conflicts: one per phase that has an active lane.
    pub ideal: usize,
    /// The most distinct words that fall in one bank within one phase.
    pub degree: usize,
    /// Two lanes that collide in the bank of the highest degree, when the degree exceeds 1.
    pub collision: Option<Collision>,
}

/// Lanes served together: the whole warp for accesses of up to 4 bytes, half of it (2 phases)
/// for 8 bytes, a quarter (4 phases) for 16 bytes and more.
pub fn lanes_per_phase(width: u64) -> usize {
    match width {
        0..=4 => WARP_SIZE,
        5..=8 => WARP_SIZE / 2,
        _ => WARP_SIZE / 4,
    }
}

/// The wavefronts of one request: `lanes[i]` moves `width` bytes from byte `addresses[i]` of
/// the array. Lanes of one phase that touch the same word share it (a broadcast); distinct
/// words in one bank are served one after another.
pub fn wavefronts(lanes: &[usize], addresses: &[i64], width: u64) -> Wavefronts {
    let per_phase = lanes_per_phase(width);
    // (phase, bank, word, lane) for every word a lane touches; sorted, a phase's words in one
    // bank are adjacent, and a word read by several lanes keeps its lowest lane first.
    let mut touched: Vec<(usize, i64, i64, usize)> = Vec::with_capacity(lanes.len() * 2);
    for (&lane, &address) in lanes.iter().zip(addresses) {
        let first = address.div_euclid(BANK_BYTES);
        let last = address.saturating_add(width.max(1) as i64 - 1).div_euclid(BANK_BYTES);
        for word in first..=last.min(first + BANKS) {
            touched.push((lane / per_phase, word.rem_euclid(BANKS), word, lane));
        }
    }
    touched.sort_unstable();
    touched.dedup_by(|b, a| (a.0, a.2) == (b.0, b.2));
    let mut result = Wavefronts {
        wavefronts: 0,
        ideal: 0,
        degree: 0,
        collision: None,
    };
    let mut at = 0;
    while at < touched.len() {
        let phase = touched[at].0;
        let end = touched[at..]
            .iter()
            .position(|t| t.0 != phase)
            .map_or(touched.len(), |n| at + n);
        // The bank with the most distinct words (the lowest bank among equals).
        let mut best: Option<&[(usize, i64, i64, usize)]> = None;
        let mut from = at;
        while from < end {
            let bank = touched[from].1;
            let to = touched[from..end]
                .iter()
                .position(|t| t.1 != bank)
                .map_or(end, |n| from + n);
            if best.is_none_or(|b| to - from > b.len()) {
                best = Some(&touched[from..to]);
            }
            from = to;
        }
        let words = best.unwrap_or(&[]);
        result.ideal += 1;
        result.wavefronts += words.len();
        if words.len() > result.degree {
            result.degree = words.len();
            let mut by_lane: Vec<(usize, i64)> = words.iter().map(|t| (t.3, t.2)).collect();
            by_lane.sort_unstable();
            result.collision = match by_lane[..] {
                [(la, wa), (lb, wb), ..] => Some(Collision {
                    lanes: [la, lb],
                    bank: words[0].1,
                    words: [wa, wb],
                }),
                _ => None,
            };
        }
        at = end;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(stride: i64, width: u64) -> Wavefronts {
        let lanes: Vec<usize> = (0..32).collect();
        let addresses: Vec<i64> = (0..32).map(|l| l * stride).collect();
        wavefronts(&lanes, &addresses, width)
    }

    #[test]
    fn a_row_of_floats_is_one_wavefront() {
        let w = request(4, 4);
        assert_eq!((w.wavefronts, w.ideal, w.degree, w.collision), (1, 1, 1, None));
    }

    #[test]
    fn a_column_of_a_32_wide_tile_is_32_way() {
        let w = request(128, 4);
        assert_eq!((w.wavefronts, w.ideal, w.degree), (32, 1, 32));
        assert_eq!(
            w.collision,
            Some(Collision {
                lanes: [0, 1],
                bank: 0,
                words: [0, 32]
            })
        );
    }

    #[test]
    fn a_column_of_a_padded_tile_is_one_wavefront() {
        assert_eq!(request(132, 4).wavefronts, 1);
    }

    #[test]
    fn stride_two_words_is_two_way() {
        let w = request(8, 4);
        assert_eq!((w.wavefronts, w.degree), (2, 2));
        assert_eq!(
            w.collision.map(|c| (c.lanes, c.bank, c.words)),
            Some(([0, 16], 0, [0, 32]))
        );
    }

    #[test]
    fn lanes_on_one_word_broadcast() {
        let w = request(0, 4);
        assert_eq!((w.wavefronts, w.degree), (1, 1));
        // Bytes of one word read by different lanes are one word too.
        assert_eq!(request(1, 1).wavefronts, 1);
    }

    #[test]
    fn eight_byte_accesses_take_two_phases() {
        let row = request(8, 8);
        assert_eq!((row.wavefronts, row.ideal, row.degree), (2, 2, 1));
        // A column of a 32-wide f64 tile: 16 lanes of a phase each 256 bytes apart, all in
        // banks 0 and 1 at 16 distinct word pairs.
        let column = request(256, 8);
        assert_eq!((column.wavefronts, column.ideal, column.degree), (32, 2, 16));
        // Padded by one element (264 bytes): words 66 apart, two banks apart: 16 lanes cover
        // the 32 banks once.
        assert_eq!(request(264, 8).wavefronts, 2);
    }

    #[test]
    fn sixteen_byte_accesses_take_four_phases() {
        let w = request(16, 16);
        assert_eq!((w.wavefronts, w.ideal, w.degree), (4, 4, 1));
        assert_eq!(request(512, 16).wavefronts, 32);
    }

    #[test]
    fn inactive_lanes_and_phases_cost_nothing() {
        let w = wavefronts(&[0, 1], &[0, 128], 4);
        assert_eq!((w.wavefronts, w.ideal), (2, 1));
        let half = wavefronts(&[16, 17], &[0, 8], 8);
        assert_eq!((half.wavefronts, half.ideal), (1, 1));
    }
}
