//! Reference solution for lesson 1. Same public API as the exercise crate `lesson01`; the lesson's
//! given code ([`setup`]) is the exercise crate's own file, included here unchanged.

pub mod exercises;
#[path = "../../../exercises/lesson01-why-heads/src/setup.rs"]
pub mod setup;

pub use exercises::{
    attention_weights, disagreements, draw_head, max_abs_diff, row_sums, top_focus,
};
pub use setup::{Head, Sentence, WorkedExample, worked_example};
