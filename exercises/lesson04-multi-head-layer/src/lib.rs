//! # Lesson 4: concatenate and project
//!
//! This lesson assembles the whole multi-head layer. It holds four `(D, D)` matrices and no
//! biases: `wq`, `wk`, `wv` and the output projection `wo` (`W_O`). A forward pass
//!
//! ```text
//! query (B, T, D) --@wq, split--> q (B, h, T, hs)
//! context (B, S, D) --@wk, split--> k (B, h, S, hs)    --@wv, split--> v (B, h, S, hs)
//! attention of every head  -->  heads (B, h, T, hs), weights (B, h, T, S)
//! merge (concatenate the heads)  -->  (B, T, D)  --@wo-->  output (B, T, D)
//! ```
//!
//! When `query` and `context` are the same array this is self-attention; when they are two
//! sequences it is cross-attention, and `T` need not equal `S`. Either way the output is `D`
//! wide again, the width the rest of the model expects.
//!
//! Heads split features, not the sentence: every head reads all `T` query positions and all `S`
//! context positions. What differs is which `hs` columns of the projections feed it, and each of
//! those columns depends on all `D` input features.
//!
//! ## Concatenate, then mix
//!
//! The heads' outputs are laid side by side along the feature axis, then multiplied by `W_O`.
//! For one token with `D = 4` and two heads of size 2, head outputs `(1, 0.2)` and `(-0.5, 2)`
//! concatenate to `[1, 0.2, -0.5, 2]`; the text's `W_O` (the identity with two extra ones,
//! [`setup::TEXT_WO`]) turns that into `[1, 0.2, 0.5, 2.2]`: output features 2 and 3 combine one
//! feature of each head. The practice item: `(2, -1)` and `(0, 3)` concatenate to `(2, -1, 0, 3)`
//! and come out as `(2, -1, 2, 2)`. Averaging the heads instead would throw the head axis away
//! before `W_O` could mix it; in the same way, averaging the returned weights over heads is a
//! display choice, not what the layer computes.
//!
//! ## One projection for Q, K and V
//!
//! For self-attention the three input projections can be one `(D, 3D)` matrix `[wq | wk | wv]`:
//! one product gives `(B, T, 3D)`, whose three column blocks are `q`, `k` and `v`, the same
//! numbers as three separate products.
//!
//! ## Counting parameters
//!
//! One head's three projections hold `3 · D · hs` weights; `h` heads hold `3 · D · h · hs = 3D²`,
//! and `W_O` adds `D²`. Total `4 · D²` whatever the head count: for `D = 32` and 4 heads of 8,
//! `3 · 32 · 8 = 768` per head, `3072` for four, plus `1024` for `W_O` makes `4096`, and 1, 2 or
//! 8 heads give `4096` too. More heads buy more separate softmaxes, not more weights.
//!
//! ## Weights read from PyTorch
//!
//! This course multiplies `x @ W` with every weight stored `(in_features, out_features)`.
//! PyTorch's `nn.Linear` stores its weight the other way round, `(out_features, in_features)`,
//! and computes `x @ W.T`. Loading a PyTorch layer into this one therefore takes one transposed
//! copy per projection. The layer's weights are square `(D, D)`, so forgetting the transpose
//! raises no shape error: the layer runs and computes something else (a check shows it).
//! Non-square weights, such as grouped-query attention's `Wk` in lesson 6, `(D, H_kv · hs)` here
//! and `(H_kv · hs, D)` in PyTorch, at least fail loudly.
//!
//! ## Model width in, model width out
//!
//! Text 5's drills, all through this layer: `T = 3, D = 8, h = 2` gives per-head `q, k, v` of
//! `(3, 4)`, per-head weights `(3, 3)` and outputs `(3, 4)`, concatenated to `(3, 8)`; with
//! `B = 2, T = 7, D = 24, h = 6` the split queries are `(2, 6, 7, 4)` and each head's score matrix
//! is `(7, 7)`; with `T = 5, D = 12, h = 3` one head receives all 5 positions, 4 features each.
//! `W_O` returns width `D` because the output is added back to the layer's input (the residual
//! stream), which is `D` wide.
//!
//! ## Initialisation
//!
//! `MultiHead::new(width, heads, seed)` draws `wq`, `wk`, `wv`, `wo` in that order from
//! `attention::rng::RandomState::new(seed)`, each `randn((D, D)) / √D`. (The source text uses
//! NumPy's newer `default_rng`, which the core crate does not reproduce, so the layer's numbers
//! are the course's own.)
//!
//! ## The worked examples
//!
//! [`setup::worked_example`]: cross-attention with `B = 2`, `T = 4`, `S = 6`, `D = 8`, `h = 2`
//! (inputs from seed 4, the layer `MultiHead::new(8, 2, 0)`): output `(2, 4, 8)`, weights
//! `(2, 2, 4, 6)`, every weight row summing to 1. [`setup::module_input`]: causal
//! self-attention with `MultiHead::new(32, 4, 0)` on a `(2, 6, 32)` input: output `(2, 6, 32)`,
//! 4096 parameters.
//!
//! Run `cargo xtask demo lesson04` to print the examples with your code, and
//! `cargo xtask grade lesson04` to grade it.
//!
//! Your work is in [`exercises`]; [`setup`] and [`worked`] are given ([`worked`] holds the
//! layer's methods that call your functions; [`setup`] never calls them).

pub mod exercises;
pub mod setup;
pub mod worked;

pub use exercises::{
    average_over_heads, concat_and_project, fused_qkv, init_multi_head, multi_head_forward,
};
pub use setup::{MultiHead, WorkedExample, module_input, worked_example};
