//! Reference solution for lesson 5. Same public API as the exercise crate `lesson05`; the lesson's
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
        feature = "misconception-causal-scores-scaled",
        feature = "misconception-causal-softmax-without-max-shift",
        feature = "misconception-mask-with-zero-scores"
    ),
    allow(dead_code)
)]
#[path = "exercises.rs"]
mod reference;
#[path = "../../../exercises/lesson05-heads-with-jobs/src/setup.rs"]
pub mod setup;
#[path = "../../../exercises/lesson05-heads-with-jobs/src/worked.rs"]
pub mod worked;

/// The exercises: the reference implementations, or a planted misconception (see the crate docs).
pub mod exercises {
    pub use crate::reference::*;

    #[cfg(feature = "misconception-causal-scores-scaled")]
    pub use crate::misconceptions::causal_scores_scaled::causal_weights;
    #[cfg(all(
        feature = "misconception-causal-softmax-without-max-shift",
        not(feature = "misconception-causal-scores-scaled")
    ))]
    pub use crate::misconceptions::causal_softmax_without_max_shift::causal_weights;
    #[cfg(all(
        feature = "misconception-mask-with-zero-scores",
        not(any(
            feature = "misconception-causal-scores-scaled",
            feature = "misconception-causal-softmax-without-max-shift"
        ))
    ))]
    pub use crate::misconceptions::mask_with_zero_scores::causal_weights;
}

pub use exercises::*;
pub use setup::{Head, WorkedExample};
pub use worked::worked_example;
