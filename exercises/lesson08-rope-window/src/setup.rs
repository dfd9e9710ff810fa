//! The lesson's given code: lesson 7's KV cache (keys appended already rotated), the rolling
//! buffer that holds only the last `W` positions, lesson 6's memory formula, and the seeded worked
//! example.

use attention::error::ShapeError;
use attention::rng::RandomState;
use ndarray::{Array4, ArrayView3, ArrayView4, s};

/// The worked example's seed (`np.random.seed(42)`).
pub const SEED: u32 = 42;
/// Batch size `B` of the worked example.
pub const B: usize = 1;
/// Query heads `H` of the worked example.
pub const H: usize = 2;
/// Key/value heads `H_kv` of the worked example: both query heads read the same one.
pub const H_KV: usize = 1;
/// Head size `hs` of the worked example: 4 rotated pairs.
pub const HS: usize = 8;
/// Tokens in the worked example.
pub const T: usize = 8;
/// The sliding window of the worked example: each query reads itself and the 2 tokens before.
pub const W: usize = 3;
/// RoPE's base, as in RoFormer and Llama: `θ_i = BASE^(-2i/hs)`.
pub const BASE: f64 = 10000.0;

/// Lesson 6's formula, given: the bytes of a KV cache for one sequence,
/// `2 · layers · H_kv · hs · T · bytes_per_value` (a key and a value per head and position).
pub fn kv_cache_bytes(
    layers: usize,
    h_kv: usize,
    hs: usize,
    t: usize,
    bytes_per_value: usize,
) -> usize {
    2 * layers * h_kv * hs * t * bytes_per_value
}

/// Checks that `got` is `expected` and names both when it is not (the core's).
pub use attention::error::expect_shape;

/// Lesson 7's KV cache, given: keys and values `(B, H_kv, capacity, hs)` of which the first
/// `len` positions are filled. Position `p` of the cache is token `p` of the text.
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

    /// Positions filled so far: the absolute position the next token will take.
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

    /// The cached keys, `(B, H_kv, len, hs)`.
    pub fn keys(&self) -> ArrayView4<'_, f64> {
        self.keys.slice(s![.., .., ..self.len, ..])
    }

    /// The cached values, `(B, H_kv, len, hs)`.
    pub fn values(&self) -> ArrayView4<'_, f64> {
        self.values.slice(s![.., .., ..self.len, ..])
    }

    /// Writes `k` and `v`, `(B, H_kv, hs)`, at position `len` and returns the new length. Errors
    /// (changing nothing) when they are not `(B, H_kv, hs)` or the cache is full.
    pub fn append(&mut self, k: ArrayView3<f64>, v: ArrayView3<f64>) -> attention::Result<usize> {
        let expected = [self.batch(), self.kv_heads(), self.head_size()];
        expect_shape("KvCache::append", "keys", k.shape(), &expected)?;
        expect_shape("KvCache::append", "values", v.shape(), &expected)?;
        if self.len == self.capacity() {
            return Err(ShapeError::with_got(
                "KvCache::append",
                "a cache with a free position",
                format!("all {} positions taken", self.capacity()),
            ));
        }
        self.keys.slice_mut(s![.., .., self.len, ..]).assign(&k);
        self.values.slice_mut(s![.., .., self.len, ..]).assign(&v);
        self.len += 1;
        Ok(self.len)
    }
}

/// A rolling buffer (Mistral 7B's "rolling buffer cache"), given: `W` slots per sequence and
/// key/value head, `(B, H_kv, W, hs)`. Token `p` is written to slot `p % W`, over the token
/// `p - W` that was there: the buffer always holds the last `min(pushed, W)` tokens, but once it
/// has wrapped around, slot 0 is no longer the oldest.
#[derive(Debug, Clone, PartialEq)]
pub struct RingCache {
    keys: Array4<f64>,
    values: Array4<f64>,
    pushed: usize,
}

impl RingCache {
    /// An empty buffer of `window` slots for `batch` sequences and `kv_heads` key/value heads of
    /// size `head_size`. Panics when `window` is 0.
    pub fn new(batch: usize, kv_heads: usize, head_size: usize, window: usize) -> Self {
        assert!(window > 0, "a window of 0 positions holds nothing");
        let shape = (batch, kv_heads, window, head_size);
        Self {
            keys: Array4::zeros(shape),
            values: Array4::zeros(shape),
            pushed: 0,
        }
    }

    /// Tokens pushed so far, `pushed`: the absolute position the next token will take.
    pub fn pushed(&self) -> usize {
        self.pushed
    }

    /// Tokens held: `min(pushed, W)`.
    pub fn len(&self) -> usize {
        self.pushed.min(self.window())
    }

    /// True when nothing has been pushed yet.
    pub fn is_empty(&self) -> bool {
        self.pushed == 0
    }

    /// The window `W`: the number of slots.
    pub fn window(&self) -> usize {
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

    /// The key slots in slot order, `(B, H_kv, W, hs)`: slot `p % W` holds token `p`; slots not
    /// written yet are zeros.
    pub fn key_slots(&self) -> ArrayView4<'_, f64> {
        self.keys.view()
    }

    /// The value slots in slot order, `(B, H_kv, W, hs)`.
    pub fn value_slots(&self) -> ArrayView4<'_, f64> {
        self.values.view()
    }

    /// Writes `k` and `v`, `(B, H_kv, hs)`, to slot `pushed % W` (overwriting token
    /// `pushed - W` once the buffer is full) and returns the absolute position they took. Errors
    /// (changing nothing) when they are not `(B, H_kv, hs)`.
    pub fn push(&mut self, k: ArrayView3<f64>, v: ArrayView3<f64>) -> attention::Result<usize> {
        let expected = [self.batch(), self.kv_heads(), self.head_size()];
        expect_shape("RingCache::push", "keys", k.shape(), &expected)?;
        expect_shape("RingCache::push", "values", v.shape(), &expected)?;
        let slot = self.pushed % self.window();
        self.keys.slice_mut(s![.., .., slot, ..]).assign(&k);
        self.values.slice_mut(s![.., .., slot, ..]).assign(&v);
        self.pushed += 1;
        Ok(self.pushed - 1)
    }
}

/// The worked example: one sequence's queries, keys and values, every token of it.
#[derive(Debug, Clone)]
pub struct WorkedExample {
    /// Queries `(B, H, T, hs) = (1, 2, 8, 8)`.
    pub q: Array4<f64>,
    /// Keys `(B, H_kv, T, hs) = (1, 1, 8, 8)`.
    pub k: Array4<f64>,
    /// Values `(B, H_kv, T, hs) = (1, 1, 8, 8)`.
    pub v: Array4<f64>,
}

/// Draws the worked example: seed 42, then `q = randn(1, 2, 8, 8)`, `k = randn(1, 1, 8, 8)`,
/// `v = randn(1, 1, 8, 8)`, in that order.
pub fn worked_example() -> WorkedExample {
    let mut rng = RandomState::new(SEED);
    let q = rng.randn((B, H, T, HS));
    let k = rng.randn((B, H_KV, T, HS));
    let v = rng.randn((B, H_KV, T, HS));
    WorkedExample { q, k, v }
}

/// A `(B, h, T, hs)` tensor whose every value tells where it sits:
/// `b * 1000 + i * 100 + t * 10 + j`. Exactly representable, so data movement can be checked
/// exactly (keep `h, T, hs <= 10`).
pub fn labelled(b: usize, h: usize, t: usize, hs: usize) -> Array4<f64> {
    Array4::from_shape_fn((b, h, t, hs), |(b, i, t, j)| {
        (b * 1000 + i * 100 + t * 10 + j) as f64
    })
}
