//! # Lesson 1: why one head isn't enough
//!
//! A single attention head owns one `Wq`, one `Wk` and one `Wv`, so for every query position it
//! produces exactly one distribution over the keys: one opinion about where to look. This lesson
//! builds two heads over the same eight-word sentence, gives each its own projections drawn from
//! one seeded stream, and measures how differently they look.
//!
//! The worked example (see [`worked::worked_example`]): the sentence
//! `"the keeper lights the lantern when fog rolls"` (T = 8, a vocabulary of 7 sorted words),
//! NumPy's generator seeded with 42, model width `C = 16`, head size `hs = 8`, a unit-scale
//! `(7, 16)` embedding table drawn first, then head A's `Wq, Wk, Wv` and head B's `Wq, Wk, Wv`,
//! each `(16, 8)` and scaled by 0.3. With correct code the two `(1, 8, 8)` weight matrices differ
//! by at most 0.2617 in a single cell, and their top-focus words disagree on 7 of 8 rows.
//!
//! A head's weights are half of its work: its output mixes the values `V = X Wv` with them,
//! `out = weights @ V` ([`exercises::head_output`]). Head A's output `outA` is `(1, 8, 8)`: one
//! `hs = 8` vector per word, each a weighted average of the eight words' values.
//!
//! Run `cargo xtask demo lesson01` to print the example with your code, and
//! `cargo xtask grade lesson01` to grade it.
//!
//! Your work is in [`exercises`]; [`setup`] and [`worked`] are given ([`worked`] assembles the
//! worked example from your functions; [`setup`] never calls them).

pub mod exercises;
pub mod setup;
pub mod worked;

pub use exercises::{
    attention_weights, disagreements, draw_head, head_output, max_abs_diff, row_sums, top_focus,
};
pub use setup::{Head, Sentence, WorkedExample};
pub use worked::worked_example;
