//! Your exercises for lesson 7. Replace each `todo!()` with an implementation.
//!
//! Tools that help: `slice_mut(s![.., .., p, ..]).assign(..)`, `index_axis`, `dot`,
//! [`attention::softmax::softmax_row`], [`crate::setup::split_step`], [`crate::setup::merge_step`],
//! [`crate::setup::expect_shape`]; errors: [`attention::ShapeError`], [`crate::setup::CacheError`].
#![allow(unused_variables)]

use crate::setup::{CacheError, GqaLayer};
use attention::Result;
use ndarray::{Array3, Array4, ArrayView3, ArrayView4, s};

/// One layer's KV cache: every key and value computed so far, kept so that the next token's
/// query can read them without recomputing anything.
///
/// Layout (given): `keys` and `values` are both `(B, H_kv, capacity, hs)`, allocated once by
/// [`KvCache::new`]; positions `0..len` hold data, the rest are zeros waiting to be filled.
/// Only key/value heads are stored: `H_kv` of them, not `H`, which is where grouped-query
/// attention saves memory.
#[derive(Debug, Clone, PartialEq)]
pub struct KvCache {
    keys: Array4<f64>,
    values: Array4<f64>,
    len: usize,
}

impl KvCache {
    /// An empty cache for `batch` sequences, `kv_heads` key/value heads of size `head_size`,
    /// holding at most `capacity` positions.
    pub fn new(batch: usize, kv_heads: usize, head_size: usize, capacity: usize) -> Self {
        let shape = (batch, kv_heads, capacity, head_size);
        Self {
            keys: Array4::zeros(shape),
            values: Array4::zeros(shape),
            len: 0,
        }
    }

    /// Positions filled so far.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing has been appended yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Positions the cache can hold.
    pub fn capacity(&self) -> usize {
        self.keys.dim().2
    }

    /// Batch size `B`.
    pub fn batch(&self) -> usize {
        self.keys.dim().0
    }

    /// Key/value heads `H_kv`.
    pub fn kv_heads(&self) -> usize {
        self.keys.dim().1
    }

    /// Head size `hs`.
    pub fn head_size(&self) -> usize {
        self.keys.dim().3
    }

    /// The cached keys, `(B, H_kv, len, hs)`: position `p` holds the key of token `p`.
    pub fn keys(&self) -> ArrayView4<'_, f64> {
        self.keys.slice(s![.., .., ..self.len, ..])
    }

    /// The cached values, `(B, H_kv, len, hs)`.
    pub fn values(&self) -> ArrayView4<'_, f64> {
        self.values.slice(s![.., .., ..self.len, ..])
    }

    /// Appends one position (one token) to the cache: `k` and `v` are `(B, H_kv, hs)`, the new
    /// token's key and value for every sequence and every key/value head. They go to position
    /// `len`, then `len` grows by one; returns the new length.
    ///
    /// Errors, leaving the cache unchanged (never a panic):
    /// * [`CacheError::Full`] when all `capacity` positions are already taken
    ///   (`requested: 1`);
    /// * [`CacheError::Shape`] when `k` or `v` is not `(B, H_kv, hs)` of this cache.
    pub fn append(
        &mut self,
        k: ArrayView3<f64>,
        v: ArrayView3<f64>,
    ) -> std::result::Result<usize, CacheError> {
        todo!("KvCache::append: write k and v at position len, refuse a full cache")
    }

    /// Bytes taken by the filled positions when every number is stored in `bytes_per_value`
    /// bytes (8 for this course's `f64`, 2 for fp16): a key and a value of `hs` numbers for every
    /// sequence, key/value head and cached position, `B · 2 · H_kv · hs · len · bytes_per_value`.
    /// For one sequence this is lesson 6's formula with one layer,
    /// [`crate::setup::kv_cache_bytes`]`(1, H_kv, hs, len, bytes_per_value)`.
    pub fn memory_bytes(&self, bytes_per_value: usize) -> usize {
        todo!("KvCache::memory_bytes: B · 2 · H_kv · hs · len · bytes_per_value")
    }
}

/// One decoding step: the newest token's query attends to every position in `cache`.
///
/// `q`: `(B, H, hs)`, the new token's query for every sequence and query head; the cache already
/// holds this token's own key and value (append first, then attend). Returns
/// `(output (B, H, hs), weights (B, H, len))`: query head `i` scores
/// `softmax(q · kᵀ / √hs)` over all `len` cached keys of key/value head `i / n_rep`
/// (`n_rep = H / H_kv`) and mixes that head's cached values.
///
/// No mask: the cache holds only the past and the present, so everything in it may be read.
/// Every weight row sums to 1.
///
/// Errors with a [`attention::ShapeError`] when `q`'s batch or head size differ from the
/// cache's, when `H_kv` does not divide `H`, or when the cache is empty.
pub fn decode_step(q: ArrayView3<f64>, cache: &KvCache) -> Result<(Array3<f64>, Array3<f64>)> {
    todo!("decode_step: attend from one query per head over every cached key")
}

/// Feeds `x` `(B, T, D)` through `layer` one position at a time, as a model does while it
/// generates: for each position `p`, project `x[:, p]` by `Wq`, `Wk`, `Wv`, split into `H` query
/// heads and `H_kv` key/value heads, append the key and value to `cache`, [`decode_step`] the
/// query, merge the heads and multiply by `W_O`. Returns the `(B, T, D)` outputs.
///
/// The cache may already hold earlier positions (a prompt fed by an earlier call); the new
/// positions continue after them. The result equals rows `len..len + T` of causal grouped-query
/// attention over the whole sequence.
///
/// Errors, before touching the cache:
/// * [`CacheError::Full`] when `len + T > capacity` (`requested: T`);
/// * [`CacheError::Shape`] when `D` or the weights do not fit `layer`'s head counts, or the
///   cache is not for `(B, H_kv, hs)`.
pub fn generate(
    x: ArrayView3<f64>,
    layer: &GqaLayer,
    cache: &mut KvCache,
) -> std::result::Result<Array3<f64>, CacheError> {
    todo!("generate: project, append, decode_step, merge and project, one position at a time")
}
