//! A progress bar on stderr for long runs: files analyzed of all, and the file at hand. Only
//! a person watching a terminal sees it; it is cleared before the output is written.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kernel_lint_analyzer::Progress;
use std::io::IsTerminal;

/// Whether to show progress: stderr is a terminal that can redraw a line, and it was not
/// turned off.
pub fn wanted(stderr_is_terminal: bool, no_progress: bool, term: Option<&str>) -> bool {
    stderr_is_terminal && !no_progress && term != Some("dumb")
}

/// The progress of one run, shown or not.
pub struct Bar(Option<ProgressBar>);

impl Bar {
    /// A bar for this process, shown when [`wanted`] says so.
    pub fn for_stderr(no_progress: bool) -> Bar {
        let term = std::env::var("TERM").ok();
        if !wanted(std::io::stderr().is_terminal(), no_progress, term.as_deref()) {
            return Bar(None);
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template("{prefix} {pos}/{len} files {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        Bar(Some(bar))
    }

    /// Starts a phase over `files` files.
    pub fn phase(&self, name: &str, files: usize) {
        if let Some(bar) = &self.0 {
            bar.set_prefix(name.to_string());
            bar.set_length(files as u64);
            bar.set_position(0);
        }
    }

    /// Clears the bar, leaving nothing on the terminal.
    pub fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

impl Progress for Bar {
    fn started(&self, path: &str) {
        if let Some(bar) = &self.0 {
            bar.set_message(path.to_string());
        }
    }

    fn finished(&self, _: &str) {
        if let Some(bar) = &self.0 {
            bar.inc(1);
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_only_on_a_terminal_that_redraws_unless_turned_off() {
        assert!(wanted(true, false, Some("xterm-256color")));
        assert!(wanted(true, false, None));
        assert!(!wanted(false, false, Some("xterm-256color")));
        assert!(!wanted(true, true, Some("xterm-256color")));
        assert!(!wanted(true, false, Some("dumb")));
    }
}
