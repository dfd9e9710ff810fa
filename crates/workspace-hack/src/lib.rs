//! No code. This crate's Cargo.toml lists features of crates that the grader and the lessons both
//! compile, so that the two builds of a first `cargo xtask grade` share them (see the comments
//! there).
