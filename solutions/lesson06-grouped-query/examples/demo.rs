//! Lesson 6's worked example, run with the reference solution: the exercise crate's
//! `examples/demo.rs`, unchanged (`cargo xtask demo lesson06 --solutions`).
extern crate lesson06_solution as lesson06;

#[path = "../../../exercises/lesson06-grouped-query/examples/demo.rs"]
mod demo;

fn main() -> std::process::ExitCode {
    demo::main()
}
