//! Reference solution for lesson 4. Same public API as the exercise crate `lesson04`; the lesson's
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
#[path = "../../../exercises/lesson04-multi-head-layer/src/setup.rs"]
pub mod setup;
#[path = "../../../exercises/lesson04-multi-head-layer/src/worked.rs"]
pub mod worked;

/// The exercises: the reference implementations, or a planted misconception (see the crate docs).
pub mod exercises {
    use crate::setup::MultiHead;
    use attention::Result;
    use ndarray::{Array1, Array3, Array4, ArrayView2, ArrayView3, ArrayView4};

    course_check::plantable! {
        pub fn average_over_heads(weights: ArrayView4<f64>) -> Result<Array3<f64>> {
            "average-over-batch" => crate::misconceptions::average_over_batch::average_over_heads,
        }
        pub fn fused_qkv(
            layer: &MultiHead,
            x: ArrayView3<f64>,
        ) -> Result<(Array3<f64>, Array3<f64>, Array3<f64>)> {
            "fused-qkv-wrong-order" => crate::misconceptions::fused_qkv_wrong_order::fused_qkv,
        }
        pub fn init_multi_head(width: usize, heads: usize, seed: u32) -> Result<MultiHead> {
            "init-shared-draw" => crate::misconceptions::init_shared_draw::init_multi_head,
        }
        pub fn multi_head_forward(
            layer: &MultiHead,
            query: ArrayView3<f64>,
            context: ArrayView3<f64>,
            allowed: Option<ArrayView4<bool>>,
        ) -> Result<(Array3<f64>, Array4<f64>)> {
            "missing-output-projection" => crate::misconceptions::missing_output_projection::multi_head_forward,
        }
        pub fn concat_and_project(heads: ArrayView2<f64>, wo: ArrayView2<f64>) -> Result<Array1<f64>> {}
    }
}

pub use exercises::*;
pub use setup::{MultiHead, WorkedExample, module_input, worked_example};
