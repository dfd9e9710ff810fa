//! Lesson 9's hidden checks compiled against the student's crate (`lesson09`). Declared as the
//! test target `lesson09_hidden` in `exercises/lesson09-tiled-attention/Cargo.toml`, which exists only
//! in the instructors' workspace: `cargo xtask dist` removes the target from the handout.
#[path = "checks.rs"]
mod hidden;

#[path = "variants.rs"]
mod variants;
