//! `check --message-format json`: the findings as the stream rust-analyzer's
//! `check.overrideCommand` reads, after `cargo check`'s own messages with `--cargo-check`.

use crate::baseline::{self, Baseline};
use crate::cargo_check::{self, Packages};
use crate::cli::{AnalyzeArgs, Format};
use crate::error::CliError;
use crate::exit::Status;
use crate::output::print;
use crate::render::rustc;
use crate::session::Session;

/// Runs `check` for an editor. The exit status is `check`'s; a `cargo check` that fails makes
/// it 2, as input that does not compile.
pub fn check(session: &Session, args: &AnalyzeArgs) -> Result<Status, CliError> {
    let known = args.baseline.baseline.as_deref().map(Baseline::read).transpose()?;
    // The compiler's messages come first, as they arrive: they are the ones a user waits for.
    let cargo = if args.cargo_check {
        Some(cargo_check::check(session.settings().manifest_path.as_deref())?)
    } else {
        None
    };
    let linted = lint(session, args, known);
    // The stream ends with one `build-finished` line even when the lints could not run.
    if let Some(cargo) = cargo {
        print(&cargo.finished_line())?;
    }
    let status = linted?;
    Ok(match cargo {
        Some(cargo) if !cargo.success => Status::Failed,
        _ => status,
    })
}

fn lint(session: &Session, args: &AnalyzeArgs, known: Option<Baseline>) -> Result<Status, CliError> {
    let mut outcome = session.check(&args.paths)?;
    if let Some(path) = &args.baseline.write_baseline {
        return baseline::write_reporting(&outcome, path);
    }
    if let Some(known) = known {
        let hidden = known.hide_known(&mut outcome);
        // Stdout is the stream: the count goes to stderr.
        baseline::mention_hidden(&mut String::new(), Format::Json, hidden);
    }
    let reported = outcome.paths.iter().map(|(_, path)| path.as_path());
    let packages = Packages::of_files(reported);
    print(&rustc::messages(&outcome, &packages))?;
    Ok(Status::of_run(outcome.has_errors(), outcome.has_failing_findings()))
}
