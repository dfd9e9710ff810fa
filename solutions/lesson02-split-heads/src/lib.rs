//! Reference solution for lesson 2. Same public API as the exercise crate `lesson02`; the lesson's
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
#[path = "../../../exercises/lesson02-split-heads/src/setup.rs"]
pub mod setup;

/// The exercises: the reference implementations, or a planted misconception (see the crate docs).
pub mod exercises {
    use attention::Result;
    use ndarray::{Array3, Array4, ArrayView2, ArrayView3, ArrayView4};

    course_check::plantable! {
        pub fn head_projection(
            x: ArrayView3<f64>,
            wq: ArrayView2<f64>,
            h: usize,
            i: usize,
        ) -> Result<Array3<f64>> {
            "head-slice-off-by-one" => crate::misconceptions::head_slice_off_by_one::head_projection,
        }
        pub fn merge_heads(x: ArrayView4<f64>) -> Array3<f64> {
            "merge-without-transpose" => crate::misconceptions::merge_without_transpose::merge_heads,
        }
        pub fn split_heads(x: ArrayView3<f64>, h: usize) -> Result<Array4<f64>> {
            "split-without-transpose" => crate::misconceptions::split_without_transpose::split_heads,
        }
        pub fn head_size(c: usize, h: usize) -> Result<usize> {}
    }
}

pub use exercises::*;
pub use setup::{WorkedExample, worked_example};
