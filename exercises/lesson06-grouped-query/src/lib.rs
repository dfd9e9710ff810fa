//! # Lesson 6: grouped-query attention
//!
//! In multi-head attention every one of the `H` query heads has its own keys and values. While a
//! model generates text it keeps every past token's keys and values in memory (the **KV cache**),
//! and that cache grows with `H`. Grouped-query attention (GQA) keeps all `H` query heads but
//! only `H_kv` key/value heads, and lets each key/value head serve a group of
//! `n_rep = H / H_kv` query heads:
//!
//! ```text
//! Wq (D, H · hs) = (D, D)      Q -> (B, H,    T, hs)
//! Wk (D, H_kv · hs)            K -> (B, H_kv, T, hs) --repeat_kv--> (B, H, T, hs)
//! Wv (D, H_kv · hs)            V -> (B, H_kv, T, hs) --repeat_kv--> (B, H, T, hs)
//! ```
//!
//! The invariants: `H = H_kv · n_rep` (anything else is an error) and `H · hs = D`.
//!
//! **Which query heads share?** Repeating puts the copies of one key/value head side by side:
//! with `H = 4, H_kv = 2` the query heads 0, 1, 2, 3 use key/value heads 0, 0, 1, 1. Real models
//! are trained with this layout, so tiling the stack instead (0, 1, 0, 1) has the right shape and
//! the wrong answer.
//!
//! After the repeat, grouped-query attention **is** multi-head attention on the repeated keys and
//! values: every query head scores `softmax(q kᵀ / √hs)` over all positions (causally masked
//! here) and gets its own `(T, T)` weights, even when it shares its keys with a neighbour. Then
//! the heads are merged token-major to `(B, T, H · hs) = (B, T, D)` and mixed by `W_O`, so the
//! layer returns model width whatever `H_kv` is. Two special cases: `H_kv = H` is plain
//! multi-head attention (`n_rep = 1`), `H_kv = 1` is multi-query attention.
//!
//! The merge is the usual concatenation of heads. For one token with head outputs
//! `o₁ = (1, 0.2)` and `o₂ = (−0.5, 2)`, concatenating gives `c = (1, 0.2, −0.5, 2)`, and with
//!
//! ```text
//! W_O = [[1, 0, 1, 0],
//!        [0, 1, 0, 1],
//!        [0, 0, 1, 0],
//!        [0, 0, 0, 1]]
//! ```
//!
//! `c W_O = (1, 0.2, 0.5, 2.2)`: the last two model features mix coordinates of both heads.
//!
//! The worked example ([`setup::worked_example`]): seed 42, `X = randn(1, 6, 32)`, then `Wq`
//! `(32, 32)`, `Wk` and `Wv` `(32, 16)` and `W_O` `(32, 32)`, each `randn(...) * 0.3`, with
//! `H = 4, H_kv = 2, hs = 8`. `Q` splits to `(1, 4, 6, 8)`, `K` and `V` to `(1, 2, 6, 8)` and
//! repeat to `(1, 4, 6, 8)`; the weights are `(1, 4, 6, 6)` and the output `(1, 6, 32)`. Heads 0
//! and 1 share key/value head 0 yet look in different places: the last token puts 0.6179 of
//! head 0's weight on token 2 and 0.9901 of head 1's on token 1. The layer holds
//! `2 · 32 · 32 + 2 · 32 · 16 = 3072` weights instead of multi-head attention's 4096.
//!
//! **The KV cache.** Per sequence, every layer stores a key and a value of `hs` numbers for each
//! key/value head and each cached position: `2 · layers · H_kv · hs · T · bytes` bytes. Llama 2 70B
//! (80 layers, `H = 64`, `H_kv = 8`, `hs = 128`, 16-bit numbers) needs 327,680 bytes = 320 KiB per
//! token, so 1.25 GiB for a 4096-token context; with one key/value head per query head it would
//! need 10 GiB, `n_rep = 8` times more.
//!
//! Run `cargo xtask demo lesson06` to print the example with your code, and
//! `cargo xtask grade lesson06` to grade it.
//!
//! Your work is in [`exercises`]; [`setup`] is given.

pub mod exercises;
pub mod setup;

pub use exercises::{
    gqa_forward, grouped_attention, kv_cache_bytes, merge_and_project, n_rep, repeat_kv,
};
pub use setup::{CacheConfig, GqaWeights, WorkedExample, worked_example};
