//! Lesson 9's worked example with the reference solution (`cargo xtask demo lesson09 --solutions`).
extern crate lesson09_solution as lesson09;

#[path = "../../../exercises/lesson09-tiled-attention/examples/demo.rs"]
mod demo;

fn main() -> std::process::ExitCode {
    demo::main()
}
