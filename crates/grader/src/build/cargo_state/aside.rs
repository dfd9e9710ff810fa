//! The lesson builds a submission's build must not find, kept aside instead of deleted: beside the
//! submissions' target folder, in `<target>-aside/<package>/<digest>/`, inside the course's own
//! target folder, which no sandboxed process may read (`crate::run::sandbox_paths::private_paths`;
//! the container mode closes it, and the folder is its owner's only). A later build of the same
//! lesson from the same sources (the digest of [`crate::build::content::Inputs`]: the handout's
//! stubs, a solution many students hand in) moves them back instead of compiling them again, as if
//! no other build had come between. At most [`KEEP`] builds per lesson are kept.

use anyhow::{Context as _, Result};
use std::path::{Path, PathBuf};

/// Builds kept per lesson package; older ones are deleted.
pub const KEEP: usize = 3;

/// The folders of a target folder that hold a package's files, relative to it; the last one, the
/// grader's records of each package's sources, and `debug` itself hold files of several
/// packages side by side.
pub const FOLDERS: [&str; 7] = [
    "debug/deps",
    "debug/.fingerprint",
    "debug/incremental",
    "debug/build",
    "debug/examples",
    "debug",
    ".xtask-sources",
];

/// The kept builds of one submissions' target folder.
pub struct Aside {
    dir: PathBuf,
}

impl Aside {
    /// The builds kept aside for the target folder `target`.
    pub fn of(target: &Path) -> Self {
        let name = target
            .file_name()
            .map_or_else(|| "target".into(), |n| n.to_string_lossy().into_owned());
        Self {
            dir: target.with_file_name(format!("{name}-aside")),
        }
    }

    /// Where the build of `package` from sources whose digest is `digest` is kept; `None` for a
    /// digest that is no SHA-256 in hex (the record it came from is not the grader's).
    fn entry(&self, package: &str, digest: &str) -> Option<PathBuf> {
        let hex = digest.len() == 64 && digest.chars().all(|c| c.is_ascii_hexdigit());
        hex.then(|| self.dir.join(package).join(digest))
    }

    /// Moves `files` (relative to `target`, each in one of [`FOLDERS`]) of `package`'s build from
    /// sources with `digest` aside, replacing an earlier build of the same sources, and deletes
    /// the oldest builds of `package` beyond [`KEEP`]. `Ok(false)`, with nothing moved, when the
    /// digest cannot name a folder.
    pub fn put(
        &self,
        target: &Path,
        package: &str,
        digest: &str,
        files: &[PathBuf],
    ) -> Result<bool> {
        let Some(entry) = self.entry(package, digest) else {
            return Ok(false);
        };
        self.private()?;
        if entry.exists() {
            std::fs::remove_dir_all(&entry)
                .with_context(|| format!("cannot remove {}", entry.display()))?;
        }
        for rel in files {
            let to = entry.join(rel);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("cannot create {}", parent.display()))?;
            }
            std::fs::rename(target.join(rel), &to)
                .with_context(|| format!("cannot move {} aside", target.join(rel).display()))?;
        }
        self.forget_oldest(package);
        Ok(true)
    }

    /// Moves the build of `package` from sources with `digest` back into `target`, its record
    /// of the sources included; `false` when none is kept.
    pub fn take(&self, target: &Path, package: &str, digest: &str) -> Result<bool> {
        let Some(entry) = self.entry(package, digest).filter(|e| e.is_dir()) else {
            return Ok(false);
        };
        for folder in FOLDERS {
            let from = entry.join(folder);
            for item in std::fs::read_dir(&from).into_iter().flatten().flatten() {
                let name = item.file_name();
                // `debug/deps` and the like, kept under `debug`, are folders of their own.
                if folder == "debug"
                    && FOLDERS
                        .iter()
                        .any(|f| Path::new(f) == Path::new("debug").join(&name))
                {
                    continue;
                }
                let to = target.join(folder);
                std::fs::create_dir_all(&to)
                    .with_context(|| format!("cannot create {}", to.display()))?;
                std::fs::rename(item.path(), to.join(&name))
                    .with_context(|| format!("cannot move {} back", item.path().display()))?;
                // Kept by a container-mode build (its builder's), taken by another: the grader's
                // again, as the rest of the folder is (`crate::run::builder::take_back`).
                #[cfg(all(target_os = "linux", feature = "instructor"))]
                crate::run::builder::own_all(&to.join(&name))
                    .with_context(|| format!("cannot take back {}", to.join(&name).display()))?;
            }
        }
        std::fs::remove_dir_all(&entry)
            .with_context(|| format!("cannot remove {}", entry.display()))?;
        Ok(true)
    }

    /// Makes the folder, its owner's only (a container-mode build's user must not enter it,
    /// even where it was made after grading closed the course's folders).
    fn private(&self) -> Result<()> {
        let mut dir = std::fs::DirBuilder::new();
        dir.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut dir, 0o700);
        dir.create(&self.dir)
            .with_context(|| format!("cannot create {}", self.dir.display()))?;
        #[cfg(unix)]
        std::fs::set_permissions(
            &self.dir,
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        )
        .with_context(|| format!("cannot close {}", self.dir.display()))?;
        Ok(())
    }

    /// Deletes the builds of `package` beyond the [`KEEP`] newest.
    fn forget_oldest(&self, package: &str) {
        let mut kept: Vec<(std::time::SystemTime, PathBuf)> =
            std::fs::read_dir(self.dir.join(package))
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
                .collect();
        kept.sort();
        let old = kept.len().saturating_sub(KEEP);
        for (_, path) in &kept[..old] {
            let _ = std::fs::remove_dir_all(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_build_put_aside_comes_back_for_the_same_sources_only() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("submissions");
        let aside = Aside::of(&target);
        let (a, b) = ("a".repeat(64), "b".repeat(64));
        let files: Vec<PathBuf> = [
            "debug/deps/liblesson01-1.rlib",
            "debug/.fingerprint/lesson01-1",
            "debug/lesson01.d",
            ".xtask-sources/lesson01",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        // A fingerprint is a folder.
        write(&target.join("debug/.fingerprint/lesson01-1/dep-lib"), "dep");
        for f in files.iter().filter(|f| !target.join(f).exists()) {
            write(&target.join(f), &a);
        }
        write(&target.join("debug/deps/libndarray-2.rlib"), "registry");
        assert!(aside.put(&target, "lesson01", &a, &files).unwrap());
        for f in &files {
            assert!(!target.join(f).exists(), "{} left", f.display());
        }
        assert!(target.join("debug/deps/libndarray-2.rlib").is_file());
        assert!(!aside.take(&target, "lesson01", &b).unwrap());
        assert!(!aside.take(&target, "lesson02", &a).unwrap());
        assert!(aside.take(&target, "lesson01", &a).unwrap());
        for f in &files {
            assert!(target.join(f).exists(), "{} not back", f.display());
        }
        assert!(
            target
                .join("debug/.fingerprint/lesson01-1/dep-lib")
                .is_file()
        );
        assert!(!aside.take(&target, "lesson01", &a).unwrap(), "taken twice");
        // A record that is no digest names no folder: nothing is moved.
        assert!(!aside.put(&target, "lesson01", "../../x", &files).unwrap());
        assert!(target.join(&files[0]).is_file());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&aside.dir).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "the kept builds are the grader's only");
        }
    }

    #[test]
    fn only_the_newest_builds_of_a_lesson_are_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("submissions");
        let aside = Aside::of(&target);
        let digests: Vec<String> = (0..KEEP + 2).map(|i| format!("{i:x}").repeat(64)).collect();
        for (i, digest) in digests.iter().enumerate() {
            let file = PathBuf::from(format!("debug/deps/liblesson01-{i}.rlib"));
            write(&target.join(&file), digest);
            aside.put(&target, "lesson01", digest, &[file]).unwrap();
            // Distinct times, oldest first.
            let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1000 + i as u64);
            std::fs::File::open(aside.dir.join("lesson01").join(digest))
                .unwrap()
                .set_modified(when)
                .unwrap();
        }
        let kept = |d: &String| aside.dir.join("lesson01").join(d).is_dir();
        assert!(
            !kept(&digests[0]) && !kept(&digests[1]),
            "the oldest are kept"
        );
        assert!(digests[2..].iter().all(kept));
    }
}
