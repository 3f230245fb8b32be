//! `cargo run -p xtask -- corpus --kernels 1000 --out DIR [--mixed] [--kernels-per-file N]`: writes a synthetic kernel
//! workspace for benchmarks.

use std::path::PathBuf;
use std::process::ExitCode;
use xtask::corpus::{write_corpus, CorpusSpec};

const USAGE: &str = "usage: xtask corpus --kernels N --out DIR [--mixed] [--seed N] [--kernels-per-file N]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
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
