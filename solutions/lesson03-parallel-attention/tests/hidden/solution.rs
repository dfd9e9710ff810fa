//! Lesson 3's variant checks run against the reference solution (same target name and module
//! as the exercise crate's hidden target).
extern crate lesson03_solution as lesson03;

#[path = "variants.rs"]
mod variants;
