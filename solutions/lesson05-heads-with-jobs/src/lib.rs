//! Reference solution for lesson 5. Same public API as the exercise crate `lesson05`; the lesson's
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
#[path = "../../../exercises/lesson05-heads-with-jobs/src/setup.rs"]
pub mod setup;
#[path = "../../../exercises/lesson05-heads-with-jobs/src/worked.rs"]
pub mod worked;

/// The exercises: the reference implementations, or a planted misconception (see the crate docs).
pub mod exercises {
    pub use crate::reference::*;

    use crate::setup::Head;
    use attention::Result;
    use ndarray::{Array2, ArrayView2};

    course_check::plantable! {
        pub fn causal_weights(q: ArrayView2<f64>, k: ArrayView2<f64>) -> Result<Array2<f64>> {
            "causal-scores-scaled" => crate::misconceptions::causal_scores_scaled::causal_weights,
            "causal-softmax-without-max-shift" => crate::misconceptions::causal_softmax_without_max_shift::causal_weights,
            "causal-softmax-wrong-axis" => crate::misconceptions::causal_softmax_wrong_axis::causal_weights,
            "mask-with-zero-scores" => crate::misconceptions::mask_with_zero_scores::causal_weights,
        }
        pub fn token_features(category: &[usize], n_categories: usize) -> Result<Array2<f64>> {}
        pub fn previous_token_head(t: usize, n_categories: usize, gain: f64) -> Head {}
        pub fn same_category_head(t: usize, n_categories: usize, gain: f64) -> Head {}
        pub fn same_category(category: &[usize], i: usize) -> Result<Vec<usize>> {}
    }
}

pub use exercises::*;
pub use setup::{Head, WorkedExample};
pub use worked::worked_example;
