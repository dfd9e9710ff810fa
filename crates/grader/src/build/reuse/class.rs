//! Within one class run (`grade --submissions`), submissions with the same sources of a lesson share
//! its build: the target folder alone reuses only the previous submission's. Kept in the grader's
//! private scratch folder, copied for each grade and checked against the SHA-256 taken when kept,
//! so no check can read or replace another student's executables.

use crate::build::output::CheckBinary;
use anyhow::{Context as _, Result};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The check executables and warnings of one lesson's build, kept for the run.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    pub bins: Vec<CheckBinary>,
    /// The SHA-256 of each executable as it was built.
    sha256: Vec<String>,
    pub warnings: Vec<String>,
}

impl Entry {
    /// Copies of the executables in `dir`, each checked against the hash taken when it was kept
    /// (nothing can write the cache, and should anything have, a changed file is never run);
    /// `None`, with the copies removed, when one differs or cannot be read.
    pub(super) fn copy_verified(&self, dir: &Path) -> Option<Vec<CheckBinary>> {
        let copies = crate::build::output::copy_executables(&self.bins, dir).ok()?;
        let same = copies
            .iter()
            .zip(&self.sha256)
            .all(|(bin, sha)| sha256_of(&bin.exe).as_ref() == Some(sha));
        if !same {
            for bin in &copies {
                let _ = std::fs::remove_file(&bin.exe);
            }
        }
        same.then_some(copies)
    }
}

fn sha256_of(path: &Path) -> Option<String> {
    Some(crate::course::manifest::sha256_hex(
        &std::fs::read(path).ok()?,
    ))
}

/// The lesson builds of one class run, by content (see the module's documentation).
#[derive(Debug)]
pub struct BuildCache {
    dir: crate::fsutil::TempDir,
    entries: Mutex<HashMap<String, Entry>>,
    pub(super) built: AtomicUsize,
    pub(super) reused: AtomicUsize,
    /// Numbers the folders builds are copied into, so that two submissions with the same sources
    /// built at once never write the same files (a third could be copying them meanwhile).
    serial: AtomicUsize,
}

impl BuildCache {
    /// An empty cache in a new scratch folder.
    pub fn new() -> Result<Self> {
        Ok(Self {
            dir: crate::fsutil::scratch_dir("class-builds")?,
            entries: Mutex::default(),
            built: AtomicUsize::new(0),
            reused: AtomicUsize::new(0),
            serial: AtomicUsize::new(0),
        })
    }

    /// `(lessons built, lessons whose build was reused)` so far.
    pub fn counts(&self) -> (usize, usize) {
        (
            self.built.load(Ordering::SeqCst),
            self.reused.load(Ordering::SeqCst),
        )
    }

    pub(super) fn get(&self, key: &str) -> Option<Entry> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.get(key).cloned()
    }

    pub(super) fn forget(&self, key: &str) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.remove(key);
    }

    /// Keeps copies of `bins` (private copies made under the build lock) under `key`.
    pub(super) fn put(&self, key: &str, bins: &[CheckBinary], warnings: &[String]) -> Result<()> {
        let serial = self.serial.fetch_add(1, Ordering::SeqCst);
        let dir = self.dir.path().join(serial.to_string());
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let kept = crate::build::output::copy_executables(bins, &dir)?;
        // The hash of the kept file itself, the one later grades copy.
        let sha256 = kept
            .iter()
            .map(|bin| sha256_of(&bin.exe).context("cannot read a check executable"))
            .collect::<Result<Vec<_>>>()?;
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.contains_key(key) {
            drop(entries);
            let _ = std::fs::remove_dir_all(&dir);
        } else {
            entries.insert(
                key.to_owned(),
                Entry {
                    bins: kept,
                    sha256,
                    warnings: warnings.to_vec(),
                },
            );
        }
        Ok(())
    }
}
