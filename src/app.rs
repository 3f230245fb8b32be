//! Dispatches a parsed command line to the analysis and the renderers.

use crate::analysis;
use crate::cli::{AnalyzeArgs, Cli, Command, Format, GlobalArgs, RuleArgs};
use crate::error::CliError;
use crate::exit::Status;
use crate::output::{print, use_color};
use crate::render::{human, json, rules, table};

/// Runs a parsed command line.
pub fn run(cli: &Cli) -> Result<Status, CliError> {
    match &cli.command {
        Some(Command::Check(args)) => check(&cli.global, args),
        Some(Command::Accesses(args)) => accesses(&cli.global, args),
        Some(Command::Fix(args)) => crate::fix::run(&cli.global, args),
        Some(Command::Rule(args)) => rule(args),
        Some(Command::Harness(command)) => crate::harness::run(&cli.global, command),
        Some(Command::Validate(args)) => crate::harness::validate(&cli.global, args),
        None => check(&cli.global, &cli.check),
    }
}

fn check(global: &GlobalArgs, args: &AnalyzeArgs) -> Result<Status, CliError> {
    let outcome = analysis::analyze(global, &args.paths)?;
    let text = match args.format.unwrap_or_default() {
        Format::Human => human::check(&outcome, use_color(global.color)),
        Format::Json => json::diagnostics(&outcome),
    };
    print(&text)?;
    Ok(Status::of_run(outcome.has_errors(), outcome.has_failing_findings()))
}

fn accesses(global: &GlobalArgs, args: &AnalyzeArgs) -> Result<Status, CliError> {
    let outcome = analysis::analyze(global, &args.paths)?;
    let text = match args.format.unwrap_or_default() {
        Format::Human => {
            for err in outcome.errors() {
                eprintln!("error: {err}");
            }
            table::accesses(&outcome)
        }
        Format::Json => json::accesses(&outcome),
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
