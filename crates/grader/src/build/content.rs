//! Every key by content of the build's reuse: what one lesson's build reads from its two crates,
//! and what every build reads besides (the workspace, cargo's configuration, the environment).

use crate::course::{Lesson, Side};
use hmac_sha256::Hash as Sha256;
use std::path::Path;

/// The version of what the build stage decides from a lesson's sources (which lessons count as
/// compiled: today also [`crate::build::outside_sources`]). Kept builds ([`crate::build::reuse`]) and
/// freshness records carry the decision of the grader that made them, so
/// this is part of their keys: a grader that decides otherwise never reuses them.
pub const DECISIONS: u32 = 2;

/// What the build of one of a lesson's crates reads from the lesson's two crates.
pub(crate) struct Inputs<'l> {
    pub lesson: &'l Lesson,
    /// Each file's path in the course and its bytes (see [`lesson_inputs`]).
    pub files: Vec<(String, Vec<u8>)>,
    /// Their digest ([`crate::course::manifest::sources_digest`]).
    pub digest: String,
}

impl<'l> Inputs<'l> {
    /// Reads what the build of `lesson`'s `side` reads in the course at `root`.
    pub fn read(root: &Path, lesson: &'l Lesson, side: Side) -> Self {
        let files = lesson_inputs(root, lesson, side);
        Inputs {
            lesson,
            digest: crate::course::manifest::sources_digest(&files),
            files,
        }
    }
}

/// Every file the build of one of `lesson`'s crates can read from the lesson's two crates in the
/// course at `root`, with its path there. The exercises' crate compiles its
/// own files and the hidden checks ([`Lesson::hidden_dir`], in `solutions/`); the solutions' crate
/// its own files and, through `#[path]`, the exercises' (their setup code and visible checks).
/// Left out: the snapshot folders, which the checks read when they run (blessing them rebuilds
/// nothing), the pristine stubs a handout keeps in `.stubs/` (read by `reset`, never compiled)
/// and insta's scratch files. So a handout, which has no `solutions/`, digests the exercises of a
/// lesson without hidden checks as the instructors' tree does, and shares their build.
fn lesson_inputs(root: &Path, lesson: &Lesson, side: Side) -> Vec<(String, Vec<u8>)> {
    // Exactly these folders: a folder of the same name elsewhere (`src/snapshots/`) may hold code.
    let stubs = lesson
        .crate_dir(root, Side::Exercises)
        .join(crate::course::stubs::STUB_DIR);
    let left_out: Vec<String> = lesson
        .snapshot_dirs(root)
        .iter()
        .chain([&stubs])
        .map(|dir| crate::fsutil::relative(root, dir))
        .collect();
    let skip = |rel: &str, is_dir: bool| {
        crate::fsutil::is_scratch_file(rel) || (is_dir && left_out.iter().any(|d| d == rel))
    };
    let other = if side.is_solutions() {
        lesson.crate_dir(root, Side::Solutions)
    } else {
        lesson.hidden_dir(root)
    };
    [lesson.crate_dir(root, Side::Exercises), other]
        .iter()
        .flat_map(|dir| crate::fsutil::files_under(dir, root, &skip))
        .map(|rel| {
            let bytes = std::fs::read(root.join(&rel)).unwrap_or_default();
            (rel, bytes)
        })
        .collect()
}

/// The environment that changes what cargo builds, or where, sorted.
fn build_env() -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| {
            k == "CARGO"
                || k == "CARGO_TARGET_DIR"
                || k == "RUSTUP_TOOLCHAIN"
                || k.starts_with("CARGO_PROFILE_")
                || k.starts_with("CARGO_BUILD_")
                || k.starts_with("RUSTC")
                || k == "CARGO_ENCODED_RUSTFLAGS"
        })
        .collect();
    env.sort();
    env
}

/// The files that choose rustup's toolchain, in a course or a folder above it.
/// The grader's library crate, which no lesson depends on.
const GRADER_CRATE: &str = "crates/grader";

const TOOLCHAIN_FILES: [&str; 2] = ["rust-toolchain.toml", "rust-toolchain"];

/// Adds to `hasher` what every build of the course at `root` reads besides the lessons' crates:
/// the environment of [`build_env`], the workspace's manifest and lockfile, the toolchain file,
/// `.cargo/`, everything under `crates/` but the grader's crate, and the configuration cargo and rustup read outside the
/// course (see [`hash_outside_config`]).
pub fn hash_workspace(root: &Path, hasher: &mut Sha256) {
    hasher.update(format!("{:?}", build_env()).as_bytes());
    for file in ["Cargo.toml", "Cargo.lock"].iter().chain(&TOOLCHAIN_FILES) {
        hash_file(root, &root.join(file), hasher);
    }
    hash_tree(root, &root.join(".cargo"), hasher);
    hash_tree(root, &root.join("crates"), hasher);
    hash_outside_config(root, hasher);
}

/// Adds the files outside the course at `root` that change what cargo builds: the
/// `.cargo/config.toml` (or `.cargo/config`) of every folder above it and of `$CARGO_HOME`
/// (profiles, `rustflags`), and a toolchain file above it (rustup's choice of compiler). Each
/// under its absolute path; the files that do not exist add nothing.
fn hash_outside_config(root: &Path, hasher: &mut Sha256) {
    let absolute = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    for dir in absolute.ancestors().skip(1) {
        let config = [".cargo/config.toml", ".cargo/config"];
        for file in config.iter().chain(&TOOLCHAIN_FILES) {
            hash_file(root, &dir.join(file), hasher);
        }
    }
    let (cargo_home, _) = crate::build::cargo::toolchain_homes();
    for file in ["config.toml", "config"] {
        hash_file(root, &cargo_home.join(file), hasher);
    }
}

/// Adds every file under `dir` (not following symbolic links, skipping `target` and dot folders)
/// to `hasher`, in a stable order.
pub(crate) fn hash_tree(root: &Path, dir: &Path, hasher: &mut Sha256) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let name = entry.file_name();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            // The grader's own crate: no lesson builds it (and its sources would be hashed on
            // every grade for nothing).
            let grader = path == root.join(GRADER_CRATE);
            if name != "target" && !name.to_string_lossy().starts_with('.') && !grader {
                hash_tree(root, &path, hasher);
            }
        } else if kind.is_file() {
            hash_file(root, &path, hasher);
        }
    }
}

/// Adds one file to `hasher`: its path relative to `root`, its length and its bytes (nothing when
/// it cannot be read).
pub fn hash_file(root: &Path, path: &Path, hasher: &mut Sha256) {
    if let Ok(bytes) = std::fs::read(path) {
        let rel = path.strip_prefix(root).unwrap_or(path);
        hasher.update(rel.to_string_lossy().as_bytes());
        hasher.update([0]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
}

/// The class-run key of each lesson of `lessons` in the grading copy `root` of `course`: its
/// student sources and every other file of the copy but the student sources of all lessons;
/// `None` (never shared) when a file it covers cannot be read.
pub(crate) fn class_keys(
    root: &Path,
    course: &crate::course::Course,
    lessons: &[&Lesson],
) -> Vec<Option<String>> {
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
            let src = lesson.crate_dir(root, Side::Exercises).join("src");
            let own = digest(&src, crate::fsutil::files_under(&src, &src, &|_, _| false))?;
            let key = format!("{}\n{own}\n{}\n", lesson.id, instructors.as_ref()?);
            Some(crate::course::manifest::sha256_hex(key.as_bytes())[..32].to_owned())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lessons_build_inputs_are_what_each_crate_compiles_without_snapshots_or_stubs() {
        let root = tempfile::tempdir().unwrap();
        let lesson = crate::course::fixture().lessons.remove(0);
        let files = [
            (false, "src/exercises.rs"),
            (false, "tests/checks.rs"),
            (false, "tests/snapshots/a.snap"),
            (false, "src/b.rs.snap.new"),
            (false, ".stubs/exercises.rs"),
            // Compiled if a module names them: folders of those names elsewhere count.
            (false, "src/snapshots/code.rs"),
            (false, "src/.stubs/code.rs"),
            (true, "src/exercises.rs"),
            (true, "tests/lesson01.rs"),
            (true, "tests/hidden/checks.rs"),
            (true, "tests/hidden/snapshots/b.snap"),
        ];
        for (side, rel) in files {
            let path = lesson
                .crate_dir(root.path(), Side::from_solutions(side))
                .join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, rel).unwrap();
        }
        let listed = |solutions: bool| -> Vec<String> {
            lesson_inputs(root.path(), &lesson, Side::from_solutions(solutions))
                .into_iter()
                .map(|(rel, bytes)| {
                    assert!(rel.ends_with(std::str::from_utf8(&bytes).unwrap()));
                    rel
                })
                .collect()
        };
        let d = &lesson.dir;
        let paths = |side: &str, files: &[&str]| -> Vec<String> {
            files.iter().map(|f| format!("{side}/{d}/{f}")).collect()
        };
        let exercises_own = paths(
            "exercises",
            &[
                "src/.stubs/code.rs",
                "src/exercises.rs",
                "src/snapshots/code.rs",
                "tests/checks.rs",
            ],
        );
        // The exercises' crate: its own files and the hidden checks, none of the solutions' own.
        let hidden = paths("solutions", &["tests/hidden/checks.rs"]);
        assert_eq!(listed(false), [exercises_own.clone(), hidden].concat());
        // The solutions' crate: both crates.
        let solutions_own = paths(
            "solutions",
            &[
                "src/exercises.rs",
                "tests/hidden/checks.rs",
                "tests/lesson01.rs",
            ],
        );
        assert_eq!(
            listed(true),
            [exercises_own.clone(), solutions_own].concat()
        );
        // Without `solutions/` (a handout), the exercises' inputs are their own files.
        std::fs::remove_dir_all(lesson.crate_dir(root.path(), Side::Solutions)).unwrap();
        assert_eq!(listed(false), exercises_own);
    }
}
