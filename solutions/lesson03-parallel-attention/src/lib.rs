//! Reference solution for lesson 3. Same public API as the exercise crate `lesson03`; the lesson's
//! given code ([`setup`]) is the exercise crate's own file, included here unchanged.
//!
//! A cargo feature `misconception-<id>` plants a classic wrong answer from [`misconceptions`] in
//! place of one exercise: [`exercises`] re-exports the reference implementations with a glob and
//! the planted function explicitly (an explicit re-export shadows a glob one), so the checks and
//! the given code (which calls `crate::exercises::...`) both get the wrong function. Plant one
//! at a time; with several for one exercise (`--all-features`) the first listed wins.

pub mod misconceptions;
// A planted misconception leaves the reference function it replaces unused.
#[cfg_attr(
    any(
        feature = "misconception-fold-heads-by-batch",
        feature = "misconception-keys-not-validated",
        feature = "misconception-mask-after-softmax",
        feature = "misconception-mask-inverted",
        feature = "misconception-scaled-by-model-width",
        feature = "misconception-unfold-by-batch",
        feature = "misconception-unscaled-scores"
    ),
    allow(dead_code)
)]
#[path = "exercises.rs"]
mod reference;
#[path = "../../../exercises/lesson03-parallel-attention/src/setup.rs"]
pub mod setup;

/// The exercises: the reference implementations, or a planted misconception (see the crate docs).
pub mod exercises {
    pub use crate::reference::*;

    #[cfg(feature = "misconception-fold-heads-by-batch")]
    pub use crate::misconceptions::fold_heads_by_batch::fold_heads;
    #[cfg(feature = "misconception-keys-not-validated")]
    pub use crate::misconceptions::keys_not_validated::attention_scores;
    #[cfg(feature = "misconception-mask-after-softmax")]
    pub use crate::misconceptions::mask_after_softmax::masked_softmax;
    #[cfg(feature = "misconception-mask-inverted")]
    pub use crate::misconceptions::mask_inverted::causal_mask;
    #[cfg(all(
        feature = "misconception-scaled-by-model-width",
        not(feature = "misconception-keys-not-validated")
    ))]
    pub use crate::misconceptions::scaled_by_model_width::attention_scores;
    #[cfg(all(
        feature = "misconception-unfold-by-batch",
        not(any(
            feature = "misconception-keys-not-validated",
            feature = "misconception-scaled-by-model-width"
        ))
    ))]
    pub use crate::misconceptions::unfold_by_batch::attention_scores;
    #[cfg(all(
        feature = "misconception-unscaled-scores",
        not(any(
            feature = "misconception-keys-not-validated",
            feature = "misconception-scaled-by-model-width",
            feature = "misconception-unfold-by-batch"
        ))
    ))]
    pub use crate::misconceptions::unscaled_scores::attention_scores;
}

pub use exercises::*;
pub use setup::{WorkedExample, labelled, padding_mask, unfold_heads, worked_example};
