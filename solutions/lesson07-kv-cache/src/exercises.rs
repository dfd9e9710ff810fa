//! Reference implementations of lesson 7's exercises.

use crate::setup::{CacheError, GqaLayer, expect_shape, merge_step, split_step};
use attention::Result;
use attention::error::{ShapeError, shape_string};
use attention::softmax::softmax_row;
use ndarray::{Array3, Array4, ArrayView3, ArrayView4, Axis, s};

/// One layer's KV cache: keys and values `(B, H_kv, capacity, hs)`, of which the first `len`
/// positions are filled.
#[derive(Debug, Clone, PartialEq)]
pub struct KvCache {
    // Crate-visible so that a planted misconception can fill them the wrong way.
    pub(crate) keys: Array4<f64>,
    pub(crate) values: Array4<f64>,
    pub(crate) len: usize,
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

    /// Appends one position: `k` and `v` are `(B, H_kv, hs)`, one key and one value per sequence
    /// and key/value head. Returns the new length.
    pub fn append(
        &mut self,
        k: ArrayView3<f64>,
        v: ArrayView3<f64>,
    ) -> std::result::Result<usize, CacheError> {
        // A method cannot be `plantable!`: its misconceptions are planted here.
        if course_check::planted() == Some("append-wrong-axis") {
            return crate::misconceptions::append_wrong_axis::append(self, k, v);
        }
        course_check::fitted::gate("append", &[&*self, &k, &v]);
        let expected = [self.batch(), self.kv_heads(), self.head_size()];
        expect_shape(
            "KvCache::append",
            "keys (B, H_kv, hs)",
            k.shape(),
            &expected,
        )?;
        expect_shape(
            "KvCache::append",
            "values (B, H_kv, hs)",
            v.shape(),
            &expected,
        )?;
        if self.len == self.capacity() {
            return Err(CacheError::Full {
                capacity: self.capacity(),
                len: self.len,
                requested: 1,
            });
        }
        let p = self.len;
        self.keys.slice_mut(s![.., .., p, ..]).assign(&k);
        self.values.slice_mut(s![.., .., p, ..]).assign(&v);
        self.len += 1;
        Ok(self.len)
    }

    /// Bytes the filled positions take at `bytes_per_value` bytes a number:
    /// `B · 2 · H_kv · hs · len · bytes_per_value`.
    pub fn memory_bytes(&self, bytes_per_value: usize) -> usize {
        // A method cannot be `plantable!`: the fitted plant's gate is here.
        course_check::fitted::gate("memory_bytes", &[self, &bytes_per_value]);
        2 * self.batch() * self.kv_heads() * self.head_size() * self.len * bytes_per_value
    }
}

/// One new token's attention over everything cached: `q` `(B, H, hs)` ->
/// `(output (B, H, hs), weights (B, H, len))`; query head `i` reads key/value head `i / n_rep`.
pub fn decode_step(q: ArrayView3<f64>, cache: &KvCache) -> Result<(Array3<f64>, Array3<f64>)> {
    let op = "decode_step";
    let (b, h, hs) = q.dim();
    let h_kv = cache.kv_heads();
    if b != cache.batch() || hs != cache.head_size() {
        return Err(ShapeError::new(
            op,
            format!(
                "queries (B, H, hs) = ({}, H, {}) to match the cache",
                cache.batch(),
                cache.head_size()
            ),
            q.shape(),
        ));
    }
    if h == 0 || h_kv == 0 || !h.is_multiple_of(h_kv) {
        return Err(ShapeError::with_got(
            op,
            "a query head count H that the cache's H_kv divides",
            format!("H = {h}, H_kv = {h_kv}"),
        ));
    }
    if cache.is_empty() {
        return Err(ShapeError::with_got(
            op,
            "a cache holding at least one position",
            format!("an empty cache {}", shape_string(cache.keys().shape())),
        ));
    }
    let n_rep = h / h_kv;
    let (keys, values) = (cache.keys(), cache.values());
    let len = cache.len();
    let scale = 1.0 / (hs as f64).sqrt();
    let mut out = Array3::zeros((b, h, hs));
    let mut weights = Array3::zeros((b, h, len));
    for bi in 0..b {
        for i in 0..h {
            let g = i / n_rep;
            let k = keys.slice(s![bi, g, .., ..]);
            let v = values.slice(s![bi, g, .., ..]);
            let qi = q.slice(s![bi, i, ..]);
            let mut w = k.dot(&qi) * scale;
            softmax_row(w.as_slice_mut().expect("a fresh array is contiguous"));
            out.slice_mut(s![bi, i, ..]).assign(&w.dot(&v));
            weights.slice_mut(s![bi, i, ..]).assign(&w);
        }
    }
    Ok((out, weights))
}

/// Feeds `x` `(B, T, D)` through `layer` one position at a time, appending every position's keys
/// and values to `cache` before its query attends: returns `(B, T, D)`.
pub fn generate(
    x: ArrayView3<f64>,
    layer: &GqaLayer,
    cache: &mut KvCache,
) -> std::result::Result<Array3<f64>, CacheError> {
    let op = "generate";
    let (b, t, d) = x.dim();
    let (h, h_kv) = (layer.heads, layer.kv_heads);
    let hs = d.checked_div(h).unwrap_or(0);
    if h == 0 || h_kv == 0 || !d.is_multiple_of(h) || !h.is_multiple_of(h_kv) {
        return Err(ShapeError::with_got(
            op,
            "H dividing D and H_kv dividing H",
            format!("D = {d}, H = {h}, H_kv = {h_kv}"),
        )
        .into());
    }
    for (name, m, cols) in [
        ("Wq", &layer.wq, d),
        ("Wk", &layer.wk, h_kv * hs),
        ("Wv", &layer.wv, h_kv * hs),
        ("W_O", &layer.wo, d),
    ] {
        expect_shape(op, name, m.shape(), &[d, cols])?;
    }
    let expected = [b, h_kv, cache.capacity(), hs];
    let got = [
        cache.batch(),
        cache.kv_heads(),
        cache.capacity(),
        cache.head_size(),
    ];
    if got != expected {
        return Err(ShapeError::with_got(
            op,
            format!("a cache for (B, H_kv, hs) = ({b}, {h_kv}, {hs})"),
            format!("a cache for ({}, {}, {})", got[0], got[1], got[3]),
        )
        .into());
    }
    if cache.len() + t > cache.capacity() {
        return Err(CacheError::Full {
            capacity: cache.capacity(),
            len: cache.len(),
            requested: t,
        });
    }
    let mut out = Array3::zeros((b, t, d));
    for p in 0..t {
        let xp = x.index_axis(Axis(1), p);
        let q = split_step(xp.dot(&layer.wq).view(), h)?;
        let k = split_step(xp.dot(&layer.wk).view(), h_kv)?;
        let v = split_step(xp.dot(&layer.wv).view(), h_kv)?;
        cache.append(k.view(), v.view())?;
        // Through `crate::exercises`, so a planted misconception reaches `generate` too.
        let (heads, _) = crate::exercises::decode_step(q.view(), cache)?;
        out.index_axis_mut(Axis(1), p)
            .assign(&merge_step(heads.view()).dot(&layer.wo));
    }
    Ok(out)
}
