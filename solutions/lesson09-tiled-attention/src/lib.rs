//! Reference solution for lesson 9. Same public API as the exercise crate `lesson09`; the lesson's
//! given code ([`setup`]) is the exercise crate's own file, included here unchanged.
//!
//! [`exercises`] defines every exercise with [`course_check::plantable!`]: it runs the reference
//! implementation, or the classic wrong answer from [`misconceptions`] the grader plants
//! (`grade --solutions --plant ID` names it in the check process's environment), so the checks
//! all get it. One build serves every misconception of the lesson.

pub mod misconceptions;
#[path = "exercises.rs"]
mod reference;
#[path = "../../../exercises/lesson09-tiled-attention/src/setup.rs"]
pub mod setup;

/// The exercises: the reference implementations, or a planted misconception (see the crate docs).
pub mod exercises {
    use crate::misconceptions as m;
    use crate::setup::{Grads, RowState, Tiling};
    use attention::Result;
    use ndarray::{Array3, Array4, ArrayView1, ArrayView3, ArrayView4};

    course_check::plantable! {
        pub fn online_softmax_update(state: RowState, chunk: ArrayView1<f64>) -> RowState {
            "online-softmax-sum-not-rescaled" => m::online_softmax_sum_not_rescaled::online_softmax_update,
            "online-softmax-inf-minus-inf" => m::online_softmax_inf_minus_inf::online_softmax_update,
        }
        pub fn tiled_attention(q: ArrayView4<f64>, k: ArrayView4<f64>, v: ArrayView4<f64>, tiling: Tiling) -> Result<(Array4<f64>, Array3<f64>)> {
            "tiled-output-not-rescaled" => m::tiled_output_not_rescaled::tiled_attention,
            "tiled-division-per-tile" => m::tiled_division_per_tile::tiled_attention,
            "tiled-inf-minus-inf" => m::tiled_inf_minus_inf::tiled_attention,
            "tiled-lse-before-last-tile" => m::tiled_lse_before_last_tile::tiled_attention,
        }
        pub fn attention_backward(q: ArrayView4<f64>, k: ArrayView4<f64>, v: ArrayView4<f64>, d_out: ArrayView4<f64>, causal: bool) -> Result<Grads> {
            "backward-jacobian-without-outer-term" => m::backward_jacobian_without_outer_term::attention_backward,
            "backward-dk-not-scaled" => m::backward_dk_not_scaled::attention_backward,
        }
        pub fn tiled_attention_backward(q: ArrayView4<f64>, k: ArrayView4<f64>, v: ArrayView4<f64>, out: ArrayView4<f64>, lse: ArrayView3<f64>, d_out: ArrayView4<f64>, tiling: Tiling) -> Result<Grads> {
            "tiled-backward-mask-skipped" => m::tiled_backward_mask_skipped::tiled_attention_backward,
        }
    }
}

pub use exercises::*;
pub use setup::{Grads, RowState, Tiling, WorkedExample, worked_example};
