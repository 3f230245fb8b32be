//! Standard output.

use crate::error::CliError;
use std::io::Write;

/// Writes to stdout; a closed pipe (`| head`) is not an error worth reporting.
pub fn print(text: &str) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(err) => Err(CliError::Output(err)),
    }
}
