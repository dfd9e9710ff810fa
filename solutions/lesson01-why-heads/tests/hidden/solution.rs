//! Lesson 1's variant checks run against the reference solution (same target name and module
//! as the exercise crate's hidden target).
extern crate lesson01_solution as lesson01;

#[path = "variants.rs"]
mod variants;
