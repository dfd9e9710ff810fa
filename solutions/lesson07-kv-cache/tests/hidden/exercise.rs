//! Lesson 7's variant checks compiled against the student's crate (`lesson07`). Declared as the
//! test target `lesson07_hidden` in `exercises/lesson07-kv-cache/Cargo.toml`, which exists only in the
//! instructors' workspace: `cargo xtask dist` removes the target from the handout.
#[path = "variants.rs"]
mod variants;
