//! The disk budget of a check: how many bytes and files it may have on disk at once, so that one
//! student's checks cannot fill the disk a classmate's grading needs. The sandbox's supervisor
//! measures what the check wrote while it runs and stops it when over ([`Watch`]); the verdict is
//! `wrote_too_much`.

use std::path::{Path, PathBuf};

/// What all the checks of one submission running at once may have on disk together.
pub const SUBMISSION: Budget = Budget {
    bytes: 256 << 20,
    files: 4096,
};

/// What one check may have on disk at most, however few run at once: a check writes only its
/// observations (kilobytes).
pub const CHECK: Budget = Budget {
    bytes: 64 << 20,
    files: 1024,
};

/// Bytes and files (folders count as files) on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Budget {
    /// Bytes allocated on disk (a sparse file's holes cost nothing).
    pub bytes: u64,
    /// Files, folders and links.
    pub files: u64,
}

impl Budget {
    /// The budget of each check when `workers` checks of a submission run at once: its share of
    /// [`SUBMISSION`], at most [`CHECK`].
    pub fn per_check(workers: usize) -> Self {
        let n = workers.max(1) as u64;
        Self {
            bytes: CHECK.bytes.min(SUBMISSION.bytes / n),
            files: CHECK.files.min(SUBMISSION.files / n),
        }
    }

    /// True when `used` goes past this budget in bytes or in files.
    pub fn exceeded_by(self, used: Budget) -> bool {
        used.bytes > self.bytes || used.files > self.files
    }

    /// The student's words for it: `64 MiB or 1024 files`.
    pub fn describe(self) -> String {
        format!("{} MiB or {} files", self.bytes >> 20, self.files)
    }
}

/// What a check has on disk: everything in its private folders, in the container mode every file
/// its user owns in the places every user may write ([`crate::run::leftovers::shared_places`]),
/// and the files its processes deleted but hold open (their space is taken until closed).
#[derive(Debug, Clone)]
pub struct Watch {
    /// The check's private folders.
    pub private: Vec<PathBuf>,
    /// The check's own user (container mode).
    pub uid: Option<u32>,
    /// Its budget.
    pub budget: Budget,
}

impl Watch {
    /// What the check has on disk now.
    pub fn used(&self) -> Budget {
        let mut used = Budget::default();
        for dir in &self.private {
            add_tree(dir, None, &mut used);
        }
        #[cfg(all(target_os = "linux", feature = "instructor"))]
        if let Some(uid) = self.uid {
            for place in crate::run::leftovers::shared_places() {
                add_tree(&place, Some(uid), &mut used);
            }
        }
        #[cfg(target_os = "linux")]
        add_deleted_open(self.uid, &mut used);
        used
    }

    /// True when the check has more on disk than its budget.
    pub fn over(&self) -> bool {
        self.budget.exceeded_by(self.used())
    }
}

/// Adds to `used` what lies beneath `dir` (not `dir` itself): everything, or with `owner` only
/// what that user owns (a folder of its counted with all it holds). Links are not followed; in the
/// second case only folders every user may write are looked into, as `owner` can have made
/// nothing elsewhere.
fn add_tree(dir: &Path, owner: Option<u32>, used: &mut Budget) {
    let mut walk = walkdir::WalkDir::new(dir).min_depth(1).into_iter();
    while let Some(entry) = walk.next() {
        let Ok(entry) = entry else { continue };
        let Ok(meta) = entry.metadata() else { continue };
        let (uid, open_to_all) = ownership(&meta);
        if owner.is_some_and(|owner| owner != uid) {
            if meta.is_dir() && !open_to_all {
                walk.skip_current_dir();
            }
            continue;
        }
        if owner.is_some() && meta.is_dir() {
            add_tree(entry.path(), None, used);
            walk.skip_current_dir();
        }
        used.files += 1;
        used.bytes += allocated(&meta);
    }
}

/// Adds to `used` the files that the check's processes hold open after deleting them: those of
/// user `uid`, or without one every process of the `/proc` this process sees when that is the
/// check's PID namespace's own (the sandbox mounts it; this process is outside, so `/proc/self`
/// does not exist there). Elsewhere the check's processes cannot be told apart: none are counted.
#[cfg(target_os = "linux")]
fn add_deleted_open(uid: Option<u32>, used: &mut Budget) {
    use std::os::unix::fs::MetadataExt as _;
    if uid.is_none() && Path::new("/proc/self").exists() {
        return;
    }
    let mut seen = std::collections::HashSet::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let numeric = entry
            .file_name()
            .to_string_lossy()
            .bytes()
            .all(|b| b.is_ascii_digit());
        if !numeric || uid.is_some_and(|uid| entry.metadata().map_or(true, |m| m.uid() != uid)) {
            continue;
        }
        for fd in std::fs::read_dir(entry.path().join("fd"))
            .into_iter()
            .flatten()
            .flatten()
        {
            // The link's target, deleted or not.
            let Ok(meta) = std::fs::metadata(fd.path()) else {
                continue;
            };
            if meta.is_file() && meta.nlink() == 0 && seen.insert((meta.dev(), meta.ino())) {
                used.files += 1;
                used.bytes += allocated(&meta);
            }
        }
    }
}

#[cfg(unix)]
fn ownership(meta: &std::fs::Metadata) -> (u32, bool) {
    use std::os::unix::fs::MetadataExt as _;
    (meta.uid(), meta.mode() & 0o002 != 0)
}

#[cfg(not(unix))]
fn ownership(_: &std::fs::Metadata) -> (u32, bool) {
    (0, false)
}

#[cfg(unix)]
fn allocated(meta: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt as _;
    meta.blocks() * 512
}

#[cfg(not(unix))]
fn allocated(meta: &std::fs::Metadata) -> u64 {
    meta.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_submissions_budget_is_shared_by_the_checks_running_at_once() {
        assert_eq!(Budget::per_check(0), CHECK);
        assert_eq!(Budget::per_check(1), CHECK);
        assert_eq!(Budget::per_check(4), CHECK);
        let eight = Budget::per_check(8);
        assert_eq!(eight.bytes * 8, SUBMISSION.bytes);
        assert_eq!(eight.files * 8, SUBMISSION.files);
        assert_eq!(CHECK.describe(), "64 MiB or 1024 files");
        let b = Budget {
            bytes: 10,
            files: 2,
        };
        assert!(!b.exceeded_by(Budget {
            bytes: 10,
            files: 2
        }));
        assert!(b.exceeded_by(Budget {
            bytes: 11,
            files: 0
        }));
        assert!(b.exceeded_by(Budget { bytes: 0, files: 3 }));
    }

    #[test]
    fn what_a_check_wrote_is_counted_by_allocated_bytes_and_entries() {
        let dir = tempfile::tempdir().unwrap();
        let watch = Watch {
            private: vec![dir.path().to_owned()],
            uid: None,
            budget: Budget {
                bytes: 1 << 20,
                files: 3,
            },
        };
        assert_eq!(watch.used(), Budget::default());
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/a"), vec![1u8; 300 << 10]).unwrap();
        let used = watch.used();
        assert_eq!(used.files, 2);
        assert!(used.bytes >= 300 << 10, "{used:?}");
        assert!(!watch.over());
        std::fs::write(dir.path().join("b"), vec![1u8; 800 << 10]).unwrap();
        assert!(watch.over(), "bytes");
        std::fs::remove_file(dir.path().join("b")).unwrap();
        for name in ["c", "d"] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        assert!(watch.over(), "files");
        // A sparse file's holes are no one's disk.
        std::fs::remove_file(dir.path().join("d")).unwrap();
        let sparse = std::fs::File::create(dir.path().join("c")).unwrap();
        sparse.set_len(1 << 30).unwrap();
        assert!(!watch.over(), "{:?}", watch.used());
    }

    #[cfg(unix)]
    #[test]
    fn in_shared_places_only_the_users_files_count() {
        use std::os::unix::fs::MetadataExt as _;
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let mine = std::fs::metadata(dir.path()).unwrap().uid();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/file"), "x").unwrap();
        std::fs::write(dir.path().join("top"), "x").unwrap();
        let count = |uid| {
            let mut used = Budget::default();
            add_tree(dir.path(), Some(uid), &mut used);
            used.files
        };
        assert_eq!(count(mine + 1), 0);
        assert_eq!(count(mine), 3);
    }
}
