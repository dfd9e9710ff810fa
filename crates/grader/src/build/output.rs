//! What a build produces: each lesson's check executables or its first error, and its warnings.

use anyhow::{Context as _, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// One check executable of a lesson: the visible checks' target (`lessonNN`) or the hidden
/// checks' (`lessonNN_hidden`).
#[derive(Debug, Clone)]
pub struct CheckBinary {
    /// The executable.
    pub exe: PathBuf,
    /// True for the hidden checks' target.
    pub hidden: bool,
    /// Its size and modification time right after the build, taken under the build lock (see
    /// [`crate::build::reuse::freshness`]); `None` when it could not be read.
    pub identity: Option<(u64, u128)>,
}

/// What the build produced for one lesson.
#[derive(Debug, Clone)]
pub enum Built {
    /// The check executables: the visible checks' first, then the hidden checks' (when the lesson
    /// has hidden checks).
    Ok(Vec<CheckBinary>),
    /// The crate did not compile: the first error, trimmed.
    Failed(String),
}

/// Everything one build says about the lessons.
#[derive(Debug, Clone, Default)]
pub struct BuildOutput {
    /// Per lesson id: the check executables or the first error.
    pub lessons: HashMap<String, Built>,
    /// Per lesson id: the compiler's warnings for the lesson's crate, trimmed, in build order.
    pub warnings: HashMap<String, Vec<String>>,
    /// Per lesson id that failed on its own compiler errors: each of them with its place (see
    /// [`crate::build::stub_out`]).
    pub errors: HashMap<String, Vec<crate::build::stub_out::CompileError>>,
    /// A sandboxed build's private copies of its check executables (the executables above live
    /// there), kept as long as the output: the next submission's build replaces the ones in the
    /// shared target folder while this one's checks still run.
    pub private: Option<std::sync::Arc<crate::fsutil::TempDir>>,
}

/// Per lesson id: its check executables or its first error; its warnings; the errors it failed
/// on, with their places.
pub(crate) type Compiled = (
    HashMap<String, Built>,
    HashMap<String, Vec<String>>,
    HashMap<String, Vec<crate::build::stub_out::CompileError>>,
);

/// A file's size and modification time (ns).
pub fn identity(path: &Path) -> Option<(u64, u128)> {
    let meta = std::fs::metadata(path).ok()?;
    let mtime = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    Some((meta.len(), mtime.as_nanos()))
}

/// Copies every check executable of `built` into a private folder (still under the build lock)
/// and points `built` at the copies.
pub(crate) fn keep_executables(
    built: &mut HashMap<String, Built>,
) -> Result<crate::fsutil::TempDir> {
    let private = crate::fsutil::scratch_dir("checks")?;
    for bins in built.values_mut() {
        let Built::Ok(bins) = bins else { continue };
        *bins = copy_executables(bins, private.path())?;
    }
    Ok(private)
}

/// Copies every executable of `bins` into `dir` (same file names) and returns them there (with
/// no identity: only local builds, which never copy, keep one).
pub(crate) fn copy_executables(bins: &[CheckBinary], dir: &Path) -> Result<Vec<CheckBinary>> {
    bins.iter()
        .map(|bin| {
            let name = bin
                .exe
                .file_name()
                .context("a check executable without a name")?;
            let copy = dir.join(name);
            std::fs::copy(&bin.exe, &copy)
                .with_context(|| format!("cannot copy {}", bin.exe.display()))?;
            Ok(CheckBinary {
                exe: copy,
                hidden: bin.hidden,
                identity: None,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_keeps_private_copies_of_its_executables() {
        let target = tempfile::tempdir().unwrap();
        let exe = target.path().join("lesson02-0123");
        std::fs::write(&exe, "this student's checks").unwrap();
        let mut built = HashMap::from([(
            "lesson02".to_owned(),
            Built::Ok(vec![CheckBinary {
                exe: exe.clone(),
                hidden: false,
                identity: None,
            }]),
        )]);
        let private = keep_executables(&mut built).unwrap();
        // The next submission's build replaces the executable in the shared folder.
        std::fs::write(&exe, "the next student's checks").unwrap();
        let Built::Ok(bins) = &built["lesson02"] else {
            panic!("still built")
        };
        assert!(bins[0].exe.starts_with(private.path()));
        assert_eq!(
            std::fs::read_to_string(&bins[0].exe).unwrap(),
            "this student's checks"
        );
    }
}
