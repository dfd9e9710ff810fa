//! Reference solution for lesson 3. Same public API as the exercise crate `lesson03`; the lesson's
//! given code ([`setup`]) is the exercise crate's own file, included here unchanged.
//!
//! [`exercises`] re-exports the reference implementations with a glob, except the functions into
//! which a classic wrong answer from [`misconceptions`] can be planted: those are defined there
//! with [`course_check::plantable!`] and run the wrong answer instead when the grader plants it
//! (`grade --solutions --plant ID` names it in the check process's environment), so the checks
//! and the given code (which calls `crate::exercises::...`) both get it. One build serves every
//! misconception of the lesson.

pub mod misconceptions;
#[path = "exercises.rs"]
mod reference;
#[path = "../../../exercises/lesson03-parallel-attention/src/setup.rs"]
pub mod setup;

/// The exercises: the reference implementations, or a planted misconception (see the crate docs).
pub mod exercises {
    pub use crate::reference::*;

    use attention::Result;
    use ndarray::{Array3, Array4, ArrayView4};

    course_check::plantable! {
        pub fn fold_heads(x: ArrayView4<f64>) -> Array3<f64> {
            "fold-heads-by-batch" => crate::misconceptions::fold_heads_by_batch::fold_heads,
        }
        pub fn attention_scores(q: ArrayView4<f64>, k: ArrayView4<f64>) -> Result<Array4<f64>> {
            "keys-not-validated" => crate::misconceptions::keys_not_validated::attention_scores,
            "keys-not-transposed" => crate::misconceptions::keys_not_transposed::attention_scores,
            "scores-queries-transposed" => crate::misconceptions::scores_queries_transposed::attention_scores,
            "scaled-by-model-width" => crate::misconceptions::scaled_by_model_width::attention_scores,
            "unfold-by-batch" => crate::misconceptions::unfold_by_batch::attention_scores,
            "unscaled-scores" => crate::misconceptions::unscaled_scores::attention_scores,
        }
        pub fn masked_softmax(
            scores: ArrayView4<f64>,
            allowed: Option<ArrayView4<bool>>,
        ) -> Result<Array4<f64>> {
            "mask-after-softmax" => crate::misconceptions::mask_after_softmax::masked_softmax,
            "masked-softmax-without-max-shift" => crate::misconceptions::masked_softmax_without_max_shift::masked_softmax,
            "masked-softmax-wrong-axis" => crate::misconceptions::masked_softmax_wrong_axis::masked_softmax,
        }
        pub fn causal_mask(t: usize, s: usize) -> Array4<bool> {
            "mask-inverted" => crate::misconceptions::mask_inverted::causal_mask,
            "mask-hides-own-position" => crate::misconceptions::mask_hides_own_position::causal_mask,
        }
    }
}

pub use exercises::*;
pub use setup::{WorkedExample, labelled, padding_mask, unfold_heads, worked_example};
