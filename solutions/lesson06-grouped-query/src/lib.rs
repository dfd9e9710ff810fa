//! Reference solution for lesson 6. Same public API as the exercise crate `lesson06`; the lesson's
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
        feature = "misconception-grouped-softmax-without-max-shift",
        feature = "misconception-kv-cache-missing-factor-two",
        feature = "misconception-merge-and-project-without-transpose",
        feature = "misconception-repeat-kv-tiled"
    ),
    allow(dead_code)
)]
#[path = "exercises.rs"]
mod reference;
#[path = "../../../exercises/lesson06-grouped-query/src/setup.rs"]
pub mod setup;

/// The exercises: the reference implementations, or a planted misconception (see the crate docs).
pub mod exercises {
    pub use crate::reference::*;

    #[cfg(feature = "misconception-grouped-softmax-without-max-shift")]
    pub use crate::misconceptions::grouped_softmax_without_max_shift::grouped_attention;
    #[cfg(feature = "misconception-kv-cache-missing-factor-two")]
    pub use crate::misconceptions::kv_cache_missing_factor_two::kv_cache_bytes;
    #[cfg(feature = "misconception-merge-and-project-without-transpose")]
    pub use crate::misconceptions::merge_and_project_without_transpose::merge_and_project;
    #[cfg(feature = "misconception-repeat-kv-tiled")]
    pub use crate::misconceptions::repeat_kv_tiled::repeat_kv;
}

pub use exercises::*;
pub use setup::{CacheConfig, GqaWeights, WorkedExample, worked_example};
