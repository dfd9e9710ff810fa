//! Reference solution for lesson 3. Same public API as the exercise crate `lesson03`; the lesson's
//! given code ([`setup`]) is the exercise crate's own file, included here unchanged.

pub mod exercises;
#[path = "../../../exercises/lesson03-parallel-attention/src/setup.rs"]
pub mod setup;

pub use exercises::{
    attention_scores, causal_mask, fold_heads, masked_softmax, parallel_attention,
};
pub use setup::{WorkedExample, labelled, padding_mask, unfold_heads, worked_example};
