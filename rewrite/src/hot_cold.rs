//! Hot/cold split: when the kernels use only some fields of a struct, those fields become one
//! array each (the hot part, what the kernels are given) and the fields no kernel uses stay
//! together in an array of structs the host keeps (the cold part). The kernels' code is the
//! structure-of-arrays rewrite's; the host's buffers differ.

use crate::draft::{Declined, Draft};
use crate::soa::{self, Layout};
use crate::workspace::Workspace;
use kernel_lint_analyzer::{AccessReport, KernelReport};

/// The hot/cold rewrite of the array an access reads a field of; `None` when every field is
/// used by a kernel, some kernel that takes the struct is not rewritten with this one, or the
/// kernel takes slices (one slice per used field is already the structure of arrays).
pub fn draft(
    ws: &Workspace<'_>,
    path: &str,
    kernel: &KernelReport,
    access: &AccessReport,
) -> Option<Result<Draft, Declined>> {
    match soa::draft_with(ws, path, kernel, access, Layout::HotCold) {
        Ok(Some(draft)) => Some(Ok(draft)),
        Ok(None) => None,
        // The structure of arrays says why the kernel's shape is not followed.
        Err(_) => None,
    }
}
