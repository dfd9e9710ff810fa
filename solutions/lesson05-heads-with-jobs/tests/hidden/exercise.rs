//! Lesson 5's variant checks compiled against the student's crate (`lesson05`). Declared as the
//! test target `lesson05_hidden` in `exercises/lesson05-heads-with-jobs/Cargo.toml`, which exists only in the
//! instructors' workspace: `cargo xtask dist` removes the target from the handout.
#[path = "variants.rs"]
mod variants;
