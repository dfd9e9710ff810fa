//! Reference solution for lesson 7. Same public API as the exercise crate `lesson07`; the lesson's
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
#[path = "../../../exercises/lesson07-kv-cache/src/setup.rs"]
pub mod setup;

/// The exercises: the reference implementations, or a planted misconception (see the crate docs).
pub mod exercises {
    pub use crate::reference::*;

    use attention::Result;
    use ndarray::{Array3, ArrayView3};

    course_check::plantable! {
        pub fn decode_step(q: ArrayView3<f64>, cache: &KvCache) -> Result<(Array3<f64>, Array3<f64>)> {
            "decode-attends-only-to-new-key" => crate::misconceptions::decode_attends_only_to_new_key::decode_step,
            "decode-masks-the-cache-again" => crate::misconceptions::decode_masks_the_cache_again::decode_step,
            "decode-softmax-wrong-axis" => crate::misconceptions::decode_softmax_wrong_axis::decode_step,
            "decode-softmax-without-max-shift" => crate::misconceptions::decode_softmax_without_max_shift::decode_step,
        }
    }
}

pub use exercises::{KvCache, decode_step, generate};
pub use setup::{CacheError, GqaLayer, WorkedExample, worked_example};
