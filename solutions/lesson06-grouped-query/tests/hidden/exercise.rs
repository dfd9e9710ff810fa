//! Lesson 6's variant checks compiled against the student's crate (`lesson06`). Declared as the
//! test target `lesson06_hidden` in `exercises/lesson06-grouped-query/Cargo.toml`, which exists only in the
//! instructors' workspace: `cargo xtask dist` removes the target from the handout.
#[path = "variants.rs"]
mod variants;
