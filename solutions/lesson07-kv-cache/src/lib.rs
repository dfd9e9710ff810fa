//! Reference solution for lesson 7. Same public API as the exercise crate `lesson07`; the lesson's
//! given code ([`setup`]) is the exercise crate's own file, included here unchanged.

pub mod exercises;
#[path = "../../../exercises/lesson07-kv-cache/src/setup.rs"]
pub mod setup;

pub use exercises::{KvCache, decode_step, generate};
pub use setup::{CacheError, GqaLayer, WorkedExample, worked_example};
