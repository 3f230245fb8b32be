//! One lint per file.

pub mod kl001_strided_access;
pub mod kl002_array_of_structs_access;
pub mod kl003_misaligned_access;
pub mod kl004_transposed_access;
pub mod kl005_data_dependent_gather;
pub mod kl006_unanalyzable_index;
