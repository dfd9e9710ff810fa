//! A small process-wide pool of `f64` buffers for packed weights and scratch space.
//!
//! Large fresh allocations come from the OS as untouched pages, and faulting them in costs about
//! as much as the arithmetic that fills them (about 0.4 ms per MiB on the benchmark machine).
//! Repeated forwards therefore take their internal buffers from here and give them back, as a
//! BLAS library keeps its packing buffers. Only the buffers returned to the caller are fresh.

use std::sync::Mutex;

/// How many buffers are kept between calls (the largest ones).
const KEEP: usize = 16;

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

/// Returns a buffer to the pool; only the `KEEP` largest are kept.
pub(crate) fn give(buf: Vec<f64>) {
    let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
    pool.push(buf);
    if pool.len() > KEEP {
        let smallest = (0..pool.len())
            .min_by_key(|&i| pool[i].capacity())
            .expect("pool is not empty");
        pool.swap_remove(smallest);
    }
}
