//! The container mode's folders closed to other users (the checks' users) while grading, and
//! opened again as they were found once no grader of this machine grades any more, also when
//! grading fails or panics (the guard's `Drop`).
//!
//! Several graders may grade at once (a class run's submissions, other runs): each holds a shared
//! lock on `<scratch>/closed.lock` while it grades, and the one that can take it exclusively when
//! it ends is the last and restores. The modes as first found are kept in a file beside it (under
//! the second lock `closed-modes.lock`), so a grader that starts while others grade, or after one
//! was killed, never takes a closed folder's mode for its own.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

/// Folders closed to others until dropped (see the module's header).
#[derive(Debug)]
pub struct Closed {
    grading: std::fs::File,
    dir: PathBuf,
}

/// Takes every access away from other users on each of `paths` that exists (its owner's and
/// group's stay), for as long as the returned guard lives: what lies beneath can no longer be
/// reached by a check's user. The state lives in `dir` (the grader's scratch root).
pub fn close_to_others(dir: &Path, paths: &[&Path]) -> std::io::Result<Closed> {
    change_modes(dir, paths, &[])
}

/// [`close_to_others`] for `closed`, then leaves other users only passing through each of
/// `passable` (mode `o=x`: no listing, no reading, no writing), for the builder's user (see
/// [`crate::run::container::BUILDER`]).
pub fn change_modes(dir: &Path, closed: &[&Path], passable: &[&Path]) -> std::io::Result<Closed> {
    std::fs::create_dir_all(dir)?;
    let grading = open_lock(&dir.join("closed.lock"))?;
    // Waits while a last grader restores.
    grading.lock_shared()?;
    let modes_lock = open_lock(&dir.join("closed-modes.lock"))?;
    modes_lock.lock()?;
    let file = dir.join("closed-modes");
    let mut modes = read_modes(&file);
    let all = closed
        .iter()
        .map(|p| (p, 0))
        .chain(passable.iter().map(|p| (p, 0o001)));
    for (path, others) in all {
        let Ok(canonical) = path.canonicalize() else {
            continue;
        };
        let Ok(meta) = std::fs::metadata(&canonical) else {
            continue;
        };
        let mode = meta.permissions().mode() & 0o7777;
        // The first grader to change a folder finds its own mode; later ones find it changed.
        let found = *modes.entry(canonical.clone()).or_insert(mode);
        let mode = (found & !0o007) | others;
        std::fs::set_permissions(&canonical, std::fs::Permissions::from_mode(mode))?;
    }
    write_modes(&file, &modes)?;
    Ok(Closed {
        grading,
        dir: dir.to_path_buf(),
    })
}

impl Drop for Closed {
    fn drop(&mut self) {
        // Fails while another grader still grades: that one restores when it ends.
        if self.grading.try_lock().is_err() {
            return;
        }
        let Ok(modes_lock) = open_lock(&self.dir.join("closed-modes.lock")) else {
            return;
        };
        if modes_lock.lock().is_err() {
            return;
        }
        let file = self.dir.join("closed-modes");
        for (path, mode) in read_modes(&file) {
            let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode));
        }
        let _ = std::fs::remove_file(&file);
    }
}

fn open_lock(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
}

/// The modes file's `mode<TAB>path` lines (octal modes); paths that are not UTF-8 are not kept.
fn read_modes(file: &Path) -> BTreeMap<PathBuf, u32> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let (mode, path) = line.split_once('\t')?;
            Some((PathBuf::from(path), u32::from_str_radix(mode, 8).ok()?))
        })
        .collect()
}

fn write_modes(file: &Path, modes: &BTreeMap<PathBuf, u32>) -> std::io::Result<()> {
    let mut out = std::fs::File::create(file)?;
    for (path, mode) in modes {
        if let Some(path) = path.to_str().filter(|p| !p.contains('\n')) {
            writeln!(out, "{mode:o}\t{path}")?;
        }
    }
    out.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn folders_open_again_as_found_when_the_last_grader_ends() {
        let state = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir(&a).unwrap();
        std::fs::create_dir(&b).unwrap();
        std::fs::set_permissions(&a, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&b, std::fs::Permissions::from_mode(0o1777)).unwrap();
        let first = close_to_others(state.path(), &[&a]).unwrap();
        assert_eq!(mode(&a), 0o750);
        // A second grader, started meanwhile, finds `a` closed but keeps its first mode.
        let second = close_to_others(state.path(), &[&a, &b]).unwrap();
        assert_eq!(mode(&b), 0o1770);
        drop(first);
        assert_eq!(
            (mode(&a), mode(&b)),
            (0o750, 0o1770),
            "the second still grades"
        );
        drop(second);
        assert_eq!((mode(&a), mode(&b)), (0o755, 0o1777));
        // Nothing is left to restore, and the next grader starts afresh.
        let third = close_to_others(state.path(), &[&a]).unwrap();
        assert_eq!(mode(&a), 0o750);
        drop(third);
        assert_eq!(mode(&a), 0o755);
    }
}
