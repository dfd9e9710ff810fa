//! Lesson 5's worked example, run with the reference solution: the exercise crate's
//! `examples/demo.rs`, unchanged (`cargo xtask demo lesson05 --solutions`).
extern crate lesson05_solution as lesson05;

#[path = "../../../exercises/lesson05-heads-with-jobs/examples/demo.rs"]
mod demo;

fn main() -> std::process::ExitCode {
    demo::main()
}
