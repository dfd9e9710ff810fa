//! Reference solution for lesson 5. Same public API as the exercise crate `lesson05`; the lesson's
//! given code ([`setup`]) is the exercise crate's own file, included here unchanged.

pub mod exercises;
#[path = "../../../exercises/lesson05-heads-with-jobs/src/setup.rs"]
pub mod setup;

pub use exercises::{
    causal_weights, previous_token_head, run_heads, same_category, same_category_head,
    token_features,
};
pub use setup::{Head, WorkedExample, worked_example};
