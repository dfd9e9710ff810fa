//! `cargo xtask grade --submission DIR`: official grading of one student's handout.
//!
//! Only the student's exercise sources (`exercises/<dir>/src/**`) are used. They are copied into a
//! fresh temporary copy of the instructors' workspace (pristine checks, snapshots, course file and
//! hidden checks; the solution packages are left out of the copy so that no student code can reach
//! them), which is graded with the usual grader in a stable target directory
//! (`submissions/` in `$CARGO_TARGET_DIR`, else `<course>/target/submissions`, never the local
//! builds' folder) so dependencies are built once. Every
//! other file of the submission is compared with the handout `cargo xtask dist` would make today,
//! and the differences are listed in the report's `modified_files`; they do not change the grade,
//! which always uses the instructors' copies. `DIR` is only read.

use crate::course::Course;
use crate::fsutil;
use crate::grade;
use crate::report::Report;
use crate::request::{Official, Request};
use anyhow::{Context as _, Result, anyhow, bail};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Where a submission's exercises are.
#[derive(Debug, Clone)]
pub struct Submission {
    /// The folder holding the lesson directories (`<handout>/exercises` or DIR itself).
    pub exercises: PathBuf,
    /// The whole handout, when DIR is one (it has an `exercises/` folder).
    pub handout: Option<PathBuf>,
}

/// Finds the exercises in `dir`: a whole handout (`dir/exercises/<lesson dir>`) or just its
/// `exercises/` folder (`dir/<lesson dir>`).
/// Refuses a `dir` holding a symbolic link (see [`find_link`]).
pub fn locate(dir: &Path, course: &Course) -> Result<Submission> {
    if !dir.is_dir() {
        bail!("{} is not a directory", dir.display());
    }
    if let Some(link) = find_link(dir) {
        bail!(link);
    }
    let has_lessons = |d: &Path| course.lessons.iter().any(|l| real_dir(&d.join(&l.dir)));
    if real_dir(&dir.join("exercises")) && has_lessons(&dir.join("exercises")) {
        Ok(Submission {
            exercises: dir.join("exercises"),
            handout: Some(dir.to_path_buf()),
        })
    } else if has_lessons(dir) {
        Ok(Submission {
            exercises: dir.to_path_buf(),
            handout: None,
        })
    } else {
        Err(anyhow!(
            "{} holds no lesson of this course: give a student's handout or its exercises/ folder",
            dir.display()
        ))
    }
}

/// The first symbolic link inside the submission `dir`, at any depth, as a message naming it
/// (relative to `dir`); `None` when there is none. A student's link could lead the grader to any
/// file it can read, the reference solution included, so a submission holding one is not graded.
/// `dir` itself may be a link (the instructor names it); folders never read (build output, git)
/// are not searched.
pub fn find_link(dir: &Path) -> Option<String> {
    let mut walk = walkdir::WalkDir::new(dir)
        .min_depth(1)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| !(e.file_type().is_dir() && ignored(&e.file_name().to_string_lossy())));
    // An unreadable folder is not searched: nothing in it can be read to grade either.
    walk.find_map(|e| {
        let e = e.ok()?;
        e.path_is_symlink().then(|| {
            let rel = e.path().strip_prefix(dir).unwrap_or(e.path());
            let target = std::fs::read_link(e.path()).unwrap_or_default();
            format!(
                "`{}` is a symbolic link (to `{}`): a submission is graded only from its own \
                 files and folders, never through a link; replace the link with what it points to",
                crate::report::student_text::name(&rel.to_string_lossy()),
                crate::report::student_text::name(&target.to_string_lossy())
            )
        })
    })
}

/// True when `path` is a folder itself, not a link to one.
fn real_dir(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}

/// Files of a student's tree that are never compared: build output, git, insta's pending files.
fn ignored(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name == "target" || name == ".git" || fsutil::is_scratch_file(rel)
}

/// Copies the instructors' workspace at `root` into `dest` for grading: everything but build
/// output, git, CI, the grader's tests and the solution packages, keeping the hidden checks
/// (`solutions/<dir>/tests/hidden/**`).
pub fn grading_workspace(root: &Path, course: &Course, dest: &Path) -> Result<()> {
    let hidden: Vec<String> = course
        .lessons
        .iter()
        .map(|l| crate::fsutil::relative(root, &l.hidden_dir(root)))
        .collect();
    let in_hidden = |rel: &str| {
        hidden.iter().any(|h| {
            rel == h
                || rel
                    .strip_prefix(h.as_str())
                    .is_some_and(|r| r.starts_with('/'))
        })
    };
    let leads_to_hidden = |rel: &str| {
        hidden
            .iter()
            .any(|h| h.strip_prefix(rel).is_some_and(|r| r.starts_with('/')))
    };
    let skip = |rel: &str, is_dir: bool| {
        if rel == "solutions" || rel.starts_with("solutions/") {
            // The hidden checks' sources are needed to build them; their expected values are
            // not (the grader reads them from the instructors' tree), so they stay out of reach.
            if rel.ends_with("/snapshots") || rel.contains("/snapshots/") {
                return true;
            }
            return !(in_hidden(rel) || (is_dir && leads_to_hidden(rel)));
        }
        crate::official::handout::instructor_only(rel)
    };
    let files = fsutil::files_under(root, root, &skip);
    fsutil::copy_files(root, dest, &files)?;
    crate::official::handout::drop_solution_packages(dest)
}

/// Compares the submission with the handout `expected`, outside the student's sources: changed,
/// added and deleted files, relative to the handout's root.
pub fn modified_files(course: &Course, sub: &Submission, expected: &Path) -> Vec<String> {
    let (sub_root, prefix) = match &sub.handout {
        Some(h) => (h.clone(), String::new()),
        None => (sub.exercises.clone(), "exercises/".to_owned()),
    };
    let in_scope = |rel: &str| prefix.is_empty() || rel.starts_with(&prefix);
    let skip = |rel: &str, _: bool| ignored(rel);
    let theirs: BTreeSet<String> = fsutil::files_under(&sub_root, &sub_root, &skip)
        .into_iter()
        .map(|f| format!("{prefix}{f}"))
        .filter(|f| !course.is_student_source(f))
        .collect();
    let ours: BTreeSet<String> = fsutil::files_under(expected, expected, &skip)
        .into_iter()
        .filter(|f| in_scope(f) && !course.is_student_source(f))
        .collect();
    let mut out = Vec::new();
    for f in ours.union(&theirs) {
        let (mine, student) = (
            expected.join(f),
            sub_root.join(f.strip_prefix(&prefix).unwrap_or(f)),
        );
        match (ours.contains(f), theirs.contains(f)) {
            (true, true) if !same_contents(&mine, &student) => out.push(format!("{f} (changed)")),
            (true, false) => out.push(format!("{f} (deleted)")),
            (false, true) => out.push(format!("{f} (added)")),
            _ => {}
        }
    }
    out
}

/// The largest source file a submission may have: the course's are a few KiB, and every one is
/// read into memory (a sparse file of 100 GiB costs its author nothing).
pub const MAX_SOURCE_BYTES: u64 = 4 << 20;

/// The most source files, and bytes in all, a submission may have (the course's stubs are about
/// twenty files and 100 KiB).
pub const MAX_SOURCE_FILES: usize = 1000;
/// See [`MAX_SOURCE_FILES`].
pub const MAX_SOURCES_BYTES: u64 = 32 << 20;

/// Reads the student's source `path` (`name` in the handout), refusing one over
/// [`MAX_SOURCE_BYTES`] without reading more than that.
pub fn read_source(path: &Path, name: &str) -> Result<Vec<u8>> {
    use std::io::Read as _;
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        bail!("{name} is not a regular file (a symbolic link?): it is not graded");
    }
    let mut options = std::fs::File::options();
    options.read(true);
    // The check above and the open are two steps: a link put in between is not followed either.
    #[cfg(target_os = "linux")]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, nix::libc::O_NOFOLLOW);
    let file = options
        .open(path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(MAX_SOURCE_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        bail!(
            "{name} is larger than {} MiB, the most a submission's source file may be: remove it \
             or move what it holds out of exercises/*/src",
            MAX_SOURCE_BYTES >> 20
        );
    }
    Ok(bytes)
}

/// Whether the files at `a` and `b` have the same contents; a file that cannot be read differs.
/// Sizes are compared first, so a huge file the student added is never read. A link is never
/// followed: it differs from every file.
fn same_contents(a: &Path, b: &Path) -> bool {
    let size = |p: &Path| {
        std::fs::symlink_metadata(p)
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map(|m| m.len())
    };
    match (size(a), size(b)) {
        (Some(x), Some(y)) if x == y => {
            matches!((std::fs::read(a), std::fs::read(b)), (Ok(x), Ok(y)) if x == y)
        }
        _ => false,
    }
}

/// The target directory submissions are built in: `submissions/` in `$CARGO_TARGET_DIR`, else in
/// the course's `target/`. Never the folder local grading builds in: a local grade runs its check
/// executables from there without a sandbox, after the build lock is released, so a submission
/// built into the same folder meanwhile would run unsandboxed in its place.
pub fn target_dir(root: &Path) -> PathBuf {
    crate::course::layout::target_dir(root, None).join("submissions")
}

/// Grades the submission in `dir` against the instructors' workspace at `root`, as `request` asks;
/// keeps a copy of the graded sources and the report in `keep`.
///
/// The student's sources are read once, hashed and copied into a private grading copy of the
/// workspace; everything after that uses the copy, so `dir` can change under us without effect.
/// Checks run sandboxed and are judged from the instructors' files in `root`, which the sandboxed
/// build and checks cannot read.
pub fn grade(
    root: &Path,
    course: &Course,
    dir: &Path,
    request: &Request<Official>,
    keep: Option<&Path>,
) -> Result<Report> {
    crate::course::require_solutions(root)?;
    // What the student should have: today's handout.
    let expected = fsutil::scratch_dir("expected-handout")?;
    let handout = expected.path().join("handout");
    crate::official::handout::make(root, course, &handout)?;
    grade_against(root, course, dir, request, (keep, &handout))
}

/// [`grade`], the student's files compared with the handout made already at `handout` (a class
/// run makes it once for every submission); `keep` as [`grade`] has it.
pub fn grade_against(
    root: &Path,
    course: &Course,
    dir: &Path,
    request: &Request<Official>,
    (keep, handout): (Option<&Path>, &Path),
) -> Result<Report> {
    crate::course::require_solutions(root)?;
    let sub = locate(dir, course)?;
    let modified = modified_files(course, &sub, handout);
    let sources = read_sources(course, &sub)?;
    let digest = crate::course::manifest::sources_digest(&sources);
    // The grading copy: the instructors' files with the student's sources.
    let work = fsutil::scratch_dir("submission")?;
    grading_workspace(root, course, work.path())?;
    put_sources(course, work.path(), &sources, keep)?;
    refuse_constructs(course, work.path(), &sources)?;
    let work_course = Course::load(work.path())?;
    let mut report = grade::grade_official(work.path(), &work_course, root, request)?;
    let instructors: Vec<String> = report
        .modified_files
        .iter()
        .map(|f| format!("instructors' copy: {f}"))
        .collect();
    report.graded = crate::report::Graded::Submission;
    report.official = instructors.is_empty()
        && report.changed_while_grading.is_empty()
        && report.isolation.is_enforced();
    report.sources_sha256 = Some(digest);
    report.modified_files = instructors.into_iter().chain(modified).collect();
    if let Some(keep) = keep {
        let json = report.to_json();
        std::fs::write(keep.join("report.json"), json)
            .with_context(|| format!("cannot write {}", keep.join("report.json").display()))?;
    }
    Ok(report)
}

/// The student's sources (`exercises/<dir>/src/**`), read once: `(name in the handout, bytes)`.
pub fn read_sources(course: &Course, sub: &Submission) -> Result<Vec<(String, Vec<u8>)>> {
    let mut sources: Vec<(String, Vec<u8>)> = Vec::new();
    let mut total = 0u64;
    for lesson in &course.lessons {
        let theirs = sub.exercises.join(&lesson.dir).join("src");
        if !real_dir(&theirs) {
            continue;
        }
        for rel in fsutil::files_under(&theirs, &theirs, &|rel, _| ignored(rel)) {
            let name = format!("exercises/{}/src/{rel}", lesson.dir);
            let bytes = read_source(&theirs.join(&rel), &name)?;
            total += bytes.len() as u64;
            sources.push((name, bytes));
            if sources.len() > MAX_SOURCE_FILES || total > MAX_SOURCES_BYTES {
                bail!(
                    "the submission's sources (exercises/*/src) hold more than {MAX_SOURCE_FILES} \
                     files or {} MiB, the most a submission may have",
                    MAX_SOURCES_BYTES >> 20
                );
            }
        }
    }
    Ok(sources)
}

/// Replaces the stubs of the grading copy at `work` with the student's `sources` (a lesson they
/// handed in no source of keeps its stubs), and copies them into `keep` too.
fn put_sources(
    course: &Course,
    work: &Path,
    sources: &[(String, Vec<u8>)],
    keep: Option<&Path>,
) -> Result<()> {
    for lesson in &course.lessons {
        if sources
            .iter()
            .any(|(rel, _)| rel.starts_with(&format!("exercises/{}/src/", lesson.dir)))
        {
            let _ = std::fs::remove_dir_all(
                lesson
                    .crate_dir(work, crate::course::Side::Exercises)
                    .join("src"),
            );
        }
    }
    for (rel, bytes) in sources {
        for base in std::iter::once(work).chain(keep) {
            let path = base.join(rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("cannot create {}", parent.display()))?;
            }
            std::fs::write(&path, bytes)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    Ok(())
}

/// `unsafe` and the file-reading macros stay out of student code (see `REFUSED`). The lint
/// cannot be `forbid` (ndarray's `s!` expands to `#[allow(unsafe_code)]`), so a lesson whose
/// sources use one is not compiled at all: its `lib.rs` in `work` becomes a `compile_error!`.
fn refuse_constructs(course: &Course, work: &Path, sources: &[(String, Vec<u8>)]) -> Result<()> {
    for lesson in &course.lessons {
        let prefix = format!("exercises/{}/src/", lesson.dir);
        if let Some((rel, what)) = sources.iter().find_map(|(rel, bytes)| {
            rel.starts_with(&prefix)
                .then(|| crate::course::refused::construct(bytes))
                .flatten()
                .map(|what| (rel, what))
        }) {
            let lib = lesson
                .crate_dir(work, crate::course::Side::Exercises)
                .join("src")
                .join("lib.rs");
            // The file's name is the student's: `Debug` writes it as a Rust string literal.
            let message = crate::course::refused::message(rel, &what);
            std::fs::write(&lib, format!("compile_error!({message:?});\n"))
                .with_context(|| format!("cannot write {}", lib.display()))?;
        }
    }
    Ok(())
}

/// The student id a submission at `path` gets when none is given: its name, without an archive's
/// extension (`alice.zip` is `alice`), as a class run names its entries.
pub fn default_id(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_string_lossy().into_owned();
    Some(crate::official::archive::kind(&name).map_or(name.clone(), |(_, stem)| stem.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn submissions_never_build_where_local_grading_does() {
        let root = Path::new("/course");
        let (local, official) = (
            crate::course::layout::target_dir(root, None),
            target_dir(root),
        );
        assert_ne!(official, local);
        assert!(official.starts_with(&local), "{}", official.display());
    }

    #[test]
    fn a_link_at_any_depth_is_found_but_not_the_folder_named_through_one() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("sub");
        std::fs::create_dir_all(dir.join("exercises/l1/src")).unwrap();
        std::fs::create_dir_all(dir.join("target/debug")).unwrap();
        std::fs::write(dir.join("exercises/l1/src/lib.rs"), "").unwrap();
        // Build output is never read: a link there is no concern.
        std::os::unix::fs::symlink("/etc", dir.join("target/debug/etc")).unwrap();
        let named = tmp.path().join("named");
        std::os::unix::fs::symlink(&dir, &named).unwrap();
        assert_eq!(find_link(&named), None);
        std::os::unix::fs::symlink("lib.rs", dir.join("exercises/l1/src/alias.rs")).unwrap();
        let found = find_link(&named).unwrap();
        assert!(
            found.starts_with("`exercises/l1/src/alias.rs` is a symbolic link (to `lib.rs`)"),
            "{found}"
        );
    }

    #[test]
    fn build_output_and_scratch_files_are_ignored() {
        assert!(ignored("x/y.snap.new"));
        assert!(!ignored("exercises/lesson01-a/tests/snapshots/a.snap"));
    }
}
