//! Project chores that need code rather than a shell line, and what the tests share about the
//! machine they run on.

pub mod corpus;
pub mod cxx;
pub mod external;
pub mod unseen;
