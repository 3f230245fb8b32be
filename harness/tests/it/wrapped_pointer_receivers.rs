//! A trait method implemented for several types is the one of its receiver's type where that
//! type is reached through an element of a `DevicePointer<T>` field (`&mut *self.entries
//! .as_mut_ptr().add(i)` in an `unsafe` block) or through the payload of an
//! `if let Some(b) = table.find_mut(..)` binding.
//!
//! Kernels in the shape of dimforge/sparkl (29cebe6e29bae35d9cc980e04db53ebee3230ade),
//! `src_kernels/cuda/{hashmap,sort}.rs` with `src_kernels/cuda/atomic.rs`.

use kernel_lint_analyzer::{LaunchPlan, ModuleSource, SourceFile};
use kernel_lint_harness::driver::{self, Sources};

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx};

fn emit() -> driver::Emitted {
    let file = |path: &str, text: &str, module: &[&str]| ModuleSource {
        source: SourceFile::new(path, text),
        module: module.iter().map(|m| m.to_string()).collect(),
        also_in: Vec::new(),
    };
    let sources = Sources {
        inputs: vec![
            file("src/kernels.rs", KERNELS, &["grid", "kernels"]),
            file("src/table.rs", TABLE, &["grid", "table"]),
            file("src/bumps.rs", BUMPS, &["grid", "bumps"]),
            file(
                "src/lib.rs",
                "pub mod kernels;\npub mod table;\npub mod bumps;\npub use cust_core::DevicePointer;\n",
                &["grid"],
            ),
        ],
        reported: 1,
        uses: Vec::new(),
        features: Default::default(),
    };
    driver::emit_sources(&sources, &LaunchPlan::default())
}

const BUMPS: &str = r#"
pub trait Bump {
    unsafe fn bump(&mut self, by: Self) -> Self;
}

impl Bump for u32 {
    unsafe fn bump(&mut self, by: Self) -> Self {
        let before = *self;
        *self = before + by * 3;
        before
    }
}

impl Bump for u64 {
    unsafe fn bump(&mut self, by: Self) -> Self {
        let before = *self;
        *self = before + by * 5;
        before
    }
}
"#;

const TABLE: &str = r#"
use crate::bumps::Bump;
use crate::DevicePointer;

#[derive(Copy, Clone)]
#[repr(C)]
pub struct SlotKey(pub u64);

#[derive(Copy, Clone)]
#[repr(C)]
pub struct Slot {
    pub key: SlotKey,
    pub hits: u32,
}

#[derive(Copy, Clone)]
#[repr(C)]
pub struct SlotTable {
    entries: DevicePointer<Slot>,
    capacity: u32,
}

impl SlotTable {
    pub fn claim(&mut self, key: SlotKey) {
        let slot = key.0 & (self.capacity as u64 - 1);
        let entry = unsafe { &mut *self.entries.as_mut_ptr().add(slot as usize) };
        unsafe { entry.key.0.bump(key.0) };
    }

    pub fn lookup(&self, key: SlotKey) -> Option<u64> {
        if key.0 < self.capacity as u64 {
            Some(key.0)
        } else {
            None
        }
    }

    pub unsafe fn find_mut(&mut self, key: SlotKey) -> Option<&mut Slot> {
        let at = self.lookup(key)?;
        Some(&mut *self.entries.as_mut_ptr().add(at as usize))
    }
}
"#;

const KERNELS: &str = r#"
use cuda_std::thread;
use crate::bumps::Bump;
use crate::table::{Slot, SlotKey, SlotTable};

#[kernel]
pub unsafe fn claim_keys(keys: *const u64, n: u32, mut table: SlotTable) {
    let id = thread::index_1d();
    if id < n {
        table.claim(SlotKey(*keys.add(id as usize)));
    }
}


// The payload's type is read where the kernel is, so the kernel's module names `Slot`.
#[kernel]
pub unsafe fn count_hits(keys: *const u64, mut table: SlotTable) {
    let id = thread::index_1d();
    let key = SlotKey(*keys.add(id as usize));
    if let Some(slot) = table.find_mut(key) {
        slot.hits.bump(1)
    }
}
"#;

#[test]
fn an_element_of_a_wrapped_pointer_field_picks_the_method_of_its_type() {
    let emitted = emit();
    assert!(emitted.errors.is_empty(), "{:?}", emitted.errors);
    assert_every_kernel_lowered(&emitted);
    let program = &emitted.program;
    assert!(program.contains("u64_bump("), "{program}");
    assert!(program.contains("by * 5"), "{program}");
    check_with_gxx(program);
}

#[test]
fn an_if_let_payload_picks_the_method_of_its_type() {
    let emitted = emit();
    assert_every_kernel_lowered(&emitted);
    let program = &emitted.program;
    let kernel = support::kernel(program, "count_hits");
    assert!(kernel.contains("u32_bump(slot->hits, 1)"), "{kernel}");
    assert!(program.contains("by * 3"), "{program}");
    check_with_gxx(program);
}
