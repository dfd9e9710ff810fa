//! Lesson 6's shared checks, run against the reference solution (same target name and module as
//! the exercise crate's, so both use the same snapshot files).
extern crate lesson06_solution as lesson06;

#[path = "../../../exercises/lesson06-grouped-query/tests/checks.rs"]
mod checks;
