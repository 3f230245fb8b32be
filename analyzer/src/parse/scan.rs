//! What a file may hold, read from its bytes without parsing: whether it can hold a kernel
//! entry point, a launch site or a launch hint, which names it defines and which it writes.
//! The program parses up front only the files that can hold an entry point and those whose
//! names such files reach (see [`needed`]); the scan errs on the side of parsing, since a file
//! taken for needed only costs a parse.

use std::cell::RefCell;
use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{Hash, Hasher};
use std::rc::Rc;

/// Text that starts every form the analyzer recognizes as a kernel entry point, a launch,
/// a launch configuration or a `kernel-lint:` comment: `#[kernel]`, `cuda_std::kernel`,
/// `extern "ptx-kernel"` / `"gpu-kernel"`, `#[spirv(..)]`, `#[cube(launch)]`, `launch!`,
/// `.launch(..)`, `launch_builder`, `LaunchConfig`, cuda_min's `Param`, cuda-oxide's
/// `#[cuda_module]`.
const ENTRY_MARKERS: &[&str] = &["kernel", "launch", "Launch", "spirv", "cube", "Param", "cuda_module"];

/// Keywords whose next word is a name the item defines.
const DEFINING: &[&str] = &[
    "fn", "struct", "enum", "union", "type", "const", "static", "trait", "mod",
];

/// Words skipped between a defining keyword and the name (`static mut X`, `const fn f`).
const MODIFIERS: &[&str] = &["mut", "fn", "unsafe", "async", "extern", "r"];

/// A file's bytes, read for names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileScan {
    /// It may hold a kernel entry point, a launch site or a `kernel-lint:` comment.
    pub entry: bool,
    /// Names it may define: items, methods, `extern crate` names, and every word of its `use`
    /// items (an import or re-export defines the name in its module).
    pub defines: HashSet<String>,
    /// Words it writes anywhere (comments and strings included), except the names of the
    /// modules it declares with `mod name`: declaring a module reaches none of its items.
    pub mentions: HashSet<String>,
}

/// Scans one file's text.
pub fn scan(text: &str) -> FileScan {
    let mut out = FileScan {
        entry: ENTRY_MARKERS.iter().any(|m| text.contains(m)),
        ..FileScan::default()
    };
    let words: Vec<(usize, &str)> = words(text).collect();
    let mut i = 0;
    while i < words.len() {
        let (at, word) = words[i];
        // `'static` is a lifetime, not an item.
        let lifetime = text[..at].ends_with('\'');
        if word == "use" {
            // A `use` item ends at its `;`; every path it writes is a mention, and it defines
            // the names it imports (a path's last segment or its rename).
            let end = text[at..].find(';').map_or(text.len(), |e| at + e);
            out.defines.extend(imported_names(&text[at + word.len()..end]));
            while i < words.len() && words[i].0 < end {
                out.mentions.insert(words[i].1.to_string());
                i += 1;
            }
            continue;
        }
        if word == "extern" && words.get(i + 1).is_some_and(|w| w.1 == "crate") {
            // `extern crate a as b;` defines both names.
            let end = text[at..].find(';').map_or(text.len(), |e| at + e);
            while i < words.len() && words[i].0 < end {
                out.defines.insert(words[i].1.to_string());
                out.mentions.insert(words[i].1.to_string());
                i += 1;
            }
            continue;
        }
        out.mentions.insert(word.to_string());
        i += 1;
        if !DEFINING.contains(&word) || lifetime {
            continue;
        }
        while i < words.len() && MODIFIERS.contains(&words[i].1) {
            out.mentions.insert(words[i].1.to_string());
            i += 1;
        }
        if let Some(&(_, name)) = words.get(i) {
            out.defines.insert(name.to_string());
            // A declared module's name is no mention: its items are reached only by a path or
            // a `use` that writes it again.
            if word != "mod" {
                out.mentions.insert(name.to_string());
            }
            i += 1;
        }
    }
    out
}

/// Texts scanned lately on this thread: a proof scans the file it changes, then the change
/// from the previous text to it is read from both scans, the previous being the last proof's.
const RECENT_SCANS: usize = 8;

thread_local! {
    static RECENT: RefCell<VecDeque<(u64, Rc<FileScan>)>> = const { RefCell::new(VecDeque::new()) };
}

/// Like [`scan`], shared with the last few calls on this thread for the same text.
pub fn scan_recent(text: &str) -> Rc<FileScan> {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    let key = hasher.finish();
    if let Some(found) = RECENT.with(|r| r.borrow().iter().find(|(k, _)| *k == key).map(|(_, s)| s.clone())) {
        return found;
    }
    let scanned = Rc::new(scan(text));
    RECENT.with(|r| {
        let mut recent = r.borrow_mut();
        if recent.len() == RECENT_SCANS {
            recent.pop_front();
        }
        recent.push_back((key, scanned.clone()));
    });
    scanned
}

/// The names a `use` tree (the text after `use`) imports: each leaf of the tree, or its
/// rename after `as`. A `self` leaf imports the path it ends, so the tree's every word is
/// taken then, as it is when the text is not a plain tree (a macro, say).
fn imported_names(tree: &str) -> Vec<String> {
    let all = || words(tree).map(|(_, w)| w.to_string()).collect();
    let plain = tree
        .chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c.is_whitespace() || ":{},*".contains(c));
    if !plain {
        return all();
    }
    let mut names = Vec::new();
    let found: Vec<(usize, &str)> = words(tree).collect();
    for (n, &(at, word)) in found.iter().enumerate() {
        let after = tree[at + word.len()..].trim_start();
        let renamed = found.get(n + 1).is_some_and(|&(_, next)| next == "as");
        let leaf = after.is_empty() || after.starts_with(',') || after.starts_with('}');
        if word == "self" && leaf {
            return all();
        }
        if word == "as" || renamed || word == "pub" || word == "crate" && !leaf {
            continue;
        }
        let after_as = n > 0 && found[n - 1].1 == "as";
        if leaf || after_as {
            names.push(word.to_string());
        }
    }
    names
}

/// The identifier-like words of a text, with their offsets: runs of letters, digits and `_`.
fn words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut rest = text.char_indices().peekable();
    std::iter::from_fn(move || {
        while rest.peek().is_some_and(|&(_, c)| !is_word(c)) {
            rest.next();
        }
        let &(start, _) = rest.peek()?;
        let mut end = start;
        while let Some(&(at, c)) = rest.peek() {
            if !is_word(c) {
                break;
            }
            end = at + c.len_utf8();
            rest.next();
        }
        Some((start, &text[start..end]))
    })
}

/// Which files must be parsed for the analysis to resolve every name as it would with all of
/// them parsed: those that may hold an entry point (`seeds`), then every file that defines a
/// name some needed file writes and every file of a module above a needed one, until no more
/// are reached. A file also defines its module's
/// name (the last segment of `modules[i]`) and, for a crate root, each name code uses for its
/// crate (`crate_names`). A name reaches an item only if it is written, so a file no needed
/// file names cannot change a needed file's analysis.
pub fn needed(
    scans: &[&FileScan],
    modules: &[Vec<String>],
    seeds: &[bool],
    crate_names: &[(String, String)],
) -> Vec<bool> {
    Reach::new(scans, modules, seeds, crate_names).needed
}

/// The closure of [`needed`], kept so that files can change afterwards: a changed file's
/// new names are followed from where the closure stands, not from the start.
#[derive(Debug, Default)]
pub struct Reach {
    /// The files defining each name.
    definers: HashMap<String, Vec<usize>>,
    /// The files of each module.
    by_module: HashMap<Vec<String>, Vec<usize>>,
    modules: Vec<Vec<String>>,
    needed: Vec<bool>,
    /// The words of the files not needed yet, followed once a file is.
    waiting: Vec<Option<HashSet<String>>>,
    /// The words some needed file writes, each followed once.
    seen: HashSet<String>,
}

impl Reach {
    /// The closure from `seeds` over these files (see [`needed`]).
    pub fn new(
        scans: &[&FileScan],
        modules: &[Vec<String>],
        seeds: &[bool],
        crate_names: &[(String, String)],
    ) -> Reach {
        let mut reach = Reach {
            modules: modules.to_vec(),
            needed: vec![false; scans.len()],
            waiting: scans.iter().map(|s| Some(s.mentions.clone())).collect(),
            ..Reach::default()
        };
        for (i, scan) in scans.iter().enumerate() {
            for name in &scan.defines {
                reach.definers.entry(name.clone()).or_default().push(i);
            }
            let own = modules.get(i).map_or(&[][..], Vec::as_slice);
            if let Some(last) = own.last() {
                reach.definers.entry(last.clone()).or_default().push(i);
            }
            if own.len() == 1 {
                for (name, root) in crate_names {
                    if Some(root) == own.first() {
                        reach.definers.entry(name.clone()).or_default().push(i);
                    }
                }
            }
        }
        for (i, module) in modules.iter().enumerate() {
            reach.by_module.entry(module.clone()).or_default().push(i);
        }
        let queue: Vec<usize> = (0..scans.len())
            .filter(|&i| seeds.get(i).copied().unwrap_or(true))
            .collect();
        reach.close(queue);
        reach
    }

    /// Which files are needed, in input order.
    pub fn needed(&self) -> &[bool] {
        &self.needed
    }

    /// File `file` has a new text, scanned as `scan`: its names are added to what it defined
    /// and writes before, and the closure is followed on from them. Nothing is taken away: a
    /// file needed once stays needed, which costs a parse and changes no analysis.
    pub fn change(&mut self, file: usize, scan: &FileScan) {
        if file >= self.needed.len() {
            return;
        }
        let mut queue = Vec::new();
        for name in &scan.defines {
            let definers = self.definers.entry(name.clone()).or_default();
            if !definers.contains(&file) {
                definers.push(file);
            }
            if self.seen.contains(name) && !self.needed[file] {
                queue.push(file);
            }
        }
        match &mut self.waiting[file] {
            Some(words) => words.extend(scan.mentions.iter().cloned()),
            None => self.waiting[file] = Some(scan.mentions.clone()),
        }
        if scan.entry || self.needed[file] {
            queue.push(file);
        }
        self.close(queue);
    }

    /// Marks the files of `queue` needed and follows their names and modules.
    fn close(&mut self, mut queue: Vec<usize>) {
        for &file in &queue {
            self.needed[file] = true;
        }
        while let Some(file) = queue.pop() {
            // A path resolves from the crate root down: every module above a needed one is read.
            let own = self.modules.get(file).map_or(&[][..], Vec::as_slice);
            for depth in 1..own.len() {
                for &other in self.by_module.get(&own[..depth]).map_or(&[][..], Vec::as_slice) {
                    if !self.needed[other] {
                        self.needed[other] = true;
                        queue.push(other);
                    }
                }
            }
            for word in self.waiting[file].take().unwrap_or_default() {
                if self.seen.contains(&word) {
                    continue;
                }
                for &other in self.definers.get(&word).map_or(&[][..], Vec::as_slice) {
                    if !self.needed[other] {
                        self.needed[other] = true;
                        queue.push(other);
                    }
                }
                self.seen.insert(word);
            }
        }
    }
}

/// The `use` items of a text that import with a glob (`use a::*;`), as written: a glob
/// brings in names it does not write, so a change to one cannot be followed by names.
pub fn glob_imports(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    for (at, word) in words(text) {
        if word != "use" {
            continue;
        }
        let end = text[at..].find(';').map_or(text.len(), |e| at + e);
        if text[at..end].contains('*') {
            found.push(&text[at..end]);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(path: &str) -> Vec<String> {
        path.split("::").map(String::from).collect()
    }

    #[test]
    fn entry_points_launches_and_hints_are_seen() {
        for text in [
            "#[kernel]\npub unsafe fn k() {}",
            "pub unsafe extern \"ptx-kernel\" fn k() {}",
            "fn host() { unsafe { launch!(m.k<<<1, 32, 0, s>>>()) } }",
            "fn host() { let cfg = LaunchConfig::for_num_elems(4); }",
            "#[spirv(compute(threads(64)))] pub fn main_cs() {}",
            "#[cube(launch)] fn k() {}",
            "// kernel-lint: block(32)\n",
        ] {
            assert!(scan(text).entry, "{text}");
        }
        assert!(!scan("pub struct Settings { pub names: Vec<String> }").entry);
    }

    #[test]
    fn definitions_and_mentions() {
        let s = scan("mod inner;\nuse crate::types::{Body as B, Cell};\npub static mut COUNT: u32 = 0;\nimpl Grid { pub const fn get(&self) -> u32 { helpers::at(1) } }\n");
        for name in ["inner", "B", "Cell", "COUNT", "get"] {
            assert!(s.defines.contains(name), "{name}");
        }
        // A path's segments before its last are mentions, not names the file defines; a
        // renamed import defines the rename only.
        for name in ["types", "crate", "Body"] {
            assert!(!s.defines.contains(name), "{name}");
            assert!(s.mentions.contains(name), "{name}");
        }
        let nested = scan("pub use a::{b::{C, D as E}, f, g::self};\nuse std::collections::BTreeMap;\n");
        for name in ["C", "E", "f", "g", "BTreeMap"] {
            assert!(nested.defines.contains(name), "{name}");
        }
        // `self` imports the module it ends: the whole tree is taken.
        assert!(nested.defines.contains("a"));
        let plain = scan("use std::collections::{BTreeMap, HashMap as Map};\n");
        assert_eq!(
            plain.defines,
            ["BTreeMap", "Map"]
                .into_iter()
                .map(String::from)
                .collect::<HashSet<_>>()
        );
        assert!(!s.mentions.contains("inner"));
        assert!(!scan("fn f(s: &'static str) {}").defines.contains("str"));
        for word in ["Grid", "helpers", "at", "types"] {
            assert!(s.mentions.contains(word), "{word}");
        }
    }

    #[test]
    fn the_closure_follows_names_across_files() {
        let scans = [
            scan("#[kernel]\npub unsafe fn k(p: *mut Body) { let v = helpers::at(0); }"),
            scan("pub fn at(i: u32) -> usize { i as usize }"),
            scan("pub struct Body { pub x: Vec3 }"),
            scan("pub struct Vec3 { pub x: f32 }"),
            scan("pub struct Settings { pub verbose: bool }"),
            scan("pub mod helpers;\npub mod types;\npub mod math;\npub mod settings;"),
        ];
        let modules = [
            module("c::k"),
            module("c::helpers"),
            module("c::types"),
            module("c::math"),
            module("c::settings"),
            module("c"),
        ];
        let seeds = [true, false, false, false, false, false];
        let scans: Vec<&FileScan> = scans.iter().collect();
        // The crate root is read for the paths that start there; `settings` is named by none.
        assert_eq!(
            needed(&scans, &modules, &seeds, &[]),
            vec![true, true, true, true, false, true]
        );
    }

    #[test]
    fn a_changed_file_s_new_names_are_followed_and_none_taken_back() {
        let texts = [
            "#[kernel]\npub unsafe fn k(a: &[f32]) { let v = a[0]; }",
            "pub fn at(i: u32) -> usize { i as usize }",
            "pub struct Settings { pub verbose: bool }",
        ];
        let scans: Vec<FileScan> = texts.iter().map(|t| scan(t)).collect();
        let scans: Vec<&FileScan> = scans.iter().collect();
        let modules = [module("c"), module("c::helpers"), module("c::settings")];
        let mut reach = Reach::new(&scans, &modules, &[true, false, false], &[]);
        assert_eq!(reach.needed(), &[true, false, false]);
        // The kernel now calls `at`: its file is reached, and the closure goes on from there.
        reach.change(
            0,
            &scan("#[kernel]\npub unsafe fn k(a: &[f32]) { let v = a[helpers::at(0)]; }"),
        );
        assert_eq!(reach.needed(), &[true, true, false]);
        // `at` now names `Settings`: reached through the changed helper.
        reach.change(
            1,
            &scan("pub fn at(i: u32) -> usize { Settings::default(); i as usize }"),
        );
        assert_eq!(reach.needed(), &[true, true, true]);
        // Taking the call back out keeps the files: a needed file costs a parse, nothing else.
        reach.change(0, &scan(texts[0]));
        assert_eq!(reach.needed(), &[true, true, true]);
        // A file that starts to define a name a needed file wrote before is reached too.
        let mut reach = Reach::new(&scans, &modules, &[true, false, false], &[]);
        reach.change(2, &scan("pub fn a() {}"));
        assert_eq!(reach.needed(), &[true, false, true]);
    }
}
