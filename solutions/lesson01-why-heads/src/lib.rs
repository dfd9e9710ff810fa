//! Reference solution for lesson 1. Same public API as the exercise crate `lesson01`; the lesson's
//! given code ([`setup`]) is the exercise crate's own file, included here unchanged.
//!
//! [`exercises`] defines every exercise of the reference with [`course_check::plantable!`], so a
//! classic wrong answer from [`misconceptions`] (or the built-in `fitted-to-visible`) runs instead
//! when the grader plants it (`grade --solutions --plant ID` names it in the check process's
//! environment): the checks and the given code (which calls `crate::exercises::...`) both get it.
//! One build serves every misconception of the lesson.

pub mod misconceptions;
#[path = "exercises.rs"]
mod reference;
#[path = "../../../exercises/lesson01-why-heads/src/setup.rs"]
pub mod setup;
#[path = "../../../exercises/lesson01-why-heads/src/worked.rs"]
pub mod worked;

/// The exercises: the reference implementations, or a planted misconception (see the crate docs).
pub mod exercises {
    use crate::setup::Head;
    use attention::Result;
    use attention::rng::RandomState;
    use ndarray::{Array2, Array3, ArrayView, ArrayView2, ArrayView3, Dimension};

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
        pub fn top_focus(weights: ArrayView2<f64>, words: &[&str]) -> Result<Vec<String>> {}
        pub fn disagreements(a: ArrayView2<f64>, b: ArrayView2<f64>) -> Result<usize> {}
        pub fn row_sums(weights: ArrayView3<f64>) -> Array2<f64> {}
        pub fn head_output(
            weights: ArrayView3<f64>,
            x: ArrayView3<f64>,
            wv: ArrayView2<f64>,
        ) -> Result<Array3<f64>> {}
    }

    /// The reference `max_abs_diff`, behind the fitted plant's gate (`plantable!` takes no
    /// generic function).
    pub fn max_abs_diff<D: Dimension>(a: ArrayView<f64, D>, b: ArrayView<f64, D>) -> Result<f64> {
        course_check::fitted::gate("max_abs_diff", &[&a, &b]);
        crate::reference::max_abs_diff(a, b)
    }
}

pub use exercises::*;
pub use setup::{Head, Sentence, WorkedExample};
pub use worked::worked_example;
