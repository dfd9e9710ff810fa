//! # Lesson 7: decoding with a KV cache
//!
//! A model that writes text produces one token at a time. With causal attention, position `p`
//! reads only positions `0..=p`, so nothing a later token does can change an earlier token's
//! keys and values. Recomputing them at every step would redo `p` projections to add one. A
//! decoder instead keeps every key and value it has computed in a **KV cache** and, at each step,
//! does only the new token's work:
//!
//! ```text
//! x_p (B, D) --@Wq, split--> q (B, H, hs)
//!            --@Wk, split--> k (B, H_kv, hs) --append--> cache keys   (B, H_kv, p + 1, hs)
//!            --@Wv, split--> v (B, H_kv, hs) --append--> cache values (B, H_kv, p + 1, hs)
//! q attends to the whole cache --> heads (B, H, hs), weights (B, H, p + 1)
//! merge the heads (B, H · hs) = (B, D) --@W_O--> output row p (B, D)
//! ```
//!
//! One position has no `T` axis, so splitting into heads is a plain reshape
//! ([`setup::split_step`]) and merging its inverse ([`setup::merge_step`]).
//!
//! ## No mask at decode time
//!
//! The causal mask exists to hide the future. The cache holds only the past and the new token
//! itself, so the new query may read every cached position: one row of `len` weights per query
//! head, summing to 1. Applying a causal mask again is not harmless: the core's
//! `attention::mask::causal(1, len)` is aligned to the top left, and its only row allows key 0
//! alone. The query would then read the first token of the text and nothing else. Attending to
//! the newest key only is the other way to get it wrong: the output becomes the new token's own
//! value. Both pass a shape check; the checks compare numbers.
//!
//! ## The same numbers as full attention
//!
//! Feeding a sequence one token at a time through the cache gives exactly what causal attention
//! over the whole sequence gives, row for row (up to the last bit or two of rounding). That holds
//! across calls: a prompt of `P` tokens fed first, then `N` more tokens, produces the rows
//! `P..P + N` of the full `(P + N)`-token computation. That is `T ≠ S` in lesson 3's sense: `N`
//! new queries against `P + N` cached keys.
//!
//! ## Grouped-query heads in the cache
//!
//! The cache stores key/value heads, `H_kv` of them, not the `H` query heads. Query head `i`
//! reads key/value head `i / n_rep` straight from the cache (lesson 6's layout: neighbours share),
//! so nothing is ever repeated in memory. The cache of one layer and `B` sequences holds
//! `B · 2 · H_kv · hs · len` numbers: lesson 6's formula ([`setup::kv_cache_bytes`]) for one
//! layer, per sequence. With `H_kv < H` it is `n_rep` times smaller than a multi-head cache.
//!
//! ## Capacity
//!
//! A real cache is allocated once, for the longest context the model serves. [`KvCache::new`]
//! allocates `(B, H_kv, capacity, hs)` for keys and for values; appending to a full cache is an
//! error ([`setup::CacheError::Full`]), never a panic and never a silent overwrite, and a call
//! that would overflow changes nothing.
//!
//! ## The worked example
//!
//! [`setup::worked_example`]: seed 42, `X = randn(1, 6, 16)`, then the layer `Wq (16, 16)`,
//! `Wk` and `Wv (16, 8)`, `W_O (16, 16)`, each `randn(...) * 0.3`, with `H = 4`, `H_kv = 2`,
//! `hs = 4`, and a cache of capacity 8. The 3-token prompt goes in first, then the 3 remaining
//! tokens one at a time. The cache grows `(1, 2, 3, 4)` to `(1, 2, 6, 4)`; in `f64` it takes
//! 128 bytes per token, 768 bytes at the end (a multi-head cache of 4 key/value heads would take
//! 1536). At the last step the query heads 0 and 1, which read the same cached keys, look at
//! different places: head 0 puts 0.4885 of its weight on position 4, head 1 puts at most 0.2305
//! anywhere (on position 3). The last output row starts `-1.8084` and ends `3.1573`, the same as
//! causal attention over all six tokens at once.
//!
//! Run `cargo xtask demo lesson07` to watch the cache grow with your code (and a picture of what
//! each new token's query heads read; `--compare` puts the reference's next to yours), and
//! `cargo xtask grade lesson07` to grade it.
//!
//! Your work is in [`exercises`]; [`setup`] is given.

pub mod exercises;
pub mod setup;

pub use exercises::{KvCache, decode_step, generate};
pub use setup::{CacheError, GqaLayer, WorkedExample, worked_example};
