//! Reference solution for lesson 2. Same public API as the exercise crate `lesson02`; the lesson's
//! given code ([`setup`]) is the exercise crate's own file, included here unchanged.

pub mod exercises;
#[path = "../../../exercises/lesson02-split-heads/src/setup.rs"]
pub mod setup;

pub use exercises::{head_projection, head_size, merge_heads, split_heads};
pub use setup::{WorkedExample, worked_example};
