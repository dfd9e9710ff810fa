//! Lesson 8's hidden checks compiled against the student's crate (`lesson08`). Declared as the
//! test target `lesson08_hidden` in `exercises/lesson08-rope-window/Cargo.toml`, which exists only
//! in the instructors' workspace: `cargo xtask dist` removes the target from the handout.
#[path = "checks.rs"]
mod hidden;

#[path = "variants.rs"]
mod variants;
