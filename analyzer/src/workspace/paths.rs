//! Path spelling: lexical normalization, identity, display, and workspace member globs.

use std::path::{Component, Path, PathBuf};

/// The path with `.` dropped and `..` folded into the component before it, without touching disk.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                // `/..` is `/`.
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// The path made absolute against `base`.
pub fn absolute(path: &Path, base: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

/// The identity of a file: symlinks resolved when it exists, else its lexical normalization.
pub fn identity(path: &Path, base: &Path) -> PathBuf {
    let path = absolute(path, base);
    std::fs::canonicalize(&path).unwrap_or_else(|_| normalize(&path))
}

/// How a path is printed: relative to `base` with `/` separators when under it, else absolute.
pub fn display(path: &Path, base: &Path) -> String {
    match path.strip_prefix(base) {
        Ok(relative) if relative.as_os_str().is_empty() => ".".to_string(),
        Ok(relative) => relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => path.display().to_string(),
    }
}

/// Whether a member pattern has glob wildcards.
pub fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '['])
}

/// The directories a member pattern names (`*`, `?`, `[..]`, `**`), sorted; a plain pattern names itself.
pub fn expand_member(root: &Path, pattern: &str) -> Vec<PathBuf> {
    if !is_glob(pattern) {
        return vec![normalize(&root.join(pattern))];
    }
    let mut current = vec![root.to_path_buf()];
    for part in pattern.split(['/', '\\']) {
        let mut next = Vec::new();
        match part {
            "" | "." => continue,
            ".." => next.extend(current.iter().map(|dir| dir.join(".."))),
            "**" => {
                for dir in &current {
                    descendants(dir, &mut next, 0);
                }
            }
            part if is_glob(part) => {
                let pattern: Vec<char> = part.chars().collect();
                for dir in &current {
                    for (name, path) in sorted_subdirs(dir) {
                        let name: Vec<char> = name.chars().collect();
                        if wildcard_match(&pattern, &name) {
                            next.push(path);
                        }
                    }
                }
            }
            part => next.extend(current.iter().map(|dir| dir.join(part))),
        }
        current = next;
    }
    let mut out: Vec<PathBuf> = Vec::new();
    for path in current.into_iter().filter(|p| p.is_dir()).map(|p| normalize(&p)) {
        if !out.contains(&path) {
            out.push(path);
        }
    }
    out
}

/// Deepest directory nesting `**` descends into.
const GLOB_DEPTH: usize = 32;

fn descendants(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    out.push(dir.to_path_buf());
    if depth >= GLOB_DEPTH {
        return;
    }
    for (_, path) in sorted_subdirs(dir) {
        descendants(&path, out, depth + 1);
    }
}

/// Subdirectories by name; symlinked directories are left out so that a link loop cannot recur.
pub fn sorted_subdirs(dir: &Path) -> Vec<(String, PathBuf)> {
    sorted_entries(dir)
        .into_iter()
        .filter(|(_, _, kind)| *kind == EntryKind::Dir)
        .map(|(name, path, _)| (name, path))
        .collect()
}

/// What a directory entry is, without following a symlinked directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A directory (not through a symlink).
    Dir,
    /// A file, or a symlink to one.
    File,
    /// Anything else.
    Other,
}

/// A directory's entries sorted by name; an unreadable directory has none.
pub fn sorted_entries(dir: &Path) -> Vec<(String, PathBuf, EntryKind)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, PathBuf, EntryKind)> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let path = entry.path();
            let kind = match entry.file_type() {
                Ok(t) if t.is_dir() => EntryKind::Dir,
                Ok(_) if path.is_file() => EntryKind::File,
                _ => EntryKind::Other,
            };
            Some((name, path, kind))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Matches one path component against a pattern of `*`, `?` and `[...]` classes (`!`/`^` negate).
pub fn wildcard_match(pattern: &[char], name: &[char]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some(('*', rest)) => (0..=name.len()).any(|skip| wildcard_match(rest, &name[skip..])),
        Some(('?', rest)) => !name.is_empty() && wildcard_match(rest, &name[1..]),
        Some(('[', rest)) => {
            let Some((&first, tail)) = name.split_first() else {
                return false;
            };
            match class_match(rest, first) {
                Some((matched, after)) => matched && wildcard_match(after, tail),
                // An unclosed `[` is a literal.
                None => first == '[' && wildcard_match(rest, tail),
            }
        }
        Some((&literal, rest)) => name.first() == Some(&literal) && wildcard_match(rest, &name[1..]),
    }
}

/// Whether `c` is in the class that starts `pattern` (after its `[`), and the pattern after `]`.
fn class_match(pattern: &[char], c: char) -> Option<(bool, &[char])> {
    let (negated, mut rest) = match pattern.split_first() {
        Some(('!' | '^', rest)) => (true, rest),
        _ => (false, pattern),
    };
    let mut matched = false;
    let mut first = true;
    loop {
        match rest {
            [']', after @ ..] if !first => return Some((matched != negated, after)),
            [low, '-', high, after @ ..] if *high != ']' => {
                matched |= *low <= c && c <= *high;
                rest = after;
            }
            [single, after @ ..] => {
                matched |= *single == c;
                rest = after;
            }
            [] => return None,
        }
        first = false;
    }
}

/// A path as the user gave it, cleaned lexically (`./a/../b.rs` is `b.rs`), with `/` separators.
pub fn as_given(path: &Path) -> String {
    normalize(path)
        .components()
        .map(|c| match c {
            Component::RootDir => String::new(),
            other => other.as_os_str().to_string_lossy().into_owned(),
        })
        .collect::<Vec<_>>()
        .join("/")
}
