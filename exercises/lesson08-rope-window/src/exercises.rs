//! Your exercises for lesson 8. Replace each `todo!()` with an implementation.
//!
//! Tools that help: `Array4::from_shape_fn`, `f64::powf`, `f64::cos`, `f64::sin`,
//! `insert_axis(Axis(2))`, `index_axis_move`, `select(Axis(2), &order)`, `dot`,
//! [`attention::softmax::softmax_row`], [`crate::setup::expect_shape`], [`crate::setup::KvCache`],
//! [`crate::setup::RingCache`], [`crate::setup::kv_cache_bytes`]; errors:
//! [`attention::ShapeError`].
#![allow(unused_variables)]

use crate::setup::{KvCache, RingCache};
use attention::Result;
use ndarray::{Array1, Array2, Array3, Array4, ArrayView3, ArrayView4};

/// RoPE's frequencies, one per rotated pair: `θ_i = base^(-2i/hs)` for `i` in `0..hs/2`,
/// `(hs/2,)`.
///
/// `θ_0 = 1` (the fastest pair turns one radian per position) and each next pair turns
/// `base^(2/hs)` times slower; the last, `base^(-(hs-2)/hs)`, barely moves over a whole text.
/// The exponent is `2i/hs`, not `i/hs`: `i` counts pairs, and `2i` is the pair's first feature.
///
/// Errors with a [`attention::ShapeError`] when `head_size` is 0 or odd (a feature left without
/// a partner cannot be rotated).
pub fn rope_frequencies(head_size: usize, base: f64) -> Result<Array1<f64>> {
    todo!("rope_frequencies: base^(-2i/hs) for i in 0..hs/2")
}

/// Rotary position embedding, in the rotate-half layout (Llama, GPT-NeoX):
/// `(B, h, T, hs) -> (B, h, T, hs)`.
///
/// Row `t` is the token at absolute position `p = start + t` (positions count from 0: the first
/// token of a text is not rotated at all). Feature `j` and feature `j + hs/2` form pair `j`
/// (`j < hs/2`), turned by the angle `p · θ_j` ([`rope_frequencies`]):
///
/// ```text
/// out[j]        = x[j] · cos(p θ_j) − x[j + hs/2] · sin(p θ_j)
/// out[j + hs/2] = x[j + hs/2] · cos(p θ_j) + x[j] · sin(p θ_j)
/// ```
///
/// The same rotation for every batch row and head. Errors when `hs` is 0 or odd.
pub fn apply_rope(x: ArrayView4<f64>, start: usize, base: f64) -> Result<Array4<f64>> {
    todo!("apply_rope: turn pair (j, j + hs/2) of row t by (start + t) · θ_j")
}

/// Rotary position embedding, in the interleaved layout (the RoFormer paper, GPT-J):
/// `(B, h, T, hs) -> (B, h, T, hs)`.
///
/// The same rotation as [`apply_rope`], but pair `j` is features `2j` and `2j + 1`, neighbours:
///
/// ```text
/// out[2j]     = x[2j] · cos(p θ_j) − x[2j + 1] · sin(p θ_j)
/// out[2j + 1] = x[2j + 1] · cos(p θ_j) + x[2j] · sin(p θ_j)
/// ```
///
/// with `p = start + t`. Weights trained in one layout give wrong numbers in the other: the
/// layouts are the same rotation only after [`interleaved_to_half`] moves the features. Errors
/// when `hs` is 0 or odd.
pub fn apply_rope_interleaved(x: ArrayView4<f64>, start: usize, base: f64) -> Result<Array4<f64>> {
    todo!("apply_rope_interleaved: turn pair (2j, 2j + 1) of row t by (start + t) · θ_j")
}

/// Converts the interleaved layout to the rotate-half one: `(B, h, T, hs) -> (B, h, T, hs)`,
/// the even features `0, 2, 4, …` first, then the odd ones `1, 3, 5, …`:
/// `out[j] = x[2j]` and `out[hs/2 + j] = x[2j + 1]`.
///
/// Pair `(2j, 2j + 1)` lands on `(j, j + hs/2)`, so
/// `apply_rope(interleaved_to_half(x)) == interleaved_to_half(apply_rope_interleaved(x))`.
/// A pure data movement: every value is copied exactly. Errors when `hs` is 0 or odd.
pub fn interleaved_to_half(x: ArrayView4<f64>) -> Result<Array4<f64>> {
    todo!("interleaved_to_half: even features first, then the odd ones")
}

/// Attention scores with RoPE: `q` `(B, h, T, hs)` at positions `q_start..q_start + T` and `k`
/// `(B, h, S, hs)` at positions `k_start..k_start + S` give `(B, h, T, S)`:
///
/// ```text
/// scores[b, i, t, s] = (R(q_start + t) q[b, i, t]) · (R(k_start + s) k[b, i, s]) / √hs
/// ```
///
/// where `R(p)` is [`apply_rope`]'s rotation at position `p`. Rotate the queries and keys first,
/// then take the scaled dot products: the rotation acts on vectors, before any score exists.
/// Because `R(m)ᵀ R(n) = R(n − m)`, the scores depend only on the offsets `m − n`: shifting both
/// starts by the same amount changes nothing (up to rounding).
///
/// Errors when `k` is not `(B, h, S, hs)` for `q`'s `B`, `h` and `hs`, or `hs` is 0 or odd.
pub fn rope_scores(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    q_start: usize,
    k_start: usize,
    base: f64,
) -> Result<Array4<f64>> {
    todo!("rope_scores: rotate q and k at their positions, then q kᵀ / √hs")
}

/// One decoding step with RoPE and lesson 7's cache: `q` `(B, H, hs)`, `k` and `v` `(B, H_kv, hs)`
/// are the new token's projections. Returns `(output (B, H, hs), weights (B, H, len))`, `len` the
/// cache's length after the step.
///
/// The new token's absolute position is `p = cache.len()` **before** the append (the first token
/// is at 0). Rotate `q` and `k` at `p` ([`apply_rope`] on a `(B, n, 1, hs)` view with
/// `start = p`), append the **rotated** key and the **plain** value (values carry content, not
/// position: they are never rotated), then attend: query head `i` scores
/// `softmax(q · kᵀ / √hs)` over every cached key of key/value head `i / n_rep` and mixes that
/// head's cached values. The cache holds keys already rotated at their own positions, so nothing
/// cached is ever rotated again. Fed token by token, this equals causal attention with RoPE over
/// the whole sequence.
///
/// Errors (appending nothing) when `q`, `k` or `v` do not fit the cache's `(B, H_kv, hs)`,
/// `H_kv` does not divide `H`, or the cache is full.
pub fn rope_decode_step(
    q: ArrayView3<f64>,
    k: ArrayView3<f64>,
    v: ArrayView3<f64>,
    cache: &mut KvCache,
    base: f64,
) -> Result<(Array3<f64>, Array3<f64>)> {
    todo!("rope_decode_step: rotate q and k at cache.len(), append, attend over the cache")
}

/// The sliding-window causal mask: `(T, T)`, `true` where query `i` may read key `j`, that is
/// `i − W < j <= i`: itself and the `W − 1` tokens before it (Longformer's window, made causal
/// as in Mistral 7B). `W >= T` is the plain causal mask; `W = 1` lets each token read only
/// itself.
pub fn window_mask(t: usize, window: usize) -> Array2<bool> {
    todo!("window_mask: true where j <= i and i - j < W")
}

/// The rolling buffer's keys and values in time order: `(B, H_kv, len, hs)` each,
/// `len = ring.len() = min(pushed, W)`, the oldest token held first and the newest last.
///
/// Token `p` sits in slot `p % W` ([`RingCache::key_slots`]). Until the buffer wraps around
/// (`pushed <= W`) slot order is time order; after that, the oldest token held,
/// `pushed − len`, is in slot `(pushed − len) % W`, and reading from slot 0 puts newer tokens
/// before older ones.
pub fn ring_in_time_order(ring: &RingCache) -> (Array4<f64>, Array4<f64>) {
    todo!("ring_in_time_order: the slots of tokens pushed - len .. pushed, in that order")
}

/// One decoding step with RoPE through a rolling buffer of `W` positions: `q` `(B, H, hs)`, `k`
/// and `v` `(B, H_kv, hs)`. Returns `(output (B, H, hs), weights (B, H, len))`, the weights in
/// time order (oldest token held first), `len = min(pushed, W)` after the step.
///
/// The new token's absolute position is `p = ring.pushed()` before the push, however many
/// tokens the buffer has dropped. Rotate `q` and `k` at `p`, push the rotated key and the plain
/// value ([`RingCache::push`]), read the buffer with [`ring_in_time_order`], and attend as
/// [`rope_decode_step`] does. Fed token by token, this equals attention with RoPE over the whole
/// sequence under [`window_mask`]`(T, W)`.
///
/// Errors (pushing nothing) when `q`, `k` or `v` do not fit the buffer's `(B, H_kv, hs)` or
/// `H_kv` does not divide `H`.
pub fn window_decode_step(
    q: ArrayView3<f64>,
    k: ArrayView3<f64>,
    v: ArrayView3<f64>,
    ring: &mut RingCache,
    base: f64,
) -> Result<(Array3<f64>, Array3<f64>)> {
    todo!("window_decode_step: rotate at ring.pushed(), push, read in time order, attend")
}

/// Bytes of a KV cache that keeps at most `window` positions, for one sequence of `t` tokens:
/// lesson 6's formula [`crate::setup::kv_cache_bytes`] with `min(T, W)` positions,
/// `2 · layers · H_kv · hs · min(T, W) · bytes_per_value`. A rolling buffer's memory stops
/// growing at `W`, however long the text.
pub fn window_cache_bytes(
    layers: usize,
    h_kv: usize,
    hs: usize,
    t: usize,
    window: usize,
    bytes_per_value: usize,
) -> usize {
    todo!("window_cache_bytes: lesson 6's formula with min(T, W) positions")
}
