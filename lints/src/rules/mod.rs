//! One lint per file, declared once here: this list makes the modules, the registry
//! [`LINTS`](crate::LINTS), the `rule` table and the README table (checked by a test).

macro_rules! lints {
    ($($module:ident::$lint:ident),+ $(,)?) => {
        $(pub mod $module;)+

        /// Every lint, in code order.
        pub static LINTS: &[&crate::Lint] = &[$(&$module::$lint),+];
    };
}

lints! {
    kl001_strided_access::STRIDED_ACCESS,
    kl002_array_of_structs_access::ARRAY_OF_STRUCTS_ACCESS,
    kl003_misaligned_access::MISALIGNED_ACCESS,
    kl004_transposed_access::TRANSPOSED_ACCESS,
    kl005_data_dependent_gather::DATA_DEPENDENT_GATHER,
    kl006_unanalyzable_index::UNANALYZABLE_INDEX,
    kl007_unfollowed_construct::UNFOLLOWED_CONSTRUCT,
    kl008_unused_suppression::UNUSED_SUPPRESSION,
    kl009_shared_bank_conflict::SHARED_BANK_CONFLICT,
}
