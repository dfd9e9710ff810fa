//! Lesson 5's variant checks run against the reference solution (same target name and module
//! as the exercise crate's hidden target).
extern crate lesson05_solution as lesson05;

#[path = "variants.rs"]
mod variants;
