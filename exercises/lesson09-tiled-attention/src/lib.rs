//! # Lesson 9: Attention in tiles: online softmax, logsumexp and the backward pass
//!
//! Replace this text with the lesson: what the student builds, the worked example (see [`setup`])
//! and what correct code prints. Run `cargo xtask demo lesson09` to print the example with your code,
//! and `cargo xtask grade lesson09` to grade it.
//!
//! Your work is in [`exercises`]; [`setup`] is given.

pub mod exercises;
pub mod setup;

pub use exercises::*;
pub use setup::{Grads, RowState, Tiling, WorkedExample, worked_example};
