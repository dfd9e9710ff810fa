//! # Lesson 2: splitting into heads
//!
//! Real transformers do not keep `h` little `(C, hs)` projections. They keep one wide `(C, C)`
//! matrix, do one matmul, and read the `C` output columns as `h` consecutive blocks of `hs`:
//! block `i` is head `i`. Two index moves expose the heads:
//!
//! ```text
//! (B, T, C) --reshape--> (B, T, h, hs) --swap T and h--> (B, h, T, hs)
//! ```
//!
//! The reshape is free (row-major order already lays each row out as `h` chunks of `hs`); the
//! axis swap puts all `T` positions of one head together, so `out[b, i]` is a clean `(T, hs)`
//! matrix: one independent attention problem per head. Merging reverses both steps exactly.
//!
//! The worked example ([`setup::worked_example`]): seed 42, `B = 1, T = 6, C = 64, h = 4`,
//! `X = randn(1, 6, 64) * 0.1` and `Wq = randn(64, 64) * 0.1`; `Q = X Wq` goes
//! `(1, 6, 64) -> (1, 6, 4, 16) -> (1, 4, 6, 16)`, every head equals the projection by its
//! column slice, and merging recovers `Q` with a maximum difference of exactly `0.0`.
//!
//! Your work is in [`exercises`]; [`setup`] is given.

pub mod exercises;
pub mod setup;

pub use exercises::{head_projection, head_size, merge_heads, split_heads};
pub use setup::{WorkedExample, worked_example};
