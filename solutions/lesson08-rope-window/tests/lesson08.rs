//! Lesson 8's shared checks, run against the reference solution (same target name and module as
//! the exercise crate's, so both use the same snapshot files).
extern crate lesson08_solution as lesson08;

#[path = "../../../exercises/lesson08-rope-window/tests/checks.rs"]
mod checks;
