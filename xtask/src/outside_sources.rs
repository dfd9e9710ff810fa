//! Files a lesson's crate compiles from outside the students' sources.
//!
//! Official grading takes only `exercises/*/src/**` from a submission and the rest from the
//! instructors' tree. A file pulled into a lesson from anywhere else (`include!("../extra.rs")`,
//! `#[path = "../../helpers.rs"] mod helpers;`, a build script's output) is there when the student
//! grades locally and missing when the submission is graded: the local grade would be full marks
//! and the official one a compile error. Local grading reads the files rustc compiled into each
//! lesson's crate from its dep-info (`<deps>/<crate>-<hash>.d`, next to the `.rlib` cargo
//! reports) and reports such a lesson as official grading would see it: not compiling, with the
//! file named. A build script in a lesson's folder is reported the same way (`crate::build`): a
//! submission's build runs none of the student's.

use std::path::{Component, Path, PathBuf};

/// The dep-info file rustc wrote for the library `artifact` (`.../deps/libNAME-HASH.rlib` or
/// `.rmeta`): `.../deps/NAME-HASH.d`.
pub fn dep_info_of(artifact: &Path) -> Option<PathBuf> {
    let stem = artifact.file_stem()?.to_str()?;
    let name = stem.strip_prefix("lib")?;
    Some(artifact.with_file_name(format!("{name}.d")))
}

/// The source files of the first rule of the make-style dep-info `text` (what the crate
/// compiled), as written: relative to the directory rustc ran in, or absolute. A space inside a
/// path is written `\ `.
pub fn sources(text: &str) -> Vec<String> {
    let Some(first) = text.lines().next() else {
        return Vec::new();
    };
    // `target: a b c`: the target is ours (a path in the target folder), so the first `: ` ends it.
    let Some((_, files)) = first.split_once(": ") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = files.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&' ') => {
                current.push(' ');
                chars.next();
            }
            ' ' => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// `path` joined to `base` with `.` and `..` resolved by name (no symbolic link is followed: a
/// link inside `src/` is read through, and official grading copies what it points at).
fn normalized(base: &Path, path: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for part in base.join(path).components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Whether official grading compiles the same file at `path` (absolute, normalized) of the course
/// at `root`: a student's source in some lesson's `exercises/<dir>/src/`, or a file of the
/// instructors' `crates/` (the graded copy has the instructors' version; a changed one makes the
/// local grade unofficial, see [`crate::manifest`]).
fn graded_officially(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    let parts: Vec<&std::ffi::OsStr> = rel.iter().collect();
    match parts.as_slice() {
        [first, ..] if *first == "crates" => true,
        [first, _, src, _, ..] if *first == "exercises" && *src == "src" => true,
        _ => false,
    }
}

/// The files of the dep-info `text` (paths relative to `root`, where cargo runs rustc for the
/// course's crates) that official grading would not have, relative to `root` when inside it.
pub fn outside(root: &Path, text: &str) -> Vec<String> {
    sources(text)
        .iter()
        .map(|file| normalized(root, file))
        .filter(|path| !graded_officially(root, path))
        .map(|path| match path.strip_prefix(root) {
            Ok(_) => crate::workspace::relative(root, &path),
            Err(_) => path.display().to_string(),
        })
        .collect()
}

/// The compile error local grading reports for a lesson whose crate compiled `files` from outside
/// the students' sources.
pub fn message(lesson_dir: &str, files: &[String]) -> String {
    format!(
        "error: this lesson compiles {} from outside exercises/*/src (by `include!`, `#[path]` or \
         a build script)\n  = note: official grading takes only exercises/*/src from your work, \
         so there this lesson would not compile\n  = help: move the code under \
         exercises/{lesson_dir}/src/",
        files.join(", ")
    )
}

/// The compile error local grading reports for a lesson with a build script of its own
/// (`exercises/<dir>/build.rs`), which a submission's build does not have.
pub fn build_script_message(lesson_dir: &str) -> String {
    format!(
        "error: this lesson has exercises/{lesson_dir}/build.rs, a build script\n  = note: \
         official grading takes only exercises/*/src from your work and runs no build script of \
         yours, so there this lesson would be built without it\n  = help: remove it, and move \
         what it did into exercises/{lesson_dir}/src/"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dep_info_sits_next_to_the_library_without_its_lib_prefix() {
        assert_eq!(
            dep_info_of(Path::new("/t/debug/deps/liblesson02-0a1b.rlib")),
            Some(PathBuf::from("/t/debug/deps/lesson02-0a1b.d"))
        );
        assert_eq!(
            dep_info_of(Path::new("/t/debug/deps/liblesson02-0a1b.rmeta")),
            Some(PathBuf::from("/t/debug/deps/lesson02-0a1b.d"))
        );
        assert_eq!(dep_info_of(Path::new("/t/debug/deps/lesson02-0a1b")), None);
    }

    /// The dep-info of lesson 2 whose `exercises.rs` includes a file beside `src/` (as rustc
    /// writes it: the first rule lists every file, then one rule per file, then the variables).
    const INCLUDED: &str = "/t/debug/deps/lesson02-0a1b.d: exercises/lesson02-split-heads/src/lib.rs \
exercises/lesson02-split-heads/src/exercises.rs exercises/lesson02-split-heads/src/../extra/my\\ sol.rs \
exercises/lesson01-why-heads/src/setup.rs crates/attention/src/lib.rs /home/me/elsewhere.rs\n\
\n\
exercises/lesson02-split-heads/src/lib.rs:\n\
exercises/lesson02-split-heads/src/exercises.rs:\n\
\n\
# env-dep:CARGO_PKG_NAME=lesson02\n";

    #[test]
    fn files_outside_every_lessons_src_and_the_instructors_crates_are_found() {
        assert_eq!(sources(INCLUDED).len(), 6);
        assert_eq!(
            sources(INCLUDED)[2],
            "exercises/lesson02-split-heads/src/../extra/my sol.rs"
        );
        assert_eq!(
            outside(Path::new("/course"), INCLUDED),
            [
                "exercises/lesson02-split-heads/extra/my sol.rs",
                "/home/me/elsewhere.rs"
            ]
        );
        // A lesson's own sources, another lesson's, the instructors' crates: nothing outside.
        let plain = "/t/debug/deps/lesson02-0a1b.d: exercises/lesson02-split-heads/src/lib.rs \
exercises/lesson02-split-heads/src/nested/deeper.rs exercises/lesson01-why-heads/src/setup.rs \
crates/attention/src/lib.rs\n";
        assert!(outside(Path::new("/course"), plain).is_empty());
        // `src/..` is no longer `src/`, and a folder merely named like it is not one.
        let tricky = "x.d: exercises/lesson02-split-heads/src/.. exercises/src/a.rs \
exercises/lesson02-split-heads/srcs/a.rs ../course/exercises/l/src/a.rs\n";
        assert_eq!(
            outside(Path::new("/course"), tricky),
            [
                "exercises/lesson02-split-heads",
                "exercises/src/a.rs",
                "exercises/lesson02-split-heads/srcs/a.rs"
            ]
        );
        assert!(sources("").is_empty());
    }
}
