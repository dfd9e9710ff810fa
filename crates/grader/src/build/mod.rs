//! Stage 2 of grading, **build**: every graded lesson's check binary with one cargo invocation.
//!
//! `cargo build --test <check targets> --keep-going --message-format=json` builds all lessons at once; a lesson
//! whose crate does not compile is reported with the compiler's first error while every other
//! lesson still gets its test executable.

pub mod cargo;
pub mod cargo_state;
mod compile;
pub mod content;
pub mod lock;
pub mod messages;
pub mod output;
pub mod outside_sources;
pub mod reuse;
pub mod stub_out;
pub mod units;

pub use cargo::{Sandboxed, toolchain_homes};
pub use lock::BuildLock;
pub use messages::trim_error;
pub use output::{BuildOutput, Built, CheckBinary};

use crate::build::content::Inputs;
use crate::build::reuse::{Reuse, Reused};
use crate::course::{Lesson, Side};
use anyhow::{Context as _, Result};
use std::path::{Path, PathBuf};

/// Where a sandboxed build into `target` compiles: always the same folder for one target folder,
/// so cargo's records of a build (which name the source files by path) still hold when a later
/// submission takes that build back from aside (see [`cargo_state::aside`]). The grading copy is mirrored there under the build lock. It lies under the system's
/// temporary folder, like the grading copies: cargo reads the `.cargo/config.toml` of every
/// parent folder, and no course may be one. It belongs to `target` (which exists: the build lock
/// lives in it), and goes once that folder is gone (see [`crate::fsutil::fixed_scratch`]).
fn build_copy(target: &Path, sandbox: Sandboxed) -> Result<PathBuf> {
    let key = crate::course::manifest::sha256_hex(target.to_string_lossy().as_bytes());
    let name = format!("build-{}", &key[..16]);
    // The container mode's builder reads it in its own folder (`crate::run::builder`).
    #[cfg(all(target_os = "linux", feature = "instructor"))]
    if sandbox.as_builder() {
        return Ok(crate::run::builder::world()?.join(name));
    }
    #[cfg(not(all(target_os = "linux", feature = "instructor")))]
    let _ = sandbox;
    Ok(crate::fsutil::fixed_scratch(&name, target))
}

/// Replaces `to` with a copy of every file under `from`, modification times kept. `to` is private
/// to this user (it holds the hidden checks' sources), as a temporary directory would be.
fn mirror(from: &Path, to: &Path) -> Result<()> {
    if to.exists() {
        std::fs::remove_dir_all(to).with_context(|| format!("cannot clear {}", to.display()))?;
    }
    let mut dir = std::fs::DirBuilder::new();
    dir.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut dir, 0o700);
    dir.create(to)
        .with_context(|| format!("cannot create {}", to.display()))?;
    let files = crate::fsutil::files_under(from, from, &|_, _| false);
    crate::fsutil::copy_files(from, to, &files)
}

/// How long a submission's sandboxed `cargo build` may take when `grade --build-timeout` does not
/// say: the first one of a target folder compiles the registry crates too (about a minute on the
/// development machine), and the lessons alone take seconds. Code that makes the compiler work
/// without end (a macro that expands exponentially; a constant whose evaluation never ends needs
/// `long_running_const_eval` turned off, which `crate::course::refused` refuses) is stopped there.
pub const SUBMISSION_BUILD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

/// Builds the check binaries of `lessons` with one `cargo build --test ... --keep-going`, in
/// `target_dir` when given (else cargo's default), and collects the executables, the first error
/// and the warnings of each lesson's crate. `sandbox`: build a submission in the sandbox
/// ([`Sandboxed`]). A local
/// build takes the lessons whose build of the same contents it kept (see [`reuse`]) and runs
/// cargo for the others only, or not at all.
pub fn build(
    root: &Path,
    lessons: &[&Lesson],
    side: Side,
    target_dir: Option<&Path>,
    sandbox: Option<Sandboxed>,
) -> Result<BuildOutput> {
    let reuse = match sandbox {
        Some(_) => Reuse::Nothing,
        None => {
            let target = crate::course::layout::target_dir(root, target_dir);
            Reuse::for_local(&target, root, side)
        }
    };
    build_reusing(root, lessons, side, (target_dir, sandbox), reuse, None)
}

/// Marks as not compiling each of `lessons` at `root` whose sources an official build refuses
/// (`unsafe`, files read at compile time: [`crate::course::refused`]), so local grading of the
/// exercises reports the same compile error; such a build's record is then never fresh, and the
/// next grade looks again.
pub fn refuse_sources(root: &Path, lessons: &[&Lesson], output: &mut BuildOutput) {
    for lesson in lessons {
        if let Some(error) = crate::course::refused::in_lesson(root, lesson) {
            output
                .lessons
                .insert(lesson.id.clone(), Built::Failed(error));
            output.errors.remove(&lesson.id);
        }
    }
}

/// [`build`] of a local grade, cargo's progress passed to `observer` as it builds.
pub fn build_observed(
    root: &Path,
    lessons: &[&Lesson],
    side: Side,
    target_dir: Option<&Path>,
    observer: &dyn units::Observer,
) -> Result<BuildOutput> {
    let target = crate::course::layout::target_dir(root, target_dir);
    let reuse = Reuse::for_local(&target, root, side);
    build_reusing(
        root,
        lessons,
        side,
        (target_dir, None),
        reuse,
        Some(observer),
    )
}

/// A sandboxed build of the exercises of `lessons` in the grading copy `root` of `course` for a
/// class run, into `target_dir` (in the sandbox `sandbox`), taking every lesson it can from
/// `cache` and adding the ones it builds.
pub fn build_shared(
    cache: &reuse::BuildCache,
    root: &Path,
    course: &crate::course::Course,
    lessons: &[&Lesson],
    target_dir: Option<&Path>,
    sandbox: Sandboxed,
) -> Result<BuildOutput> {
    let reuse = Reuse::for_submission(cache, root, course, lessons)?;
    let side = Side::Exercises;
    build_reusing(
        root,
        lessons,
        side,
        (target_dir, Some(sandbox)),
        reuse,
        None,
    )
}

/// [`build`], taking earlier builds from `reuse` and keeping its own there; cargo's progress goes
/// to `observer`.
fn build_reusing(
    graded: &Path,
    lessons: &[&Lesson],
    side: Side,
    (target_dir, sandbox): (Option<&Path>, Option<Sandboxed>),
    reuse: Reuse,
    observer: Option<&dyn units::Observer>,
) -> Result<BuildOutput> {
    let sandboxed = sandbox.is_some();
    let target = crate::course::layout::target_dir(graded, target_dir);
    // A submission's earlier builds are private copies: taken before the build lock.
    let mut reused: Vec<(&Lesson, Reused)> = Vec::new();
    let mut pending: Vec<&Lesson> = Vec::new();
    for lesson in lessons {
        match sandboxed.then(|| reuse.lookup(lesson, None)).flatten() {
            Some(build) => reused.push((lesson, build)),
            None => pending.push(lesson),
        }
    }
    // A class run whose lessons were all built before runs no cargo at all.
    if pending.is_empty() && matches!(reuse, Reuse::Class { .. }) {
        let private = reuse.place(&mut reused, None)?.map(std::sync::Arc::new);
        return Ok(with_reused(
            BuildOutput {
                private,
                ..BuildOutput::default()
            },
            reused,
        ));
    }
    // Every build of the grader takes turns on its target directory; a sandboxed build compiles
    // in the target folder's fixed copy of the grading copy `graded`.
    let lock = lock::take(&target, observer)?;
    let root = &if let Some(sandbox) = sandbox {
        // For speed only: what could not be copied, cargo builds.
        let _ = cargo_state::seed::seed(graded, &target, lessons, side);
        let copy = build_copy(&target, sandbox)?;
        mirror(graded, &copy)?;
        copy
    } else {
        graded.to_path_buf()
    };
    let inputs: Vec<Inputs> = pending
        .iter()
        .map(|lesson| Inputs::read(root, lesson, side))
        .collect();
    let mut decided: Vec<&Inputs> = Vec::new();
    for lesson in &inputs {
        match (!sandboxed)
            .then(|| reuse.lookup(lesson.lesson, Some(&lesson.digest)))
            .flatten()
        {
            Some(build) => reused.push((lesson.lesson, build)),
            None => decided.push(lesson),
        }
    }
    if sandboxed {
        let course = crate::course::Course::load(graded)?;
        cargo_state::forget_earlier_submissions(&target, &course, &decided)?;
    }
    cargo_state::decide_by_content(root, &target, &decided, side, sandbox)?;
    // The container mode's builder writes the target folder and may rewrite the copy (a
    // `Cargo.lock`); the grader's own builds of the same folder left files of root's there.
    #[cfg(all(target_os = "linux", feature = "instructor"))]
    if sandbox.is_some_and(Sandboxed::as_builder) {
        crate::run::builder::give_tree(&target)?;
        crate::run::builder::give_tree(root)?;
    } else if sandboxed {
        crate::run::builder::take_back(&target)?;
    }
    let building: Vec<&Lesson> = decided.iter().map(|lesson| lesson.lesson).collect();
    let (lessons, warnings, errors) = if building.is_empty() {
        Default::default()
    } else {
        compile::cargo_build(
            root, &target, &building, side, target_dir, sandbox, observer,
        )?
    };
    let mut output = BuildOutput {
        lessons,
        warnings,
        errors,
        private: None,
    };
    if sandboxed {
        let private = output::keep_executables(&mut output.lessons)?;
        drop(lock);
        record(&reuse, &decided, &output)?;
        reuse.place(&mut reused, Some(private.path()))?;
        output.private = Some(std::sync::Arc::new(private));
        return Ok(with_reused(output, reused));
    }
    output = with_reused(output, reused);
    reuse::kept::link_executables(&mut output.lessons, &target, graded, side);
    record(&reuse, &decided, &output)?;
    drop(lock);
    Ok(output)
}

/// `output` with the lessons taken from earlier builds.
fn with_reused(mut output: BuildOutput, reused: Vec<(&Lesson, Reused)>) -> BuildOutput {
    for (lesson, Reused { bins, warnings }) in reused {
        output.lessons.insert(lesson.id.clone(), Built::Ok(bins));
        if !warnings.is_empty() {
            output.warnings.insert(lesson.id.clone(), warnings);
        }
    }
    output
}

/// Keeps in `reuse` what `output` made of each lesson it built.
fn record(reuse: &Reuse, built: &[&Inputs], output: &BuildOutput) -> Result<()> {
    for inputs in built {
        let id = &inputs.lesson.id;
        let warnings = output.warnings.get(id).map_or(&[][..], Vec::as_slice);
        reuse.record(
            inputs.lesson,
            &inputs.digest,
            output.lessons.get(id),
            warnings,
        )?;
    }
    Ok(())
}

/// Takes the build lock on `root`'s target folder and decides by content whether cargo may reuse
/// the artifacts of `lesson`'s exercise crate (see [`cargo_state`]), for `demo`, which builds
/// and runs the crate's example with `cargo run`. Hold the returned lock until that has finished:
/// a course copy sharing the target folder (a shared `CARGO_TARGET_DIR`, the grader's tests) could
/// otherwise rebuild the example from its own sources, and `cargo run` take that build for this
/// copy's.
pub fn claim_exercise(root: &Path, lesson: &Lesson) -> Result<BuildLock> {
    claim(root, &[lesson], Side::Exercises)
}

/// [`claim_exercise`] for the solution crates of `lessons`, for `check`, which runs their own
/// tests with `cargo test`: hold the returned lock until that has finished.
pub fn claim_solutions(root: &Path, lessons: &[&Lesson]) -> Result<BuildLock> {
    claim(root, lessons, Side::Solutions)
}

/// The build lock on `root`'s target folder, with cargo's reuse of `lessons`' crates (their
/// `side`) decided by content.
fn claim(root: &Path, lessons: &[&Lesson], side: Side) -> Result<BuildLock> {
    let target = crate::course::layout::target_dir(root, None);
    let lock = lock::take(&target, None)?;
    let inputs: Vec<Inputs> = lessons
        .iter()
        .map(|lesson| Inputs::read(root, lesson, side))
        .collect();
    let inputs: Vec<&Inputs> = inputs.iter().collect();
    cargo_state::decide_by_content(root, &target, &inputs, side, None)?;
    Ok(lock)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_copy_mirrors_the_grading_copy_and_keeps_its_path() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let sandbox = Sandboxed {
            isolation: crate::run::Isolation::Landlock { abi: 6 },
            limit: SUBMISSION_BUILD_TIMEOUT,
        };
        let copy = |dir: &Path| build_copy(dir, sandbox).unwrap();
        assert_eq!(copy(a.path()), copy(a.path()));
        assert_ne!(copy(a.path()), copy(b.path()));
        std::fs::create_dir_all(a.path().join("exercises/l/src")).unwrap();
        std::fs::write(a.path().join("exercises/l/src/lib.rs"), "new").unwrap();
        let to = b.path().join("copy");
        std::fs::create_dir_all(to.join("exercises/old")).unwrap();
        std::fs::write(to.join("exercises/old/stale.rs"), "left over").unwrap();
        mirror(a.path(), &to).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&to).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "the build copy is private");
        }
        assert_eq!(
            crate::fsutil::files_under(&to, &to, &|_, _| false),
            vec!["exercises/l/src/lib.rs".to_owned()]
        );
    }
}
