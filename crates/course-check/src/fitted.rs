//! The built-in plant `fitted-to-visible` ([`check_protocol::FITTED_TO_VISIBLE`]): code that only
//! knows the inputs the fixed checks use, to show that the variant checks catch it.
//!
//! Each call is fingerprinted (a hash of its exercise's name and of every argument's `{:#?}`, which
//! ndarray writes in full). In record mode the fingerprints of the fixed checks (visible, property
//! and hidden ones) are appended to a file; calls from a variant check are never recorded. In
//! replay mode a call answers with the reference only when its fingerprint was recorded.

use std::cell::Cell;
use std::collections::HashSet;
use std::fmt::Debug;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::Write;
use std::sync::OnceLock;

thread_local! {
    /// How many [`crate::Variant`]s this thread holds: a variant check is drawing its inputs.
    static DRAWING: Cell<usize> = const { Cell::new(0) };
}

/// Marks its thread as running a variant check while it lives (one per [`crate::Variant`]).
#[derive(Debug)]
pub(crate) struct Drawing(());

impl Drawing {
    pub(crate) fn new() -> Self {
        DRAWING.with(|d| d.set(d.get() + 1));
        Self(())
    }
}

impl Clone for Drawing {
    fn clone(&self) -> Self {
        Self::new()
    }
}

impl Drop for Drawing {
    fn drop(&mut self) {
        DRAWING.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

enum Mode {
    Record(std::path::PathBuf),
    Replay(HashSet<u64>),
}

fn mode() -> &'static Mode {
    static MODE: OnceLock<Mode> = OnceLock::new();
    MODE.get_or_init(|| {
        let value = std::env::var(check_protocol::FITTED_ENV).unwrap_or_default();
        if let Some(path) = value.strip_prefix("record:") {
            return Mode::Record(path.into());
        }
        let path = value.strip_prefix("replay:").unwrap_or_else(|| {
            panic!(
                "fitted: {} must be record:PATH or replay:PATH",
                check_protocol::FITTED_ENV
            )
        });
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("fitted: cannot read {path}: {e}"));
        let seen = text
            .split_whitespace()
            .filter_map(|h| u64::from_str_radix(h, 16).ok());
        Mode::Replay(seen.collect())
    })
}

/// The fingerprint of a call of `exercise` with `args`.
pub fn fingerprint(exercise: &str, args: &[&dyn Debug]) -> u64 {
    let mut hasher = DefaultHasher::new();
    exercise.hash(&mut hasher);
    for arg in args {
        format!("{arg:#?}").hash(&mut hasher);
    }
    hasher.finish()
}

/// The fitted answer's gate, called by `plantable!` before the reference runs: records the call,
/// or panics when replaying inputs never recorded.
pub fn answer(exercise: &str, args: &[&dyn Debug]) {
    let print = fingerprint(exercise, args);
    match mode() {
        Mode::Record(_) if DRAWING.with(Cell::get) > 0 => {}
        Mode::Record(path) => {
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .unwrap_or_else(|e| panic!("fitted: cannot record in {}: {e}", path.display()));
            // One write per line: concurrent check processes append whole lines.
            file.write_all(format!("{print:016x}\n").as_bytes())
                .unwrap_or_else(|e| panic!("fitted: cannot record in {}: {e}", path.display()));
        }
        Mode::Replay(seen) if seen.contains(&print) => {}
        Mode::Replay(_) => panic!("fitted: these inputs of {exercise} were never seen"),
    }
}

/// The same gate for an exercise `plantable!` cannot wrap (a generic function, a method): called
/// first by its reference; does nothing unless the fitted plant is planted.
pub fn gate(exercise: &str, args: &[&dyn Debug]) {
    if crate::planted() == Some(check_protocol::FITTED_TO_VISIBLE) {
        answer(exercise, args);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_tell_exercises_and_values_apart() {
        let x = ndarray::Array2::<f64>::zeros((30, 30));
        let mut y = x.clone();
        y[[29, 29]] = 1.0;
        let f = fingerprint("a", &[&x.view(), &2usize]);
        assert_eq!(f, fingerprint("a", &[&x.view(), &2usize]));
        assert_ne!(f, fingerprint("b", &[&x.view(), &2usize]));
        assert_ne!(
            f,
            fingerprint("a", &[&y.view(), &2usize]),
            "large arrays are written in full"
        );
        assert_ne!(f, fingerprint("a", &[&x.view(), &3usize]));
    }

    #[test]
    fn a_variant_marks_its_thread_while_it_lives() {
        let v = crate::Variant::with_seed("x", 1);
        let w = v.clone();
        assert_eq!(DRAWING.with(Cell::get), 2);
        drop(v);
        drop(w);
        assert_eq!(DRAWING.with(Cell::get), 0);
    }
}
