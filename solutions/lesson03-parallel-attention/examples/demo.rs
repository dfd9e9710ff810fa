//! Lesson 3's worked example with the reference solution (`cargo xtask demo lesson03 --solutions`).
extern crate lesson03_solution as lesson03;

#[path = "../../../exercises/lesson03-parallel-attention/examples/demo.rs"]
mod demo;

fn main() -> std::process::ExitCode {
    demo::main()
}
