//! A small process-wide pool of `f64` buffers: packed weights, scratch space and the arrays
//! [`super::mha_forward`] returns.
//!
//! Large fresh allocations come from the OS as untouched pages, and faulting them in costs about
//! as much as the arithmetic that fills them (at `B = 8, T = 256, D = 512` the returned arrays
//! alone are 40 MiB). Repeated forwards therefore take their buffers from here and give them
//! back, as a BLAS library keeps its packing buffers, and an [`super::MhaOutput`] gives its two
//! arrays back when it is dropped.

use std::sync::Mutex;

/// How many buffers are kept between calls (the largest ones).
const KEEP: usize = 16;

/// At most this many bytes are kept between calls: a forward far larger than the benchmark's
/// (whose buffers, two outputs alive at once included, are about 100 MiB) does not hold on to its
/// memory after its output is dropped.
const KEEP_BYTES: usize = 256 << 20;

static POOL: Mutex<Vec<Vec<f64>>> = Mutex::new(Vec::new());

/// A buffer of exactly `len` values whose contents are unspecified (but initialised): the caller
/// must overwrite whatever it reads.
pub(crate) fn take(len: usize) -> Vec<f64> {
    let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
    let best = (0..pool.len())
        .filter(|&i| pool[i].capacity() >= len)
        .min_by_key(|&i| pool[i].capacity());
    let mut buf = best.map(|i| pool.swap_remove(i)).unwrap_or_default();
    drop(pool);
    buf.resize(len, 0.0);
    buf
}

/// Values a buffer needs beyond its use to start that use on a 64-byte boundary: an `f64`
/// buffer reaches one within 7 values.
pub(crate) const ALIGN_SPARE: usize = 7;

/// Where `buf`'s first 64-byte boundary is, in values (at most [`ALIGN_SPARE`]).
pub(crate) fn aligned_offset(buf: &[f64]) -> usize {
    buf.as_ptr().align_offset(64).min(ALIGN_SPARE)
}

/// `buf` from its first 64-byte boundary, [`ALIGN_SPARE`] values shorter (a buffer taken with
/// that much room).
pub(crate) fn aligned(buf: &mut [f64]) -> &mut [f64] {
    let off = aligned_offset(buf);
    let len = buf.len() - ALIGN_SPARE;
    &mut buf[off..off + len]
}

/// Returns a buffer to the pool; only the `KEEP` largest are kept, and only as many of the
/// smallest of those as fit in `KEEP_BYTES`.
pub(crate) fn give(buf: Vec<f64>) {
    if buf.capacity() == 0 {
        return;
    }
    let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
    pool.push(buf);
    pool.sort_unstable_by_key(|b| std::cmp::Reverse(b.capacity()));
    pool.truncate(KEEP);
    let bytes = |b: &Vec<f64>| b.capacity() * size_of::<f64>();
    let mut total: usize = pool.iter().map(bytes).sum();
    while total > KEEP_BYTES {
        // The largest goes first: the buffers of small, frequent calls stay.
        let largest = pool.remove(0);
        total -= bytes(&largest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_keeps_few_buffers_and_bounded_memory() {
        // Other tests use the process-wide pool meanwhile; the bounds hold after every `give`
        // (it keeps the pool locked while it trims), so they are checked, not exact counts.
        let huge = KEEP_BYTES / size_of::<f64>() + 1;
        give(vec![0.0; huge]);
        let pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        assert!(
            pool.iter().all(|b| b.capacity() < huge),
            "kept a buffer over the limit"
        );
        assert!(pool.len() <= KEEP);
        drop(pool);
        for _ in 0..2 * KEEP {
            give(vec![1.0; 16]);
        }
        let pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        assert!(pool.len() <= KEEP, "{} buffers kept", pool.len());
        assert!(
            pool.iter()
                .map(|b| b.capacity() * size_of::<f64>())
                .sum::<usize>()
                <= KEEP_BYTES
        );
        drop(pool);
        let b = take(10);
        assert_eq!(b.len(), 10);
    }

    #[test]
    fn aligned_use_starts_on_a_64_byte_boundary_whatever_the_buffer() {
        let mut buf = vec![0.0; 40 + ALIGN_SPARE];
        // Every start an `f64` buffer can have relative to a 64-byte boundary.
        for skip in 0..8 {
            let whole = buf.len() - skip;
            let part = aligned(&mut buf[skip..]);
            assert_eq!(part.len(), whole - ALIGN_SPARE, "start {skip}");
            assert_eq!(part.as_ptr() as usize % 64, 0, "start {skip}");
        }
    }
}
