//! # Lesson 8: positions that rotate, a window that slides
//!
//! TEXT
//!
//! Your work is in [`exercises`]; [`setup`] is given.

pub mod exercises;
pub mod setup;

pub use exercises::*;
pub use setup::{KvCache, RingCache, WorkedExample, worked_example};
