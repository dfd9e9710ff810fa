//! Lesson 4's variant checks run against the reference solution (same target name and module
//! as the exercise crate's hidden target).
extern crate lesson04_solution as lesson04;

#[path = "variants.rs"]
mod variants;
