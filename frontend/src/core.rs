//! The `core` library every crate is loaded with. The toolchain's own library source is not
//! read: it is often not installed (it is a separate rustup component, and fetching it would
//! reach the network), and loading it costs seconds and hundreds of megabytes per workspace.
//! The bundled one answers the same for what kernels use, offline and on every machine alike.

/// The text of the bundled `core` (`frontend/core/lib.rs`): rust-analyzer's test `minicore`
/// with the flags `add asm assert as_mut as_ref bool_impl builtin_impls borrow borrow_mut cell
/// clone coerce_unsized copy default deref_mut deref derive discriminant drop eq fmt fn from
/// hash index infallible int_impl iterator iterators manually_drop matches non_null option ord
/// panic phantom_data pin range result send size_of sized slice str sync transmute try tuple
/// unary_ops unpin unsize todo unimplemented addr_of offset_of float_consts write column concat
/// include env receiver dispatch_from_dyn`, and the additions marked `kernel-lint:`.
pub const CORE: &str = include_str!("../core/lib.rs");
