//! Reference solution for lesson 4. Same public API as the exercise crate `lesson04`; the lesson's
//! given code ([`setup`]) is the exercise crate's own file, included here unchanged.

pub mod exercises;
#[path = "../../../exercises/lesson04-multi-head-layer/src/setup.rs"]
pub mod setup;

pub use exercises::{
    average_over_heads, concat_and_project, fused_qkv, init_multi_head, multi_head_forward,
};
pub use setup::{MultiHead, WorkedExample, module_input, worked_example};
