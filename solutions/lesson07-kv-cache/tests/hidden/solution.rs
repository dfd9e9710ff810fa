//! Lesson 7's variant checks run against the reference solution (same target name and module
//! as the exercise crate's hidden target).
extern crate lesson07_solution as lesson07;

#[path = "variants.rs"]
mod variants;
