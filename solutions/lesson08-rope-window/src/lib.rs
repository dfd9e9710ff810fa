//! Reference solution for lesson 8. Same public API as the exercise crate `lesson08`; the lesson's
//! given code ([`setup`]) is the exercise crate's own file, included here unchanged.

pub mod exercises;
#[path = "../../../exercises/lesson08-rope-window/src/setup.rs"]
pub mod setup;

pub use exercises::placeholder;
