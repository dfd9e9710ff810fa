//! Lesson 3's variant checks compiled against the student's crate (`lesson03`). Declared as the
//! test target `lesson03_hidden` in `exercises/lesson03-parallel-attention/Cargo.toml`, which exists only in the
//! instructors' workspace: `cargo xtask dist` removes the target from the handout.
#[path = "variants.rs"]
mod variants;
