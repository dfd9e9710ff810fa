//! # Lesson 3: attention across all heads at once
//!
//! Lesson 2 ended with the queries in a `(B, h, T, hs)` tensor and the keys and values in
//! `(B, h, S, hs)` tensors. Look at one pair `(b, i)`: sequence `b`, head `i`. It is a complete
//! attention problem of its own: `T` queries, `S` keys, `S` values, all `hs` wide. No number of
//! head `i` ever meets a number of head `j` inside attention; every head builds its own scores and
//! runs its own softmax. So the heads can be treated as more batch rows:
//!
//! ```text
//! fold:    (B, h, T, hs) -> (B·h, T, hs)                     one row per (sequence, head)
//! scores:  Q Kᵀ / √hs      (B·h, T, hs) x (B·h, hs, S) -> (B·h, T, S)
//! weights: softmax over S, disallowed keys first set to -inf
//! output:  weights V       (B·h, T, S) x (B·h, S, hs) -> (B·h, T, hs)
//! unfold:  (B·h, T, ·) -> (B, h, T, ·)
//! ```
//!
//! Two batched products do the work of `B·h` separate heads, and give exactly what a loop over
//! the heads gives. The scale is `1/√hs`: a head's dot products add up `hs` terms, not `h · hs`.
//!
//! Nothing forces `T = S`. In cross-attention a target of `T` positions reads a source of `S`
//! positions; every head still turns `S` values into `T` outputs. The weights tensor has one
//! entry per sequence, head, query and key: `B·h·T·S` numbers.
//!
//! ## Masks
//!
//! An `allowed` mask holds booleans, `true` meaning "this query may read this key". It has four
//! axes, each either full size or 1, and is broadcast to `(B, h, T, S)`, so one small mask serves
//! many problems: the causal mask `(1, 1, T, S)` applies to every sequence and head, a padding mask
//! `(B, 1, 1, S)` hides a sequence's padded source positions from all its heads and queries. A
//! disallowed score becomes `-inf` before the softmax, so its weight is exactly `0.0`.
//!
//! A query that may read no key at all has no distribution to compute. The course's policy, the
//! same as the core's [`attention::softmax`]: such a row gets all-zero weights, so that query's
//! output is the zero vector. A defined result, never `NaN`; the checks hold you to it.
//!
//! ## The worked example
//!
//! [`setup::worked_example`]: seed 42, `B = 2`, `h = 2`, `T = 4`, `S = 6`, `hs = 4` (a model
//! width of 8), `q = randn(2, 2, 4, 4)`, then `k` and `v = randn(2, 2, 6, 4)`. The scores and
//! weights are `(2, 2, 4, 6)` (96 weights), the output `(2, 2, 4, 4)`. With the padding mask for
//! source lengths `[6, 4]` the last two columns of sequence 1 get weight 0 in both heads. The
//! batched result matches the head-by-head loop to the last bit or two (`< 1e-12`).
//!
//! Run `cargo xtask demo lesson03` to print the example with your code, and
//! `cargo xtask grade lesson03` to grade it.
//!
//! Your work is in [`exercises`]; [`setup`] is given.

pub mod exercises;
pub mod setup;

pub use exercises::{
    attention_scores, causal_mask, fold_heads, masked_softmax, parallel_attention,
};
pub use setup::{WorkedExample, labelled, padding_mask, unfold_heads, worked_example};
