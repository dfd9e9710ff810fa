//! Lesson 1's worked example with the reference solution (`cargo xtask demo lesson01 --solutions`).
extern crate lesson01_solution as lesson01;

#[path = "../../../exercises/lesson01-why-heads/examples/demo.rs"]
mod demo;

fn main() -> std::process::ExitCode {
    demo::main()
}
