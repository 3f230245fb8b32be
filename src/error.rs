//! Errors that stop a command before it can report anything; `main` turns each into the exit
//! code 2 and one `error:` line.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Why a command could not run to its end.
#[derive(Debug)]
pub enum CliError {
    /// The configuration is unreadable or invalid.
    Config(String),
    /// The configuration contradicts itself or the kernels it configures, at these places.
    ConfigProblems(Vec<Problem>),
    /// The cargo workspace could not be read.
    Workspace(String),
    /// The language server's connection failed.
    Lsp(String),
    /// A file the command needs could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// The reason.
        message: String,
    },
    /// A file the command writes could not be written.
    Write {
        /// The file or folder.
        path: PathBuf,
        /// The reason.
        message: String,
    },
    /// A file was read but is not in the format the command expects.
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// No lint has this code or name.
    UnknownLint(String),
    /// Tools the command runs are not installed.
    MissingTools(Vec<&'static str>),
    /// A tool the command runs could not start or failed.
    Tool {
        /// The program.
        program: String,
        /// Its failure, with its output.
        message: String,
    },
    /// Standard output could not be written.
    Output(io::Error),
    /// `validate` found no launch to measure; the kernels not lowered, each with its reason.
    NothingToMeasure(Vec<String>),
    /// The command would not go on (`fix` over uncommitted changes), and says why.
    Refused(String),
}

impl CliError {
    /// A read failure of `path`.
    pub fn read(path: &Path, err: &io::Error) -> CliError {
        CliError::Read {
            path: path.to_path_buf(),
            message: io_message(err),
        }
    }

    /// A write failure of `path`.
    pub fn write(path: &Path, err: &io::Error) -> CliError {
        CliError::Write {
            path: path.to_path_buf(),
            message: io_message(err),
        }
    }

    /// A file of the wrong format.
    pub fn malformed(path: &Path, message: impl fmt::Display) -> CliError {
        CliError::Malformed {
            path: path.to_path_buf(),
            message: message.to_string(),
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Config(message) | CliError::Workspace(message) | CliError::Lsp(message) => f.write_str(message),
            // `main` writes the first `error: `; each further problem gets its own.
            CliError::ConfigProblems(problems) => {
                for (i, problem) in problems.iter().enumerate() {
                    if i > 0 {
                        f.write_str("\nerror: ")?;
                    }
                    write!(f, "{problem}")?;
                }
                Ok(())
            }
            CliError::Read { path, message } => write!(f, "cannot read `{}`: {message}", path.display()),
            CliError::Write { path, message } => write!(f, "cannot write `{}`: {message}", path.display()),
            CliError::Malformed { path, message } => write!(f, "{}: {message}", path.display()),
            CliError::UnknownLint(code) => write!(f, "unknown lint `{code}` (`cargo kernel-lint rule` lists them)"),
            CliError::MissingTools(names) => write!(
                f,
                "this needs a machine with an NVIDIA GPU, nvcc and ncu; not found on the PATH: {}",
                names.join(", ")
            ),
            CliError::Tool { program, message } => write!(f, "{program} {message}"),
            CliError::Refused(message) => f.write_str(message),
            CliError::Output(err) => write!(f, "cannot write the output: {err}"),
            CliError::NothingToMeasure(kernels) => {
                f.write_str("nothing to measure: no kernel could be lowered")?;
                for kernel in kernels {
                    write!(f, "\n  not lowered: {kernel}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for CliError {}

/// A place in a file, 1-based.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Location {
    /// The file, as printed.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.path, self.line, self.column)
    }
}

/// A located problem of a configuration or a launch hint, with an optional note at another
/// place (the first of two duplicate entries, say).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Problem {
    /// Where.
    pub at: Location,
    /// What is wrong, lowercase.
    pub message: String,
    /// A related place and what it is.
    pub note: Option<(Location, String)>,
}

impl Problem {
    /// A problem at a place.
    pub fn new(at: Location, message: impl Into<String>) -> Problem {
        Problem {
            at,
            message: message.into(),
            note: None,
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.message)?;
        if let Some((at, note)) = &self.note {
            write!(f, "\nnote: {at}: {note}")?;
        }
        Ok(())
    }
}

/// A short lowercase reason for an I/O failure.
pub fn io_message(err: &io::Error) -> String {
    match err.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        io::ErrorKind::IsADirectory => "is a directory".to_string(),
        _ => err.to_string(),
    }
}
