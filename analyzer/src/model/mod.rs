//! The kernel model: which functions are kernels, what their parameters are, how the types they
//! touch are laid out in memory, and the launch they run under.

pub mod calls;
pub mod comments;
pub mod kernel;
pub mod launch;
pub mod layout;

use calls::Functions;
use layout::Layouts;

/// What a file defines that its kernels use: type layouts, constants and helper functions,
/// collected once per file.
#[derive(Debug, Default)]
pub struct FileItems {
    /// Struct layouts and integer constants.
    pub layouts: Layouts,
    /// Free functions and their call graph.
    pub functions: Functions,
}

impl FileItems {
    /// Collects the items of a parsed file.
    pub fn collect(syntax: &syn::File) -> FileItems {
        FileItems {
            layouts: Layouts::collect(syntax),
            functions: Functions::collect(syntax),
        }
    }
}
