//! Reference solution for lesson 2. Same public API as the exercise crate `lesson02`; the lesson's
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
        feature = "misconception-head-slice-off-by-one",
        feature = "misconception-merge-without-transpose",
        feature = "misconception-split-without-transpose"
    ),
    allow(dead_code)
)]
#[path = "exercises.rs"]
mod reference;
#[path = "../../../exercises/lesson02-split-heads/src/setup.rs"]
pub mod setup;

/// The exercises: the reference implementations, or a planted misconception (see the crate docs).
pub mod exercises {
    pub use crate::reference::*;

    #[cfg(feature = "misconception-head-slice-off-by-one")]
    pub use crate::misconceptions::head_slice_off_by_one::head_projection;
    #[cfg(feature = "misconception-merge-without-transpose")]
    pub use crate::misconceptions::merge_without_transpose::merge_heads;
    #[cfg(feature = "misconception-split-without-transpose")]
    pub use crate::misconceptions::split_without_transpose::split_heads;
}

pub use exercises::*;
pub use setup::{WorkedExample, worked_example};
