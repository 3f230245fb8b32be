//! `review --base`: the findings a change introduced and fixed, on temporary git repositories,
//! with the base read from git objects only.

use crate::review_repo;

use review_repo::{git, kernel_lint_in, parts, with_aos, Repo, CLEAN};

fn short(repo: &Repo, rev: &str) -> String {
    git(&repo.path, &["rev-parse", rev]).trim()[..12].to_string()
}

const AOS_ROW: &str = "| `(*p.add(i)).x` | 17 | KL002 array-of-structs-access |";
const TABLE_HEAD: &str = "| Access | Line | Lint | Change | Verdict | Sectors per request | Efficiency |
|---|---|---|---|---|---|---|
";

#[test]
fn a_commit_introduces_an_array_of_structs_access_and_the_next_fixes_it() {
    let repo = Repo::new();
    repo.write("k.rs", CLEAN);
    repo.commit("clean");
    repo.write("k.rs", &with_aos());
    repo.commit("reads a field of an array of structs");

    let (code, stdout, stderr) = parts(&repo.kernel_lint(&["review", "--base", "HEAD~1", "k.rs"]));
    assert_eq!(stderr, "");
    let head = format!(
        "## kernel-lint review against `HEAD~1` ({})\n\n1 new array-of-structs access\n\n### `step` in `k.rs`\n\n{TABLE_HEAD}{AOS_ROW} introduced | aos | 16 (ideal 4) | new -> 25 % |\n",
        short(&repo, "HEAD~1")
    );
    assert!(stdout.starts_with(&head), "{stdout}");
    assert!(stdout.contains(
        "<details><summary>Suggested rewrite (line 17): store `Particle` as a structure of arrays (`ParticleSoa`, one pointer per field) (16 -&gt; 4 sectors per request, 25 % -&gt; 100 %)</summary>\n\n```diff\n"
    ));
    assert!(
        stdout.contains("- (*p.add(i)).x\n+ *p.x.add(i)\n```\n\n</details>\n"),
        "{stdout}"
    );
    assert_eq!(code, 1, "an introduced warning fails the review");

    repo.write("k.rs", CLEAN);
    repo.commit("back to no struct read");
    let (code, stdout, _) = parts(&repo.kernel_lint(&["review", "--base", "HEAD~1", "k.rs"]));
    assert_eq!(
        stdout,
        format!(
            "## kernel-lint review against `HEAD~1` ({})\n\nnothing new, 1 fixed\n\n### `step` in `k.rs`\n\n{TABLE_HEAD}{AOS_ROW} fixed | aos | 16 (ideal 4) | 25 % -> removed |\n",
            short(&repo, "HEAD~1")
        )
    );
    assert_eq!(code, 0);
}

#[test]
fn the_working_tree_and_the_index_are_left_alone() {
    let repo = Repo::new();
    repo.write("k.rs", &with_aos());
    repo.commit("base");
    repo.write("k.rs", CLEAN);
    git(&repo.path, &["add", "k.rs"]);
    repo.write("k.rs", &with_aos().replace("n: u32", "n: u32, _m: u32"));
    let index = std::fs::read(repo.path.join(".git/index")).expect("the index");
    let status = git(&repo.path, &["status", "--porcelain"]);
    let (code, stdout, _) = parts(&repo.kernel_lint(&["review", "--base", "HEAD"]));
    // Without paths the workspace is discovered: no Cargo.toml here, so the error of `check`.
    assert_eq!(code, 2, "{stdout}");
    let (code, stdout, _) = parts(&repo.kernel_lint(&["review", "--base", "HEAD", "k.rs"]));
    assert_eq!(code, 0);
    // The file on disk is what is analyzed, not the staged one.
    assert!(stdout.contains("nothing new, 1 unchanged"), "{stdout}");
    assert_eq!(std::fs::read(repo.path.join(".git/index")).expect("the index"), index);
    assert_eq!(git(&repo.path, &["status", "--porcelain"]), status);
    assert_eq!(
        std::fs::read_to_string(repo.path.join("k.rs")).expect("k.rs"),
        with_aos().replace("n: u32", "n: u32, _m: u32")
    );
}

#[test]
fn a_base_without_the_file() {
    let repo = Repo::new();
    repo.write("other.rs", CLEAN);
    repo.commit("another file");
    repo.write("k.rs", &with_aos());
    repo.commit("a new kernel file");
    let (code, stdout, stderr) = parts(&repo.kernel_lint(&["review", "--base", "HEAD~1", "k.rs"]));
    assert_eq!(stderr, "");
    assert!(
        stdout.contains(&format!("{AOS_ROW} introduced | aos | 16 (ideal 4) | new -> 25 % |\n")),
        "{stdout}"
    );
    assert_eq!(code, 1);
}

#[test]
fn a_renamed_file_and_a_renamed_kernel_are_matched() {
    let repo = Repo::new();
    repo.write("k.rs", &with_aos());
    repo.commit("base");
    git(&repo.path, &["mv", "k.rs", "particles.rs"]);
    repo.commit("renamed");
    let (code, stdout, _) = parts(&repo.kernel_lint(&["review", "--base", "HEAD~1", "particles.rs"]));
    assert!(
        stdout.contains(
            "nothing new, 1 unchanged\n\n### `step` in `particles.rs` (file renamed from `k.rs`)\n\n1 unchanged finding not listed.\n"
        ),
        "{stdout}"
    );
    assert_eq!(code, 0);

    repo.write("particles.rs", &with_aos().replace("fn step(", "fn advance("));
    let (code, stdout, _) = parts(&repo.kernel_lint(&["review", "--base", "HEAD", "particles.rs"]));
    assert!(
        stdout.contains("nothing new, 1 unchanged\n\n### `advance` in `particles.rs` (renamed from `step`)\n"),
        "{stdout}"
    );
    assert_eq!(code, 0);
}

#[test]
fn a_shallow_clone_needs_the_base_fetched() {
    let origin = Repo::new();
    origin.write("k.rs", CLEAN);
    origin.commit("clean");
    origin.write("k.rs", &with_aos());
    origin.commit("aos");
    let url = format!("file://{}", origin.path.display());
    let clones = tempfile::tempdir().expect("a temporary folder");
    let shallow = clones.path().join("shallow");
    git(clones.path(), &["clone", "-q", "--depth=1", &url, "shallow"]);
    let (code, stdout, stderr) = parts(&kernel_lint_in(&shallow, &["review", "--base", "HEAD~1", "k.rs"]));
    assert_eq!(
        (code, stdout.as_str(), stderr.as_str()),
        (
            2,
            "",
            "error: the base revision `HEAD~1` is not available (this is a shallow clone without it): \
             fetch it first, e.g. `git fetch --depth=1 origin HEAD~1`\n"
        )
    );

    let deeper = clones.path().join("deeper");
    git(clones.path(), &["clone", "-q", "--depth=2", &url, "deeper"]);
    let (code, stdout, _) = parts(&kernel_lint_in(&deeper, &["review", "--base", "HEAD~1", "k.rs"]));
    assert!(stdout.contains("1 new array-of-structs access\n"), "{stdout}");
    assert_eq!(code, 1);
}

#[test]
fn bad_bases_and_folders_are_errors() {
    let repo = Repo::new();
    repo.write("k.rs", CLEAN);
    repo.commit("clean");
    let (code, stdout, stderr) = parts(&repo.kernel_lint(&["review", "--base", "no-such-branch", "k.rs"]));
    assert_eq!(
        (code, stdout.as_str(), stderr.as_str()),
        (
            2,
            "",
            "error: the base revision `no-such-branch` is not available (no such commit in this repository): \
             fetch it first, e.g. `git fetch --depth=1 origin no-such-branch`\n"
        )
    );
    let outside = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(outside.path().join("k.rs"), CLEAN).expect("k.rs");
    let (code, _, stderr) = parts(&kernel_lint_in(outside.path(), &["review", "--base", "HEAD", "k.rs"]));
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: `")
            && stderr
                .ends_with("` is not in a git repository: `review` compares the working tree with a git revision\n"),
        "{stderr}"
    );
    let (code, _, stderr) = parts(&repo.kernel_lint(&["review", "k.rs"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("--base <REV>"), "{stderr}");
}

#[test]
fn markdown_snapshot_of_a_fixture_the_base_lacks() {
    let repo = Repo::new();
    repo.write("README.md", "kernels\n");
    repo.commit("empty");
    let fixture = include_str!("../../fixtures/seeds/aos_soa.rs");
    repo.write("aos_soa.rs", fixture);
    let (code, stdout, stderr) = parts(&repo.kernel_lint(&["review", "--base", "HEAD", "aos_soa.rs"]));
    assert_eq!((code, stderr.as_str()), (1, ""));
    insta::assert_snapshot!("review-markdown-new-fixture", stdout);
}

#[test]
fn html_snapshot_of_a_struct_of_arrays_rewrite() {
    let repo = Repo::new();
    let fixture = include_str!("../../fixtures/seeds/aos_soa.rs");
    repo.write("aos_soa.rs", fixture);
    repo.commit("array of structs");
    // The fields read through pointers of one array each instead.
    let soa = fixture
        .replace(
            "pub unsafe fn update_particles_aos(p: *mut Particle, n: u32) {",
            "pub unsafe fn update_particles_aos(p: ParticlesSoA, n: u32) {",
        )
        .replace("(*p.add(idx)).vx", "*p.vx.add(idx)")
        .replace("(*p.add(idx)).x", "*p.x.add(idx)");
    repo.write("aos_soa.rs", &soa);
    let (code, stdout, stderr) =
        parts(&repo.kernel_lint(&["review", "--base", "HEAD", "--format", "html", "aos_soa.rs"]));
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert!(
        stdout.contains("<p class=\"summary\">nothing new, 3 fixed, 4 unchanged</p>"),
        "{stdout}"
    );
    insta::assert_snapshot!("review-html-soa-rewrite", stdout);
}

/// A one-line change in a repository with many unchanged findings: the comment lists the one
/// kernel that changed and counts the others; a change to every kernel is cut to stay under
/// GitHub's comment limit, saying how many kernels are left out.
#[test]
fn the_comment_lists_what_changed_and_stays_under_the_limit() {
    const FILES: usize = 200;
    let repo = Repo::new();
    let name = |i: usize| format!("k{i:03}.rs");
    for i in 0..FILES {
        repo.write(&name(i), &with_aos().replace("fn step(", &format!("fn step_{i:03}(")));
    }
    repo.commit("many kernels, each with an array-of-structs read");
    repo.write(&name(7), &CLEAN.replace("fn step(", "fn step_007("));
    let (code, stdout, stderr) = parts(&repo.kernel_lint(&["review", "--base", "HEAD", "."]));
    assert_eq!((code, stderr.as_str()), (0, ""), "{stdout}");
    assert!(stdout.contains("nothing new, 1 fixed, 199 unchanged\n"), "{stdout}");
    assert_eq!(stdout.matches("\n### ").count(), 1, "{stdout}");
    assert!(stdout.contains("### `step_007` in `k007.rs`"), "{stdout}");
    assert!(
        stdout.ends_with("\n199 unchanged findings in 199 kernels with no change are not listed.\n"),
        "{stdout}"
    );
    // Every kernel changed: as many sections as fit under the limit, then how many are left out.
    for i in 0..FILES {
        let text = with_aos()
            .replace("fn step(", &format!("fn step_{i:03}("))
            .replace("(*p.add(i)).x;", "(*p.add(i)).x + (*p.add(i)).y + (*p.add(i)).z;");
        repo.write(&name(i), &text);
    }
    let (code, stdout, _) = parts(&repo.kernel_lint(&["review", "--base", "HEAD", "."]));
    assert_eq!(code, 1);
    assert!(stdout.chars().count() < 60_000, "{} characters", stdout.chars().count());
    let shown = stdout.matches("\n### ").count();
    assert!(shown > 10 && shown < FILES, "{shown} kernels shown");
    assert!(
        stdout.ends_with(&format!(
            "\n{} more kernels with changes are not listed: the comment is kept under 60000 characters \
             (`review --format html` shows every kernel).\n",
            FILES - shown
        )),
        "{}",
        &stdout[stdout.len() - 300..]
    );
}

/// A finding that underlines the index alone is shown with its array, its spacing kept (runs of
/// whitespace as one space).
#[test]
fn an_index_finding_is_shown_with_its_array() {
    let repo = Repo::new();
    repo.write("k.rs", CLEAN);
    repo.commit("clean");
    let strided = CLEAN
        .replace("out: *mut f32, n: u32", "a: &[f32], out: *mut f32, n: u32")
        .replace("*out.add(i) = 1.0;", "*out.add(i) = a[i  *\n            3];");
    repo.write("k.rs", &strided);
    let (code, stdout, _) = parts(&repo.kernel_lint(&["review", "--base", "HEAD", "k.rs"]));
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(
            "| `a[i * 3]` | 17 | KL001 strided-access | introduced | strided | 12 (ideal 4) | new -> 33.3 % |"
        ),
        "{stdout}"
    );
}

/// What is odd about the workspace is said once, by the working tree's analysis; the base's
/// analysis of the same workspace keeps it to itself.
#[test]
fn workspace_warnings_are_printed_once() {
    let repo = Repo::new();
    repo.write(
        "Cargo.toml",
        "[package]\nname = \"kernels\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    repo.write("src/lib.rs", "mod k;\nmod gone;\n");
    repo.write("src/k.rs", CLEAN);
    repo.commit("base");
    repo.write("src/k.rs", &with_aos());
    let (code, _, stderr) = parts(&repo.kernel_lint(&["review", "--base", "HEAD"]));
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        stderr,
        "warning: src/lib.rs:2:1: no file for module `gone`: looked for src/gone.rs and src/gone/mod.rs\n"
    );
}

/// An index finding fixed while its access stays (every lane of a block now reads one
/// element) shows the access's figure after the change, not `removed`.
#[test]
fn a_fixed_index_finding_whose_access_stays_shows_its_new_figure() {
    let repo = Repo::new();
    let strided = CLEAN
        .replace("out: *mut f32, n: u32", "a: &[f32], out: *mut f32, n: u32")
        .replace("*out.add(i) = 1.0;", "*out.add(i) = a[i * 3];");
    repo.write("k.rs", &strided);
    repo.commit("strided");
    let one_element = strided.replace(
        "    if i < n as usize {",
        "    let i = i / 1024 * 1024;\n    if i < n as usize {",
    );
    repo.write("k.rs", &one_element);
    let (code, stdout, _) = parts(&repo.kernel_lint(&["review", "--base", "HEAD", "k.rs"]));
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout
            .contains("| `a[i * 3]` | 17 | KL001 strided-access | fixed | strided | 12 (ideal 4) | 33.3 % -> 100 % |"),
        "{stdout}"
    );
    // The page draws the request before the change and after it.
    let (_, html, _) = parts(&repo.kernel_lint(&["review", "--base", "HEAD", "--format", "html", "k.rs"]));
    assert!(html.contains("<figcaption>Before (base)"), "{html}");
    assert!(html.contains("<figcaption>After (working tree)"), "{html}");
}
