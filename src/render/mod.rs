//! Renderers over the findings model: text for people, tables, JSON, SARIF, GitHub annotations,
//! rustc's JSON diagnostics for editors.

pub mod github;
pub mod human;
pub mod json;
pub mod rules;
pub mod rustc;
pub mod sarif;
pub mod table;

/// The findings of `check` (and those `fix` leaves) in the format asked for.
pub fn findings(format: crate::cli::Format, outcome: &crate::session::Outcome, color: bool) -> String {
    use crate::cli::Format;
    match format {
        Format::Human => human::check(outcome, color),
        Format::Json => json::diagnostics(outcome),
        Format::Sarif => sarif::log(outcome),
        Format::Github => github::annotations(outcome),
    }
}
