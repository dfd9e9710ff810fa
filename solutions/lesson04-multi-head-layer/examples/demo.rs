//! Lesson 4's worked example with the reference solution (`cargo xtask demo lesson04 --solutions`).
extern crate lesson04_solution as lesson04;

#[path = "../../../exercises/lesson04-multi-head-layer/examples/demo.rs"]
mod demo;

fn main() -> std::process::ExitCode {
    demo::main()
}
