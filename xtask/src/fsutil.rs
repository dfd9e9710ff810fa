//! Small file-system helpers for the instructor commands: scratch directories, walking and copying
//! trees.

use crate::workspace::relative;
use std::path::{Path, PathBuf};

/// A scratch directory under the system's temporary directory, removed on drop.
#[derive(Debug)]
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A fresh, empty directory whose name starts with `course-<what>-`.
    pub fn new(what: &str) -> Result<Self, String> {
        Self::new_in(&std::env::temp_dir(), what)
    }

    /// A fresh, empty directory under `parent`.
    pub fn new_in(parent: &Path, what: &str) -> Result<Self, String> {
        static COUNT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = parent.join(format!("course-{what}-{}-{n}-{nanos}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        Ok(TempDir(dir))
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Every regular file under `dir` (symbolic links are not followed), as paths relative to `base`
/// with `/` separators, sorted. `skip(rel, is_dir)` prunes files and whole directories.
pub fn files_under(dir: &Path, base: &Path, skip: &dyn Fn(&str, bool) -> bool) -> Vec<String> {
    fn walk(dir: &Path, base: &Path, skip: &dyn Fn(&str, bool) -> bool, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            let rel = relative(base, &path);
            if kind.is_dir() {
                if !skip(&rel, true) {
                    walk(&path, base, skip, out);
                }
            } else if kind.is_file() && !skip(&rel, false) {
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, base, skip, &mut out);
    out.sort();
    out
}

/// Copies the files `rel` (relative paths) from `from` to `to`, creating directories.
pub fn copy_files(from: &Path, to: &Path, rel: &[String]) -> Result<(), String> {
    for f in rel {
        let dst = to.join(f);
        if let Some(dir) = dst.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        std::fs::copy(from.join(f), &dst).map_err(|e| format!("cannot copy {f}: {e}"))?;
    }
    Ok(())
}

/// Writes `text` to `path`, creating its directory.
pub fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Reads a text file, naming it in the error.
pub fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// True for files that never belong in a course tree: insta's pending snapshots.
pub fn is_scratch_file(rel: &str) -> bool {
    rel.ends_with(".snap.new") || rel.ends_with(".pending-snap")
}
