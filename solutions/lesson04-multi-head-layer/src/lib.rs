//! Reference solution for lesson 4. Same public API as the exercise crate `lesson04`; the lesson's
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
        feature = "misconception-average-over-batch",
        feature = "misconception-fused-qkv-wrong-order",
        feature = "misconception-init-shared-draw",
        feature = "misconception-missing-output-projection"
    ),
    allow(dead_code)
)]
#[path = "exercises.rs"]
mod reference;
#[path = "../../../exercises/lesson04-multi-head-layer/src/setup.rs"]
pub mod setup;
#[path = "../../../exercises/lesson04-multi-head-layer/src/worked.rs"]
pub mod worked;

/// The exercises: the reference implementations, or a planted misconception (see the crate docs).
pub mod exercises {
    pub use crate::reference::*;

    #[cfg(feature = "misconception-average-over-batch")]
    pub use crate::misconceptions::average_over_batch::average_over_heads;
    #[cfg(feature = "misconception-fused-qkv-wrong-order")]
    pub use crate::misconceptions::fused_qkv_wrong_order::fused_qkv;
    #[cfg(feature = "misconception-init-shared-draw")]
    pub use crate::misconceptions::init_shared_draw::init_multi_head;
    #[cfg(feature = "misconception-missing-output-projection")]
    pub use crate::misconceptions::missing_output_projection::multi_head_forward;
}

pub use exercises::*;
pub use setup::{MultiHead, WorkedExample, module_input, worked_example};
