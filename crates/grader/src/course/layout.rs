//! Finding the course workspace the command runs in.

use anyhow::{Context as _, Result};
use std::path::{Path, PathBuf};

/// Where the official grading workflow goes in the instructors' course repository.
pub const GRADING_WORKFLOW: &str = ".github/workflows/grade-classroom.yml";

/// Walks up from `start` to the first directory holding both `course.toml` and `Cargo.toml`.
pub fn find_root(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|d| d.join("course.toml").is_file() && d.join("Cargo.toml").is_file())
        .map(Path::to_path_buf)
}

/// The course root for this process: from the current directory, else from where xtask lives.
pub fn root() -> Result<PathBuf> {
    let cwd = std::env::current_dir().context("no current directory")?;
    find_root(&cwd)
        .or_else(|| find_root(Path::new(env!("CARGO_MANIFEST_DIR"))))
        .context(
            "no course here: run this inside the course workspace (the folder with course.toml)",
        )
}

/// The folder cargo builds in for the course at `root`: `given`, else `$CARGO_TARGET_DIR`, else
/// `root/target`; a relative folder is taken from `root`, where the grader runs cargo. The
/// grader's own state (build lock, freshness records, hints) lives there too (see
/// [`state_file`]).
pub fn target_dir(root: &Path, given: Option<&Path>) -> PathBuf {
    let dir = given
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from));
    match dir {
        Some(dir) => root.join(dir),
        None => root.join("target"),
    }
}

/// The course at `root` as one string: its canonical path (else the path as given). Several copies
/// of the course may share one target folder; this tells their state apart.
pub fn course_key(root: &Path) -> String {
    root.canonicalize()
        .unwrap_or_else(|_| root.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// A file of the grader's state for the course at `root` (hint levels, the last grade):
/// `target/xtask/<stem>.json`. With a `CARGO_TARGET_DIR` outside the course, which may serve
/// several copies of it, the name carries a hash of the course's path: `<stem>-<hash>.json`.
pub fn state_file(root: &Path, stem: &str) -> PathBuf {
    let target = target_dir(root, None);
    if target == root.join("target") {
        target.join("xtask").join(format!("{stem}.json"))
    } else {
        target
            .join("xtask")
            .join(format!("{stem}-{}.json", course_hash(root)))
    }
}

/// 16 hex digits of the SHA-256 of [`course_key`]: the course in a file name.
pub fn course_hash(root: &Path) -> String {
    let mut hash = crate::course::manifest::sha256_hex(course_key(root).as_bytes());
    hash.truncate(16);
    hash
}
