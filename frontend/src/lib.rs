//! Rust semantics for kernel-lint: what a name, a call or a method names, what type a value
//! has, how a type is laid out on the device and what a constant is worth, answered by
//! rust-analyzer's semantic model over the workspace the tool read.
//!
//! One entry point, [`Frontend`]: load a [`Workspace`] (files and crate graph, in memory),
//! replace a file's text after an edit, and ask about the code at a byte range of a file.
//! Proc macros are not expanded: CubeCL's `#[cube]` and rust-gpu's `#[spirv]` functions are
//! read as written. `macro_rules!` macros are expanded.

mod core;
mod load;
mod query;

pub use load::{CfgAtom, CrateRoot, SourceText, Workspace};
pub use query::{AdtLayout, Callee, Expansion, FieldLayout, TypeFacts, TypeLayout, Written};

use ra_ap_base_db::FileChange;
use ra_ap_ide_db::ChangeWithProcMacros;
use std::ops::Range;

/// A workspace loaded into rust-analyzer's database.
pub struct Frontend {
    loaded: load::Loaded,
}

impl Frontend {
    /// Loads the files and crates of a workspace with the bundled `core`. Nothing is read from
    /// disk and no process is started.
    pub fn load(workspace: &Workspace) -> Frontend {
        Frontend {
            loaded: load::load(workspace),
        }
    }

    /// Replaces the text of file `file` (an index into the loaded files); what depended on
    /// it is computed again when next asked.
    pub fn set_text(&mut self, file: usize, text: &str) {
        let Some(id) = self.loaded.files.get(file).copied() else {
            return;
        };
        let mut change = FileChange::default();
        change.change_file(id, Some(text.to_string()));
        self.loaded.db.apply_change(ChangeWithProcMacros {
            source_change: change,
            proc_macros: None,
        });
    }

    /// The method a method call covering `range` of `file` calls: through `&self`, on
    /// wrapper types, trait methods and generic helpers alike.
    pub fn method_call(&self, file: usize, range: Range<usize>) -> Option<Callee> {
        self.loaded.method_call(file, range)
    }

    /// The function a call of a path (`Buf::new(..)`, `T::zero()`, `f::<f32>(..)`) covering
    /// `range` of `file` names.
    pub fn path_call(&self, file: usize, range: Range<usize>) -> Option<Callee> {
        self.loaded.path_call(file, range)
    }

    /// The types that implement the trait a path covering `range` of `file` names, by name;
    /// `None` when it names no trait or a blanket impl covers every type.
    pub fn implementors(&self, file: usize, range: Range<usize>) -> Option<Vec<String>> {
        self.loaded.implementors(file, range)
    }

    /// The type of the smallest expression covering `range` of `file`; `None` when it is not
    /// known.
    pub fn expr_type(&self, file: usize, range: Range<usize>) -> Option<TypeFacts> {
        self.loaded.expr_type(file, range)
    }

    /// The type a pattern or parameter covering `range` of `file` binds.
    pub fn binding_type(&self, file: usize, range: Range<usize>) -> Option<TypeFacts> {
        self.loaded.binding_type(file, range)
    }

    /// The integer value of the constant item at `range` of `file`, or of the constant a
    /// path there names.
    pub fn const_value(&self, file: usize, range: Range<usize>) -> Option<i128> {
        self.loaded.const_value(file, range)
    }

    /// The layout of what the parameter or binding at `range` of `file` points to (a slice's
    /// element, a reference's or raw pointer's target), or of its value.
    pub fn pointee_layout(&self, file: usize, range: Range<usize>) -> Option<TypeLayout> {
        self.loaded.pointee_layout(file, range)
    }

    /// The code the `macro_rules!` call at `range` of `file` expands to (tokens separated by
    /// spaces), when it is one that expands.
    pub fn expand_macro(&self, file: usize, range: Range<usize>) -> Option<Expansion> {
        self.loaded.expand_macro(file, range)
    }

    /// The device layout of the struct, union or enum defined at `range` of `file`.
    pub fn adt_layout(&self, file: usize, range: Range<usize>) -> Option<AdtLayout> {
        self.loaded.adt_layout(file, range)
    }
}

#[cfg(test)]
mod tests;
