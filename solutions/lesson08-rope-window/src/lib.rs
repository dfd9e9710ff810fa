//! Reference solution for lesson 8. Same public API as the exercise crate `lesson08`; the lesson's
//! given code ([`setup`]) is the exercise crate's own file, included here unchanged.
//!
//! [`exercises`] defines every exercise with [`course_check::plantable!`]: it runs the reference
//! implementation, or the classic wrong answer from [`misconceptions`] the grader plants
//! (`grade --solutions --plant ID` names it in the check process's environment), so the checks
//! and the exercises that call each other (`crate::exercises::...`) all get it. One build serves
//! every misconception of the lesson.

pub mod misconceptions;
#[path = "exercises.rs"]
mod reference;
#[path = "../../../exercises/lesson08-rope-window/src/setup.rs"]
pub mod setup;

/// The exercises: the reference implementations, or a planted misconception (see the crate docs).
pub mod exercises {
    use crate::misconceptions as m;
    use crate::setup::{KvCache, RingCache};
    use attention::Result;
    use ndarray::{Array1, Array2, Array3, Array4, ArrayView3, ArrayView4};

    /// One decoding step's `(output, weights)`.
    type Step = Result<(Array3<f64>, Array3<f64>)>;

    course_check::plantable! {
        pub fn rope_frequencies(head_size: usize, base: f64) -> Result<Array1<f64>> {
            "rope-frequencies-i-over-d" => m::rope_frequencies_i_over_d::rope_frequencies,
        }
        pub fn apply_rope(x: ArrayView4<f64>, start: usize, base: f64) -> Result<Array4<f64>> {
            "rope-positions-from-1" => m::rope_positions_from_1::apply_rope,
        }
        pub fn apply_rope_interleaved(x: ArrayView4<f64>, start: usize, base: f64) -> Result<Array4<f64>> {
            "rope-pairings-mixed" => m::rope_pairings_mixed::apply_rope_interleaved,
        }
        pub fn interleaved_to_half(x: ArrayView4<f64>) -> Result<Array4<f64>> {}
        pub fn rope_scores(q: ArrayView4<f64>, k: ArrayView4<f64>, q_start: usize, k_start: usize, base: f64) -> Result<Array4<f64>> {
            "rope-rotation-after-scale" => m::rope_rotation_after_scale::rope_scores,
        }
        pub fn rope_decode_step(q: ArrayView3<f64>, k: ArrayView3<f64>, v: ArrayView3<f64>, cache: &mut KvCache, base: f64) -> Step {
            "rope-decode-at-position-0" => m::rope_decode_at_position_0::rope_decode_step,
            "rope-decode-query-after-append" => m::rope_decode_query_after_append::rope_decode_step,
            "rope-on-values" => m::rope_on_values::rope_decode_step,
        }
        pub fn window_mask(t: usize, window: usize) -> Array2<bool> {}
        pub fn ring_in_time_order(ring: &RingCache) -> (Array4<f64>, Array4<f64>) {
            "ring-read-in-slot-order" => m::ring_read_in_slot_order::ring_in_time_order,
        }
        pub fn window_decode_step(q: ArrayView3<f64>, k: ArrayView3<f64>, v: ArrayView3<f64>, ring: &mut RingCache, base: f64) -> Step {}
        pub fn window_cache_bytes(layers: usize, h_kv: usize, hs: usize, t: usize, window: usize, bytes_per_value: usize) -> usize {}
    }
}

pub use exercises::*;
pub use setup::{KvCache, RingCache, WorkedExample, worked_example};
