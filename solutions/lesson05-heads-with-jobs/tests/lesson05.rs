//! Lesson 5's shared checks, run against the reference solution (same target name and module as
//! the exercise crate's, so both use the same snapshot files).
extern crate lesson05_solution as lesson05;

#[path = "../../../exercises/lesson05-heads-with-jobs/tests/checks.rs"]
mod checks;
