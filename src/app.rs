//! Dispatches a parsed command line to the analysis and the renderers.

use crate::baseline::{self, Baseline};
use crate::cli::{AnalyzeArgs, Cli, Command, Format, RuleArgs};
use crate::error::CliError;
use crate::exit::Status;
use crate::output::print;
use crate::render::{json, rules, table};
use crate::session::{Cleaned, Session};

/// Runs a parsed command line.
pub fn run(cli: &Cli) -> Result<Status, CliError> {
    let session = Session::new(cli.global.settings());
    match &cli.command {
        Some(Command::Check(args)) => check(&session, args),
        Some(Command::Accesses(args)) => accesses(&session, args),
        Some(Command::Fix(args)) => crate::fix::run(&session, args),
        Some(Command::Rule(args)) => rule(args),
        Some(Command::Harness(command)) => crate::harness::run(&session, command),
        Some(Command::Validate(args)) => crate::harness::validate(&session, args),
        Some(Command::Lsp) => crate::lsp::run(&session),
        Some(Command::Review(args)) => crate::review::run(&session, args),
        Some(Command::Clean) => clean(&session),
        None => check(&session, &cli.check),
    }
}

fn check(session: &Session, args: &AnalyzeArgs) -> Result<Status, CliError> {
    if args.message_format.is_some() {
        return crate::editor::check(session, args);
    }
    // A bad baseline stops the run before the analysis.
    let known = args.baseline.baseline.as_deref().map(Baseline::read).transpose()?;
    let mut outcome = session.check(&args.paths)?;
    if let Some(path) = &args.baseline.write_baseline {
        return baseline::write_reporting(&outcome, path);
    }
    let hidden = known.map(|known| known.hide_known(&mut outcome));
    let format = args.format.unwrap_or_default();
    let mut text = crate::render::findings(format, &outcome, session.settings().color);
    if let Some(hidden) = hidden {
        baseline::mention_hidden(&mut text, format, hidden);
    }
    print(&text)?;
    Ok(Status::of_run(outcome.has_errors(), outcome.has_failing_findings()))
}

fn accesses(session: &Session, args: &AnalyzeArgs) -> Result<Status, CliError> {
    let outcome = session.accesses(&args.paths)?;
    let text = match args.format.unwrap_or_default() {
        Format::Human => {
            for err in outcome.errors() {
                eprintln!("error: {err}");
            }
            table::accesses(&outcome)
        }
        // The command line refuses the formats of findings here.
        Format::Json | Format::Sarif | Format::Github => json::accesses(&outcome),
    };
    print(&text)?;
    Ok(Status::of_run(outcome.has_errors(), false))
}

fn rule(args: &RuleArgs) -> Result<Status, CliError> {
    let text = match &args.code {
        None => rules::table(),
        Some(code) => rules::docs(kernel_lint_lints::find(code).ok_or_else(|| CliError::UnknownLint(code.clone()))?),
    };
    print(&text)?;
    Ok(Status::Clean)
}

/// Removes the result cache.
fn clean(session: &Session) -> Result<Status, CliError> {
    match session.clean()? {
        Cleaned::Removed(dir) => eprintln!("removed {}", dir.display()),
        Cleaned::Absent(dir) => eprintln!("no cache at {}", dir.display()),
    }
    Ok(Status::Clean)
}
