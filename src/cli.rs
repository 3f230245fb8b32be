//! Command-line definitions.

use clap::{ArgMatches, Args, FromArgMatches, Parser, Subcommand, ValueEnum};
use kernel_lint_lints::Level;
use std::ffi::OsString;
use std::path::PathBuf;

/// Static analysis of global-memory access patterns in Rust GPU kernels.
#[derive(Debug, Parser)]
#[command(
    name = "cargo-kernel-lint",
    version,
    after_help = "Exit status: 0 no findings at warn or deny level, 1 findings at warn or deny \
                  level, 2 usage error, unreadable or unparsable input, bad configuration or \
                  internal error. `fix` and `review` have their own (see their `--help`)."
)]
pub struct Cli {
    /// What to do; `check` when omitted.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Arguments of the implied `check`.
    #[command(flatten)]
    pub check: AnalyzeArgs,
    /// Options shared by every subcommand.
    #[command(flatten)]
    pub global: GlobalArgs,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lint kernels and report findings (the default).
    Check(AnalyzeArgs),
    /// List every memory access of every kernel with its predicted cost.
    Accesses(AnalyzeArgs),
    /// Apply the fixes the findings carry, then report the findings that remain.
    #[command(
        after_help = "Only safe fixes are applied unless --unsafe-fixes is given; display-only fixes \
                            never are. Of two fixes that overlap, the first is applied and the other \
                            skipped. Files with uncommitted changes, or outside a git repository, are \
                            not written without --allow-dirty. Each file is written whole (a temporary \
                            file renamed over it) and only when its fixed text parses.\n\n\
                            Exit status: as `check` on the findings that remain; with --diff, 0 when \
                            there is nothing to fix and 1 when there is; 2 when the files were refused, \
                            a fix or a write failed, or for the errors of `check`."
    )]
    Fix(FixArgs),
    /// Show a lint's documentation, or a table of all lints.
    Rule(RuleArgs),
    /// The GPU harness: lower kernels to CUDA C, reduce Nsight Compute exports, compare.
    #[command(subcommand)]
    Harness(HarnessCommand),
    /// Lower, build, measure and compare in one go (needs nvcc and ncu on the PATH).
    Validate(ValidateArgs),
    /// Serve the Language Server Protocol on stdin and stdout, for editors.
    #[command(
        after_help = "Diagnostics are published on open, change and save, from the editor's buffer; \
                            the fixes are offered as quick fixes and the prediction of a global access \
                            shows on hover over its index. The workspace of the first workspace folder \
                            is read at initialize and again when a Cargo.toml or kernel-lint.toml is \
                            saved; a change parses only the changed file and analyzes again only its \
                            kernels that the change may touch. Logs go to \
                            stderr and window/logMessage.\n\n\
                            Exit status: 0 after shutdown then exit, 1 on exit without shutdown, 2 when \
                            the connection failed."
    )]
    Lsp,
    /// Compare the findings of the working tree with those of a git revision, for review.
    #[command(after_help = REVIEW_HELP)]
    Review(ReviewArgs),
    /// Remove the result cache (`--cache-dir`, else `cache-dir` of the configuration, else
    /// `.kernel-lint-cache` at the workspace root).
    #[command(after_help = "Only a folder holding kernel-lint's CACHEDIR.TAG is removed.\n\n\
                            Exit status: 0 removed or nothing to remove, 2 when the folder is not a \
                            kernel-lint cache or cannot be removed.")]
    Clean,
}

/// Arguments of `review`.
#[derive(Debug, Clone, Args)]
pub struct ReviewArgs {
    /// Files or directories to analyze on both sides; the cargo workspace's sources when omitted.
    #[arg(value_name = "PATHS")]
    pub paths: Vec<PathBuf>,
    /// The revision to compare with, taken literally (a branch, tag or commit; pass the merge
    /// base to see only what a branch changed).
    #[arg(long, value_name = "REV")]
    pub base: String,
    /// Output format [default: markdown].
    #[arg(long, value_enum)]
    pub format: Option<ReviewFormat>,
    /// Lint levels.
    #[command(flatten)]
    pub levels: LevelArgs,
}

/// Output formats of `review`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ReviewFormat {
    /// Markdown for a pull-request comment.
    #[default]
    Markdown,
    /// One self-contained HTML page with a picture of each flagged access's warp.
    Html,
}

/// The exit status and what `--base` means, for `review --help`.
const REVIEW_HELP: &str = "The base is read from git objects (never checked out); a shallow clone needs it \
fetched first (`git fetch --depth=1 origin <rev>`). `--base` is taken literally: to see only what a \
branch changed, pass its merge base (`$(git merge-base origin/main HEAD)`).\n\n\
Exit status: 0 when the change introduces no finding at warn or deny level, 1 when it does, 2 when \
the base cannot be read, this is not a git repository, or for the errors of `check`.";

/// `harness` subcommands.
#[derive(Debug, Subcommand)]
pub enum HarnessCommand {
    /// Write CUDA C twins of the kernels, a driver that launches them and the manifest.
    Emit(EmitArgs),
    /// Reduce an `ncu --page source --csv --print-source cuda,sass` export to measured rows.
    Reduce(ReduceArgs),
    /// Compare a manifest's predictions with measured rows.
    Compare(CompareArgs),
    /// Write (and with `--run`, run) the timing program for pairs of kernels.
    Bench(BenchArgs),
}

/// Arguments of `harness emit`.
#[derive(Debug, Clone, Args)]
pub struct EmitArgs {
    /// Files or directories holding the kernels.
    #[arg(value_name = "PATHS")]
    pub paths: Vec<PathBuf>,
    /// Folder to write `kernels.cu` and `manifest.json` into.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

/// Arguments of `harness reduce`.
#[derive(Debug, Clone, Args)]
pub struct ReduceArgs {
    /// The source-page CSV export.
    #[arg(value_name = "EXPORT")]
    pub export: PathBuf,
    /// Where to write the rows (stdout when omitted).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Arguments of `harness compare`.
#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// Measured rows written by `harness reduce`.
    #[arg(value_name = "MEASURED")]
    pub measured: PathBuf,
    /// The manifest written by `harness emit`.
    #[arg(long, value_name = "FILE")]
    pub manifest: PathBuf,
    /// Fail (exit 1) when fewer measured accesses than this fraction are exact.
    #[arg(long, value_name = "FRACTION", default_value_t = 0.9)]
    pub min_exact: f64,
    /// Output format [default: human].
    #[arg(long, value_enum)]
    pub format: Option<TableFormat>,
}

/// Arguments of `harness bench`.
#[derive(Debug, Clone, Args)]
pub struct BenchArgs {
    /// Files or directories holding the kernels of the pairs.
    #[arg(value_name = "PATHS")]
    pub paths: Vec<PathBuf>,
    /// The pairs file (`[[pair]]` entries).
    #[arg(long, value_name = "FILE")]
    pub pairs: PathBuf,
    /// Folder to write `bench.cu` and `bench-manifest.json` into.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Also build, time, profile and write `pairs.md` (needs nvcc and ncu).
    #[arg(long)]
    pub run: bool,
    /// GPU architecture for nvcc: sm_90a, as `wgmma` needs the Hopper-specific target.
    #[arg(long, default_value = "sm_90a")]
    pub arch: String,
}

/// Arguments of `validate`.
#[derive(Debug, Clone, Args)]
pub struct ValidateArgs {
    /// Files or directories holding the kernels.
    #[arg(value_name = "PATHS")]
    pub paths: Vec<PathBuf>,
    /// Folder for the generated program, the profile and the measurements.
    #[arg(long, value_name = "DIR", default_value = "target/kernel-lint-validate")]
    pub out: PathBuf,
    /// GPU architecture for nvcc: sm_90a, as `wgmma` needs the Hopper-specific target.
    #[arg(long, default_value = "sm_90a")]
    pub arch: String,
    /// Fail (exit 1) when fewer measured accesses than this fraction are exact.
    #[arg(long, value_name = "FRACTION", default_value_t = 0.9)]
    pub min_exact: f64,
    /// Leave out a launch that runs this many seconds under Nsight Compute without finishing.
    #[arg(long, value_name = "SECONDS", default_value_t = 120)]
    pub launch_timeout: u64,
}

/// Arguments of `check` and `accesses`: what to analyze and how to print it.
#[derive(Debug, Clone, Default, Args)]
pub struct AnalyzeArgs {
    /// Files or directories to analyze; the cargo workspace's sources when omitted.
    #[arg(value_name = "PATHS")]
    pub paths: Vec<PathBuf>,
    /// Output format [default: human].
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Lint levels.
    #[command(flatten)]
    pub levels: LevelArgs,
    /// Thresholds under which findings are not reported.
    #[command(flatten)]
    pub thresholds: crate::thresholds::ThresholdArgs,
    /// Findings known before (`check` only).
    #[command(flatten)]
    pub baseline: BaselineArgs,
    /// Write the findings as rustc's JSON diagnostics, one cargo message per line, as
    /// rust-analyzer's `check.overrideCommand` reads them (`check` only).
    #[arg(long, value_enum, value_name = "FMT", conflicts_with = "format")]
    pub message_format: Option<MessageFormat>,
    /// Run `cargo check --message-format json` first and pass its messages through, so that the
    /// compiler's own errors reach the editor too (with `--message-format json`).
    #[arg(long, requires = "message_format")]
    pub cargo_check: bool,
}

/// `--baseline` and `--write-baseline` of `check`.
#[derive(Debug, Clone, Default, Args)]
pub struct BaselineArgs {
    /// Hide the findings whose fingerprints this baseline file lists (`check` only).
    #[arg(long, value_name = "FILE", conflicts_with = "write_baseline")]
    pub baseline: Option<PathBuf>,
    /// Write the fingerprints of the current findings to FILE and exit 0 (`check` only).
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
}

impl BaselineArgs {
    fn given(&self) -> bool {
        self.baseline.is_some() || self.write_baseline.is_some()
    }
}

/// Arguments of `fix`: what to analyze, and which fixes to apply how.
#[derive(Debug, Clone, Default, Args)]
pub struct FixArgs {
    /// What to analyze and how to print the findings that remain.
    #[command(flatten)]
    pub analyze: AnalyzeArgs,
    /// Apply unsafe fixes too: they change behaviour or layout, so review them.
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Write files with uncommitted changes, or outside a git repository.
    #[arg(long)]
    pub allow_dirty: bool,
    /// Print the changes as unified diffs instead of writing them; exit 1 when there are some.
    #[arg(long)]
    pub diff: bool,
}

/// Arguments of `rule`.
#[derive(Debug, Clone, Args)]
pub struct RuleArgs {
    /// Lint code or name (`KL001`, `strided-access`); all lints when omitted.
    pub code: Option<String>,
}

/// Options accepted before or after the subcommand.
#[derive(Debug, Clone, Default, Args)]
pub struct GlobalArgs {
    /// Configuration file for every file (default: each crate's kernel-lint.toml, else its
    /// Cargo.toml metadata).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Cargo.toml of the workspace to analyze when no paths are given.
    #[arg(long, global = true, value_name = "FILE")]
    pub manifest_path: Option<PathBuf>,
    /// When to color the output.
    #[arg(long, global = true, value_enum, default_value_t = Color::Auto)]
    pub color: Color,
    /// Files analyzed at once (default: `jobs` of the configuration, else one per available
    /// core); the output is the same for any number.
    #[arg(long, short = 'j', global = true, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Every `--allow`, `--warn` and `--deny` in command-line order (later ones win).
    #[arg(skip)]
    pub level_flags: Vec<(Level, String)>,
    /// Largest source file analyzed (`10MB`, `512kB`, `none`); a larger one is reported as an
    /// error and skipped [default: 10MB, or `max-file-size` of the configuration].
    #[arg(long, global = true, value_name = "SIZE", value_parser = crate::limits::parse_size)]
    pub max_file_size: Option<crate::limits::MaxFileSize>,
    /// Time the analysis of one file may take (`10s`, `500ms`, `none`); past it the file is
    /// reported as an error and the run goes on [default: 10s, or `file-time-budget` of the
    /// configuration].
    #[arg(long, global = true, value_name = "TIME", value_parser = crate::limits::parse_duration)]
    pub file_time_budget: Option<crate::limits::FileTimeBudget>,
    /// Analyze every file, neither reading nor writing the result cache.
    #[arg(long, global = true, conflicts_with = "cache_dir")]
    pub no_cache: bool,
    /// Where the result cache is kept [default: `cache-dir` of the configuration, else
    /// `.kernel-lint-cache` at the workspace root].
    #[arg(long, global = true, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Show no progress bar (it is shown only when stderr is a terminal).
    #[arg(long, global = true)]
    pub no_progress: bool,
    /// Say on stderr how many files were analyzed and how many taken from the cache.
    #[arg(long, short = 'v', global = true)]
    pub verbose: bool,
    /// `--min-efficiency` and `--min-wasted-sectors` of `check` or `accesses`.
    #[arg(skip)]
    pub threshold_flags: crate::thresholds::ThresholdArgs,
}

/// Lint level flags, accepted before and after the subcommand; read back in order through
/// [`level_flags`] (clap's global arguments would drop the ones before the subcommand).
#[derive(Debug, Clone, Default, Args)]
pub struct LevelArgs {
    /// Silence a lint (code or name); repeatable.
    #[arg(long, value_name = "CODE")]
    pub allow: Vec<String>,
    /// Report a lint as a warning (code or name); repeatable.
    #[arg(long, value_name = "CODE")]
    pub warn: Vec<String>,
    /// Report a lint as an error (code or name); repeatable.
    #[arg(long, value_name = "CODE")]
    pub deny: Vec<String>,
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum Format {
    /// Text for people.
    #[default]
    Human,
    /// Machine-readable JSON on stdout (`kernel-lint/diagnostics/v1`).
    Json,
    /// SARIF 2.1.0, for code scanning (`check` and `fix`).
    Sarif,
    /// GitHub Actions workflow commands, one annotation per finding (`check` and `fix`).
    Github,
}

/// `--message-format`: the findings in the shape cargo and rustc write them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MessageFormat {
    /// One JSON object a line: cargo's `compiler-message` for files of a package, a bare rustc
    /// diagnostic for the others.
    Json,
}

/// Output formats of reports that are not findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum TableFormat {
    /// Text for people.
    #[default]
    Human,
    /// Machine-readable JSON on stdout.
    Json,
}

/// Color choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum Color {
    /// Color when stdout is a terminal.
    #[default]
    Auto,
    /// Always color.
    Always,
    /// Never color.
    Never,
}

/// Whether to colour the output: as asked, or when stdout is a terminal and `NO_COLOR` is unset.
fn use_color(choice: Color) -> bool {
    use std::io::IsTerminal;
    match choice {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    }
}

impl GlobalArgs {
    /// The options as the session's plain settings.
    pub fn settings(&self) -> crate::settings::Settings {
        crate::settings::Settings {
            config: self.config.clone(),
            manifest_path: self.manifest_path.clone(),
            jobs: self.jobs,
            levels: self.level_flags.clone(),
            thresholds: self.threshold_flags.thresholds(),
            max_file_size: self.max_file_size,
            file_time_budget: self.file_time_budget,
            no_cache: self.no_cache,
            cache_dir: self.cache_dir.clone(),
            progress: !self.no_progress,
            verbose: self.verbose,
            color: use_color(self.color),
            quiet_warnings: false,
        }
    }
}

impl Cli {
    /// Parses arguments (without a leading `kernel-lint`), keeping the order of level flags.
    pub fn try_parse_args(args: Vec<OsString>, bin_name: &str) -> Result<Cli, clap::Error> {
        let mut command = <Cli as clap::CommandFactory>::command().bin_name(bin_name.to_string());
        let matches = command.try_get_matches_from_mut(args)?;
        let mut cli = Cli::from_arg_matches(&matches)?;
        cli.global.level_flags = level_flags(&matches);
        cli.global.threshold_flags = match &cli.command {
            // Given before the subcommand, they belong to the implied `check`; after it win.
            Some(Command::Check(args) | Command::Accesses(args)) => crate::thresholds::ThresholdArgs {
                min_efficiency: args.thresholds.min_efficiency.or(cli.check.thresholds.min_efficiency),
                min_wasted_sectors: args
                    .thresholds
                    .min_wasted_sectors
                    .or(cli.check.thresholds.min_wasted_sectors),
            },
            _ => cli.check.thresholds,
        };
        // `--format` before a subcommand belongs to the implied `check`; pass it on.
        if let Some(format) = cli.check.format {
            match &mut cli.command {
                Some(Command::Check(args)) => args.format = args.format.or(Some(format)),
                Some(Command::Accesses(args)) => args.format = args.format.or(Some(format)),
                Some(Command::Fix(args)) => args.analyze.format = args.analyze.format.or(Some(format)),
                Some(
                    Command::Rule(_)
                    | Command::Harness(_)
                    | Command::Validate(_)
                    | Command::Lsp
                    | Command::Review(_)
                    | Command::Clean,
                ) => {
                    let message = "`--format` before the subcommand applies to `check` and `accesses` only";
                    return Err(command.error(clap::error::ErrorKind::ArgumentConflict, message));
                }
                None => {}
            }
        }
        forward_baseline(&mut cli, &mut command)?;
        forward_message_format(&mut cli, &mut command)?;
        Ok(cli)
    }
}

/// Passes `--baseline` and `--write-baseline` given before `check` on to it; refuses them, and
/// the report formats, where they mean nothing.
fn forward_baseline(cli: &mut Cli, command: &mut clap::Command) -> Result<(), clap::Error> {
    const CHECK_ONLY: &str = "`--baseline` and `--write-baseline` apply to `check` only";
    let top = cli.check.baseline.clone();
    let refusal = match &mut cli.command {
        Some(Command::Check(args)) if top.given() && args.baseline.given() => {
            Some("give `--baseline` or `--write-baseline` once, before or after `check`")
        }
        Some(Command::Check(args)) => {
            if top.given() {
                args.baseline = top;
            }
            None
        }
        Some(Command::Accesses(args)) if top.given() || args.baseline.given() => Some(CHECK_ONLY),
        Some(Command::Accesses(args)) if matches!(args.format, Some(Format::Sarif | Format::Github)) => {
            Some("`accesses` writes `--format human` or `json`; `sarif` and `github` are formats of findings (`check`, `fix`)")
        }
        Some(Command::Fix(args)) if top.given() || args.analyze.baseline.given() => Some(CHECK_ONLY),
        Some(_) if top.given() => Some(CHECK_ONLY),
        _ => None,
    };
    match refusal {
        Some(message) => Err(command.error(clap::error::ErrorKind::ArgumentConflict, message)),
        None => Ok(()),
    }
}

/// Passes `--message-format` and `--cargo-check` given before `check` on to it; refuses them
/// where findings are not written for an editor.
fn forward_message_format(cli: &mut Cli, command: &mut clap::Command) -> Result<(), clap::Error> {
    let (top_format, top_cargo) = (cli.check.message_format, cli.check.cargo_check);
    let refusal = match &mut cli.command {
        Some(Command::Check(args)) => {
            args.message_format = args.message_format.or(top_format);
            args.cargo_check |= top_cargo;
            (args.message_format.is_some() && args.format.is_some())
                .then_some("`--message-format` and `--format` exclude each other")
        }
        Some(Command::Accesses(args)) if top_format.is_some() || args.message_format.is_some() => {
            Some("`--message-format` applies to `check` only")
        }
        Some(Command::Fix(args)) if top_format.is_some() || args.analyze.message_format.is_some() => {
            Some("`--message-format` applies to `check` only")
        }
        Some(_) if top_format.is_some() => Some("`--message-format` applies to `check` only"),
        _ => None,
    };
    match refusal {
        Some(message) => Err(command.error(clap::error::ErrorKind::ArgumentConflict, message)),
        None => Ok(()),
    }
}

/// The level flags in the order given, wherever they appear on the line.
fn level_flags(matches: &ArgMatches) -> Vec<(Level, String)> {
    let mut out = Vec::new();
    // Those before the subcommand come first; indices order each group.
    for m in std::iter::once(matches).chain(matches.subcommand().map(|(_, sub)| sub)) {
        let mut flags: Vec<(usize, Level, String)> = Vec::new();
        for (id, level) in [("allow", Level::Allow), ("warn", Level::Warn), ("deny", Level::Deny)] {
            // `rule` does not define these flags: asking for them there would be a bug.
            if !m.try_contains_id(id).unwrap_or(false) {
                continue;
            }
            let (Some(indices), Ok(Some(values))) = (m.indices_of(id), m.try_get_many::<String>(id)) else {
                continue;
            };
            for (index, value) in indices.zip(values) {
                flags.push((index, level, value.clone()));
            }
        }
        flags.sort_by_key(|(index, _, _)| *index);
        out.extend(flags.into_iter().map(|(_, level, code)| (level, code)));
    }
    out
}

/// Drops the `kernel-lint` argument cargo inserts when it runs `cargo kernel-lint`; tells
/// whether it was there.
pub fn strip_cargo_subcommand(mut args: Vec<OsString>) -> (Vec<OsString>, bool) {
    let via_cargo = args.get(1).is_some_and(|a| a == "kernel-lint");
    if via_cargo {
        args.remove(1);
    }
    (args, via_cargo)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Cli {
        let args = std::iter::once("cargo-kernel-lint")
            .chain(args.iter().copied())
            .map(OsString::from)
            .collect();
        match Cli::try_parse_args(args, "cargo-kernel-lint") {
            Ok(cli) => cli,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn check_is_the_default() {
        let cli = parse(&["a.rs", "--format", "json"]);
        assert!(cli.command.is_none());
        assert_eq!(cli.check.paths, vec![PathBuf::from("a.rs")]);
        assert_eq!(cli.check.format, Some(Format::Json));
    }

    #[test]
    fn format_before_the_subcommand_is_kept() {
        let cli = parse(&["--format", "json", "check", "a.rs"]);
        assert!(matches!(
            cli.command,
            Some(Command::Check(AnalyzeArgs {
                format: Some(Format::Json),
                ..
            }))
        ));
        let cli = parse(&["--format", "json", "accesses", "--format", "human"]);
        assert!(matches!(
            cli.command,
            Some(Command::Accesses(AnalyzeArgs {
                format: Some(Format::Human),
                ..
            }))
        ));
    }

    #[test]
    fn subcommand_after_global_options() {
        let cli = parse(&["--color", "never", "check", "a.rs"]);
        assert!(matches!(&cli.command, Some(Command::Check(args)) if args.paths == [PathBuf::from("a.rs")]));
    }

    #[test]
    fn level_flags_keep_their_order() {
        let cli = parse(&[
            "--deny", "KL001", "check", "--allow", "KL001", "--warn", "KL002", "x.rs",
        ]);
        let flags: Vec<(Level, &str)> = cli.global.level_flags.iter().map(|(l, c)| (*l, c.as_str())).collect();
        assert_eq!(
            flags,
            vec![(Level::Deny, "KL001"), (Level::Allow, "KL001"), (Level::Warn, "KL002")]
        );
    }

    #[test]
    fn cargo_inserts_the_subcommand_name() {
        let args = ["cargo-kernel-lint", "kernel-lint", "check"]
            .map(OsString::from)
            .to_vec();
        let expected = ["cargo-kernel-lint", "check"].map(OsString::from).to_vec();
        assert_eq!(strip_cargo_subcommand(args), (expected, true));
    }
}
