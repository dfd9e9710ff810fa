//! Reference solution for lesson 7. Same public API as the exercise crate `lesson07`; the lesson's
//! given code ([`setup`]) is the exercise crate's own file, included here unchanged.
//!
//! A cargo feature `misconception-<id>` plants a classic wrong answer from [`misconceptions`] in
//! place of one exercise: [`exercises`] re-exports the reference implementations with a glob and
//! the planted function explicitly (an explicit re-export shadows a glob one), so the checks and
//! the reference code that calls `crate::exercises::...` (`generate`) both get the wrong function.

pub mod misconceptions;
// A planted misconception leaves the reference function it replaces unused.
#[cfg_attr(
    any(
        feature = "misconception-decode-attends-only-to-new-key",
        feature = "misconception-decode-masks-the-cache-again"
    ),
    allow(dead_code)
)]
#[path = "exercises.rs"]
mod reference;
#[path = "../../../exercises/lesson07-kv-cache/src/setup.rs"]
pub mod setup;

/// The exercises: the reference implementations, or a planted misconception (see the crate docs).
pub mod exercises {
    pub use crate::reference::*;

    #[cfg(feature = "misconception-decode-attends-only-to-new-key")]
    pub use crate::misconceptions::decode_attends_only_to_new_key::decode_step;
    #[cfg(all(
        feature = "misconception-decode-masks-the-cache-again",
        not(feature = "misconception-decode-attends-only-to-new-key")
    ))]
    pub use crate::misconceptions::decode_masks_the_cache_again::decode_step;
}

pub use exercises::{KvCache, decode_step, generate};
pub use setup::{CacheError, GqaLayer, WorkedExample, worked_example};
