//! Lesson 2's hidden checks compiled against the student's crate (`lesson02`). Declared as the
//! test target `lesson02_hidden` in `exercises/lesson02-split-heads/Cargo.toml`, which exists only
//! in the instructors' workspace: `cargo xtask dist` removes the target from the handout.
#[path = "checks.rs"]
mod hidden;

#[path = "variants.rs"]
mod variants;
