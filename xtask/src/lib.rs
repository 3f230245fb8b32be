//! Project chores that need code rather than a shell line.

pub mod corpus;
