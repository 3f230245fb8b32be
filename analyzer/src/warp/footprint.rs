//! The block footprint of an access: the distinct 32-byte sectors that all warps of one block
//! touch together for one execution of it.
//!
//! Sectors per request count what each warp asks of L1 and L2; a sector two warps of a block
//! both touch is counted twice there, but DRAM delivers it once (the second request hits in
//! cache). The footprint counts it once, so times 32 it estimates the bytes one block moves
//! from DRAM for the access: 256 lanes reading one 4-byte field of a 24-byte struct touch
//! 192 sectors (6 KiB), the same field stored as its own array 32 (1 KiB).

use super::outcome::LaneAddresses;
use super::sectors::{ideal_sectors, sectors, SECTOR_BYTES};

/// The sectors one block touches for one execution of an access, averaged over the blocks and
/// loop iterations counted (weighted by what each stands for) and over the start residues.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Footprint {
    pub(super) sectors: f64,
    /// The sectors the same distinct bytes would need, contiguous and aligned.
    pub(super) ideal: f64,
}

/// The footprint of the lanes of every warp, grouped by the point (block and iteration) they
/// were evaluated at, with the start moved by each of `residues` and by `shift` bytes, each
/// lane reading `width` bytes; `None` when no warp makes a request.
pub(super) fn block_footprint(lanes: &LaneAddresses, residues: &[i64], shift: i64, width: u64) -> Option<Footprint> {
    let (mut total, mut ideal, mut count) = (0.0, 0.0, 0.0);
    let mut ranges: Vec<(i64, u64)> = Vec::new();
    // The warps of a point are adjacent: take each run of one point as one block.
    let mut start = 0;
    while start < lanes.warps.len() {
        crate::budget::tick();
        let point = lanes.warps[start].point;
        let end = start + lanes.warps[start..].iter().take_while(|w| w.point == point).count();
        let weight = lanes.warps[start].weight;
        for &residue in residues {
            ranges.clear();
            for warp in &lanes.warps[start..end] {
                ranges.extend(warp.addresses.iter().map(|&a| (a + residue + shift, width)));
            }
            total += weight * sectors(&ranges) as f64;
            ideal += weight * ideal_sectors(&ranges) as f64;
            count += weight;
        }
        start = end;
    }
    (count > 0.0).then(|| Footprint {
        sectors: total / count,
        ideal: ideal / count,
    })
}

/// The bytes a footprint of `sectors` moves, to the nearest byte.
pub fn footprint_bytes(sectors: f64) -> u64 {
    (sectors * SECTOR_BYTES as f64).round().max(0.0) as u64
}

#[cfg(test)]
mod tests {
    use crate::model::launch::{BlockSource, ResolvedLaunch};
    use crate::{analyze_source, LaunchPlan, Prediction, SourceFile};

    /// The prediction of the `nth` access of the first kernel of `src`.
    fn predict(src: &str, nth: usize) -> Prediction {
        let file = SourceFile::new("k.rs", src);
        let report = analyze_source(&file, &LaunchPlan::default()).expect("analyzed");
        report.kernels[0].accesses[nth].prediction.clone().expect("global")
    }

    fn footprint(p: &Prediction) -> (Option<f64>, Option<f64>, Option<u64>) {
        (
            p.block_footprint_sectors,
            p.block_footprint_ideal_sectors,
            p.block_dram_bytes(),
        )
    }

    const PARTICLE: &str = "#[repr(C)] #[derive(Clone, Copy)] pub struct Particle { pub x: f32, pub y: f32, pub z: f32, pub vx: f32, pub vy: f32, pub vz: f32 }";

    #[test]
    fn a_field_of_a_24_byte_struct_spreads_the_block_over_192_sectors() {
        let src = format!(
            "{PARTICLE}
             // kernel-lint: block(256)
             #[kernel] pub unsafe fn k(p: *mut Particle) {{ let i = thread::index_1d() as usize; let v = (*p.add(i)).vx; }}"
        );
        let p = predict(&src, 0);
        assert_eq!(p.sectors_per_request, Some(24.0));
        // 256 lanes 24 bytes apart span 6144 bytes: every one of its 192 sectors holds a field.
        assert_eq!(footprint(&p), (Some(192.0), Some(32.0), Some(6144)));
    }

    #[test]
    fn the_same_field_as_its_own_array_needs_32_sectors() {
        let p = predict(
            "// kernel-lint: block(256)
             #[kernel] pub unsafe fn k(vx: *const f32) { let i = thread::index_1d() as usize; let v = *vx.add(i); }",
            0,
        );
        assert_eq!(footprint(&p), (Some(32.0), Some(32.0), Some(1024)));
    }

    #[test]
    fn a_misaligned_run_straddles_one_sector_per_block() {
        // Each warp touches 5 sectors where 4 would do; the block's eight warps share the
        // sectors they straddle, so the block touches 33 where 32 would do.
        let p = predict(
            "// kernel-lint: block(256)
             #[kernel] pub unsafe fn k(a: &[f32]) { let v = a[thread::index_1d() as usize + 1]; }",
            0,
        );
        assert_eq!(p.sectors_per_request, Some(5.0));
        assert_eq!(footprint(&p), (Some(33.0), Some(32.0), Some(1056)));
        // An unknown offset is taken at its worst alignment, as the headline is.
        let q = predict(
            "// kernel-lint: block(256)
             #[kernel] pub unsafe fn k(a: &[f32], offset: u32) { let k = thread::index_1d() + offset; let v = a[k as usize]; }",
            0,
        );
        assert_eq!(footprint(&q), (Some(33.0), Some(32.0), Some(1056)));
    }

    #[test]
    fn a_broadcast_moves_one_sector() {
        let p = predict(
            "// kernel-lint: block(256)
             #[kernel] pub unsafe fn k(a: &[f32], n: u32) { let v = a[n as usize]; }",
            0,
        );
        assert_eq!(footprint(&p), (Some(1.0), Some(1.0), Some(32)));
    }

    #[test]
    fn no_footprint_without_a_known_block_or_figure() {
        // The block is the default one: the footprint would scale with a guess.
        let p = predict(
            "#[kernel] pub unsafe fn k(a: &[f32]) { let v = a[thread::index_1d() as usize]; }",
            0,
        );
        assert_eq!(p.sectors_per_request, Some(4.0));
        assert_eq!(footprint(&p), (None, None, None));
        // A figure that depends on an unknown stride has no footprint either.
        let q = predict(
            "// kernel-lint: block(256)
             #[kernel] pub unsafe fn k(a: &[f32], s: u32) { let v = a[(thread::index_1d() * s) as usize]; }",
            0,
        );
        assert_eq!(q.sectors_per_request, None);
        assert_eq!(footprint(&q), (None, None, None));
    }

    #[test]
    fn a_known_grid_counts_each_block_with_its_own_lanes() {
        // 2 blocks of 256 over 300 elements: the second block's 44 lanes touch 6 sectors, the
        // first 32; the average block touches 19.
        let mut plan = LaunchPlan::default();
        plan.specs.push(crate::LaunchSpec {
            kernel: "k".into(),
            block: Some([256, 1, 1]),
            grid: Some([2, 1, 1]),
            params: [("n".to_string(), 300)].into_iter().collect(),
            ..Default::default()
        });
        let file = SourceFile::new(
            "k.rs",
            "#[kernel] pub unsafe fn k(a: &[f32], n: u32) { let i = thread::index_1d(); if i < n { let v = a[i as usize]; } }",
        );
        let report = analyze_source(&file, &plan).expect("analyzed");
        let launch: &ResolvedLaunch = &report.kernels[0].launch;
        assert_eq!(launch.block_source, BlockSource::Config);
        let p = report.kernels[0].accesses[0].prediction.clone().expect("global");
        assert_eq!(footprint(&p), (Some(19.0), Some(19.0), Some(608)));
    }
}
