//! Lesson 9's shared checks, run against the reference solution (same target name and module as
//! the exercise crate's, so both use the same snapshot files).
extern crate lesson09_solution as lesson09;

#[path = "../../../exercises/lesson09-tiled-attention/tests/checks.rs"]
mod checks;
