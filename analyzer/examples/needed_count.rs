use kernel_lint_analyzer::{needed_files, ModuleSource, SourceFile};
fn main() {
    let root = std::env::args().nth(1).unwrap();
    let mut inputs = Vec::new();
    fn walk(dir: &std::path::Path, root: &std::path::Path, out: &mut Vec<ModuleSource>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, root, out);
                continue;
            }
            if p.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = p.strip_prefix(root).unwrap().with_extension("");
            let mut module = vec!["c".to_string()];
            for c in rel.components() {
                let s = c.as_os_str().to_string_lossy().to_string();
                if s != "lib" && s != "mod" {
                    module.push(s);
                }
            }
            out.push(ModuleSource {
                source: SourceFile::new(p.display().to_string(), std::fs::read_to_string(&p).unwrap()),
                module,
            });
        }
    }
    let src = std::path::Path::new(&root).join("src");
    walk(&src, &src, &mut inputs);
    let needed = needed_files(&inputs, &[]);
    let entries = inputs
        .iter()
        .filter(|i| kernel_lint_analyzer::parse::scan::scan(&i.source.text).entry)
        .count();
    println!(
        "{} files, {} entry, {} needed",
        inputs.len(),
        entries,
        needed.iter().filter(|n| **n).count()
    );
}
