//! Lesson 1's variant checks compiled against the student's crate (`lesson01`). Declared as the
//! test target `lesson01_hidden` in `exercises/lesson01-why-heads/Cargo.toml`, which exists only in the
//! instructors' workspace: `cargo xtask dist` removes the target from the handout.
#[path = "variants.rs"]
mod variants;
