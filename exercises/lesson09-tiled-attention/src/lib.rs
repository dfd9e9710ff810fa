//! # Lesson 9: attention in tiles: online softmax, logsumexp and the backward pass
//!
//! Lesson 3's attention writes every score of a head down before it takes a single softmax: a
//! `(T, S)` matrix of scores, then one of weights. Its memory grows with the square of the text:
//! one head of a 32k-token text holds 32768² = 1 073 741 824 weights, 4 GiB in f32, and a GPU's
//! fast on-chip memory holds a few hundred kilobytes per processor. Every long-context model
//! today computes attention in **tiles** instead, a block of queries against a block of keys at a
//! time, with an **online softmax** that never needs a whole row at once (Milakov &
//! Gimelshein 2018, *Online normalizer calculation for softmax*; Dao, Fu, Ermon, Rudra & Ré 2022,
//! *FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness*; Dao 2023,
//! *FlashAttention-2: Faster Attention with Better Parallelism and Work Partitioning*). And it
//! trains through a backward pass that recomputes the weights, tile by tile, from one number per
//! query saved by the forward: the row's **logsumexp**. This lesson builds all three on the CPU
//! in f64, where every step can be checked exactly and every gradient against finite
//! differences.
//!
//! ## The online softmax
//!
//! A safe softmax needs the row's maximum `m` first (lesson 1: `exp` overflows past 709), then
//! `l = Σ exp(x − m)`, then `exp(x_j − m) / l`. Read the row in chunks and keep only the running
//! `(m, l)` ([`setup::RowState`]); when a chunk brings a larger maximum `m'`, every term already
//! in `l` was `exp(x − m)` and must become `exp(x − m') = exp(x − m) · exp(m − m')`:
//!
//! ```text
//! m' = max(m, max(chunk))
//! l' = l · exp(m − m') + Σ_{x in chunk} exp(x − m')
//! ```
//!
//! ([`online_softmax_update`]). After the last chunk, `(m, l)` are exactly the safe softmax's,
//! whatever the chunking, and `m + ln l = log Σ exp(x)` is the row's logsumexp. The row
//! `[1, 3, 2, 5, 0, 4]` in chunks of 2 goes `(max 3, sum 1.1353)`, `(max 5, sum 1.2034)`
//! (`1.1353 · e^(3−5) + e^(2−5) + e^0`: the old sum shrinks as the maximum jumps),
//! `(max 5, sum 1.5781)`, and gives the softmax `0.01 0.09 0.03 0.63 0.00 0.23` and the
//! logsumexp 5.4562. Masked scores are `−∞` and count for nothing; while a row has seen only
//! masked ones its maximum is still `−∞`, and `exp(−∞ − (−∞))` is NaN, not 1: that update must
//! be skipped.
//!
//! ## Tiles
//!
//! [`tiled_attention`] applies the same update to whole tiles. For a tile of queries it keeps, per
//! query, `m` and `l` and an output accumulator `acc = Σ exp(s_j − m) v_j`; for each tile of keys
//! it computes that tile's scores, `(q_tile, k_tile)`, and
//!
//! ```text
//! m'  = max(m, rowmax(scores))          p = exp(scores − m')
//! l   = l · exp(m − m') + rowsum(p)
//! acc = acc · exp(m − m') + p @ v_tile
//! ```
//!
//! then divides once at the end: `out = acc / l`. The accumulator is a sum against the running
//! maximum, like `l`, so it is rescaled with it. FlashAttention (Algorithm 1) keeps `out`
//! normalised after every tile, multiplying it back by `l_old / l_new`; FlashAttention-2 keeps
//! `acc` unnormalised and divides once, which this lesson follows. The forward also returns
//! `lse = m + ln l` per query, `(B, h, T)`: the backward pass needs nothing else. Every tile size
//! gives lesson 3's attention up to rounding (the worked example: at most 3.3e-16 apart over every
//! tile size from 1 × 1 to 8 × 8), and the largest thing held besides the inputs and outputs is
//! one tile of scores.
//!
//! **The causal mask, aligned to the bottom right.** With `T` queries and `S` keys, query `i` is
//! the token at position `i + S − T`, the last `T` of `S` positions, as when new tokens are scored
//! against a KV cache (lesson 7), and reads key `j` when `j <= i + S − T`
//! ([`setup::may_attend`]). With `T = S` that is lesson 3's `j <= i`. With `T > S` the first
//! `T − S` queries come before every key: their rows are fully masked, their output is 0
//! (FlashAttention-2's convention) and their logsumexp `−∞`, the log of an empty sum; never NaN.
//! A key tile that lies wholly above
//! the diagonal changes nothing and can be skipped: a causal forward does about half the work.
//!
//! ## What it buys, and how the checks see it
//!
//! The demo measures the most bytes each forward holds at once, beyond its inputs, for one head
//! with `hs = 16`, causal, tiles of 64 × 64: at `T = 128` the plain forward holds 262 144 bytes
//! and the tiled one about 109 000; at `T = 1024`, 9 863 168 bytes (the `(T, T)` weights and
//! mask) against about 230 000 (the output, and one tile): 43 times less, and the gap doubles with
//! every doubling of `T`, since one grows as `T²` and the other as `T`. The core crate has the
//! same forward for its own use, `attention::tiled::tiled_attention`: at `T = 4096` the demo finds
//! it holding 264 times less than the core's plain `scaled_dot_product`, whose `(T, T)` weights
//! alone are 128 MiB (`docs/bench-core.md` has its time: faster, not slower).
//!
//! The checks measure it the same way: their test program's global allocator
//! (`course_check::memory::PeakMeter`) counts every byte allocated and freed, and
//! `tiled_attention_never_holds_t_by_t` runs your [`tiled_attention`] at `T = S = 384` with
//! tiles of 32 × 32 and fails when it held a quarter of a `(T, T)` array of f64 (294 912 bytes)
//! or more at once. Safe Rust cannot allocate around the global allocator, and the grader refuses
//! `unsafe`; a `(T, S)` matrix of scores or weights, held at once for one head or for all,
//! fails it. Each call runs on a thread whose stack is that quarter (an array kept on the stack
//! overflows it), and the grader judges the largest of three calls (a buffer kept in a `static`
//! counts in the call that filled it). (The same check first confirms that lesson 3's
//! attention, run through the meter, does hold `T²` f64.)
//!
//! ## The backward pass
//!
//! For a loss `L` with `dO = ∂L/∂out` given, `out = P v` and `P = softmax(S)`,
//! `S = q kᵀ / √hs` ([`attention_backward`]):
//!
//! ```text
//! dV = Pᵀ dO          dP = dO vᵀ
//! dS = P ∘ (dP − rowsum(P ∘ dP))
//! dQ = dS k / √hs     dK = dSᵀ q / √hs
//! ```
//!
//! The softmax's Jacobian is `diag(p) − p pᵀ`: every weight of a row depends on every score of
//! it, and the subtracted row sum is its `−p (p · dp)` term. One consequence the checks use:
//! adding a vector `c` to every key adds `q_i · c / √hs` to every score of row `i`, which the
//! softmax ignores, so `Σ_j dK_j = 0` for every head. The scale was applied to the scores, so it
//! reaches both `dQ` and `dK`; a masked weight is 0 and gets no gradient.
//!
//! The tiled backward ([`tiled_attention_backward`]; Dao et al. 2022, appendix B, and
//! FlashAttention-2's Algorithm 2) holds no `P` either. Each tile's weights come back from the saved logsumexp, `P_ij = exp(s_ij − lse_i)`
//! (0 where masked), and the row sums of the Jacobian need no weights at all:
//! `rowsum(P ∘ dP)_i = Σ_j P_ij (dO_i · v_j) = dO_i · (Σ_j P_ij v_j) = dO_i · out_i`, so
//! `D = rowsum(dO ∘ out)`, one number per query, is computed first. Then each tile adds its share:
//! `dV_c += Pᵀ dO_r`, `dS = P ∘ (dO_r v_cᵀ − D_r)`, `dQ_r += dS k_c / √hs`,
//! `dK_c += dSᵀ q_r / √hs`. A logsumexp saved before the last key tile was folded in, or a mask
//! left out here, gives weights that do not sum to 1 and gradients that are all wrong, while the
//! forward's output still looks right.
//!
//! ## Checking gradients with finite differences
//!
//! The checks compute the gradients a second way: for every entry `x` of `q`, `k` and `v`, the
//! central difference `(L(x + ε) − L(x − ε)) / 2ε` of `L = Σ out ∘ dO`, with `ε = 1e-5`. Its error
//! is about `ε²/6 · |L'''|` (1e-11 here) plus the rounding of `L`, about `1e-16 · |L| / ε`
//! (1e-10): the checks allow 1e-6, a thousand times that and a millionth of the gradients' size,
//! while a missing Jacobian term or a missing `1/√hs` is off by tenths. They take the differences
//! of lesson 3's attention (the core crate's) and, for the tiled backward, of **your own**
//! [`tiled_attention`] with its own output and logsumexp, so a forward and a backward that
//! disagree are caught even when each looks plausible alone. In f64 this is exact enough to
//! decide; on a GPU, where Triton's matrix products round their inputs to TF32 unless told
//! otherwise, the same comparison of a backward pass needs tolerances wide enough to hide real
//! mistakes.
//!
//! ## The worked example
//!
//! [`setup::worked_example`]: seed 42, then `q`, `k`, `v` and `dO`, each `randn(1, 2, 8, 4)`;
//! causal, tiles of 3 × 3, so the last tile of each axis holds 2. Head 0's logsumexp is
//! `0.85 1.27 1.33 1.62 2.01 2.07 2.40 2.64`; its weights, recomputed from it alone, are the
//! lower triangle the demo draws. Its `dQ` for query 7 is `-0.32 1.11 -1.11 -0.59`; the tiled
//! backward gives the same gradients to 4.4e-16, and the central differences of the tiled
//! forward agree with `dQ` to about 1e-10.
//!
//! Run `cargo xtask demo lesson09` to see every figure with your code (`--compare` puts the
//! reference's next to yours), and `cargo xtask grade lesson09` to grade it.
//!
//! Your work is in [`exercises`]; [`setup`] is given.

pub mod exercises;
pub mod setup;

pub use exercises::*;
pub use setup::{Grads, RowState, Tiling, WorkedExample, worked_example};
