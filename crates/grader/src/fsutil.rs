//! Small file-system helpers for the instructor commands: scratch directories, walking and copying
//! trees; and the grader's one work queue, an ordered parallel map ([`par_map`], `fsutil/par.rs`).

use anyhow::{Context as _, Result};
use std::path::{Path, PathBuf};
use walkdir::WalkDir;

mod par;
pub use par::{par_map, par_map_after, par_map_with};

/// `path` relative to `root`, with `/` separators, for messages and manifests.
pub fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Where every scratch directory of the grader lives: `<temp>/course-grader/<pid>-<what>-<random>`.
pub fn scratch_root() -> PathBuf {
    std::env::temp_dir().join("course-grader")
}

/// A scratch folder that keeps its path from run to run, for the folder `owner`:
/// `<temp>/course-grader/<name>` (a name that does not start with a process id, so it is never
/// taken for an abandoned one). A note beside it, `<name>.owner`, names `owner`; the fixed scratch
/// folders whose owner is gone are removed here first (see [`remove_orphaned`]), so they do not
/// pile up. An owner whose path is not UTF-8 gets no note, and its folder stays.
pub fn fixed_scratch(name: &str, owner: &Path) -> PathBuf {
    let root = scratch_root();
    remove_orphaned(&root);
    if let (Ok(()), Some(owner)) = (std::fs::create_dir_all(&root), owner.to_str()) {
        let _ = std::fs::write(root.join(format!("{name}.owner")), owner);
    }
    root.join(name)
}

/// Removes the fixed scratch folders in `root` whose note (see [`fixed_scratch`]) names a folder
/// that no longer exists, with their notes. Folders without a note are left alone, and
/// `remove_dir_all` removes a symbolic link, never what it points to.
fn remove_orphaned(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(name) = file_name.to_str().and_then(|n| n.strip_suffix(".owner")) else {
            continue;
        };
        let note = entry.path();
        let Ok(owner) = std::fs::read_to_string(&note) else {
            continue;
        };
        if !owner.is_empty() && !Path::new(&owner).exists() {
            let _ = std::fs::remove_dir_all(root.join(name));
            let _ = std::fs::remove_file(&note);
        }
    }
}

/// A fresh, private scratch directory (removed on drop, `tempfile` does the work). Scratch
/// directories that an earlier run left behind when it was killed (its process is gone) are
/// removed first.
pub fn scratch_dir(what: &str) -> Result<TempDir> {
    let root = scratch_root();
    std::fs::create_dir_all(&root)
        .and_then(|()| {
            remove_abandoned(&root);
            tempfile::Builder::new()
                .prefix(&format!("{}-{what}-", std::process::id()))
                .tempdir_in(&root)
        })
        .with_context(|| format!("cannot create a scratch directory in {}", root.display()))
}

/// The scratch directory type.
pub type TempDir = tempfile::TempDir;

/// Removes the scratch directories of grader processes that no longer run (Linux: by `/proc`).
fn remove_abandoned(root: &Path) {
    // One level, no recursion: `read_dir` is all it takes (no walk for `walkdir` to do).
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Every regular file under `dir` (symbolic links are neither followed nor listed, so nothing
/// outside `dir` is reached: a student's link never leads out of the submission), as paths
/// relative to `base` with `/` separators, sorted. `skip(rel, is_dir)` prunes files and whole
/// directories. Unreadable directories are left out.
pub fn files_under(dir: &Path, base: &Path, skip: &dyn Fn(&str, bool) -> bool) -> Vec<String> {
    let mut out: Vec<String> = WalkDir::new(dir)
        .min_depth(1)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            let kind = e.file_type();
            !(kind.is_dir() || kind.is_file()) || !skip(&relative(base, e.path()), kind.is_dir())
        })
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| relative(base, e.path()))
        .collect();
    out.sort();
    out
}

/// Copies the files `rel` (relative paths) from `from` to `to`, creating directories.
pub fn copy_files(from: &Path, to: &Path, rel: &[String]) -> Result<()> {
    for f in rel {
        let dst = to.join(f);
        if let Some(dir) = dst.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        std::fs::copy(from.join(f), &dst).with_context(|| format!("cannot copy {f}"))?;
        // Keep the modification time, so cargo does not rebuild a copied crate that did not
        // change (a grading copy reuses the dependencies built for the last one).
        if let Ok(modified) = std::fs::metadata(from.join(f)).and_then(|m| m.modified()) {
            let _ = std::fs::File::options()
                .write(true)
                .open(&dst)
                .and_then(|file| file.set_modified(modified));
        }
    }
    Ok(())
}

/// Writes `text` to `path`, creating its directory.
pub fn write(path: &Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// Replaces `path` with `bytes` in one step (written beside it, then renamed over it): a grade
/// running at the same time (a watcher's, a copy's) reads the old file or the new one, never half
/// of one, and two writers leave one whole file.
pub fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.tmp", std::process::id()));
    let tmp = path.with_file_name(name);
    std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
}

/// Reads a text file, naming it in the error.
pub fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

/// True for files that never belong in a course tree: insta's pending snapshots.
pub fn is_scratch_file(rel: &str) -> bool {
    rel.ends_with(".snap.new") || rel.ends_with(".pending-snap")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_scratch_folders_of_vanished_owners_are_removed() {
        let root = tempfile::tempdir().unwrap();
        let live = tempfile::tempdir().unwrap();
        let folder = |name: &str, owner: Option<&str>| {
            let dir = root.path().join(name);
            std::fs::create_dir_all(dir.join("exercises")).unwrap();
            std::fs::write(dir.join("exercises/checks.rs"), "hidden").unwrap();
            if let Some(owner) = owner {
                std::fs::write(root.path().join(format!("{name}.owner")), owner).unwrap();
            }
            dir
        };
        let gone = folder("build-0000000000000001", Some("/no/such/course/target"));
        let kept = folder("build-0000000000000002", live.path().to_str());
        let unnoted = folder("build-0000000000000003", None);
        let other = folder("1234-grade-abc", None);
        remove_orphaned(root.path());
        assert!(!gone.exists());
        assert!(!root.path().join("build-0000000000000001.owner").exists());
        assert!(kept.join("exercises/checks.rs").exists());
        assert!(root.path().join("build-0000000000000002.owner").exists());
        assert!(unnoted.exists() && other.exists());

        // `fixed_scratch` notes its owner beside the folder, and goes once the owner is gone.
        let owner = live.path().join("target");
        std::fs::create_dir_all(&owner).unwrap();
        let name = format!("build-test-{}", std::process::id());
        let fixed = fixed_scratch(&name, &owner);
        let note = fixed.with_file_name(format!("{name}.owner"));
        assert_eq!(Path::new(&std::fs::read_to_string(&note).unwrap()), owner);
        std::fs::remove_dir_all(&owner).unwrap();
        remove_orphaned(fixed.parent().unwrap());
        assert!(!note.exists());
    }

    #[cfg(unix)]
    #[test]
    fn walks_stay_in_the_folder() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.rs"), "secret").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::create_dir_all(root.join("target/debug")).unwrap();
        std::fs::write(root.join("src/lib.rs"), "").unwrap();
        std::fs::write(root.join("src/deep/x.rs"), "").unwrap();
        std::fs::write(root.join("target/debug/out"), "").unwrap();
        std::fs::write(root.join("src/skip.me"), "").unwrap();
        std::os::unix::fs::symlink(".", root.join("src/loop")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("src/out")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.rs"), root.join("src/s.rs"))
            .unwrap();
        let skip = |rel: &str, is_dir: bool| {
            (is_dir && rel == "target") || (!is_dir && rel.ends_with(".me"))
        };
        assert_eq!(
            files_under(root, root, &skip),
            ["src/deep/x.rs", "src/lib.rs"]
        );
        assert_eq!(
            files_under(&root.join("src"), root, &|_, _| false),
            ["src/deep/x.rs", "src/lib.rs", "src/skip.me"]
        );
        assert!(files_under(&root.join("none"), root, &|_, _| false).is_empty());
        assert!(files_under(&root.join("src/lib.rs"), root, &|_, _| false).is_empty());
    }
}
