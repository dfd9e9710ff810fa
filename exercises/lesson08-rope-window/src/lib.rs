//! # Lesson 8: positions that rotate, a window that slides
//!
//! Attention by itself does not know where a token is: shuffle the keys and values together and
//! every output stays the same. Lessons 1–7 never needed positions; a real model does. Most of
//! today's models give them with **rotary position embeddings** (RoPE, Su et al. 2021,
//! *RoFormer: Enhanced Transformer with Rotary Position Embedding*): the query and the key of the
//! token at position `p` are turned, pair of features by pair of features, by angles that grow
//! with `p`. And many bound the memory of their KV cache with a **sliding window**: each token
//! reads only the `W` most recent ones (Beltagy et al. 2020, *Longformer: The Long-Document
//! Transformer*; made causal and decoded through a rolling buffer in Jiang et al. 2023,
//! *Mistral 7B*). This lesson builds both and carries them into lesson 7's decoding, where
//! positions most often go wrong.
//!
//! ## The rotation
//!
//! Cut a head's `hs` features into `hs/2` pairs. Pair `i` turns at the frequency
//! `θ_i = base^(-2i/hs)` ([`rope_frequencies`]; `base = 10000` as in the paper and Llama 2): with
//! `hs = 8`, `θ = 1, 0.1, 0.01, 0.001`. The fastest pair turns one radian per position, the
//! slowest barely moves over a whole text. At position `p` pair `i` is turned by the angle
//! `p · θ_i`:
//!
//! ```text
//! (x₁, x₂) -> (x₁ cos pθ_i − x₂ sin pθ_i,  x₂ cos pθ_i + x₁ sin pθ_i)
//! ```
//!
//! which is the complex number `x₁ + i·x₂` multiplied by `e^{i p θ_i}`. Positions count from 0:
//! the first token is not turned at all. [`apply_rope`] and [`apply_rope_interleaved`] rotate a
//! `(B, h, T, hs)` tensor whose row `t` is the token at position `start + t`.
//!
//! **Which features make a pair** is a convention the weights were trained with, and there are
//! two. The paper and GPT-J pair neighbours, `(2i, 2i + 1)` (*interleaved*); GPT-NeoX and Llama
//! pair feature `i` with feature `i + hs/2` (*rotate-half*), which needs no strided access.
//! They are the same rotation with the features moved ([`interleaved_to_half`]: the even
//! features first, then the odd ones), and they give different numbers on the same tensor: code
//! for one layout run on weights of the other has the right shapes and the wrong model.
//!
//! ## Why it is relative
//!
//! Turning by `m θ` and then taking a dot product with something turned by `n θ` is the same as
//! turning only the key, by `(n − m) θ`: `R(m) q · R(n) k = q · R(n − m) k`. So the score of a
//! query at `m` against a key at `n` ([`rope_scores`]) depends on the vectors and on `m − n`,
//! never on `m` and `n` themselves. The checks compute the same scores at `(m, n)` and at
//! `(m + 100, n + 100)` and find them equal up to rounding (the worked example: at most about
//! 1e-15 apart). With one constant vector at every position the score matrix is constant along
//! its diagonals: `cos` waves of every frequency, summed, whose first row runs
//! `2.83 2.50 1.81 1.39 1.60 2.23 …` (2.83 is `√8`, offset 0, where nothing turns). A rotation
//! also keeps lengths, so norms are preserved, and position 0 is the identity.
//!
//! Rotation acts on vectors, before any score exists; rotating the score matrix afterwards (as if
//! its rows were features) loses exactly this property. And only queries and keys are turned:
//! values carry what a token says, not where it is, and are mixed as they are.
//!
//! ## RoPE in decoding
//!
//! At decode time ([`rope_decode_step`]) one token arrives, so its row index is always 0, but its
//! position is `p = cache.len()`, read **before** its key is appended. Its query and key are
//! turned at `p`; the cache stores the **rotated** key (and the plain value), so a key is turned
//! once, at its own position, and never again. Turning every step at 0 removes positions
//! altogether; reading the length again after the append puts the query one position ahead of
//! its own key. Both have the right shapes. Fed token by token, a correct step gives exactly
//! causal attention with RoPE over the whole sequence (the checks compare every output and the
//! last row of weights).
//!
//! ## A window that slides
//!
//! A window of `W` lets query `i` read key `j` when `i − W < j <= i` ([`window_mask`]: itself and
//! the `W − 1` tokens before it; `W >= T` is the causal mask). With `T = 8`, `W = 3`:
//!
//! ```text
//!    0 1 2 3 4 5 6 7
//! 0  1 . . . . . . .
//! 1  1 1 . . . . . .
//! 2  1 1 1 . . . . .
//! 3  . 1 1 1 . . . .
//! 4  . . 1 1 1 . . .
//! 5  . . . 1 1 1 . .
//! 6  . . . . 1 1 1 .
//! 7  . . . . . 1 1 1
//! ```
//!
//! Stacked layers still pass information further back, `W` positions per layer. At decode time
//! nothing older than `W` tokens is read again, so the cache keeps only `W` positions: a
//! **rolling buffer** ([`setup::RingCache`], given) writes token `p` to slot `p % W`, over token
//! `p − W`. Once it has wrapped around, slot 0 no longer holds the oldest token:
//! [`ring_in_time_order`] reads the slots from `(pushed − len) % W` round to the newest. A softmax
//! does not care about the order of its keys, so the output of a step survives a buffer read in
//! slot order; its weights do not (the checks compare them, oldest first), and neither does
//! anything that needs the positions in order. [`window_decode_step`] turns the new query and key
//! at the token's absolute position `ring.pushed()` (not its slot, not the buffer's length, which
//! stops at `W`), pushes, reads in time order and attends: token by token, this equals attention
//! with RoPE under `window_mask(T, W)`.
//!
//! ## Memory
//!
//! A rolling buffer holds `min(T, W)` positions, so its memory is lesson 6's formula with `W`
//! instead of `T` ([`window_cache_bytes`]): `2 · layers · H_kv · hs · min(T, W) · bytes`. For
//! Mistral 7B (32 layers, `H_kv = 8`, `hs = 128`, fp16: 128 KiB a token) a 32k context takes
//! 4294967296 bytes (4 GiB) per sequence with every position cached, and 536870912 bytes
//! (512 MiB) with its window of 4096: eight times less, and no more however long the text grows.
//!
//! ## The worked example
//!
//! [`setup::worked_example`]: seed 42, `q = randn(1, 2, 8, 8)`, `k = randn(1, 1, 8, 8)`,
//! `v = randn(1, 1, 8, 8)` (`H = 2` query heads share `H_kv = 1`), base 10000, window 3. The
//! scores of query head 0 against the keys at positions `(m, n)` and at `(m + 100, n + 100)` are
//! the same (their last row starts `-0.21 0.33 -0.89`). Decoded token by token through a KV
//! cache, the last token's head 0 puts 0.28 of its weight on position 6 and head 1 puts 0.59 on
//! position 1; through a rolling buffer of 3, the same token reads positions 5, 6, 7 only, head 0
//! with weights `0.11 0.60 0.28` and head 1 with `0.80 0.06 0.14`.
//!
//! Run `cargo xtask demo lesson08` to see the score pattern, the shifted scores side by side, the
//! window mask and the memory figures with your code (`--compare` puts the reference's next to
//! yours), and `cargo xtask grade lesson08` to grade it.
//!
//! Your work is in [`exercises`]; [`setup`] is given.

pub mod exercises;
pub mod setup;

pub use exercises::*;
pub use setup::{KvCache, RingCache, WorkedExample, worked_example};
