//! Local builds keep hard links to each lesson's last [`KEEP`] builds (`<target>/xtask/kept/`), keyed
//! by content: copies of the course sharing a target folder build every lesson under the same
//! names, so without them one copy's build replaces another's and an undone edit rebuilds. The key
//! names the side, the lesson, its inputs' digest and everything else a build reads, never the
//! course's path (a check's report does not depend on it).

use crate::build::content::{hash_file, hash_workspace};
use crate::build::output::{Built, CheckBinary, identity};
use crate::course::{Lesson, Side};
use hmac_sha256::Hash as Sha256;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// How many builds of one package are kept: the current one, and two more (the copy graded
/// before, an edit undone).
pub const KEEP: usize = 3;

/// The kept builds of one target folder, for builds of the course at one root and side.
#[derive(Debug)]
pub struct KeptBuilds {
    dir: PathBuf,
    side: Side,
    /// The digest of everything a lesson's build reads outside its two crates.
    workspace: String,
}

/// One kept build, as written in its folder's `record.json`.
#[derive(Debug, Serialize, Deserialize)]
struct Record {
    /// Per executable: its file name in the folder, whether it holds the hidden checks, its size
    /// and its modification time (ns).
    executables: Vec<(String, bool, u64, u128)>,
    warnings: Vec<String>,
}

const RECORD: &str = "record.json";

impl KeptBuilds {
    /// The kept builds in `target` of the course at `root` (its `side`).
    pub fn new(target: &Path, root: &Path, side: Side) -> Self {
        let mut hasher = Sha256::new();
        hash_workspace(root, &mut hasher);
        // Every lesson's manifest: a member's features and dependencies reach the others' build.
        for side in ["exercises", "solutions"] {
            let mut manifests: Vec<PathBuf> = std::fs::read_dir(root.join(side))
                .into_iter()
                .flatten()
                .flatten()
                .map(|entry| entry.path().join("Cargo.toml"))
                .collect();
            manifests.sort();
            for manifest in manifests {
                hash_file(root, &manifest, &mut hasher);
            }
        }
        Self {
            dir: target.join("xtask").join("kept"),
            side,
            workspace: crate::course::manifest::hex(&hasher.finalize()),
        }
    }

    /// The key of `lesson`'s build from files whose digest is `inputs` (see
    /// [`crate::build::content::Inputs`]), by this grader's decisions ([`crate::build::content::DECISIONS`]).
    pub fn key(&self, lesson: &Lesson, inputs: &str) -> String {
        let text = format!(
            "{}\n{}\n{inputs}\n{}\n{}\n",
            lesson.package(self.side),
            lesson.id,
            self.workspace,
            crate::build::content::DECISIONS
        );
        crate::course::manifest::sha256_hex(text.as_bytes())[..32].to_owned()
    }

    fn entry(&self, lesson: &Lesson, key: &str) -> PathBuf {
        self.dir.join(lesson.package(self.side)).join(key)
    }

    /// The check executables and warnings kept under `key` for `lesson`, when every executable is
    /// as it was kept; a kept build that changed is removed. A build taken counts as just used.
    pub fn take(&self, lesson: &Lesson, key: &str) -> Option<(Vec<CheckBinary>, Vec<String>)> {
        let entry = self.entry(lesson, key);
        let record: Record =
            serde_json::from_str(&std::fs::read_to_string(entry.join(RECORD)).ok()?).ok()?;
        let mut bins = Vec::new();
        for (name, hidden, len, mtime) in record.executables {
            let exe = entry.join(&name);
            let identity = identity(&exe);
            // A plain name, the file as it was kept.
            if Path::new(&name).file_name() != Some(name.as_ref()) || identity != Some((len, mtime))
            {
                let _ = std::fs::remove_dir_all(&entry);
                return None;
            }
            bins.push(CheckBinary {
                exe,
                hidden,
                identity,
            });
        }
        if bins.is_empty() {
            return None;
        }
        touch(&entry.join(RECORD));
        Some((bins, record.warnings))
    }

    /// Keeps hard links to `bins`, the executables `lesson` was just built into, with its
    /// `warnings`, under `key`, and removes the package's least recently used builds beyond
    /// [`KEEP`]. Nothing is kept where an executable cannot be linked (a file system without hard
    /// links); nothing fails the build.
    pub fn keep(&self, lesson: &Lesson, key: &str, bins: &[CheckBinary], warnings: &[String]) {
        let entry = self.entry(lesson, key);
        if entry.join(RECORD).exists() {
            touch(&entry.join(RECORD));
            return;
        }
        let Some(package) = entry.parent() else {
            return;
        };
        let partial = package.join(format!(".new-{key}"));
        let _ = std::fs::remove_dir_all(&partial);
        let mut record = Record {
            executables: Vec::new(),
            warnings: warnings.to_vec(),
        };
        let linked = std::fs::create_dir_all(&partial).is_ok()
            && bins.iter().all(|bin| {
                let Some(name) = bin.exe.file_name() else {
                    return false;
                };
                let link = partial.join(name);
                let identity = std::fs::hard_link(&bin.exe, &link)
                    .ok()
                    .and_then(|()| identity(&link));
                match identity {
                    Some((len, mtime)) => {
                        let name = name.to_string_lossy().into_owned();
                        record.executables.push((name, bin.hidden, len, mtime));
                        true
                    }
                    None => false,
                }
            });
        let written = linked
            && serde_json::to_string(&record)
                .ok()
                .is_some_and(|text| std::fs::write(partial.join(RECORD), text).is_ok())
            && std::fs::rename(&partial, &entry).is_ok();
        if !written {
            let _ = std::fs::remove_dir_all(&partial);
            return;
        }
        evict(package, KEEP);
    }
}

/// Marks a kept build as just used.
fn touch(record: &Path) {
    let _ = std::fs::File::options()
        .write(true)
        .open(record)
        .and_then(|f| f.set_modified(std::time::SystemTime::now()));
}

/// Removes the kept builds of `package` (a folder of kept builds) beyond the `keep` most recently
/// used, and any left half-written.
fn evict(package: &Path, keep: usize) {
    let mut builds: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(package).into_iter().flatten().flatten() {
        let path = entry.path();
        let used = std::fs::metadata(path.join(RECORD)).and_then(|m| m.modified());
        match used {
            Ok(used) => builds.push((used, path)),
            Err(_) => {
                let _ = std::fs::remove_dir_all(&path);
            }
        }
    }
    builds.sort_by_key(|build| std::cmp::Reverse(build.0));
    for (_, path) in builds.into_iter().skip(keep) {
        let _ = std::fs::remove_dir_all(path);
    }
}

/// The folder of `target` where local builds of the course at `root` (its exercises, or its
/// side) keep their own links to their check executables: one per course copy and side.
fn local_checks_dir(target: &Path, root: &Path, side: Side) -> PathBuf {
    let side = if side.is_solutions() {
        "solutions"
    } else {
        "exercises"
    };
    let hash = crate::course::layout::course_hash(root);
    target.join("xtask").join(format!("checks-{side}-{hash}"))
}

/// Points every check executable of a local build of `root` at a link of its own in
/// [`local_checks_dir`], still under the build lock. A later build of another copy of the course
/// sharing the target folder (a shared `CARGO_TARGET_DIR`, the grader's tests) writes a new file
/// for the executable it rebuilds in `target/debug/deps` (the linker renames a new file over the
/// old one), so the link still names this build's file while its checks run after the lock is
/// released, and the next warm grade ([`super::freshness`]) finds it unchanged. Where a link
/// cannot be made the executable is copied; where neither works it runs from where cargo put it.
///
/// Folders of course copies that no longer exist (a deleted clone, a test's scratch copy) are
/// removed here too: their links are the last names of old executables.
pub(crate) fn link_executables(
    built: &mut HashMap<String, Built>,
    target: &Path,
    root: &Path,
    side: Side,
) {
    let dir = local_checks_dir(target, root, side);
    prune_checks_dirs(&target.join("xtask"), &dir);
    let key = crate::course::layout::course_key(root);
    // Replaced whole: another copy's prune reads it (an empty one would mean "gone").
    let root_file = dir.join(".root");
    if std::fs::create_dir_all(&dir).is_err()
        || crate::fsutil::replace(&root_file, key.as_bytes()).is_err()
    {
        return;
    }
    for bins in built.values_mut() {
        let Built::Ok(bins) = bins else { continue };
        for bin in bins {
            let Some(name) = bin.exe.file_name() else {
                continue;
            };
            let link = dir.join(name);
            let new = dir.join(format!(".new-{}", name.to_string_lossy()));
            let _ = std::fs::remove_file(&new);
            let made = std::fs::hard_link(&bin.exe, &new)
                .or_else(|_| std::fs::copy(&bin.exe, &new).map(drop))
                .and_then(|()| std::fs::rename(&new, &link));
            // Renaming a link over another link of the same file leaves both names.
            let _ = std::fs::remove_file(&new);
            if made.is_ok() {
                bin.identity = identity(&link);
                bin.exe = link;
            }
        }
    }
}

/// Removes the `checks-<side>-<course hash>` folders of `xtask_dir` (but `keep`) whose course copy
/// is gone, with that copy's freshness records (`fresh-<course hash>-*.json`, see
/// [`super::freshness`]) and records named the way earlier versions named them (`fresh-<key>.json`,
/// never read again).
fn prune_checks_dirs(xtask_dir: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(xtask_dir) else {
        return;
    };
    let mut gone_courses = Vec::new();
    let mut records = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(rest) = name.strip_prefix("fresh-") {
            records.push((path, rest.to_owned()));
            continue;
        }
        if path == keep || !name.starts_with("checks-") {
            continue;
        }
        let gone = std::fs::read_to_string(path.join(".root"))
            .map_or(true, |root| !Path::new(&root).exists());
        if gone {
            let _ = std::fs::remove_dir_all(&path);
            if let Some((_, hash)) = name.rsplit_once('-') {
                gone_courses.push(format!("{hash}-"));
            }
        }
    }
    for (path, rest) in records {
        let old_name = !rest.trim_end_matches(".json").contains('-');
        if old_name || gone_courses.iter().any(|c| rest.starts_with(c.as_str())) {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn course() -> crate::course::Course {
        toml::from_str(
            "[course]\ntitle = \"t\"\n[[lessons]]\nid = \"lesson01\"\ndir = \"lesson01-l\"\n\
             title = \"t\"\n[[lessons]]\nid = \"lesson02\"\ndir = \"lesson02-m\"\ntitle = \"t\"\n",
        )
        .unwrap()
    }

    /// A course at `root` with one file under `crates/` and a manifest per lesson crate.
    fn write_course(root: &Path) {
        for dir in [
            "crates/core/src",
            "exercises/lesson01-l",
            "solutions/lesson01-l",
        ] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        std::fs::write(root.join("Cargo.toml"), "[workspace]").unwrap();
        std::fs::write(root.join("crates/core/src/lib.rs"), "pub fn f() {}").unwrap();
        std::fs::write(root.join("exercises/lesson01-l/Cargo.toml"), "[package]").unwrap();
        std::fs::write(root.join("solutions/lesson01-l/Cargo.toml"), "[package]").unwrap();
    }

    fn bin(dir: &Path, name: &str, hidden: bool, bytes: &str) -> CheckBinary {
        let exe = dir.join(name);
        std::fs::write(&exe, bytes).unwrap();
        CheckBinary {
            identity: identity(&exe),
            exe,
            hidden,
        }
    }

    #[test]
    fn keys_name_the_side_the_lesson_its_files_and_the_rest_of_the_course_not_its_path() {
        let (a, b, target) = (
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
        );
        write_course(a.path());
        write_course(b.path());
        let course = course();
        let (l1, l2) = (&course.lessons[0], &course.lessons[1]);
        let key = |root: &Path, solutions: bool, lesson: &Lesson, inputs: &str| {
            KeptBuilds::new(target.path(), root, Side::from_solutions(solutions))
                .key(lesson, inputs)
        };
        let base = key(a.path(), false, l1, "d1");
        // Another copy of the same course: the same key.
        assert_eq!(key(b.path(), false, l1, "d1"), base);
        assert_ne!(key(a.path(), true, l1, "d1"), base);
        assert_ne!(key(a.path(), false, l2, "d1"), base);
        assert_ne!(key(a.path(), false, l1, "d2"), base);
        // A change to the core, a lesson's manifest, the workspace's manifest: another key.
        for (file, text) in [
            ("crates/core/src/lib.rs", "pub fn g() {}"),
            ("solutions/lesson01-l/Cargo.toml", "[package]\n"),
            ("Cargo.toml", "[workspace]\n"),
        ] {
            let old = std::fs::read_to_string(b.path().join(file)).unwrap();
            std::fs::write(b.path().join(file), text).unwrap();
            assert_ne!(key(b.path(), false, l1, "d1"), base, "{file}");
            std::fs::write(b.path().join(file), old).unwrap();
        }
        assert_eq!(key(b.path(), false, l1, "d1"), base);
        // A lesson's sources are the digest's business, not the workspace's.
        std::fs::write(b.path().join("exercises/lesson01-l/lib.rs"), "x").unwrap();
        assert_eq!(key(b.path(), false, l1, "d1"), base);
    }

    /// A course, a target folder and a folder of built executables, each temporary.
    struct Fixture {
        root: tempfile::TempDir,
        target: tempfile::TempDir,
        built: tempfile::TempDir,
        course: crate::course::Course,
    }

    impl Fixture {
        fn new() -> Self {
            let fixture = Fixture {
                root: tempfile::tempdir().unwrap(),
                target: tempfile::tempdir().unwrap(),
                built: tempfile::tempdir().unwrap(),
                course: course(),
            };
            write_course(fixture.root.path());
            fixture
        }

        fn kept(&self) -> KeptBuilds {
            KeptBuilds::new(self.target.path(), self.root.path(), Side::Exercises)
        }
    }

    #[test]
    fn a_kept_build_is_taken_while_its_executables_are_unchanged() {
        let fixture = Fixture::new();
        let (target, built) = (&fixture.target, &fixture.built);
        let lesson = &fixture.course.lessons[0];
        let kept = fixture.kept();
        let key = kept.key(lesson, "d1");
        assert!(kept.take(lesson, &key).is_none());
        let bins = [
            bin(built.path(), "lesson01-aa", false, "visible"),
            bin(built.path(), "lesson99_hidden-bb", true, "hidden"),
        ];
        let warnings = vec!["warning: unused variable".to_owned()];
        kept.keep(lesson, &key, &bins, &warnings);
        let (taken, taken_warnings) = kept.take(lesson, &key).expect("kept");
        assert_eq!(taken_warnings, warnings);
        assert_eq!(taken.len(), 2);
        assert!(!taken[0].hidden && taken[1].hidden);
        assert_eq!(std::fs::read_to_string(&taken[1].exe).unwrap(), "hidden");
        assert!(taken[0].exe.starts_with(target.path()));
        // Cargo replaces its file with a new one: the kept link still names the old build.
        std::fs::remove_file(&bins[0].exe).unwrap();
        std::fs::write(&bins[0].exe, "rebuilt").unwrap();
        let (taken, _) = kept.take(lesson, &key).expect("still kept");
        assert_eq!(std::fs::read_to_string(&taken[0].exe).unwrap(), "visible");
        // A kept executable changed in place: the build is forgotten.
        std::fs::write(&taken[0].exe, "changed in place").unwrap();
        assert!(kept.take(lesson, &key).is_none());
        assert!(!taken[0].exe.exists());
    }

    #[test]
    fn at_most_keep_builds_per_package_the_least_recently_used_go() {
        let fixture = Fixture::new();
        let built = &fixture.built;
        let (l1, l2) = (&fixture.course.lessons[0], &fixture.course.lessons[1]);
        let kept = fixture.kept();
        let keys: Vec<String> = (0..=KEEP).map(|i| kept.key(l1, &format!("d{i}"))).collect();
        let other = kept.key(l2, "d0");
        kept.keep(
            l2,
            &other,
            &[bin(built.path(), "lesson02-0", false, "l2")],
            &[],
        );
        for (i, key) in keys.iter().enumerate() {
            let exe = bin(
                built.path(),
                &format!("lesson01-{i}"),
                false,
                &i.to_string(),
            );
            kept.keep(l1, key, &[exe], &[]);
            // The first build used again after every other: the second is the oldest.
            std::thread::sleep(std::time::Duration::from_millis(20));
            if i == 1 {
                assert!(kept.take(l1, &keys[0]).is_some());
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        }
        let kept_now: Vec<bool> = keys.iter().map(|k| kept.take(l1, k).is_some()).collect();
        let mut expected = vec![true; KEEP + 1];
        expected[1] = false;
        assert_eq!(kept_now, expected);
        // Another package's builds are its own.
        assert!(kept.take(l2, &other).is_some());
    }
}

#[cfg(test)]
mod link_tests {
    use super::*;

    #[test]
    fn local_builds_run_their_own_links_of_the_executables() {
        let target = tempfile::tempdir().unwrap();
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let deps = target.path().join("debug/deps");
        std::fs::create_dir_all(&deps).unwrap();
        let exe = deps.join("lesson02-0123");
        // The linker writes a new file and renames it over the old one.
        let link_new = |text: &str| {
            std::fs::write(deps.join("tmp"), text).unwrap();
            std::fs::rename(deps.join("tmp"), &exe).unwrap();
        };
        let built = || {
            HashMap::from([(
                "lesson02".to_owned(),
                Built::Ok(vec![CheckBinary {
                    exe: exe.clone(),
                    hidden: false,
                    identity: identity(&exe),
                }]),
            )])
        };
        let exe_of = |built: &HashMap<String, Built>| match &built["lesson02"] {
            Built::Ok(bins) => (bins[0].exe.clone(), bins[0].identity),
            Built::Failed(e) => panic!("{e}"),
        };
        link_new("copy a's checks");
        let mut of_a = built();
        link_executables(&mut of_a, target.path(), a.path(), Side::Exercises);
        let (a_exe, a_identity) = exe_of(&of_a);
        // Copy b rebuilds the lesson in the shared folder; copy a still runs its own build.
        link_new("copy b's checks, longer");
        let mut of_b = built();
        link_executables(&mut of_b, target.path(), b.path(), Side::Exercises);
        let (b_exe, _) = exe_of(&of_b);
        assert_ne!(a_exe, b_exe);
        assert_eq!(std::fs::read_to_string(&a_exe).unwrap(), "copy a's checks");
        assert_eq!(identity(&a_exe), a_identity);
        assert_eq!(
            std::fs::read_to_string(&b_exe).unwrap(),
            "copy b's checks, longer"
        );
        // The solutions of copy a keep links apart from its exercises.
        let mut solutions = built();
        link_executables(&mut solutions, target.path(), a.path(), Side::Solutions);
        assert_ne!(exe_of(&solutions).0, a_exe);
        // Linking the same build again leaves one name for it.
        let mut again = built();
        link_executables(&mut again, target.path(), b.path(), Side::Exercises);
        assert_eq!(exe_of(&again).0, b_exe);
        let names = crate::fsutil::files_under(
            b_exe.parent().unwrap(),
            b_exe.parent().unwrap(),
            &|_, _| false,
        );
        assert_eq!(names, [".root", "lesson02-0123"]);
        // A copy that is gone loses its folder and its freshness records at the next local build;
        // records of old versions' naming go too, the other copy's stay.
        let a_dir = a_exe.parent().unwrap().to_path_buf();
        let xtask = target.path().join("xtask");
        let record = |root: &Path, key: &str| {
            let hash = crate::course::layout::course_hash(root);
            let file = xtask.join(format!("fresh-{hash}-{key}.json"));
            std::fs::write(&file, "{}").unwrap();
            file
        };
        let (a_record, b_record) = (record(a.path(), "00aa"), record(b.path(), "00bb"));
        let old_record = xtask.join("fresh-0123456789abcdef.json");
        std::fs::write(&old_record, "{}").unwrap();
        drop(a);
        link_executables(&mut built(), target.path(), b.path(), Side::Exercises);
        assert!(!a_dir.exists());
        assert!(b_exe.exists());
        assert!(!a_record.exists() && !old_record.exists());
        assert!(b_record.exists());
    }
}
