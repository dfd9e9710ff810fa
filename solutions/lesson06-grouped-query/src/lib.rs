//! Reference solution for lesson 6. Same public API as the exercise crate `lesson06`; the lesson's
//! given code ([`setup`]) is the exercise crate's own file, included here unchanged.

pub mod exercises;
#[path = "../../../exercises/lesson06-grouped-query/src/setup.rs"]
pub mod setup;

pub use exercises::{
    gqa_forward, grouped_attention, kv_cache_bytes, merge_and_project, n_rep, repeat_kv,
};
pub use setup::{CacheConfig, GqaWeights, WorkedExample, worked_example};
