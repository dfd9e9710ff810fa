//! Lesson 1's shared checks, run against the reference solution. The test target has the same
//! name as the exercise crate's (`lesson01`) and the checks sit in the same module, so both read
//! and write the same snapshot files.
extern crate lesson01_solution as lesson01;

#[path = "../../../exercises/lesson01-why-heads/tests/checks.rs"]
mod checks;
