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

use std::path::{Path, PathBuf};

/// Why a submission's build of a lesson (folder `lesson_dir`) would differ from this local build,
/// told by one of cargo's artifacts of the lesson's crate (the target's `kinds`, the `files` cargo
/// wrote): a build script of its own, or a library that compiled files from outside the students'
/// sources. `None` when neither, or when the library's dep-info cannot be read.
pub fn differs(
    root: &Path,
    lesson_dir: &str,
    kinds: &[String],
    files: &[PathBuf],
) -> Option<String> {
    if kinds.iter().any(|k| k == "custom-build") {
        return Some(build_script_message(lesson_dir));
    }
    if !kinds.iter().any(|k| k == "lib") {
        return None;
    }
    let text = read_dep_info(&dep_info_of(files.first()?)?)?;
    let outside = outside(root, &text);
    (!outside.is_empty()).then(|| message(lesson_dir, &outside))
}

/// The dep-info file rustc wrote for the library `artifact` (`.../deps/libNAME-HASH.rlib` or
/// `.rmeta`): `.../deps/NAME-HASH.d`.
fn dep_info_of(artifact: &Path) -> Option<PathBuf> {
    let stem = artifact.file_stem()?.to_str()?;
    let name = stem.strip_prefix("lib")?;
    Some(artifact.with_file_name(format!("{name}.d")))
}

/// The most of a dep-info file that is read: a lesson's is a few hundred bytes.
const MAX_DEP_INFO: u64 = 1 << 20;

/// The text of the dep-info file at `path`: only a regular file (not a link, not a pipe that
/// would never end, nor `/dev/zero` behind a link: student code runs with the target folder
/// writable in local grading), and `None` when it is larger than [`MAX_DEP_INFO`].
fn read_dep_info(path: &Path) -> Option<String> {
    use std::io::Read as _;
    if !std::fs::symlink_metadata(path).ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_DEP_INFO + 1)
        .read_to_string(&mut text)
        .ok()?;
    (text.len() as u64 <= MAX_DEP_INFO).then_some(text)
}

/// The source files of the first rule of the make-style dep-info `text` (what the crate
/// compiled), as written: relative to the directory rustc ran in, or absolute. A space inside a
/// path is written `\ `.
fn sources(text: &str) -> Vec<String> {
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

/// Whether official grading compiles the same file at `rel` (relative to the course root, `..`
/// resolved): a student's source in some lesson's `exercises/<dir>/src/`, or a file of the
/// instructors' `crates/` (the graded copy has the instructors' version; a changed one makes the
/// local grade unofficial, see [`crate::course::manifest`]).
fn graded_officially(rel: &Path) -> bool {
    let parts: Vec<&std::ffi::OsStr> = rel.iter().collect();
    match parts.as_slice() {
        [first, ..] if *first == "crates" => true,
        [first, _, src, _, ..] if *first == "exercises" && *src == "src" => true,
        _ => false,
    }
}

/// The files of the dep-info `text` (paths relative to `root`, where cargo runs rustc for the
/// course's crates) that official grading would not have: relative to `root` when inside it,
/// else as written (a path that leaves the course, even to come back by its folder's name, does
/// not lead into the graded copy, which lies elsewhere).
fn outside(root: &Path, text: &str) -> Vec<String> {
    sources(text)
        .into_iter()
        .filter_map(|file| match in_copy(&file, root) {
            Some(rel) if graded_officially(&rel) => None,
            Some(rel) => Some(crate::fsutil::relative(root, &root.join(rel))),
            None => Some(file),
        })
        .collect()
}

/// The compile error local grading reports for a lesson whose crate compiled `files` from outside
/// the students' sources.
fn message(lesson_dir: &str, files: &[String]) -> String {
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
fn build_script_message(lesson_dir: &str) -> String {
    format!(
        "error: this lesson has exercises/{lesson_dir}/build.rs, a build script\n  = note: \
         official grading takes only exercises/*/src from your work and runs no build script of \
         yours, so there this lesson would be built without it\n  = help: remove it, and move \
         what it did into exercises/{lesson_dir}/src/"
    )
}

/// A span's file relative to the build copy `root`, with `.` and `..` resolved as written (no
/// links followed), or `None` when it lies outside the copy.
pub(crate) fn in_copy(name: &str, root: &Path) -> Option<PathBuf> {
    let path = Path::new(name);
    let rel = if path.is_absolute() {
        lexical(path)?.strip_prefix(root).ok()?.to_path_buf()
    } else {
        lexical(path)?
    };
    Some(rel)
}

/// `path` with `.` and `..` resolved lexically; `None` when a `..` climbs above its start.
pub(crate) fn lexical(path: &Path) -> Option<PathBuf> {
    use std::path::Component;
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Student code runs with the target folder writable in local grading: a dep-info file made
    /// a pipe nobody writes to, a link to `/dev/zero` or a huge file is not read (nor waited on).
    #[cfg(unix)]
    #[test]
    fn a_dep_info_file_that_is_no_plain_small_file_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain.d");
        std::fs::write(&plain, "x.d: exercises/l/extra.rs\n").unwrap();
        assert_eq!(
            read_dep_info(&plain).as_deref(),
            Some("x.d: exercises/l/extra.rs\n")
        );
        let zero = dir.path().join("zero.d");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert_eq!(read_dep_info(&zero), None);
        let fifo = dir.path().join("fifo.d");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            assert_eq!(read_dep_info(&fifo), None);
        } else {
            eprintln!("!!!!!! SKIPPED the named pipe: no mkfifo on this machine !!!!!!");
        }
        let huge = dir.path().join("huge.d");
        std::fs::File::create(&huge)
            .unwrap()
            .set_len(MAX_DEP_INFO + 1)
            .unwrap();
        assert_eq!(read_dep_info(&huge), None);
        // A library whose dep-info is unreadable is taken as it is (a local grade only).
        let lib = dir.path().join("libzero.rlib");
        let kinds = ["lib".to_owned()];
        assert_eq!(differs(dir.path(), "l", &kinds, &[lib]), None);
        // A build script is reported whatever its files.
        let script = differs(dir.path(), "l", &["custom-build".to_owned()], &[]);
        assert!(script.is_some_and(|m| m.contains("exercises/l/build.rs")));
    }

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
        // `src/..` is no longer `src/`, a folder merely named like it is not one, and a path
        // that leaves the course comes back to the student's tree, not to the graded copy.
        let tricky = "x.d: exercises/lesson02-split-heads/src/.. exercises/src/a.rs \
exercises/lesson02-split-heads/srcs/a.rs ../course/exercises/l/src/a.rs\n";
        assert_eq!(
            outside(Path::new("/course"), tricky),
            [
                "exercises/lesson02-split-heads",
                "exercises/src/a.rs",
                "exercises/lesson02-split-heads/srcs/a.rs",
                "../course/exercises/l/src/a.rs"
            ]
        );
        assert!(sources("").is_empty());
    }
}
