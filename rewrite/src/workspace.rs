//! The files an analysis read, kept so that a rewrite can be analyzed the same way.

use crate::draft::Declined;
use crate::edits::Splice;
use kernel_lint_analyzer::workspace::CrateFeatures;
use kernel_lint_analyzer::{
    analyze_variant, BaseInputs, CrateUse, FileError, FileReport, KernelReport, LaunchPlan, ModulePath, ModuleSource,
    SourceFile,
};
use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};

/// Every file of a run, with the module it is and the launch plan it was analyzed under.
pub struct Workspace<'a> {
    /// The files, in the order the analysis read them.
    pub files: Vec<(SourceFile, ModulePath, &'a LaunchPlan)>,
    /// Which crates each crate uses.
    pub uses: &'a [CrateUse],
    /// The features each crate is compiled with.
    pub features: &'a CrateFeatures,
    /// How often each word occurs in all the files, counted once when first needed.
    words: OnceLock<HashMap<String, usize>>,
    /// Which files write and which define each name, read once when first needed.
    names: OnceLock<Names>,
    /// Per file, the kernels a proof in it may leave out (see [`Workspace::proof_copy`]).
    separable: Mutex<HashMap<String, Vec<Separable>>>,
    /// The files as the analysis takes them, made once for the first proof, with the index
    /// of each path.
    base: OnceLock<(Arc<BaseInputs>, HashMap<String, usize>)>,
    /// Tells this workspace apart from every other of the process, for what drafts remember
    /// of it.
    pub(crate) id: u64,
}

static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The files that write each name (comments and strings included) and those that may define
/// it, by index into [`Workspace::files`], in file order.
#[derive(Debug, Default)]
pub(crate) struct Names {
    mentioned: HashMap<String, Vec<usize>>,
    defined: HashMap<String, Vec<usize>>,
}

impl Names {
    /// The files that write `name`.
    pub(crate) fn mentioning(&self, name: &str) -> &[usize] {
        self.mentioned.get(name).map_or(&[], Vec::as_slice)
    }

    /// The files that may define `name` (an item, a method, an import).
    pub(crate) fn defining(&self, name: &str) -> &[usize] {
        self.defined.get(name).map_or(&[], Vec::as_slice)
    }
}

/// A kernel a proof may leave out: its name and the bytes of its item.
type Separable = (String, Range<usize>);

impl<'a> Workspace<'a> {
    /// The workspace of these files.
    pub fn new(
        files: Vec<(SourceFile, ModulePath, &'a LaunchPlan)>,
        uses: &'a [CrateUse],
        features: &'a CrateFeatures,
    ) -> Workspace<'a> {
        Workspace {
            files,
            uses,
            features,
            words: OnceLock::new(),
            names: OnceLock::new(),
            separable: Mutex::new(HashMap::new()),
            base: OnceLock::new(),
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// This workspace with its proofs analyzed from `base`, the same files as the analysis
    /// took them (in the same order), so that a proof starts from the program the analysis
    /// left on its thread.
    pub fn on(self, base: Arc<BaseInputs>) -> Self {
        let positions = (self.files.iter().enumerate())
            .map(|(i, (source, ..))| (source.path.clone(), i))
            .collect();
        let _ = self.base.set((base, positions));
        self
    }

    /// Which files write and which define each name, from a byte scan of every file
    /// ([`kernel_lint_analyzer::scan`]), made once.
    pub(crate) fn names(&self) -> &Names {
        self.names.get_or_init(|| {
            let mut names = Names::default();
            for (i, (source, ..)) in self.files.iter().enumerate() {
                let scan = kernel_lint_analyzer::scan(&source.text);
                for word in scan.mentions {
                    names.mentioned.entry(word).or_default().push(i);
                }
                for word in scan.defines {
                    names.defined.entry(word).or_default().push(i);
                }
            }
            names
        })
    }

    /// The text of a file, by its printed path.
    pub fn text(&self, path: &str) -> Option<&str> {
        self.files
            .iter()
            .find(|(f, ..)| f.path == path)
            .map(|(f, ..)| f.text.as_str())
    }

    /// The copy of the changed files a proof analyzes: `changed` (the new texts, made by
    /// `splices` per file from the texts read), with the kernels of `report`'s file other than
    /// `kernel` blanked byte for byte where no code of the file outside their own item names
    /// them (for CubeCL, no code of any file) and no splice touches them. Such a kernel
    /// cannot change the report of `kernel`, so a proof costs its kernel, not its file. The
    /// blanked items are the file's own, unchanged, and the file read parses whole (else
    /// nothing is blanked), so the copy parses exactly when the rewritten file does.
    pub fn proof_copy(
        &self,
        mut changed: HashMap<String, String>,
        splices: &HashMap<String, Vec<Splice>>,
        report: &FileReport,
        kernel: &str,
    ) -> HashMap<String, String> {
        let path = report.path.as_str();
        let blank: Vec<Range<usize>> = self
            .separable(report)
            .into_iter()
            .filter(|(name, _)| name != kernel)
            .filter_map(|(_, item)| moved(&item, splices.get(path).map_or(&[][..], Vec::as_slice)))
            .collect();
        if blank.is_empty() {
            return changed;
        }
        let text = match changed.get(path) {
            Some(text) => blanked(text, &blank),
            None => match self.text(path) {
                Some(text) => blanked(text, &blank),
                None => return changed,
            },
        };
        changed.insert(path.to_string(), text);
        changed
    }

    /// The report of the kernels named `kernel` in file `path` with some files' text replaced
    /// (every file is read for its names; only that file's kernels of that name are analyzed),
    /// or its error when it no longer parses; `None` when there is no such file.
    pub fn reanalyze_kernel(
        &self,
        changed: &HashMap<String, String>,
        path: &str,
        kernel: &str,
    ) -> Option<Result<FileReport, FileError>> {
        self.analyze_changed(changed, &[path], Some(kernel)).0.remove(path)
    }

    /// The `nth` report of kernel `name` of file `path` (the same launch of the kernel) once
    /// the files of `changed` have their new text: only that kernel is analyzed again. A
    /// changed file that does not parse declines the rewrite with syn's message, the parse
    /// that analysis made telling which (syn is asked again only for the message).
    pub(crate) fn reanalyzed_kernel(
        &self,
        changed: &HashMap<String, String>,
        path: &str,
        name: &str,
        nth: usize,
    ) -> Result<KernelReport, Declined> {
        let (mut reports, unparsed) = self.analyze_changed(changed, &[path], Some(name));
        for file in unparsed {
            if let Err(err) = syn::parse_file(&changed[&file]) {
                return Err(Declined::new(format!(
                    "the rewritten `{file}` does not parse ({err}): the rewrite is not offered"
                )));
            }
        }
        match reports.remove(path) {
            Some(Ok(report)) => report
                .kernels
                .into_iter()
                .filter(|k| k.name == name)
                .nth(nth)
                .ok_or_else(|| Declined::new("the rewritten kernel was not found by the analysis")),
            Some(Err(err)) => Err(Declined::new(format!(
                "the rewritten kernel is not analyzed: {}",
                err.message
            ))),
            None => Err(Declined::new("the rewritten file was not analyzed")),
        }
    }

    fn analyze_changed(
        &self,
        changed: &HashMap<String, String>,
        wanted: &[&str],
        kernel: Option<&str>,
    ) -> (HashMap<String, Result<FileReport, FileError>>, Vec<String>) {
        let (base, positions) = self.base.get_or_init(|| {
            let inputs = (self.files.iter())
                .map(|(source, module, _)| ModuleSource {
                    source: source.clone(),
                    module: module.clone(),
                    also_in: Vec::new(),
                })
                .collect();
            let plans = self.files.iter().map(|(.., plan)| (*plan).clone()).collect();
            let positions = (self.files.iter().enumerate())
                .map(|(i, (source, ..))| (source.path.clone(), i))
                .collect();
            (BaseInputs::new(inputs, self.uses, self.features, plans), positions)
        });
        let changed: Vec<(usize, SourceFile)> = changed
            .iter()
            .filter_map(|(path, text)| Some((*positions.get(path)?, SourceFile::new(path.clone(), text.clone()))))
            .collect();
        // Only the wanted files are analyzed; the others are read for their names.
        let (indices, paths): (Vec<usize>, Vec<String>) = wanted
            .iter()
            .filter_map(|path| Some((*positions.get(*path)?, path.to_string())))
            .unzip();
        let variant = analyze_variant(base, changed, &indices, kernel);
        let unparsed = (variant.unparsed.iter())
            .filter_map(|&i| Some(self.files.get(i)?.0.path.clone()))
            .collect();
        let reports = (variant.reports.into_iter().zip(paths))
            .map(|(report, path)| (path, report))
            .collect();
        (reports, unparsed)
    }

    /// The kernels of the report's file that no code outside their own item names ([`Workspace::proof_copy`] says which code counts), with the
    /// byte range of each item; none when the file read does not parse whole.
    fn separable(&self, report: &FileReport) -> Vec<(String, Range<usize>)> {
        let Ok(mut cache) = self.separable.lock() else {
            return Vec::new();
        };
        if let Some(found) = cache.get(&report.path) {
            return found.clone();
        }
        let found = self.find_separable(report);
        cache.insert(report.path.clone(), found.clone());
        found
    }

    fn find_separable(&self, report: &FileReport) -> Vec<(String, Range<usize>)> {
        let Some(text) = self.text(&report.path) else {
            return Vec::new();
        };
        // The drafts of the file's findings read the same parse.
        if crate::parses::parse_text(text).is_err() {
            return Vec::new();
        }
        // An entry point cannot be called from device code (`extern "ptx-kernel"`, a compute
        // shader's entry), so what other files write of it is host code (a launch, a
        // `get_function`, an import) that the rewritten kernel's analysis never reaches: only
        // the file's own words count. A CubeCL kernel is a `#[cube]` function other cube
        // functions may call, so there every file's words count.
        let local;
        let words = if text.contains("cube") {
            self.words.get_or_init(|| {
                let mut counts = HashMap::new();
                for (file, ..) in &self.files {
                    for word in words_of(&file.text) {
                        *counts.entry(word.to_string()).or_default() += 1;
                    }
                }
                counts
            })
        } else {
            let mut counts = HashMap::new();
            for word in words_of(text) {
                *counts.entry(word.to_string()).or_default() += 1;
            }
            local = counts;
            &local
        };
        let mut items: Vec<(String, Range<usize>)> = report
            .kernels
            .iter()
            .map(|k| (k.name.clone(), k.item.start..k.item.end))
            .collect();
        items.sort_by_key(|(_, item)| (item.start, item.end));
        items.dedup();
        // An item inside another (a kernel in a kernel's body) is left alone.
        let nested: Vec<bool> = items
            .iter()
            .map(|(_, a)| {
                items
                    .iter()
                    .any(|(_, b)| b != a && b.start <= a.start && a.end <= b.end)
            })
            .collect();
        items
            .into_iter()
            .zip(nested)
            .filter(|((name, item), nested)| {
                let own = text
                    .get(item.clone())
                    .map_or(usize::MAX, |t| words_of(t).filter(|w| w == name).count());
                !nested && words.get(name.as_str()) == Some(&own)
            })
            .map(|(item, _)| item)
            .collect()
    }
}

/// Where `item` lies in the new text, when no splice touches it.
fn moved(item: &Range<usize>, splices: &[Splice]) -> Option<Range<usize>> {
    let mut shift: isize = 0;
    for s in splices {
        if s.range.end <= item.start {
            shift += s.text.len() as isize - s.range.len() as isize;
        } else if s.range.start < item.end {
            return None;
        }
    }
    let start = usize::try_from(item.start as isize + shift).ok()?;
    Some(start..start + item.len())
}

/// `text` with each range's characters replaced by spaces, line breaks kept: every offset,
/// line and column of the rest is unchanged.
fn blanked(text: &str, ranges: &[Range<usize>]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for range in ranges {
        if let Some(part) = bytes.get_mut(range.clone()) {
            for b in part.iter_mut().filter(|b| !matches!(b, b'\n' | b'\r')) {
                *b = b' ';
            }
        }
    }
    // Every byte of a multi-byte character was replaced with it, so the text stays UTF-8.
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_string())
}

/// The identifier-like words of a text outside its comments (a comment names nothing the
/// analysis follows; words in string literals count): runs of letters, digits and `_`.
fn words_of(text: &str) -> impl Iterator<Item = &str> {
    code_of(text)
        .into_iter()
        .flat_map(|part| part.split(|c: char| !(c.is_alphanumeric() || c == '_')))
        .filter(|w| !w.is_empty())
}

/// The parts of a text that are not comments: `//` to the end of the line, `/* .. */` nested.
fn code_of(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut parts = Vec::new();
    let (mut at, mut start) = (0, 0);
    while at < bytes.len() {
        match bytes[at] {
            // The character literal `'"'` starts no string.
            b'\'' if bytes.get(at + 1) == Some(&b'"') && bytes.get(at + 2) == Some(&b'\'') => at += 3,
            b'"' => {
                // A string literal, escapes skipped: a `//` inside it starts no comment.
                at += 1;
                while at < bytes.len() && bytes[at] != b'"' {
                    at += if bytes[at] == b'\\' { 2 } else { 1 };
                }
                at += 1;
            }
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                parts.push(&text[start..at]);
                at = text[at..].find('\n').map_or(bytes.len(), |e| at + e);
                start = at;
            }
            b'/' if bytes.get(at + 1) == Some(&b'*') => {
                parts.push(&text[start..at]);
                let mut depth = 0;
                while at < bytes.len() {
                    if bytes[at..].starts_with(b"/*") {
                        depth += 1;
                        at += 2;
                    } else if bytes[at..].starts_with(b"*/") {
                        depth -= 1;
                        at += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        at += 1;
                    }
                }
                start = at.min(bytes.len());
            }
            _ => at += 1,
        }
    }
    if let Some(rest) = text.get(start.min(bytes.len())..) {
        parts.push(rest);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_in_comments_are_not_counted() {
        let text = "/// Calls `k`.\nfn f() { /* k /* k */ k */ g(\"// k\"); } // k\nk";
        assert_eq!(words_of(text).filter(|w| *w == "k").count(), 2);
    }

    #[test]
    fn blanking_keeps_offsets_and_lines() {
        let text = "a\nfn k() { é }\nb";
        let out = blanked(text, std::slice::from_ref(&(2..15)));
        assert_eq!(out.len(), text.len());
        assert_eq!(out, format!("a\n{}\nb", " ".repeat(13)));
    }

    #[test]
    fn an_item_moves_with_the_splices_before_it_and_none_may_touch_it() {
        let at = |range: Range<usize>, text: &str| Splice {
            range,
            text: text.into(),
        };
        assert_eq!(moved(&(10..20), &[at(0..0, "abc")]), Some(13..23));
        assert_eq!(moved(&(10..20), &[at(25..30, "")]), Some(10..20));
        assert_eq!(moved(&(10..20), &[at(12..14, "x")]), None);
        assert_eq!(moved(&(10..20), &[at(5..12, "x")]), None);
    }

    /// The two kernels of `kernels` as `proof_copy` leaves them in a proof of `k1`, with
    /// `host` beside them naming `k2`.
    fn copy_for_k1(kernels: &str, host: &str) -> String {
        let plan = LaunchPlan::default();
        let files = vec![
            (
                SourceFile::new("src/k.rs", kernels),
                vec!["c".into(), "k".into()],
                &plan,
            ),
            (
                SourceFile::new("src/host.rs", host),
                vec!["c".into(), "host".into()],
                &plan,
            ),
        ];
        let features = CrateFeatures::new();
        let ws = Workspace::new(files, &[], &features);
        let report =
            kernel_lint_analyzer::analyze_source(&SourceFile::new("src/k.rs", kernels), &plan).expect("analyzed");
        assert_eq!(report.kernels.len(), 2, "both kernels found");
        ws.proof_copy(HashMap::new(), &HashMap::new(), &report, "k1")
            .remove("src/k.rs")
            .unwrap_or_else(|| kernels.to_string())
    }

    /// A proof's re-analysis of `k` in `src/k.rs` with `helper` as the new text of
    /// `src/helpers.rs`, whose `load` the kernel calls.
    fn reanalyzed_with_helper(helper: &str) -> Result<KernelReport, Declined> {
        let plan = LaunchPlan::default();
        let kernels = "use crate::helpers::load;\n#[kernel]\npub unsafe fn k(a: &[f32], out: *mut f32) {\n\
                       let i = thread::index_1d() as usize;\n*out.add(i) = load(a, i);\n}\n";
        let files = vec![
            (
                SourceFile::new("src/lib.rs", "mod helpers;\nmod k;\n"),
                vec!["c".into()],
                &plan,
            ),
            (
                SourceFile::new("src/k.rs", kernels),
                vec!["c".into(), "k".into()],
                &plan,
            ),
            (
                SourceFile::new(
                    "src/helpers.rs",
                    "pub fn load(a: &[f32], i: usize) -> f32 { a[i * 2] }\n",
                ),
                vec!["c".into(), "helpers".into()],
                &plan,
            ),
        ];
        let features = CrateFeatures::new();
        let ws = Workspace::new(files, &[], &features);
        let changed = HashMap::from([("src/helpers.rs".to_string(), helper.to_string())]);
        ws.reanalyzed_kernel(&changed, "src/k.rs", "k", 0)
    }

    #[test]
    fn a_proof_reads_the_changed_files_through_the_analysis_and_declines_one_that_does_not_parse() {
        let loaded = |k: &KernelReport| (k.accesses.iter().map(|a| a.index.clone())).collect::<Vec<_>>();
        let coalesced = reanalyzed_with_helper("pub fn load(a: &[f32], i: usize) -> f32 { a[i] }\n")
            .expect("the rewritten program is analyzed");
        assert_eq!(loaded(&coalesced), ["i", "i"]);
        // An item syn cannot parse beside the one the kernel calls: the kernel could still be
        // analyzed, but a rewrite must leave every changed file parsing whole.
        let broken = "pub fn load(a: &[f32], i: usize) -> f32 { a[i] }\nfn broken() -> {}\n";
        let syn_says = syn::parse_file(broken).expect_err("does not parse").to_string();
        let Err(Declined(reason)) = reanalyzed_with_helper(broken) else {
            panic!("a file that does not parse is declined");
        };
        assert_eq!(
            reason,
            format!("the rewritten `src/helpers.rs` does not parse ({syn_says}): the rewrite is not offered")
        );
    }

    #[test]
    fn an_entry_point_only_host_code_names_is_left_out_of_a_proof() {
        let kernels = "#[kernel]\npub unsafe fn k1(a: &[f32]) { let _ = a[0]; }\n\
                       #[kernel]\npub unsafe fn k2(a: &[f32]) { let _ = a[1]; }\n";
        let host = "fn run() { launch!(module.k2<<<1, 32, 0, stream>>>(a)); }\n";
        let copy = copy_for_k1(kernels, host);
        assert_eq!(copy.len(), kernels.len());
        assert!(copy.contains("fn k1"));
        assert!(!copy.contains("k2"), "{copy}");
        // Named by code of its own file, it stays.
        let called = format!("{kernels}fn f() {{ k2(&[]); }}\n");
        assert!(copy_for_k1(&called, host).contains("fn k2"));
    }

    #[test]
    fn a_cube_kernel_another_file_names_stays_in_a_proof() {
        let kernels = "#[cube(launch)]\npub fn k1(a: &Array<f32>) { let _ = a[0]; }\n\
                       #[cube(launch)]\npub fn k2(a: &Array<f32>) { let _ = a[1]; }\n";
        let host = "#[cube]\nfn g(a: &Array<f32>) { k2(a); }\n";
        assert!(copy_for_k1(kernels, host).contains("fn k2"));
        assert!(!copy_for_k1(kernels, "fn other() {}\n").contains("fn k2"));
    }
}
