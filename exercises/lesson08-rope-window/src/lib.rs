//! # Lesson 8: Positions that rotate, a window that slides
//!
//! Replace this text with the lesson: what the student builds, the worked example (see [`setup`])
//! and what correct code prints. Run `cargo xtask demo lesson08` to print the example with your code,
//! and `cargo xtask grade lesson08` to grade it.
//!
//! Your work is in [`exercises`]; [`setup`] is given.

pub mod exercises;
pub mod setup;

pub use exercises::placeholder;
