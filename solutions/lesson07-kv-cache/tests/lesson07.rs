//! Lesson 7's shared checks, run against the reference solution (same target name and module as
//! the exercise crate's, so both use the same snapshot files).
extern crate lesson07_solution as lesson07;

#[path = "../../../exercises/lesson07-kv-cache/tests/checks.rs"]
mod checks;
