//! The build lock of a target folder: every build of the grader takes turns on it, between
//! processes (a watcher's grade and one run by hand) through a lock file in the folder, and within
//! this process (a grade's own build and the reference solutions' build it starts beside it)
//! first, so that a build that has to wait for the lock file knows another process holds it.

use crate::build::units::Observer;
use anyhow::{Context as _, Result};
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard};

/// The target folders a build of this process holds the lock of.
static HELD: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// Told each time a build of this process lets go of a target folder.
static RELEASED: Condvar = Condvar::new();

/// The build lock of one target folder, held until dropped. A build keeps it until its check
/// executables have names of their own outside `debug/deps`: private copies for a sandboxed build
/// ([`crate::build::BuildOutput::private`]), links for a local one
/// ([`crate::build::reuse::kept::link_executables`]).
#[derive(Debug)]
pub struct BuildLock {
    // Fields drop in order: the lock file is free before a build of this process is let in.
    _file: std::fs::File,
    _turn: Turn,
}

/// This process's turn on a target folder (as [`HELD`] lists it), given back when dropped.
#[derive(Debug)]
struct Turn(PathBuf);

impl Drop for Turn {
    fn drop(&mut self) {
        held().retain(|t| *t != self.0);
        RELEASED.notify_all();
    }
}

/// [`HELD`], whatever a panicking holder left.
fn held() -> MutexGuard<'static, Vec<PathBuf>> {
    HELD.lock().unwrap_or_else(|e| e.into_inner())
}

/// Takes the build lock of `target` (made when missing). A build of this process that holds it
/// is waited for without a word; when another process holds it (a watcher's grade of the same
/// course), `observer` hears so before this one waits: a wait of minutes must not look like a
/// hang.
pub fn take(target: &Path, observer: Option<&dyn Observer>) -> Result<BuildLock> {
    std::fs::create_dir_all(target)
        .with_context(|| format!("cannot create {}", target.display()))?;
    let key = target
        .canonicalize()
        .unwrap_or_else(|_| target.to_path_buf());
    let mut waiting = held();
    while waiting.contains(&key) {
        waiting = RELEASED.wait(waiting).unwrap_or_else(|e| e.into_inner());
    }
    waiting.push(key.clone());
    drop(waiting);
    // Given back on an error below too.
    let turn = Turn(key);
    let path = target.join(".xtask-build.lock");
    let file = std::fs::File::create(&path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    if let Err(busy) = file.try_lock() {
        if let (std::fs::TryLockError::WouldBlock, Some(observer)) = (busy, observer) {
            observer.waiting();
        }
        file.lock()
            .with_context(|| format!("cannot lock {}", path.display()))?;
    }
    Ok(BuildLock {
        _file: file,
        _turn: turn,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    /// Counts the waits it hears of.
    #[derive(Default)]
    struct Waits(AtomicUsize);

    impl Observer for Waits {
        fn waiting(&self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
        fn units(&self, _: &crate::build::units::Units) {}
    }

    #[test]
    fn a_build_that_waits_for_another_process_says_so_first() {
        let target = tempfile::tempdir().unwrap();
        let waits = Waits::default();
        drop(take(target.path(), Some(&waits)).unwrap());
        assert_eq!(waits.0.load(Ordering::SeqCst), 0);
        // Another process's build: the lock file locked through a handle of its own.
        let other = std::fs::File::create(target.path().join(".xtask-build.lock")).unwrap();
        other.lock().unwrap();
        std::thread::scope(|scope| {
            let second = scope.spawn(|| take(target.path(), Some(&waits)).unwrap());
            while waits.0.load(Ordering::SeqCst) == 0 {
                assert!(!second.is_finished(), "took a lock another build holds");
                std::thread::sleep(Duration::from_millis(5));
            }
            drop(other);
            second.join().unwrap();
        });
        assert_eq!(waits.0.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_build_of_this_process_is_waited_for_without_a_word() {
        let target = tempfile::tempdir().unwrap();
        let waits = Waits::default();
        let first = take(target.path(), None).unwrap();
        std::thread::scope(|scope| {
            let second = scope.spawn(|| take(target.path(), Some(&waits)).unwrap());
            std::thread::sleep(Duration::from_millis(100));
            assert!(!second.is_finished(), "took a lock another build holds");
            drop(first);
            let second = second.join().unwrap();
            // Held again: a third waits for it in turn.
            let third = scope.spawn(|| take(target.path(), None).unwrap());
            std::thread::sleep(Duration::from_millis(50));
            assert!(!third.is_finished(), "took a lock the second build holds");
            drop(second);
            third.join().unwrap();
        });
        assert_eq!(waits.0.load(Ordering::SeqCst), 0, "blamed another process");
    }
}
