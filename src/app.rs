//! Dispatches a parsed command line to the analysis and the renderers.

use crate::analysis;
use crate::baseline::{self, Baseline};
use crate::cli::{AnalyzeArgs, Cli, Command, Format, GlobalArgs, RuleArgs};
use crate::error::CliError;
use crate::exit::Status;
use crate::output::{print, use_color};
use crate::render::{json, rules, table};

/// Runs a parsed command line.
pub fn run(cli: &Cli) -> Result<Status, CliError> {
    match &cli.command {
        Some(Command::Check(args)) => check(&cli.global, args),
        Some(Command::Accesses(args)) => accesses(&cli.global, args),
        Some(Command::Fix(args)) => crate::fix::run(&cli.global, args),
        Some(Command::Rule(args)) => rule(args),
        Some(Command::Harness(command)) => crate::harness::run(&cli.global, command),
        Some(Command::Validate(args)) => crate::harness::validate(&cli.global, args),
        Some(Command::Lsp) => crate::lsp::run(),
        Some(Command::Review(args)) => crate::review::run(&cli.global, args),
        Some(Command::Clean) => clean(&cli.global),
        None => check(&cli.global, &cli.check),
    }
}

fn check(global: &GlobalArgs, args: &AnalyzeArgs) -> Result<Status, CliError> {
    if args.message_format.is_some() {
        return crate::editor::check(global, args);
    }
    // A bad baseline stops the run before the analysis.
    let known = args.baseline.baseline.as_deref().map(Baseline::read).transpose()?;
    let mut outcome = analysis::analyze_reusing(global, &args.paths)?;
    if let Some(path) = &args.baseline.write_baseline {
        return baseline::write_reporting(&outcome, path);
    }
    let hidden = known.map(|known| known.hide_known(&mut outcome));
    let format = args.format.unwrap_or_default();
    let mut text = crate::render::findings(format, &outcome, use_color(global.color));
    if let Some(hidden) = hidden {
        baseline::mention_hidden(&mut text, format, hidden);
    }
    print(&text)?;
    Ok(Status::of_run(outcome.has_errors(), outcome.has_failing_findings()))
}

fn accesses(global: &GlobalArgs, args: &AnalyzeArgs) -> Result<Status, CliError> {
    let outcome = analysis::analyze_accesses(global, &args.paths)?;
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
fn clean(global: &GlobalArgs) -> Result<Status, CliError> {
    let settings = crate::config::Resolver::new(global)?.run_settings()?;
    let cache = crate::cache::Cache::new(analysis::cache_dir(global, &settings));
    match cache.clean() {
        Ok(true) => eprintln!("removed {}", cache.dir().display()),
        Ok(false) => eprintln!("no cache at {}", cache.dir().display()),
        Err(why) => return Err(CliError::Config(why)),
    }
    Ok(Status::Clean)
}
