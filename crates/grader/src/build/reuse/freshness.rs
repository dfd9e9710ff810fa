//! Skips `cargo build` (and listing the checks) in local grading when nothing it reads changed:
//! cargo's own no-op build is a large part of a warm grade. The record (`<target>/xtask/fresh-*.json`)
//! keeps the inputs' hash (see [`crate::build::content`]), the executables' identities and tests.

use crate::build::content::{hash_tree, hash_workspace};
use crate::build::output::{BuildOutput, Built, CheckBinary, identity};
use crate::course::manifest::hex;
use crate::course::{CheckId, Lesson, Side};
use hmac_sha256::Hash as Sha256;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// The inputs of one build, hashed, and where their record is kept.
#[derive(Debug)]
pub struct Stamp {
    file: PathBuf,
    inputs: String,
}

/// A kept build: the check executables and their tests.
#[derive(Debug, Serialize, Deserialize)]
struct Record {
    inputs: String,
    /// Per lesson id: `(executable, hidden)`.
    lessons: BTreeMap<String, Vec<(PathBuf, bool)>>,
    warnings: BTreeMap<String, Vec<String>>,
    /// Per executable: its size, its modification time (ns) and its test names.
    executables: BTreeMap<PathBuf, Listing>,
    /// Per executable: the files it was before, most recent first (at most
    /// [`EARLIER_LISTINGS`]), with their tests. An edit undone takes back a kept build (see
    /// [`super::kept`]), whose executables are the files listed two grades ago.
    #[serde(default)]
    earlier: BTreeMap<PathBuf, Vec<Listing>>,
}

/// An executable's size and modification time (ns) when it was listed, and its test names.
type Listing = (u64, u128, Vec<CheckId>);

/// How many earlier files of each executable a record remembers the tests of: as many as the
/// other builds kept of each lesson.
const EARLIER_LISTINGS: usize = super::kept::KEEP - 1;

/// What a fresh build gives back: the build's output and each executable's tests.
pub type Fresh = (BuildOutput, HashMap<PathBuf, Vec<CheckId>>);

/// What the kept record says of a build.
pub enum Recorded {
    /// Its inputs are these and its executables untouched: the kept build, nothing to build.
    Fresh(Fresh),
    /// Something changed (or nothing is kept): build, then take the tests that are still known
    /// ([`Listed::unchanged`]).
    Stale(Listed),
}

/// The kept record's executables with their tests: per executable, the files it was (the last
/// one first), each with its size and modification time when listed.
#[derive(Debug, Default)]
pub struct Listed(BTreeMap<PathBuf, Vec<Listing>>);

impl Listed {
    /// The executables and earlier files of `record`.
    fn of(record: Record) -> Self {
        let mut listed: BTreeMap<PathBuf, Vec<Listing>> = BTreeMap::new();
        for (exe, listing) in record.executables {
            listed.entry(exe).or_default().push(listing);
        }
        for (exe, earlier) in record.earlier {
            listed.entry(exe).or_default().extend(earlier);
        }
        Self(listed)
    }

    /// The tests of each executable that is one of the files they were listed from. Called after
    /// the build, so that a build that rebuilt some lessons lists only theirs again: an executable
    /// rebuilt, or replaced by a link to another build under the same name, has another
    /// modification time, unless that build is one listed before (an edit undone).
    pub fn unchanged(self) -> HashMap<PathBuf, Vec<CheckId>> {
        self.0
            .into_iter()
            .filter_map(|(exe, listings)| {
                let now = identity(&exe)?;
                let (_, _, names) = listings
                    .into_iter()
                    .find(|(len, mtime, _)| (*len, *mtime) == now)?;
                Some((exe, names))
            })
            .collect()
    }
}

impl Stamp {
    /// Hashes the inputs of building `lessons` (their `side`) into `target_dir`, and
    /// names the record's file.
    pub fn new(root: &Path, lessons: &[&Lesson], side: Side, target_dir: Option<&Path>) -> Self {
        let mut key = Sha256::new();
        key.update(root.to_string_lossy().as_bytes());
        key.update(format!("{target_dir:?} {}", side.is_solutions()).as_bytes());
        for lesson in lessons {
            key.update(lesson.id.as_bytes());
            key.update([0]);
        }
        let key = hex(&key.finalize()[..8]);
        let mut inputs = Sha256::new();
        inputs.update(crate::build::content::DECISIONS.to_le_bytes());
        hash_workspace(root, &mut inputs);
        for dir in ["exercises", "solutions"] {
            hash_tree(root, &root.join(dir), &mut inputs);
        }
        // Kept in the folder cargo builds in, never in the course tree.
        let target = crate::course::layout::target_dir(root, target_dir);
        Stamp {
            file: target.join("xtask").join(format!(
                "fresh-{}-{key}.json",
                crate::course::layout::course_hash(root)
            )),
            inputs: hex(&inputs.finalize()),
        }
    }

    /// What the kept record says of a build with these inputs.
    pub fn load(&self) -> Recorded {
        let Some(record) = self.read() else {
            return Recorded::Stale(Listed::default());
        };
        let untouched = record
            .executables
            .iter()
            .all(|(exe, (len, mtime, _))| identity(exe) == Some((*len, *mtime)));
        if record.inputs != self.inputs || !untouched {
            return Recorded::Stale(Listed::of(record));
        }
        // Every executable is as recorded (just checked): its identity is the recorded one.
        let lessons = record
            .lessons
            .into_iter()
            .map(|(id, bins)| {
                let bins = bins
                    .into_iter()
                    .map(|(exe, hidden)| CheckBinary {
                        identity: record
                            .executables
                            .get(&exe)
                            .map(|(len, mtime, _)| (*len, *mtime)),
                        exe,
                        hidden,
                    })
                    .collect();
                (id, Built::Ok(bins))
            })
            .collect();
        let tests = record
            .executables
            .into_iter()
            .map(|(exe, (_, _, names))| (exe, names))
            .collect();
        let output = BuildOutput {
            lessons,
            warnings: record.warnings.into_iter().collect(),
            errors: HashMap::new(),
            private: None,
        };
        Recorded::Fresh((output, tests))
    }

    /// The kept record, if any.
    fn read(&self) -> Option<Record> {
        let text = std::fs::read_to_string(&self.file).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Keeps a build with each executable's tests, to be reused when every lesson compiled; a
    /// build in which one did not is kept as never fresh, for the tests of the executables it
    /// still knows. Each executable's earlier files (from the record this one replaces) are
    /// remembered with their tests. Any failure to write just leaves no record.
    pub fn keep(&self, output: &BuildOutput, tests: &HashMap<PathBuf, Vec<CheckId>>) {
        let before = self.read().map(Listed::of).unwrap_or_default();
        let mut record = Record {
            inputs: self.inputs.clone(),
            lessons: BTreeMap::new(),
            warnings: output
                .warnings
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            executables: BTreeMap::new(),
            earlier: BTreeMap::new(),
        };
        for (id, built) in &output.lessons {
            let Built::Ok(bins) = built else {
                // Never fresh (no digest is empty).
                record.inputs.clear();
                continue;
            };
            for bin in bins {
                // The identity taken under the build lock: a build of another copy of the course
                // into the same folder since then changes it, and the record is not reused.
                let (Some(id), Some(names)) = (bin.identity, tests.get(&bin.exe)) else {
                    record.inputs.clear();
                    continue;
                };
                record
                    .executables
                    .insert(bin.exe.clone(), (id.0, id.1, names.clone()));
            }
            record.lessons.insert(
                id.clone(),
                bins.iter().map(|b| (b.exe.clone(), b.hidden)).collect(),
            );
        }
        // What each executable was before: the files of the record before this one, other than
        // the one it is now (a lesson that failed to compile keeps all of them); an executable
        // that is gone is forgotten.
        for (exe, listings) in before.0 {
            if identity(&exe).is_none() {
                continue;
            }
            let now = record
                .executables
                .get(&exe)
                .map(|(len, mtime, _)| (*len, *mtime));
            let earlier: Vec<Listing> = listings
                .into_iter()
                .filter(|(len, mtime, _)| Some((*len, *mtime)) != now)
                .take(EARLIER_LISTINGS)
                .collect();
            if !earlier.is_empty() {
                record.earlier.insert(exe, earlier);
            }
        }
        if let Some(dir) = self.file.parent()
            && std::fs::create_dir_all(dir).is_ok()
            && let Ok(text) = serde_json::to_string(&record)
        {
            let _ = crate::fsutil::replace(&self.file, text.as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_configuration_above_the_course_is_an_input() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("course");
        std::fs::create_dir_all(root.join("crates")).unwrap();
        std::fs::write(root.join("Cargo.toml"), "[workspace]").unwrap();
        let inputs = || {
            let mut hasher = Sha256::new();
            hash_workspace(&root, &mut hasher);
            hex(&hasher.finalize())
        };
        let before = inputs();
        assert_eq!(inputs(), before);
        std::fs::create_dir_all(outer.path().join(".cargo")).unwrap();
        let config = outer.path().join(".cargo/config.toml");
        std::fs::write(&config, "[profile.dev]\noverflow-checks = false\n").unwrap();
        let configured = inputs();
        assert_ne!(configured, before);
        std::fs::write(&config, "[profile.dev]\noverflow-checks = true\n").unwrap();
        assert_ne!(inputs(), configured);
        std::fs::remove_file(&config).unwrap();
        std::fs::write(outer.path().join("rust-toolchain.toml"), "[toolchain]").unwrap();
        assert_ne!(inputs(), before);
    }

    /// A course of one lesson (`lesson01`, in `exercises/l`) at `root`, with one source file.
    fn one_lesson_course(root: &Path) -> crate::course::Course {
        std::fs::create_dir_all(root.join("exercises/l/src")).unwrap();
        std::fs::write(root.join("Cargo.toml"), "[workspace]").unwrap();
        std::fs::write(root.join("exercises/l/src/lib.rs"), "pub fn f() {}").unwrap();
        toml::from_str(
            "[course]\ntitle = \"t\"\n[[lessons]]\nid = \"lesson01\"\ndir = \"l\"\ntitle = \"t\"\n",
        )
        .unwrap()
    }

    #[test]
    fn a_kept_build_is_reused_only_while_inputs_and_executables_are_unchanged() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        let course = one_lesson_course(root);
        let exe = root.join("check-bin");
        std::fs::write(&exe, "binary").unwrap();
        let lessons: Vec<&Lesson> = course.lessons.iter().collect();
        let stamp = || Stamp::new(root, &lessons, Side::Exercises, None);
        // The executable as built now.
        let built = || {
            Built::Ok(vec![CheckBinary {
                exe: exe.clone(),
                hidden: false,
                identity: identity(&exe),
            }])
        };
        let mut output = BuildOutput::default();
        output.lessons.insert("lesson01".into(), built());
        let tests: HashMap<PathBuf, Vec<CheckId>> =
            [(exe.clone(), vec![CheckId::new("checks::a")])].into();
        let fresh = || match stamp().load() {
            Recorded::Fresh(fresh) => Some(fresh),
            Recorded::Stale(_) => None,
        };
        let still_listed = || match stamp().load() {
            Recorded::Fresh(_) => panic!("fresh"),
            Recorded::Stale(listed) => listed.unchanged(),
        };
        assert!(fresh().is_none());
        stamp().keep(&output, &tests);
        let (again, listed) = fresh().expect("nothing changed");
        assert!(matches!(&again.lessons["lesson01"], Built::Ok(b) if b[0].exe == exe));
        assert_eq!(listed[&exe], [CheckId::new("checks::a")]);
        // A changed source: rebuild; the executable's tests are still known while it is the
        // same file, judged after the build, which may replace it under the same name.
        std::fs::write(root.join("exercises/l/src/lib.rs"), "pub fn g() {}").unwrap();
        assert!(fresh().is_none());
        assert_eq!(still_listed()[&exe], [CheckId::new("checks::a")]);
        let Recorded::Stale(before_build) = stamp().load() else {
            panic!("fresh")
        };
        std::fs::remove_file(&exe).unwrap();
        std::fs::write(&exe, "rebuilt binary").unwrap();
        assert!(before_build.unchanged().is_empty());
        std::fs::write(&exe, "binary").unwrap();
        output.lessons.insert("lesson01".into(), built());
        stamp().keep(&output, &tests);
        assert!(fresh().is_some());
        // A target folder is not an input.
        std::fs::create_dir_all(root.join("exercises/l/target")).unwrap();
        std::fs::write(root.join("exercises/l/target/x"), "x").unwrap();
        assert!(fresh().is_some());
        // A rebuilt or removed executable: rebuild, and list it again.
        std::fs::write(&exe, "other binary").unwrap();
        assert!(fresh().is_none());
        assert!(still_listed().is_empty());
        // An executable rebuilt after the build (by another copy of the course sharing the
        // target folder) is not kept either.
        stamp().keep(&output, &tests);
        assert!(fresh().is_none());
        // A build where a lesson failed is not kept.
        output
            .lessons
            .insert("lesson01".into(), Built::Failed("error".into()));
        stamp().keep(&output, &tests);
        assert!(fresh().is_none());
    }

    /// An edit undone: the lesson's executable is again the file listed two builds ago (a kept
    /// build, linked back under the same name), whose tests the record still knows, also after a
    /// build that failed in between; a file older than the last [`EARLIER_LISTINGS`] builds is
    /// listed again.
    #[test]
    fn the_files_an_executable_was_in_the_last_builds_keep_their_tests() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        let course = one_lesson_course(root);
        let lessons: Vec<&Lesson> = course.lessons.iter().collect();
        let stamp = || Stamp::new(root, &lessons, Side::Exercises, None);
        let (exe, kept) = (root.join("check-bin"), root.join("kept"));
        std::fs::create_dir_all(&kept).unwrap();
        // Builds the executable anew with `bytes` (keeping a link to it as `kept/<bytes>`) and
        // records the build with `names` as its tests.
        let build = |bytes: &str, names: &[&str]| {
            let _ = std::fs::remove_file(&exe);
            std::fs::write(&exe, bytes).unwrap();
            std::fs::hard_link(&exe, kept.join(bytes)).unwrap();
            let mut output = BuildOutput::default();
            let bin = CheckBinary {
                exe: exe.clone(),
                hidden: false,
                identity: identity(&exe),
            };
            output
                .lessons
                .insert("lesson01".into(), Built::Ok(vec![bin]));
            let names = names.iter().map(|n| CheckId::new(*n)).collect();
            stamp().keep(&output, &[(exe.clone(), names)].into());
        };
        // Takes back the kept build `bytes`: the tests known of the executable then.
        let take_back = |bytes: &str| {
            std::fs::remove_file(&exe).unwrap();
            std::fs::hard_link(kept.join(bytes), &exe).unwrap();
            match stamp().load() {
                Recorded::Fresh((_, mut tests)) => tests.remove(&exe),
                Recorded::Stale(listed) => listed.unchanged().remove(&exe),
            }
            .map(|ids| {
                ids.iter()
                    .map(|id| id.full().to_owned())
                    .collect::<Vec<_>>()
            })
        };
        build("first", &["checks::a"]);
        build("edited", &["checks::a", "checks::b"]);
        assert_eq!(take_back("first").unwrap(), ["checks::a"]);
        // (The file of the last build: a fresh record.)
        assert_eq!(take_back("edited").unwrap(), ["checks::a", "checks::b"]);
        // A build that failed keeps what the executable was.
        let mut failed = BuildOutput::default();
        failed
            .lessons
            .insert("lesson01".into(), Built::Failed("error".into()));
        stamp().keep(&failed, &HashMap::new());
        assert_eq!(take_back("first").unwrap(), ["checks::a"]);
        // Two more builds: "first" is no longer remembered.
        build("second", &["checks::c"]);
        build("third", &["checks::d"]);
        assert_eq!(take_back("second").unwrap(), ["checks::c"]);
        assert_eq!(take_back("first"), None);
    }
}
