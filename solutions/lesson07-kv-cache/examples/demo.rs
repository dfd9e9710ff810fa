//! Lesson 7's worked example with the reference solution: the exercise crate's
//! `examples/demo.rs`, unchanged (`cargo xtask demo lesson07 --solutions`).
extern crate lesson07_solution as lesson07;

#[path = "../../../exercises/lesson07-kv-cache/examples/demo.rs"]
mod demo;

fn main() -> std::process::ExitCode {
    demo::main()
}
