//! Lesson 6's variant checks run against the reference solution (same target name and module
//! as the exercise crate's hidden target).
extern crate lesson06_solution as lesson06;

#[path = "variants.rs"]
mod variants;
