//! Lesson 3's shared checks, run against the reference solution (same target name and module as
//! the exercise crate's, so both use the same snapshot files).
extern crate lesson03_solution as lesson03;

#[path = "../../../exercises/lesson03-parallel-attention/tests/checks.rs"]
mod checks;
