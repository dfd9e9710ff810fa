//! Lesson 9's hidden checks run against the reference solution (same target name and module as
//! the exercise crate's hidden target, so both use the same snapshot files).
extern crate lesson09_solution as lesson09;

#[path = "checks.rs"]
mod hidden;

#[path = "variants.rs"]
mod variants;
