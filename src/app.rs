//! Dispatches a parsed command line to the analysis and the renderers.

use crate::analysis::{self, Outcome};
use crate::cli::{AnalyzeArgs, Cli, Color, Command, Format, GlobalArgs, RuleArgs};
use crate::render::{human, json, rules, table};
use crate::{config, discover, exit};
use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

/// Runs the program on its arguments (the first is the program name); returns the exit code.
pub fn run(args: Vec<OsString>) -> i32 {
    let (args, via_cargo) = crate::cli::strip_cargo_subcommand(args);
    let bin_name = if via_cargo {
        "cargo kernel-lint"
    } else {
        "cargo-kernel-lint"
    };
    let cli = match Cli::try_parse_args(args, bin_name) {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() { exit::ERROR } else { exit::SUCCESS };
        }
    };
    match &cli.command {
        Some(Command::Check(args)) => check(&cli.global, args),
        Some(Command::Accesses(args)) => accesses(&cli.global, args),
        Some(Command::Rule(args)) => rule(args),
        Some(Command::Harness(command)) => crate::harness::run(&cli.global, command),
        Some(Command::Validate(args)) => crate::harness::validate(&cli.global, args),
        None => check(&cli.global, &cli.check),
    }
}

fn check(global: &GlobalArgs, args: &AnalyzeArgs) -> i32 {
    let outcome = match analyze(global, &args.paths) {
        Ok(outcome) => outcome,
        Err(code) => return code,
    };
    let text = match args.format.unwrap_or_default() {
        Format::Human => human::check(&outcome, use_color(global.color)),
        Format::Json => json::diagnostics(&outcome),
    };
    if let Err(code) = print(&text) {
        return code;
    }
    exit::of_run(outcome.has_errors(), outcome.has_failing_findings())
}

fn accesses(global: &GlobalArgs, args: &AnalyzeArgs) -> i32 {
    let outcome = match analyze(global, &args.paths) {
        Ok(outcome) => outcome,
        Err(code) => return code,
    };
    let text = match args.format.unwrap_or_default() {
        Format::Human => {
            for err in outcome.errors() {
                eprintln!("error: {err}");
            }
            table::accesses(&outcome)
        }
        Format::Json => json::accesses(&outcome),
    };
    if let Err(code) = print(&text) {
        return code;
    }
    exit::of_run(outcome.has_errors(), false)
}

fn rule(args: &RuleArgs) -> i32 {
    let text = match &args.code {
        None => rules::table(),
        Some(code) => match kernel_lint_lints::find(code) {
            Some(lint) => rules::docs(lint),
            None => {
                eprintln!("error: unknown lint `{code}` (`cargo kernel-lint rule` lists them)");
                return exit::ERROR;
            }
        },
    };
    print(&text).err().unwrap_or(exit::SUCCESS)
}

/// Loads the configuration, finds the files and analyzes them; fatal problems are reported
/// here and turned into the exit code.
pub(crate) fn analyze(global: &GlobalArgs, paths: &[PathBuf]) -> Result<Outcome, i32> {
    let config = config::load(global).map_err(fatal)?;
    let candidates = if paths.is_empty() {
        discover::from_workspace(global.manifest_path.as_deref()).map_err(fatal)?
    } else {
        discover::from_paths(paths)
    };
    Ok(analysis::run(candidates, &config.plan, &config.levels))
}

pub(crate) fn fatal(message: String) -> i32 {
    eprintln!("error: {message}");
    exit::ERROR
}

fn use_color(choice: Color) -> bool {
    match choice {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    }
}

/// Writes to stdout; a closed pipe (`| head`) is not an error worth reporting.
pub(crate) fn print(text: &str) -> Result<(), i32> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(err) => Err(fatal(format!("cannot write the output: {err}"))),
    }
}
