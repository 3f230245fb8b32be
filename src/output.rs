//! Standard output and whether it gets colour.

use crate::cli::Color;
use crate::error::CliError;
use std::io::{IsTerminal, Write};

/// Writes to stdout; a closed pipe (`| head`) is not an error worth reporting.
pub fn print(text: &str) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(err) => Err(CliError::Output(err)),
    }
}

/// Whether to colour the output: as asked, or when stdout is a terminal and `NO_COLOR` is unset.
pub fn use_color(choice: Color) -> bool {
    match choice {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    }
}
