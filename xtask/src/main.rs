//! `cargo run -p xtask -- corpus --kernels 1000 --out DIR [--mixed] [--kernels-per-file N]`: writes a synthetic kernel
//! workspace for benchmarks.
//!
//! `cargo run -p xtask -- unseen --labels evaluation/unseen --checkouts DIR --tool BINARY`: runs
//! the tool on checkouts of the labelled repositories (`DIR/OWNER+REPO`) and prints right /
//! total per dialect, then each access that was not right.

use std::path::PathBuf;
use std::process::ExitCode;
use xtask::corpus::{write_corpus, CorpusSpec};

const USAGE: &str = "usage: xtask corpus --kernels N --out DIR [--mixed] [--seed N] [--kernels-per-file N]\n       xtask unseen --labels DIR --checkouts DIR --tool BINARY";

fn unseen(args: &[String]) -> ExitCode {
    let value = |name: &str| {
        let at = args.iter().position(|a| a == name)?;
        args.get(at + 1).map(PathBuf::from)
    };
    let (Some(labels), Some(checkouts), Some(tool)) = (value("--labels"), value("--checkouts"), value("--tool")) else {
        eprintln!("error: `unseen` needs --labels, --checkouts and --tool\n{USAGE}");
        return ExitCode::from(2);
    };
    let labels = match xtask::unseen::read_labels(&labels) {
        Ok(labels) => labels,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::FAILURE;
        }
    };
    let (tallies, misses) = xtask::unseen::measure(&labels, &checkouts, &tool);
    let (mut right, mut total) = (0, 0);
    for (dialect, tally) in &tallies {
        right += tally.right;
        total += tally.total;
        println!(
            "{dialect}: {} of {} right, {} false broadcasts",
            tally.right, tally.total, tally.false_broadcasts
        );
    }
    println!("all: {right} of {total} right");
    print!("{misses}");
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("unseen") {
        return unseen(&args[1..]);
    }
    match parse(&args) {
        Ok((spec, out)) => match write_corpus(&spec, &out) {
            Ok(stats) => {
                println!(
                    "wrote {} files ({} with kernels), {} kernels, {} lines to {}",
                    stats.files,
                    stats.kernel_files,
                    stats.kernels,
                    stats.lines,
                    out.display()
                );
                ExitCode::SUCCESS
            }
            Err(err) => {
                eprintln!("error: cannot write {}: {err}", out.display());
                ExitCode::FAILURE
            }
        },
        Err(message) => {
            eprintln!("error: {message}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn parse(args: &[String]) -> Result<(CorpusSpec, PathBuf), String> {
    let mut it = args.iter();
    match it.next().map(String::as_str) {
        Some("corpus") => {}
        Some(other) => return Err(format!("unknown command `{other}`")),
        None => return Err("no command given".into()),
    }
    let mut spec = CorpusSpec::default();
    let mut out = None;
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or_else(|| format!("`{name}` needs a value"));
        match arg.as_str() {
            "--kernels" => {
                let v = value("--kernels")?;
                spec.kernels = v.parse().map_err(|_| format!("`--kernels {v}`: not a count"))?;
            }
            "--seed" => {
                let v = value("--seed")?;
                spec.seed = v.parse().map_err(|_| format!("`--seed {v}`: not a number"))?;
            }
            "--kernels-per-file" => {
                let v = value("--kernels-per-file")?;
                spec.kernels_per_file = v
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| format!("`--kernels-per-file {v}`: not a positive count"))?;
            }
            "--out" => out = Some(PathBuf::from(value("--out")?)),
            "--mixed" => spec.mixed = true,
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    let out = out.ok_or("`--out DIR` is required")?;
    Ok((spec, out))
}
