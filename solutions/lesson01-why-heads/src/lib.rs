//! Reference solution for lesson 1. Same public API as the exercise crate `lesson01`; the lesson's
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
#[path = "../../../exercises/lesson01-why-heads/src/setup.rs"]
pub mod setup;
#[path = "../../../exercises/lesson01-why-heads/src/worked.rs"]
pub mod worked;

/// The exercises: the reference implementations, or a planted misconception (see the crate docs).
pub mod exercises {
    pub use crate::reference::*;

    use crate::setup::Head;
    use attention::Result;
    use attention::rng::RandomState;
    use ndarray::{Array3, ArrayView2, ArrayView3};

    course_check::plantable! {
        pub fn draw_head(rng: &mut RandomState, c: usize, hs: usize, scale: f64) -> Head {
            "draw-order-swapped" => crate::misconceptions::draw_order_swapped::draw_head,
        }
        pub fn attention_weights(
            x: ArrayView3<f64>,
            wq: ArrayView2<f64>,
            wk: ArrayView2<f64>,
            wv: ArrayView2<f64>,
        ) -> Result<Array3<f64>> {
            "softmax-without-max-shift" => crate::misconceptions::softmax_without_max_shift::attention_weights,
            "softmax-wrong-axis" => crate::misconceptions::softmax_wrong_axis::attention_weights,
            "wv-not-validated" => crate::misconceptions::wv_not_validated::attention_weights,
        }
    }
}

pub use exercises::*;
pub use setup::{Head, Sentence, WorkedExample};
pub use worked::worked_example;
