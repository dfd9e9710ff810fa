//! Lesson 8's worked example with the reference solution: the exercise crate's
//! `examples/demo.rs`, unchanged (`cargo xtask demo lesson08 --solutions`).
extern crate lesson08_solution as lesson08;

#[path = "../../../exercises/lesson08-rope-window/examples/demo.rs"]
mod demo;

fn main() -> std::process::ExitCode {
    demo::main()
}
