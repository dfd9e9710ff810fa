//! Lesson 2's shared checks, run against the reference solution (same target name and module as
//! the exercise crate's, so both use the same snapshot files).
extern crate lesson02_solution as lesson02;

#[path = "../../../exercises/lesson02-split-heads/tests/checks.rs"]
mod checks;
