//! The handout's own copy of the course files a grade compares with `checks.sha256` (and of the
//! manifest itself), under [`DIR`]: `dist` writes it, and `cargo xtask reset --course-files` puts
//! those files back from it, in a handout that has no git history. No student command writes
//! `checks.sha256` (`manifest` is the instructors'), so a grade stays unofficial until they are
//! back.

use crate::course::{Course, manifest, stubs};
use crate::fsutil::{self, relative};
use anyhow::{Context as _, Result, bail};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The folder, at a handout's root, of the handed-out course files.
pub const DIR: &str = ".pristine";

/// How a student gets the handed-out course files back, where they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restore {
    /// A handout with its [`DIR`]: `cargo xtask reset --course-files`.
    Reset,
    /// A git checkout without one (the course repository).
    Git,
    /// Neither: only a fresh copy of the handout has them.
    FreshCopy,
}

impl Restore {
    /// Which way works in the course at `root`.
    pub fn at(root: &Path) -> Restore {
        if root.join(DIR).join(manifest::FILE).is_file() {
            Restore::Reset
        } else if root.join(".git").exists() {
            Restore::Git
        } else {
            Restore::FreshCopy
        }
    }

    /// The advice under the list of changed files.
    pub fn text(self) -> &'static str {
        match self {
            Restore::Reset => {
                "Put the handed-out copies back with `cargo xtask reset --course-files` (your \
                 exercises are not touched) for an official grade."
            }
            Restore::Git => "Restore them (`git checkout -- <file>`) for an official grade.",
            Restore::FreshCopy => {
                "Copy them from a fresh copy of the handout for an official grade."
            }
        }
    }
}

/// Copies the manifest and every file it lists from the course at `root` into `root/`[`DIR`].
pub fn write(root: &Path, course: &Course) -> Result<()> {
    let mut files = manifest::tracked_files(root, course);
    files.push(manifest::FILE.to_owned());
    fsutil::copy_files(root, &root.join(DIR), &files)
}

/// What [`restore`] would change: `(path, its handed-out bytes)`, `None` for a file the handout
/// did not have (to remove).
type Change = (String, Option<Vec<u8>>);

/// The course files of `root` that differ from the handed-out copies.
fn changes(root: &Path, course: &Course) -> Result<Vec<Change>> {
    let pristine = root.join(DIR);
    if !pristine.join(manifest::FILE).is_file() {
        bail!(
            "this copy of the course has no handed-out copies of its course files ({DIR}/, which \
             `cargo xtask dist` writes into every handout)\n  help: copy the files a grade names \
             as changed from a fresh copy of the handout (in a git clone: `git checkout -- \
             <file>`)"
        );
    }
    let shipped = fsutil::files_under(&pristine, &pristine, &|_, _| false);
    let mut out = Vec::new();
    for rel in &shipped {
        let want = std::fs::read(pristine.join(rel))
            .with_context(|| format!("cannot read {DIR}/{rel}"))?;
        if std::fs::read(root.join(rel)).ok().as_ref() != Some(&want) {
            out.push((rel.clone(), Some(want)));
        }
    }
    let shipped: BTreeSet<&String> = shipped.iter().collect();
    for rel in manifest::tracked_files(root, course) {
        if !shipped.contains(&rel) {
            out.push((rel, None));
        }
    }
    Ok(out)
}

/// Puts back the handed-out course files of the course at `root`, asking first unless `yes`
/// (see [`stubs::confirm`]); each file replaced or removed is first kept under
/// `target/xtask/backups/course-files-<time>/`. Returns the exit code: 0 when done (or nothing
/// differed), 1 when declined.
pub fn restore(root: &Path, course: &Course, yes: bool) -> Result<u8> {
    let changes = changes(root, course)?;
    if changes.is_empty() {
        println!("The course files are the handed-out ones; nothing changed.");
        return Ok(0);
    }
    let backups = backup_dir(root);
    let backups_rel = relative(root, &backups);
    if !yes {
        let question = format!(
            "Put back {} course file(s) ({})? Your versions are kept in {backups_rel}/.",
            changes.len(),
            names(&changes)
        );
        if !stubs::confirm(&question)? {
            println!("Nothing changed.");
            return Ok(1);
        }
    }
    for (rel, want) in &changes {
        let path = root.join(rel);
        if path.is_file() {
            fsutil::copy_files(root, &backups, std::slice::from_ref(rel))?;
        }
        match want {
            Some(bytes) => {
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir)
                        .with_context(|| format!("cannot create {}", dir.display()))?;
                }
                std::fs::write(&path, bytes).with_context(|| format!("cannot write {rel}"))?;
                println!("  put back {rel}");
            }
            None => {
                std::fs::remove_file(&path).with_context(|| format!("cannot remove {rel}"))?;
                println!("  removed  {rel} (not in the handout)");
            }
        }
    }
    println!(
        "Put back {} course file(s) from {DIR}/; your versions: {backups_rel}/",
        changes.len()
    );
    Ok(0)
}

/// The changed files' names, for the question (the first few).
fn names(changes: &[Change]) -> String {
    let mut shown: Vec<&str> = changes.iter().take(3).map(|(r, _)| r.as_str()).collect();
    let more = changes.len().saturating_sub(shown.len());
    let more = format!("and {more} more");
    if changes.len() > 3 {
        shown.push(&more);
    }
    shown.join(", ")
}

/// A fresh `target/xtask/backups/course-files-<time>` folder.
fn backup_dir(root: &Path) -> PathBuf {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let dir = root.join("target").join("xtask").join("backups");
    let base = format!("course-files-{}", stubs::utc_stamp(secs));
    let mut path = dir.join(&base);
    let mut n = 2;
    while path.exists() {
        path = dir.join(format!("{base}-{n}"));
        n += 1;
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A handout of one lesson in a temporary folder: course file, checks, a snapshot, the
    /// manifest and the handed-out copies.
    fn handout() -> (tempfile::TempDir, Course) {
        let course: Course = toml::from_str(
            "[course]\ntitle = \"t\"\n\
             [[lessons]]\nid = \"lesson01\"\ndir = \"lesson01-a\"\ntitle = \"a\"\n",
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("course.toml"), "# course").unwrap();
        let tests = root.join("exercises/lesson01-a/tests");
        std::fs::create_dir_all(tests.join("snapshots")).unwrap();
        std::fs::write(tests.join("checks.rs"), "// checks").unwrap();
        std::fs::write(tests.join("snapshots/a.snap"), "a").unwrap();
        std::fs::write(root.join(manifest::FILE), manifest::generate(root, &course)).unwrap();
        write(root, &course).unwrap();
        (dir, course)
    }

    /// The student's commands cannot silence the grade's check: only putting the files back makes
    /// it official again, and `reset --course-files` does, keeping what it replaces.
    #[test]
    fn reset_puts_back_every_changed_course_file_and_keeps_the_students() {
        let (dir, course) = handout();
        let root = dir.path();
        assert_eq!(Restore::at(root), Restore::Reset);
        assert_eq!(restore(root, &course, true).unwrap(), 0);
        assert!(!root.join("target").exists(), "nothing to back up");

        let snap = "exercises/lesson01-a/tests/snapshots/a.snap";
        let added = "exercises/lesson01-a/tests/snapshots/b.snap";
        let checks = "exercises/lesson01-a/tests/checks.rs";
        std::fs::write(root.join(snap), "edited").unwrap();
        std::fs::write(root.join(added), "mine").unwrap();
        std::fs::remove_file(root.join(checks)).unwrap();
        std::fs::write(root.join(manifest::FILE), manifest::generate(root, &course)).unwrap();
        // A regenerated manifest hides nothing from a reset.
        assert!(manifest::differences(root, &course).is_empty());
        assert_eq!(restore(root, &course, true).unwrap(), 0);
        assert!(manifest::differences(root, &course).is_empty());
        assert_eq!(std::fs::read_to_string(root.join(snap)).unwrap(), "a");
        assert_eq!(
            std::fs::read_to_string(root.join(checks)).unwrap(),
            "// checks"
        );
        assert!(!root.join(added).exists());
        assert_eq!(
            std::fs::read_to_string(root.join(manifest::FILE)).unwrap(),
            std::fs::read_to_string(root.join(DIR).join(manifest::FILE)).unwrap()
        );
        // The student's versions are kept.
        let backups = root.join("target/xtask/backups");
        let kept: Vec<_> = std::fs::read_dir(&backups).unwrap().flatten().collect();
        assert_eq!(kept.len(), 1);
        let kept = kept[0].path();
        assert_eq!(std::fs::read_to_string(kept.join(snap)).unwrap(), "edited");
        assert_eq!(std::fs::read_to_string(kept.join(added)).unwrap(), "mine");
        // Without a terminal to ask on, nothing changes without --yes.
        std::fs::write(root.join(snap), "again").unwrap();
        assert!(restore(root, &course, false).is_err());
        assert_eq!(std::fs::read_to_string(root.join(snap)).unwrap(), "again");
    }

    #[test]
    fn the_advice_is_the_one_that_works_where_the_grade_runs() {
        let (dir, course) = handout();
        let root = dir.path();
        assert!(
            Restore::Reset
                .text()
                .contains("`cargo xtask reset --course-files`")
        );
        std::fs::remove_dir_all(root.join(DIR)).unwrap();
        assert_eq!(Restore::at(root), Restore::FreshCopy);
        assert!(!Restore::FreshCopy.text().contains("git"));
        let err = format!("{:#}", restore(root, &course, true).unwrap_err());
        assert!(err.contains("fresh copy of the handout"), "{err}");
        std::fs::create_dir(root.join(".git")).unwrap();
        assert_eq!(Restore::at(root), Restore::Git);
        assert!(Restore::Git.text().contains("git checkout"));
    }
}
