//! Every change the grader makes to cargo's files in a shared target folder (cargo decides by
//! modification times and absolute paths; copies and submissions share the folder). Needed:
//! - removing a changed package's `.fingerprint`: else cargo takes another copy's or student's
//!   build (`grade_cli::copies_whose_checks_differ_each_run_their_own` and class_cli fail);
//! - taking other submissions' artifacts (`deps`, `.fingerprint`, `incremental`, ...) out before a
//!   submission's build: else it can read them (`hostile_cli::a_submissions_build_finds_no_other_students_code`);
//!   kept [`aside`] for a later build of the same sources, for speed only.
//! - for speed only: a submissions' folder's first build takes the registry's crates the course's
//!   builds compiled ([`seed`]).
//! - for speed only (tests pass without; cargo then rebuilds what it could reuse, see
//!   docs/bench-grade.md): back-dating a submission's unchanged files, and pointing a local
//!   build's dep-info at this copy ([`dep_info`]).

pub mod aside;
pub mod dep_info;
pub(crate) mod seed;

use crate::build::content::Inputs;
use crate::course::Side;
use anyhow::{Context as _, Result};
use std::path::{Path, PathBuf};

/// Takes out of the submissions' target folder `target` whatever earlier builds made of the
/// course's lesson crates (libraries, check executables, fingerprints, incremental caches, the
/// grader's records of their sources), under the build lock, before a submission's sandboxed
/// build: that build can read the folder, and must find no other student's code there. Each
/// lesson's build goes [`aside`] (out of every sandbox's reach) when the grader's record names its
/// sources, else it is deleted; a lesson about to be built from sources whose build is kept aside
/// comes back. Left as they are: the lessons about to be built from the very sources the last
/// build of them had (`building`, whose record says so), built from what this student submitted
/// too; the registry's crates and the course's own (`attention`, ...).
pub(crate) fn forget_earlier_submissions(
    target: &Path,
    course: &crate::course::Course,
    building: &[&Inputs],
) -> Result<()> {
    let records = target.join(".xtask-sources");
    let recorded = |package: &str| std::fs::read_to_string(records.join(package)).ok();
    let same = |id: &str| {
        building.iter().any(|inputs| {
            inputs.lesson.id == id
                && recorded(&inputs.lesson.package(Side::Exercises)) == Some(inputs.digest.clone())
        })
    };
    let kept = aside::Aside::of(target);
    for lesson in course.lessons.iter().filter(|l| !same(&l.id)) {
        let files = files_of(target, &lesson.id);
        let package = lesson.package(Side::Exercises);
        let put = match recorded(&package) {
            Some(digest) if !files.is_empty() => kept.put(target, &package, &digest, &files)?,
            _ => false,
        };
        if !put {
            for rel in &files {
                let path = target.join(rel);
                let removed = if path.is_dir() {
                    std::fs::remove_dir_all(&path)
                } else {
                    std::fs::remove_file(&path)
                };
                removed.with_context(|| format!("cannot remove {}", path.display()))?;
            }
        }
    }
    for inputs in building.iter().filter(|i| !same(&i.lesson.id)) {
        let package = inputs.lesson.package(Side::Exercises);
        kept.take(target, &package, &inputs.digest)?;
    }
    Ok(())
}

/// The files and folders of lesson `id`'s crates in `target` (`<id>-<hash>`,
/// `lib<id>-<hash>.rlib`, `<id>_hidden-<hash>`, `<id>.d`, the record `<id>`, ...), relative to it.
fn files_of(target: &Path, id: &str) -> Vec<PathBuf> {
    let of_the_lesson = |name: &str| {
        let name = name.strip_prefix("lib").unwrap_or(name);
        name.strip_prefix(id)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '_', '.']))
    };
    let mut out = Vec::new();
    for folder in aside::FOLDERS {
        for entry in std::fs::read_dir(target.join(folder))
            .into_iter()
            .flatten()
            .flatten()
        {
            let name = entry.file_name();
            if of_the_lesson(&name.to_string_lossy()) {
                out.push(Path::new(folder).join(name));
            }
        }
    }
    out
}

/// Per lesson, the SHA-256 of the files its package's build reads (see [`Inputs`]) is compared
/// with the one recorded for the package's last build here (`.xtask-sources/<package>`): the
/// same, a submission's files get an old time so cargo reuses that build, and a local build's
/// dep-info is pointed at this copy; different, the package's fingerprints are removed.
///
/// Under the build lock: decides, per lesson built from `root` into `target` (its exercises'
/// crate, or its solutions' by `side`), whether cargo may reuse its artifacts (see the
/// module's header); `sandbox`: a submission's sandboxed build, else a local one.
pub(crate) fn decide_by_content(
    root: &Path,
    target: &Path,
    lessons: &[&Inputs],
    side: Side,
    sandbox: Option<crate::build::cargo::Sandboxed>,
) -> Result<()> {
    let recorded = target.join(".xtask-sources");
    std::fs::create_dir_all(&recorded)
        .with_context(|| format!("cannot create {}", recorded.display()))?;
    let fingerprints: Vec<(String, PathBuf)> =
        std::fs::read_dir(target.join("debug").join(".fingerprint"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
            .collect();
    // The course's path as cargo records it (see `dep_info`).
    let here = std::fs::canonicalize(root).ok();
    for &Inputs {
        lesson,
        files,
        digest,
    } in lessons
    {
        let package = lesson.package(side);
        let record = recorded.join(&package);
        let same = std::fs::read_to_string(&record).ok().as_deref() == Some(digest.as_str());
        // The package's own fingerprints (`lesson02-<hash>`, or `lesson02-solution-<hash>`),
        // not the other side's.
        let own = fingerprints.iter().filter(|(name, _)| {
            name.strip_prefix(package.as_str())
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(|hash| hash.chars().all(|c| c.is_ascii_hexdigit()))
        });
        if same && sandbox.is_none() {
            // Built from these very contents last time: cargo's own freshness is right, once
            // the files it recorded by absolute path in a copy of the course since deleted are
            // this copy's (see `dep_info`).
            if let Some(here) = &here {
                let dirs = [Side::Exercises, Side::Solutions]
                    .map(|side| crate::fsutil::relative(here, &lesson.crate_dir(here, side)));
                for (_, dir) in own {
                    for record in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                        if record.file_name().to_string_lossy().starts_with("dep-") {
                            dep_info::repoint(&record.path(), here, &dirs);
                        }
                    }
                }
            }
            continue;
        }
        if same {
            let old = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1);
            for (rel, _) in files {
                let _ = std::fs::File::options()
                    .write(true)
                    .open(root.join(rel))
                    .and_then(|f| f.set_modified(old));
            }
            continue;
        }
        for (_, dir) in own {
            let _ = std::fs::remove_dir_all(dir);
        }
        std::fs::write(&record, digest)
            .with_context(|| format!("cannot write {}", record.display()))?;
    }
    Ok(())
}
