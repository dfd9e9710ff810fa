//! Reference solution for lesson 1. Same public API as the exercise crate `lesson01`; the lesson's
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
        feature = "misconception-draw-order-swapped",
        feature = "misconception-softmax-without-max-shift",
        feature = "misconception-softmax-wrong-axis",
        feature = "misconception-wv-not-validated"
    ),
    allow(dead_code)
)]
#[path = "exercises.rs"]
mod reference;
#[path = "../../../exercises/lesson01-why-heads/src/setup.rs"]
pub mod setup;
#[path = "../../../exercises/lesson01-why-heads/src/worked.rs"]
pub mod worked;

/// The exercises: the reference implementations, or a planted misconception (see the crate docs).
pub mod exercises {
    pub use crate::reference::*;

    #[cfg(feature = "misconception-draw-order-swapped")]
    pub use crate::misconceptions::draw_order_swapped::draw_head;
    #[cfg(feature = "misconception-softmax-without-max-shift")]
    pub use crate::misconceptions::softmax_without_max_shift::attention_weights;
    #[cfg(all(
        feature = "misconception-softmax-wrong-axis",
        not(feature = "misconception-softmax-without-max-shift")
    ))]
    pub use crate::misconceptions::softmax_wrong_axis::attention_weights;
    #[cfg(all(
        feature = "misconception-wv-not-validated",
        not(any(
            feature = "misconception-softmax-without-max-shift",
            feature = "misconception-softmax-wrong-axis"
        ))
    ))]
    pub use crate::misconceptions::wv_not_validated::attention_weights;
}

pub use exercises::*;
pub use setup::{Head, Sentence, WorkedExample};
pub use worked::worked_example;
