//! Reference solution for lesson 6. Same public API as the exercise crate `lesson06`; the lesson's
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
#[path = "../../../exercises/lesson06-grouped-query/src/setup.rs"]
pub mod setup;

/// The exercises: the reference implementations, or a planted misconception (see the crate docs).
pub mod exercises {
    use crate::setup::GqaWeights;
    use attention::Result;
    use ndarray::{Array3, Array4, ArrayView2, ArrayView3, ArrayView4};

    course_check::plantable! {
        pub fn grouped_attention(
            q: ArrayView4<f64>,
            k: ArrayView4<f64>,
            v: ArrayView4<f64>,
            causal: bool,
        ) -> Result<(Array4<f64>, Array4<f64>)> {
            "grouped-softmax-without-max-shift" => crate::misconceptions::grouped_softmax_without_max_shift::grouped_attention,
            "grouped-softmax-wrong-axis" => crate::misconceptions::grouped_softmax_wrong_axis::grouped_attention,
            "grouped-keys-not-transposed" => crate::misconceptions::grouped_keys_not_transposed::grouped_attention,
        }
        pub fn gqa_forward(
            x: ArrayView3<f64>,
            w: &GqaWeights,
            h: usize,
            h_kv: usize,
            causal: bool,
        ) -> Result<(Array3<f64>, Array4<f64>)> {
            "gqa-split-without-transpose" => crate::misconceptions::gqa_split_without_transpose::gqa_forward,
        }
        pub fn kv_cache_bytes(
            layers: usize,
            h_kv: usize,
            hs: usize,
            t: usize,
            bytes_per_value: usize,
        ) -> usize {
            "kv-cache-missing-factor-two" => crate::misconceptions::kv_cache_missing_factor_two::kv_cache_bytes,
        }
        pub fn merge_and_project(heads: ArrayView4<f64>, wo: ArrayView2<f64>) -> Result<Array3<f64>> {
            "merge-and-project-without-transpose" => crate::misconceptions::merge_and_project_without_transpose::merge_and_project,
        }
        pub fn repeat_kv(kv: ArrayView4<f64>, n_rep: usize) -> Result<Array4<f64>> {
            "repeat-kv-tiled" => crate::misconceptions::repeat_kv_tiled::repeat_kv,
        }
        pub fn n_rep(h: usize, h_kv: usize) -> Result<usize> {}
    }
}

pub use exercises::*;
pub use setup::{CacheConfig, GqaWeights, WorkedExample, worked_example};
