//! The toolchain a workspace pins (`rust-toolchain.toml`, `rust-toolchain`), for a clear error
//! when `cargo metadata` fails because rustup does not have it.

use crate::error::CliError;
use std::path::Path;

/// The toolchain files rustup reads, in the order it prefers them within one folder.
const FILES: [&str; 2] = ["rust-toolchain", "rust-toolchain.toml"];

/// The channel pinned in the first of these folders (or their ancestors) that has a toolchain
/// file.
pub fn pinned<'a>(starts: impl IntoIterator<Item = &'a Path>) -> Option<String> {
    starts.into_iter().find_map(|start| {
        start.ancestors().find_map(|dir| {
            FILES.iter().find_map(|name| {
                let text = std::fs::read_to_string(dir.join(name)).ok()?;
                channel_of(&text)
            })
        })
    })
}

/// The channel of a toolchain file: `[toolchain] channel = "..."`, or the one-line legacy form
/// of `rust-toolchain`.
pub fn channel_of(text: &str) -> Option<String> {
    if let Ok(table) = text.parse::<toml::Table>() {
        return table
            .get("toolchain")
            .and_then(|t| t.get("channel"))
            .and_then(|c| c.as_str())
            .map(str::to_string);
    }
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    let plain = line
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'));
    plain.then(|| line.to_string())
}

/// The toolchain rustup's error says is not installed (`toolchain 'nightly-...' is not
/// installed`), if it says so.
pub fn named_in_error(text: &str) -> Option<String> {
    ["is not installed", "is not installable"].iter().find_map(|tail| {
        let end = text.find(&format!("' {tail}"))?;
        let start = text[..end].rfind("toolchain '")? + "toolchain '".len();
        Some(text[start..end].to_string())
    })
}

/// The error for a failed `cargo metadata`: the missing toolchain and what to do instead when
/// cargo's error is about the toolchain the workspace pins, else cargo's own words.
pub fn metadata_error(cargo_error: &str, pinned: Option<&str>) -> CliError {
    let named = named_in_error(cargo_error);
    let about_pinned = pinned.is_some_and(|p| cargo_error.contains(p) && cargo_error.contains("toolchain"));
    match (pinned, named) {
        (Some(pinned), Some(_)) => CliError::ToolchainNotInstalled {
            toolchain: pinned.to_string(),
        },
        (Some(pinned), None) if about_pinned => CliError::ToolchainNotInstalled {
            toolchain: pinned.to_string(),
        },
        (None, Some(named)) => CliError::ToolchainNotInstalled { toolchain: named },
        _ => CliError::Workspace(format!("cannot read the cargo workspace: {}", cargo_error.trim_end())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUSTUP_ERROR: &str = "`cargo metadata` exited with an error: error: toolchain \
        'nightly-1999-01-01-x86_64-unknown-linux-gnu' is not installed\n\
        help: run `rustup toolchain install` to install it\n";

    #[test]
    fn toolchain_files_in_both_forms() {
        assert_eq!(
            channel_of("[toolchain]\nchannel = \"nightly-2024-05-01\"\ncomponents = [\"rustfmt\"]\n").as_deref(),
            Some("nightly-2024-05-01")
        );
        assert_eq!(
            channel_of("nightly-2024-05-01\n").as_deref(),
            Some("nightly-2024-05-01")
        );
        assert_eq!(channel_of("1.79.0").as_deref(), Some("1.79.0"));
        assert_eq!(channel_of("[toolchain]\npath = \"/opt/rust\"\n"), None);
        assert_eq!(channel_of(""), None);
    }

    #[test]
    fn the_toolchain_is_read_from_the_error() {
        assert_eq!(
            named_in_error(RUSTUP_ERROR).as_deref(),
            Some("nightly-1999-01-01-x86_64-unknown-linux-gnu")
        );
        assert_eq!(
            named_in_error("error: override toolchain 'x' is not installable").as_deref(),
            Some("x")
        );
        assert_eq!(named_in_error("error: could not find `Cargo.toml`"), None);
    }

    #[test]
    fn the_message_names_the_pinned_toolchain_and_the_ways_out() {
        let expected = "the workspace pins toolchain `nightly-1999-01-01`, which is not installed: \
                        run `cargo +stable kernel-lint` or pass the source paths (`cargo kernel-lint check src/`)";
        assert_eq!(
            metadata_error(RUSTUP_ERROR, Some("nightly-1999-01-01")).to_string(),
            expected
        );
        // Without a toolchain file in sight, the error's own name is used.
        assert!(metadata_error(RUSTUP_ERROR, None)
            .to_string()
            .starts_with("the workspace pins toolchain `nightly-1999-01-01-x86_64-unknown-linux-gnu`"));
        // A failure that mentions the pinned toolchain in other words.
        let other = "error: could not download toolchain nightly-1999-01-01: no such release";
        assert_eq!(metadata_error(other, Some("nightly-1999-01-01")).to_string(), expected);
    }

    #[test]
    fn other_failures_keep_cargos_words() {
        let err = metadata_error(
            "error: could not find `Cargo.toml` in `/x` or any parent directory\n",
            Some("stable"),
        );
        assert_eq!(
            err.to_string(),
            "cannot read the cargo workspace: error: could not find `Cargo.toml` in `/x` or any parent directory"
        );
    }

    #[test]
    fn the_nearest_toolchain_file_is_found() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let nested = dir.path().join("crates/k");
        std::fs::create_dir_all(&nested).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(
            dir.path().join("rust-toolchain.toml"),
            "[toolchain]\nchannel = \"nightly-1999-01-01\"\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(pinned([nested.as_path()]).as_deref(), Some("nightly-1999-01-01"));
        std::fs::write(nested.join("rust-toolchain"), "1.80.0\n").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(pinned([nested.as_path()]).as_deref(), Some("1.80.0"));
    }
}
