//! Measuring the memory a call allocates, for checks that bound it (lesson 9: tiled attention
//! must never hold a `T × T` array).
//!
//! A check binary makes [`PeakMeter`] its global allocator; [`PeakMeter::peak_during`] then
//! runs a closure and returns the most bytes that were allocated at once, beyond those already
//! live when it started:
//!
//! ```ignore
//! #[global_allocator]
//! static METER: course_check::memory::PeakMeter = course_check::memory::PeakMeter::new();
//!
//! let (out, extra) = METER.peak_during(|| tiled_attention(q.view(), k.view(), v.view(), tiling));
//! assert!(extra < t * t * 8 / 4, "...");
//! ```
//!
//! The counters are process-wide: under the grader each check runs on the only test thread
//! (`--test-threads=1`), so they count the call alone; under `cargo test` other tests' arrays,
//! allocated on other threads meanwhile, are counted too. A check measures a few calls, each on
//! inputs of its own, and [`judged`] says which figure counts.
//! Student code cannot allocate around the meter: every allocation of safe Rust goes through the
//! global allocator, and the grader refuses `unsafe` in a lesson's sources. What it keeps on its
//! stack instead is bounded by running the call on a small stack ([`PeakMeter::peak_on_stack`]).
//! Not seen: an array in a `static` that needs no allocation (`Mutex<[f64; N]>`).

// The only `unsafe` in the checks' support: a `GlobalAlloc` is an unsafe trait, and this one
// forwards every call to the system allocator unchanged.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes live and their peak.
#[derive(Debug, Default)]
pub struct PeakMeter {
    live: AtomicUsize,
    peak: AtomicUsize,
}

impl PeakMeter {
    /// A meter with nothing counted yet (a `const fn`, for a `static`).
    pub const fn new() -> Self {
        Self {
            live: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        }
    }

    /// Bytes allocated and not yet freed.
    pub fn live(&self) -> usize {
        self.live.load(Ordering::SeqCst)
    }

    /// Runs `f` and returns its result with the peak of the bytes live during the call, minus
    /// those live when it started: what the call needed at most, its result included.
    pub fn peak_during<R>(&self, f: impl FnOnce() -> R) -> (R, usize) {
        let base = self.live();
        self.peak.store(base, Ordering::SeqCst);
        let result = f();
        let peak = self.peak.load(Ordering::SeqCst);
        (result, peak.saturating_sub(base))
    }

    /// [`Self::peak_during`] on a thread of its own, named `name`, whose stack holds `stack` bytes:
    /// an array a call keeps on its stack is not allocated, so the meter cannot see it; on a stack
    /// smaller than a check's bound such an array overflows it, and the check fails (the process
    /// aborts, naming the thread) instead of passing unmeasured.
    pub fn peak_on_stack<R: Send>(
        &self,
        name: &str,
        stack: usize,
        f: impl FnOnce() -> R + Send,
    ) -> (R, usize) {
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name(name.to_owned())
                .stack_size(stack)
                .spawn_scoped(scope, || self.peak_during(f))
                .expect("a thread for the measured call")
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }

    fn grew(&self, bytes: usize) {
        let now = self.live.fetch_add(bytes, Ordering::SeqCst) + bytes;
        self.peak.fetch_max(now, Ordering::SeqCst);
    }

    fn shrank(&self, bytes: usize) {
        self.live.fetch_sub(bytes, Ordering::SeqCst);
    }
}

/// Of what several calls held at most (each on inputs of its own), the figure a check judges:
/// under the grader, where a check runs on the only test thread and nothing else allocates
/// meanwhile, the largest, so that no call passes on what an earlier one kept (a buffer in a
/// `static` fills on the first call only); under `cargo test`, where other checks allocate on
/// other threads meanwhile and the meter counts their arrays too, the least.
pub fn judged(held: &[usize]) -> usize {
    judged_when(crate::observe::observing(), held)
}

/// [`judged`], alone (under the grader) or not.
fn judged_when(alone: bool, held: &[usize]) -> usize {
    let most = held.iter().copied().max();
    let least = held.iter().copied().min();
    if alone { most } else { least }.expect("at least one call")
}

// SAFETY: every method forwards to `System` with the caller's arguments; the counters change
// only when the system allocator succeeded.
unsafe impl GlobalAlloc for PeakMeter {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is `System::alloc`'s.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            self.grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            self.grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout` (every allocation goes there).
        unsafe { System.dealloc(ptr, layout) };
        self.shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`; `new_size` is the caller's, checked by its contract.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            self.shrank(layout.size());
            self.grew(new_size);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_what_a_call_holds_at_most() {
        let meter = PeakMeter::new();
        let layout = Layout::from_size_align(4096, 8).unwrap();
        let ((), extra) = meter.peak_during(|| {
            // SAFETY: a valid non-zero layout, freed with the same layout.
            unsafe {
                let a = meter.alloc(layout);
                let b = meter.alloc_zeroed(layout);
                meter.dealloc(a, layout);
                let b = meter.realloc(b, layout, 3 * 4096);
                meter.dealloc(b, Layout::from_size_align(3 * 4096, 8).unwrap());
            }
        });
        assert_eq!(
            extra,
            3 * 4096,
            "the grown buffer alone was the most held at once"
        );
        assert_eq!(meter.live(), 0, "everything freed");
    }

    #[test]
    fn alone_the_largest_call_is_judged_else_the_least() {
        // A cache kept between calls: the first call held it all, the others nothing new.
        let held = [1_200_000, 35_000, 35_000];
        assert_eq!(judged_when(true, &held), 1_200_000);
        assert_eq!(judged_when(false, &held), 35_000);
    }

    #[test]
    fn a_call_on_a_small_stack_is_measured_and_returns_its_value() {
        let meter = PeakMeter::new();
        let layout = Layout::from_size_align(1000, 8).unwrap();
        let (value, extra) = meter.peak_on_stack("small", 64 * 1024, || {
            // SAFETY: a valid non-zero layout, freed with the same layout.
            unsafe { meter.dealloc(meter.alloc(layout), layout) };
            std::thread::current().name().map(str::to_owned)
        });
        assert_eq!((value.as_deref(), extra), (Some("small"), 1000));
    }
}
