//! `cargo xtask grade --submission DIR`: official grading of one student's handout.
//!
//! Only the student's exercise sources (`exercises/<dir>/src/**`) are used. They are copied into a
//! fresh temporary copy of the instructors' workspace (pristine checks, snapshots, course file and
//! hidden checks; the solution packages are left out of the copy so that no student code can reach
//! them), which is graded with the usual grader in a stable target directory
//! (`$CARGO_TARGET_DIR`, else `<course>/target/submissions`) so dependencies are built once. Every
//! other file of the submission is compared with the handout `cargo xtask dist` would make today,
//! and the differences are listed in the report's `modified_files`; they do not change the grade,
//! which always uses the instructors' copies. `DIR` is only read.

use crate::course::Course;
use crate::fsutil::{self, TempDir};
use crate::grade::{self, Options};
use crate::report::Report;
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
pub fn locate(dir: &Path, course: &Course) -> Result<Submission, String> {
    if !dir.is_dir() {
        return Err(format!("{} is not a directory", dir.display()));
    }
    let has_lessons = |d: &Path| course.lessons.iter().any(|l| d.join(&l.dir).is_dir());
    if dir.join("exercises").is_dir() && has_lessons(&dir.join("exercises")) {
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
        Err(format!(
            "{} holds no lesson of this course: give a student's handout or its exercises/ folder",
            dir.display()
        ))
    }
}

/// True for the student's own sources: `exercises/<lesson dir>/src/**` of a course lesson.
fn is_student_source(course: &Course, rel: &str) -> bool {
    course.lessons.iter().any(|l| {
        rel.strip_prefix(&format!("exercises/{}/src/", l.dir))
            .is_some()
    })
}

/// Files of a student's tree that are never compared: build output, git, insta's pending files.
fn ignored(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name == "target" || name == ".git" || fsutil::is_scratch_file(rel)
}

/// Copies the instructors' workspace at `root` into `dest` for grading: everything but build
/// output, git, CI, the grader's tests and the solution packages, keeping the hidden checks
/// (`solutions/<dir>/tests/hidden/**`).
pub fn grading_workspace(root: &Path, course: &Course, dest: &Path) -> Result<(), String> {
    let hidden: Vec<String> = course
        .lessons
        .iter()
        .map(|l| crate::workspace::relative(root, &l.hidden_dir(root)))
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
            return !(in_hidden(rel) || (is_dir && leads_to_hidden(rel)));
        }
        crate::dist::instructor_only(rel)
    };
    let files = fsutil::files_under(root, root, &skip);
    fsutil::copy_files(root, dest, &files)?;
    crate::dist::drop_solution_packages(dest)
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
        .filter(|f| !is_student_source(course, f))
        .collect();
    let ours: BTreeSet<String> = fsutil::files_under(expected, expected, &skip)
        .into_iter()
        .filter(|f| in_scope(f) && !is_student_source(course, f))
        .collect();
    let mut out = Vec::new();
    for f in ours.union(&theirs) {
        let mine = std::fs::read(expected.join(f)).ok();
        let rel_sub = f.strip_prefix(&prefix).unwrap_or(f);
        let student = std::fs::read(sub_root.join(rel_sub)).ok();
        match (mine, student) {
            (Some(a), Some(b)) if a != b => out.push(format!("{f} (changed)")),
            (Some(_), None) => out.push(format!("{f} (deleted)")),
            (None, Some(_)) => out.push(format!("{f} (added)")),
            _ => {}
        }
    }
    out
}

/// The target directory submissions are built in.
pub fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target").join("submissions"))
}

/// Grades the submission in `dir` against the instructors' workspace at `root`.
pub fn grade(root: &Path, course: &Course, dir: &Path, opts: &Options) -> Result<Report, String> {
    crate::bless::require_solutions(root)?;
    let sub = locate(dir, course)?;

    // What the student should have: today's handout.
    let expected = TempDir::new("expected-handout")?;
    let handout = expected.path().join("handout");
    crate::dist::make(root, course, &handout)?;
    let modified = modified_files(course, &sub, &handout);

    // The grading copy: the instructors' files with the student's sources.
    let work = TempDir::new("submission")?;
    grading_workspace(root, course, work.path())?;
    for lesson in &course.lessons {
        let theirs = sub.exercises.join(&lesson.dir).join("src");
        if !theirs.is_dir() {
            continue;
        }
        let ours = lesson.crate_dir(work.path(), false).join("src");
        let _ = std::fs::remove_dir_all(&ours);
        let files = fsutil::files_under(&theirs, &theirs, &|rel, _| ignored(rel));
        fsutil::copy_files(&theirs, &ours, &files)?;
    }
    let work_course = Course::load(work.path())?;
    let mut opts = opts.clone();
    opts.solutions = false;
    opts.target_dir = Some(opts.target_dir.unwrap_or_else(|| target_dir(root)));
    let mut report = grade::grade(work.path(), &work_course, &opts)?;
    let instructors: Vec<String> = report
        .modified_files
        .iter()
        .map(|f| format!("instructors' copy: {f}"))
        .collect();
    report.graded = "submission";
    report.official = instructors.is_empty();
    report.modified_files = instructors.into_iter().chain(modified).collect();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_exercise_sources_belong_to_the_student() {
        let course: Course = toml::from_str(
            "[course]\ntitle = \"t\"\n[[lessons]]\nid = \"lesson01\"\ndir = \"lesson01-a\"\ntitle = \"a\"\n",
        )
        .unwrap();
        assert!(is_student_source(
            &course,
            "exercises/lesson01-a/src/exercises.rs"
        ));
        assert!(is_student_source(
            &course,
            "exercises/lesson01-a/src/deep/x.rs"
        ));
        assert!(!is_student_source(
            &course,
            "exercises/lesson01-a/tests/checks.rs"
        ));
        assert!(!is_student_source(
            &course,
            "exercises/lesson01-a/Cargo.toml"
        ));
        assert!(ignored("exercises/lesson01-a/target"));
        assert!(ignored("x/y.snap.new"));
        assert!(!ignored("exercises/lesson01-a/tests/snapshots/a.snap"));
    }
}
