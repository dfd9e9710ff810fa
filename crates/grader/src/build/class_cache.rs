//! Within one class run (`grade --submissions`), submissions whose sources of a lesson are the same
//! share that lesson's build.
//!
//! A class holds many copies of the same lesson crate: every student who left a lesson as handed
//! out, archives of the same work. The shared target folder already reuses a build when the
//! previous submission had the same sources (see `build.rs`, `decide_by_content`), but any other
//! submission in between makes cargo rebuild. This cache keeps, for the length of the run, the
//! check executables of every lesson a sandboxed build produced, under a key naming everything the
//! build read:
//! the lesson, the SHA-256 of its student sources in the grading copy (after the grader's own
//! changes, such as replacing a crate that uses `unsafe`), and of every other file of the grading
//! copy except the student sources of all lessons (the checks, the core, the lock file, the course
//! file). A submission whose lessons are all in the cache runs no cargo at all.
//!
//! Only successful builds are kept; a build that failed is tried again. The cache lives in a
//! private scratch folder of the grader, which neither sandboxed builds nor checks can write; a
//! grade runs its own copies of the cached executables in its own private folder (as it runs
//! copies of the ones it built), so no check can read another student's executables. Each copy is
//! also checked against the SHA-256 its executable had when it was kept, so that even a check that
//! got out of its sandbox could not have a later student graded with its code: a kept build that
//! changed is forgotten and the lesson built again.

use crate::build::{BuildOutput, Built, CheckBinary};
use crate::course::Lesson;
use anyhow::{Context as _, Result};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The check executables and warnings of one lesson's build, kept for the run.
#[derive(Debug, Clone)]
struct Entry {
    bins: Vec<CheckBinary>,
    /// The SHA-256 of each executable as it was built.
    sha256: Vec<String>,
    warnings: Vec<String>,
}

impl Entry {
    /// Copies of the executables in `dir`, each checked against the hash taken when it was kept
    /// (nothing can write the cache, and should anything have, a changed file is never run);
    /// `None`, with the copies removed, when one differs or cannot be read.
    fn copy_verified(&self, dir: &Path) -> Option<Vec<CheckBinary>> {
        let copies = crate::build::copy_executables(&self.bins, dir).ok()?;
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
    built: AtomicUsize,
    reused: AtomicUsize,
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

    fn get(&self, key: &str) -> Option<Entry> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.get(key).cloned()
    }

    fn forget(&self, key: &str) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.remove(key);
    }

    /// Keeps copies of `bins` (private copies made under the build lock) under `key`.
    fn put(&self, key: &str, bins: &[CheckBinary], warnings: &[String]) -> Result<()> {
        let serial = self.serial.fetch_add(1, Ordering::SeqCst);
        let dir = self.dir.path().join(serial.to_string());
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let kept = crate::build::copy_executables(bins, &dir)?;
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

/// The key of each lesson of `lessons` in the grading copy `root` of `course`; `None` (never
/// shared) when a file it covers cannot be read.
fn keys(root: &Path, course: &crate::course::Course, lessons: &[&Lesson]) -> Vec<Option<String>> {
    let digest = |base: &Path, files: Vec<String>| -> Option<String> {
        let read: std::io::Result<Vec<(String, Vec<u8>)>> = files
            .into_iter()
            .map(|rel| Ok((rel.clone(), std::fs::read(base.join(&rel))?)))
            .collect();
        Some(crate::course::manifest::sources_digest(&read.ok()?))
    };
    let others = crate::fsutil::files_under(root, root, &|rel, _| course.is_student_source(rel));
    let instructors = digest(root, others);
    lessons
        .iter()
        .map(|lesson| {
            let src = lesson.crate_dir(root, false).join("src");
            let own = digest(&src, crate::fsutil::files_under(&src, &src, &|_, _| false))?;
            let key = format!("{}\n{own}\n{}\n", lesson.id, instructors.as_ref()?);
            Some(crate::course::manifest::sha256_hex(key.as_bytes())[..32].to_owned())
        })
        .collect()
}

/// A sandboxed build of the exercises of `lessons` in the grading copy `root` of `course`, into
/// `target_dir` (stopped after `time_limit`), taking every lesson it can from `cache` and adding
/// the ones it builds. The executables of the result are private copies, as
/// [`crate::build::build`]'s are.
pub fn build(
    cache: &BuildCache,
    root: &Path,
    course: &crate::course::Course,
    lessons: &[&Lesson],
    target_dir: Option<&Path>,
    time_limit: std::time::Duration,
) -> Result<BuildOutput> {
    let keys = keys(root, course, lessons);
    // Known lessons first, copied into a private folder and checked; a lesson whose kept build
    // fails the check is forgotten and built again.
    let reused_dir = crate::fsutil::scratch_dir("checks")?;
    let mut reused = Vec::new();
    let mut to_build = Vec::new();
    for (lesson, key) in lessons.iter().zip(&keys) {
        let entry = key.as_deref().and_then(|k| cache.get(k));
        match entry
            .as_ref()
            .and_then(|e| e.copy_verified(reused_dir.path()))
        {
            Some(bins) => reused.push((*lesson, bins, entry.map(|e| e.warnings))),
            None => {
                if let (Some(key), Some(_)) = (key, entry) {
                    cache.forget(key);
                }
                to_build.push((*lesson, key));
            }
        }
    }
    let mut out = if to_build.is_empty() {
        BuildOutput {
            private: Some(std::sync::Arc::new(reused_dir)),
            ..BuildOutput::default()
        }
    } else {
        let built: Vec<&Lesson> = to_build.iter().map(|(lesson, _)| *lesson).collect();
        let out = crate::build::build(root, &built, false, target_dir, Some(time_limit))?;
        // The checked copies join the build's own private copies (a rename: the same files).
        let private = out
            .private
            .clone()
            .context("a sandboxed build keeps private copies of its executables")?;
        for (_, bins, _) in &mut reused {
            for bin in bins {
                let to = private.path().join(bin.exe.file_name().unwrap_or_default());
                std::fs::rename(&bin.exe, &to)
                    .with_context(|| format!("cannot move {}", bin.exe.display()))?;
                bin.exe = to;
            }
        }
        out
    };
    for (lesson, key) in &to_build {
        cache.built.fetch_add(1, Ordering::SeqCst);
        if let (Some(key), Some(Built::Ok(bins))) = (key, out.lessons.get(&lesson.id)) {
            let warnings = out.warnings.get(&lesson.id).cloned().unwrap_or_default();
            cache.put(key, bins, &warnings)?;
        }
    }
    for (lesson, bins, warnings) in reused {
        cache.reused.fetch_add(1, Ordering::SeqCst);
        out.lessons.insert(lesson.id.clone(), Built::Ok(bins));
        if let Some(warnings) = warnings.filter(|w| !w.is_empty()) {
            out.warnings.insert(lesson.id.clone(), warnings);
        }
    }
    Ok(out)
}
