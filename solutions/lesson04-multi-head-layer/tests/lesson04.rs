//! Lesson 4's shared checks, run against the reference solution (same target name and module as
//! the exercise crate's, so both use the same snapshot files).
extern crate lesson04_solution as lesson04;

#[path = "../../../exercises/lesson04-multi-head-layer/tests/checks.rs"]
mod checks;
