//! Lesson 4's variant checks compiled against the student's crate (`lesson04`). Declared as the
//! test target `lesson04_hidden` in `exercises/lesson04-multi-head-layer/Cargo.toml`, which exists only in the
//! instructors' workspace: `cargo xtask dist` removes the target from the handout.
#[path = "variants.rs"]
mod variants;
