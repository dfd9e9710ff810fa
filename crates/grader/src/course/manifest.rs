//! The checks manifest (`checks.sha256`, in `sha256sum` format): the SHA-256 of every
//! instructor-owned file a student could edit to change a grade (course file, checks, snapshots,
//! hidden checks) and of what official grading takes from the instructors' tree to build a lesson
//! ([`BUILD_FILES`]). A local grade that finds one changed is unofficial: official grading would
//! build without the change, and could fail where the local build passed.

use crate::course::Course;
use crate::fsutil::relative;
use anyhow::{Context as _, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use walkdir::WalkDir;

/// The manifest's file name at the course root.
pub const FILE: &str = "checks.sha256";

/// Adds the files under `dir` to `out`. Symbolic links to directories are not entered (a
/// `tests/loop -> .` link would list the folder again and again); a link to a file is listed and
/// hashed through the link, as cargo compiles it.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = WalkDir::new(dir)
        .min_depth(1)
        .follow_links(false)
        .into_iter()
        .filter_map(Result::ok);
    for entry in entries {
        let kind = entry.file_type();
        if kind.is_file() || (kind.is_symlink() && entry.path().is_file()) {
            out.push(entry.into_path());
        }
    }
}

/// The sources every check runs with: the protocol the grader reads and the checks' own support.
pub const CHECK_SUPPORT: &[&str] = &["crates/check-protocol/src", "crates/course-check/src"];

/// What else a lesson's build reads from the instructors' tree in official grading, which takes
/// only `exercises/*/src/**` from a submission: the workspace's manifest and build settings, the
/// core's sources, and the manifests of the crates the checks build on (files, or folders whose
/// files all count; each lesson's own `Cargo.toml` is added per lesson; a missing one is left
/// out). Not among them: `Cargo.lock` (adding a lesson rewrites it, and a dependency added to a
/// lesson shows in the lesson's `Cargo.toml`) and `rust-toolchain.toml` (which toolchain a
/// student's machine runs is rustup's choice there; official grading uses the instructors' file).
pub const BUILD_FILES: &[&str] = &[
    "Cargo.toml",
    ".cargo/config.toml",
    "crates/attention/Cargo.toml",
    "crates/attention/src",
    "crates/check-protocol/Cargo.toml",
    "crates/course-check/Cargo.toml",
    "crates/workspace-hack/Cargo.toml",
];

/// The instructor-owned files, relative to `root`, sorted.
pub fn tracked_files(root: &Path, course: &Course) -> Vec<String> {
    let mut files = vec![root.join("course.toml")];
    for dir in CHECK_SUPPORT {
        walk(&root.join(dir), &mut files);
    }
    for item in BUILD_FILES {
        let path = root.join(item);
        if path.is_dir() {
            walk(&path, &mut files);
        } else if path.is_file() {
            files.push(path);
        }
    }
    for lesson in &course.lessons {
        let manifest = lesson
            .crate_dir(root, crate::course::Side::Exercises)
            .join("Cargo.toml");
        if manifest.is_file() {
            files.push(manifest);
        }
        walk(
            &lesson
                .crate_dir(root, crate::course::Side::Exercises)
                .join("tests"),
            &mut files,
        );
        walk(&lesson.hidden_dir(root), &mut files);
    }
    let mut rel: Vec<String> = files
        .iter()
        .map(|f| relative(root, f))
        .filter(|f| !f.ends_with(".snap.new") && !f.ends_with(".pending-snap"))
        .collect();
    rel.sort();
    rel
}

fn digest(path: &Path) -> Option<String> {
    Some(sha256_hex(&std::fs::read(path).ok()?))
}

/// The SHA-256 of `bytes` in lower-case hex, as `sha256sum` prints it.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&hmac_sha256::Hash::hash(bytes))
}

/// `bytes` in lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The manifest text for the current tree.
pub fn generate(root: &Path, course: &Course) -> String {
    let mut out = String::new();
    for f in tracked_files(root, course) {
        if let Some(h) = digest(&root.join(&f)) {
            out.push_str(&format!("{h}  {f}\n"));
        }
    }
    out
}

/// Rewrites the entries of the manifest at `root` for the files under `prefixes` (paths relative
/// to `root` of folders, e.g. `exercises/lesson02-split-heads/tests`, or of files), and for
/// `course.toml`, keeping every other entry as it was. Writes the whole manifest when there is
/// none yet.
pub fn refresh(root: &Path, course: &Course, prefixes: &[String]) -> Result<()> {
    let path = root.join(FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(_) => {
            return std::fs::write(&path, generate(root, course))
                .with_context(|| format!("cannot write {FILE}"));
        }
    };
    let under = |f: &str| {
        f == "course.toml"
            || prefixes.iter().any(|p| {
                f.strip_prefix(p.as_str())
                    .is_some_and(|r| r.is_empty() || r.starts_with('/'))
            })
    };
    let mut entries = parse(&text);
    entries.retain(|f, _| !under(f));
    for (f, h) in parse(&generate(root, course)) {
        if under(&f) {
            entries.insert(f, h);
        }
    }
    let out: String = entries.iter().map(|(f, h)| format!("{h}  {f}\n")).collect();
    std::fs::write(&path, out).with_context(|| format!("cannot write {FILE}"))
}

/// The manifest prefixes of one lesson: its visible checks, its hidden checks and its exercise
/// crate's `Cargo.toml`.
pub fn lesson_prefixes(root: &Path, lesson: &crate::course::Lesson) -> Vec<String> {
    vec![
        relative(
            root,
            &lesson
                .crate_dir(root, crate::course::Side::Exercises)
                .join("tests"),
        ),
        relative(root, &lesson.hidden_dir(root)),
        relative(
            root,
            &lesson
                .crate_dir(root, crate::course::Side::Exercises)
                .join("Cargo.toml"),
        ),
    ]
}

/// Parses `sha256sum` lines into `path -> hash`.
pub fn parse(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|l| l.split_once("  "))
        .map(|(h, p)| (p.to_owned(), h.to_owned()))
        .collect()
}

/// The files that differ from the committed manifest: changed, missing, or added. `None` when
/// there is no manifest at all (reported as one entry).
pub fn differences(root: &Path, course: &Course) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(root.join(FILE)) else {
        return vec![format!("{FILE} (missing)")];
    };
    let expected = parse(&text);
    let actual = parse(&generate(root, course));
    let mut diffs = Vec::new();
    for (path, hash) in &expected {
        match actual.get(path) {
            None => diffs.push(format!("{path} (deleted)")),
            Some(h) if h != hash => diffs.push(format!("{path} (changed)")),
            Some(_) => {}
        }
    }
    for path in actual.keys() {
        if !expected.contains_key(path) {
            diffs.push(format!("{path} (added)"));
        }
    }
    diffs
}

/// SHA-256 over the student's sources, file by file (`<sha256>  <path>` lines, sorted), so the
/// graded sources can be matched with the submission later.
pub fn sources_digest(files: &[(String, Vec<u8>)]) -> String {
    let listing: String = files
        .iter()
        .map(|(rel, bytes)| format!("{}  {rel}\n", sha256_hex(bytes)))
        .collect();
    sha256_hex(listing.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sha256sum_lines() {
        let m = parse("abc  course.toml\ndef  exercises/x/tests/checks.rs\n");
        assert_eq!(m["course.toml"], "abc");
        assert_eq!(m.len(), 2);
    }

    /// `sha256sum` of a file holding the one byte `a`.
    const SHA256_A: &str = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb";

    /// A course of two lessons in a temporary folder: course file, checks and one snapshot each.
    fn two_lessons() -> (tempfile::TempDir, Course) {
        let course: Course = toml::from_str(
            "[course]\ntitle = \"t\"\n\
             [[lessons]]\nid = \"lesson01\"\ndir = \"lesson01-a\"\ntitle = \"a\"\n\
             [[lessons]]\nid = \"lesson02\"\ndir = \"lesson02-b\"\ntitle = \"b\"\n",
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("course.toml"), "").unwrap();
        for lesson in ["lesson01-a", "lesson02-b"] {
            let tests = dir.path().join("exercises").join(lesson).join("tests");
            std::fs::create_dir_all(tests.join("snapshots")).unwrap();
            std::fs::write(tests.join("checks.rs"), "// checks").unwrap();
            std::fs::write(tests.join("snapshots/a.snap"), "a").unwrap();
        }
        (dir, course)
    }

    #[test]
    fn every_change_to_a_tracked_file_is_found_and_refresh_takes_only_its_lesson() {
        let (dir, course) = two_lessons();
        let root = dir.path();
        let l1 = "exercises/lesson01-a/tests";
        let l2 = "exercises/lesson02-b/tests";
        // insta's pending files are not the instructors'.
        std::fs::write(root.join(l1).join("snapshots/b.snap.new"), "b").unwrap();
        std::fs::write(root.join(l1).join("snapshots/c.pending-snap"), "c").unwrap();
        assert_eq!(tracked_files(root, &course).len(), 5);
        assert_eq!(differences(root, &course), [format!("{FILE} (missing)")]);
        let text = generate(root, &course);
        // `sha256sum` lines: the hash of the one-byte file "a".
        assert!(text.contains(&format!("{SHA256_A}  {l1}/snapshots/a.snap\n")));
        std::fs::write(root.join(FILE), &text).unwrap();
        assert!(differences(root, &course).is_empty());

        std::fs::write(root.join(l1).join("checks.rs"), "// edited").unwrap();
        std::fs::remove_file(root.join(l2).join("snapshots/a.snap")).unwrap();
        std::fs::write(root.join(l2).join("snapshots/z.snap"), "z").unwrap();
        std::fs::write(root.join("course.toml"), "# edited").unwrap();
        let found = differences(root, &course);
        for want in [
            format!("{l1}/checks.rs (changed)"),
            format!("{l2}/snapshots/a.snap (deleted)"),
            format!("{l2}/snapshots/z.snap (added)"),
            "course.toml (changed)".to_owned(),
        ] {
            assert!(found.contains(&want), "{want} not in {found:?}");
        }
        assert_eq!(found.len(), 4, "{found:?}");

        // Refreshing lesson 1 takes its files and the course file, and leaves lesson 2's.
        let lesson = &course.lessons[0];
        assert_eq!(lesson_prefixes(root, lesson)[0], l1);
        refresh(root, &course, &lesson_prefixes(root, lesson)).unwrap();
        let mut left = differences(root, &course);
        left.sort();
        assert_eq!(
            left,
            [
                format!("{l2}/snapshots/a.snap (deleted)"),
                format!("{l2}/snapshots/z.snap (added)"),
            ]
        );
        // A prefix is a folder, not the start of a name.
        refresh(root, &course, &["exercises/lesson02".to_owned()]).unwrap();
        assert_eq!(differences(root, &course).len(), 2);
    }

    #[test]
    fn the_sources_digest_hashes_the_listing_of_each_files_hash() {
        let files = vec![("a.rs".to_owned(), b"a".to_vec())];
        let listing = format!("{SHA256_A}  a.rs\n");
        assert_eq!(sources_digest(&files), sha256_hex(listing.as_bytes()));
        let edited = vec![("a.rs".to_owned(), b"b".to_vec())];
        assert_ne!(sources_digest(&files), sources_digest(&edited));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_loop_is_not_followed() {
        let (dir, course) = two_lessons();
        let root = dir.path();
        let tests = root.join("exercises/lesson01-a/tests");
        std::os::unix::fs::symlink(".", tests.join("loop")).unwrap();
        std::os::unix::fs::symlink("..", tests.join("snapshots/up")).unwrap();
        std::os::unix::fs::symlink("checks.rs", tests.join("alias.rs")).unwrap();
        assert_eq!(
            tracked_files(root, &course),
            [
                "course.toml",
                "exercises/lesson01-a/tests/alias.rs",
                "exercises/lesson01-a/tests/checks.rs",
                "exercises/lesson01-a/tests/snapshots/a.snap",
                "exercises/lesson02-b/tests/checks.rs",
                "exercises/lesson02-b/tests/snapshots/a.snap",
            ]
        );
        assert_eq!(generate(root, &course).lines().count(), 6);
    }

    /// What official grading takes from the instructors' tree to build a lesson is tracked too:
    /// a lesson's `Cargo.toml` (a dependency added there), the core's sources (a function added
    /// to it), the workspace's manifest and settings; a refresh of a lesson takes its `Cargo.toml`
    /// and no other lesson's.
    #[test]
    fn what_a_lessons_build_reads_is_tracked() {
        let (dir, course) = two_lessons();
        let root = dir.path();
        for file in [
            "Cargo.toml",
            ".cargo/config.toml",
            "crates/attention/Cargo.toml",
            "crates/attention/src/lib.rs",
            "crates/attention/src/fast/gemm.rs",
            "exercises/lesson01-a/Cargo.toml",
            "exercises/lesson02-b/Cargo.toml",
        ] {
            std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
            std::fs::write(root.join(file), file).unwrap();
        }
        // Neither the students' sources nor the core's benchmarks.
        for file in [
            "exercises/lesson01-a/src/exercises.rs",
            "crates/attention/benches/bench.rs",
        ] {
            std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
            std::fs::write(root.join(file), "x").unwrap();
        }
        let tracked = tracked_files(root, &course);
        for file in [
            "Cargo.toml",
            ".cargo/config.toml",
            "crates/attention/src/fast/gemm.rs",
            "exercises/lesson02-b/Cargo.toml",
        ] {
            assert!(tracked.iter().any(|f| f == file), "{file} in {tracked:?}");
        }
        assert_eq!(tracked.len(), 5 + 7, "{tracked:?}");
        std::fs::write(root.join(FILE), generate(root, &course)).unwrap();

        let (l1, l2) = (
            "exercises/lesson01-a/Cargo.toml",
            "exercises/lesson02-b/Cargo.toml",
        );
        std::fs::write(root.join(l1), "[dependencies]\nrayon = \"1\"\n").unwrap();
        std::fs::write(root.join(l2), "edited").unwrap();
        std::fs::write(root.join("crates/attention/src/lib.rs"), "pub fn mine() {}").unwrap();
        let mut found = differences(root, &course);
        found.sort();
        assert_eq!(
            found,
            [
                "crates/attention/src/lib.rs (changed)".to_owned(),
                format!("{l1} (changed)"),
                format!("{l2} (changed)"),
            ]
        );
        refresh(root, &course, &lesson_prefixes(root, &course.lessons[0])).unwrap();
        let mut left = differences(root, &course);
        left.sort();
        assert_eq!(
            left,
            [
                "crates/attention/src/lib.rs (changed)".to_owned(),
                format!("{l2} (changed)"),
            ]
        );
    }
}
