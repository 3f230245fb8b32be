//! Buffer sizes from the index algebra: the largest byte offset each array is accessed at over
//! every thread of a launch, so that the generated driver never reads or writes out of bounds.

use kernel_lint_analyzer::algebra::interval::{bounds, iteration_bound, Interval};
use kernel_lint_analyzer::algebra::Atom;
use kernel_lint_analyzer::interpret::Access;
use kernel_lint_analyzer::ResolvedLaunch;
use std::collections::BTreeMap;

/// Values written into arrays whose elements are used as indices lie in `0..INDEX_FILL_RANGE`.
pub const INDEX_FILL_RANGE: i64 = 1 << 20;
/// The length, in elements, every slice parameter is given at least.
pub const SLICE_ELEMENTS: i64 = 1 << 20;
/// Bytes given to an array whose extent cannot be bounded.
pub const UNBOUNDED_BYTES: u64 = 64 << 20;

/// What one array needs.
#[derive(Debug, Clone, PartialEq)]
pub struct BufferNeed {
    /// Bytes to allocate (a multiple of 256).
    pub bytes: u64,
    /// Why the size is a fallback rather than a bound, if it is.
    pub unbounded: Option<String>,
    /// Whether the array's elements are used as indices (and so must be filled).
    pub index_array: bool,
    /// Whether a predicted access reaches the array.
    pub accessed: bool,
}

/// The bytes each global array needs under a launch whose parameters are all known.
pub fn buffer_needs(accesses: &[Access], launch: &ResolvedLaunch) -> BTreeMap<String, BufferNeed> {
    let mut needs: BTreeMap<String, BufferNeed> = BTreeMap::new();
    let mut index_arrays = Vec::new();
    for access in accesses {
        access.address.visit_atoms(&mut |a| {
            if let Atom::Load { array, .. } = a {
                index_arrays.push(array.clone());
            }
        });
    }
    for access in accesses
        .iter()
        .filter(|a| a.space == kernel_lint_analyzer::MemorySpace::Global)
    {
        let base = |a: &Atom| -> Option<Interval> {
            Some(match a {
                Atom::ThreadIdx(axis) => Interval::new(0, i64::from(launch.block[axis.index()]) - 1),
                Atom::BlockIdx(axis) => Interval::new(0, i64::from(launch.grid?[axis.index()]) - 1),
                Atom::BlockDim(axis) => Interval::point(i64::from(launch.block[axis.index()])),
                Atom::GridDim(axis) => Interval::point(i64::from(launch.grid?[axis.index()])),
                Atom::Param(name) => Interval::point(*launch.params.get(name)?),
                Atom::Len(_) => Interval::point(SLICE_ELEMENTS),
                Atom::Load { .. } => Interval::new(0, INDEX_FILL_RANGE - 1),
                _ => return None,
            })
        };
        let range = |a: &Atom| -> Option<Interval> {
            match a {
                Atom::Iter(..) => Some(Interval::new(0, iteration_bound(a, &access.guards, &base)?)),
                other => base(other),
            }
        };
        let extent = bounds(&access.address, &range);
        let entry = needs.entry(access.array.clone()).or_insert(BufferNeed {
            bytes: 256,
            unbounded: None,
            index_array: false,
            accessed: true,
        });
        match extent {
            Some(i) if i.is_bounded() && i.lo >= 0 => {
                let end = (i.hi as u64).saturating_add(access.width).next_multiple_of(256);
                entry.bytes = entry.bytes.max(end);
            }
            Some(i) if i.is_bounded() => {
                entry.unbounded = Some(format!(
                    "`{}[{}]` may fall before the start of the array",
                    access.array, access.index_text
                ));
            }
            _ => {
                entry.unbounded = Some(format!(
                    "the extent of `{}[{}]` could not be bounded",
                    access.array, access.index_text
                ));
            }
        }
    }
    for need in needs.values_mut() {
        if need.unbounded.is_some() {
            need.bytes = need.bytes.max(UNBOUNDED_BYTES);
        }
    }
    for array in index_arrays {
        if let Some(need) = needs.get_mut(&array) {
            need.index_array = true;
        }
    }
    needs
}
