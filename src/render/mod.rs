//! Renderers over the findings model: text for people, tables, JSON.

pub mod human;
pub mod json;
pub mod rules;
pub mod table;
