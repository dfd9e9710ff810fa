//! Lesson 2's worked example with the reference solution (`cargo xtask demo lesson02 --solutions`).
extern crate lesson02_solution as lesson02;

#[path = "../../../exercises/lesson02-split-heads/examples/demo.rs"]
mod demo;

fn main() -> std::process::ExitCode {
    demo::main()
}
