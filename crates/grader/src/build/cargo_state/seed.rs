//! The first build of a submissions' target folder takes the registry's crates that the course's
//! own builds compiled beside it (`<target>/debug` for `<target>/submissions`) instead of compiling
//! them again: cargo names a unit by its package, version, features and profile, not by its target
//! folder, and finds such a copy fresh. Copied: the built units (a library, or a build script's)
//! of the packages the lessons' crates depend on that the grading copy's `Cargo.lock` takes from a
//! registry and not from the course too (the reference solutions are built in the same folder),
//! and only into a `debug` folder that does not exist yet: the grader makes it and everything in
//! it, so nothing an earlier build left there (a link into the instructors' tree) is written
//! through. Modification times are kept (cargo compares them); a unit's fingerprint is copied
//! after its files, and none stays when a copy fails, so cargo never takes a half-copied unit for
//! built.

use crate::course::{Lesson, Side};
use anyhow::Result;
use std::collections::BTreeSet;
use std::path::Path;

/// Seeds the submissions' target folder `target` from the course's `debug` folder beside it, when
/// `target` has no `debug` folder (see the module's documentation); `root`: the grading copy, whose
/// `Cargo.lock` names the registry's packages; `lessons`: the lessons built, of `side`.
pub(crate) fn seed(root: &Path, target: &Path, lessons: &[&Lesson], side: Side) -> Result<()> {
    let Some(course_target) = target.parent() else {
        return Ok(());
    };
    let (from, to) = (course_target.join("debug"), target.join("debug"));
    if std::fs::symlink_metadata(&to).is_ok() || !from.join(".fingerprint").is_dir() {
        return Ok(());
    }
    std::fs::create_dir_all(target)?;
    std::fs::create_dir(&to)?;
    let lockfile = std::fs::read_to_string(root.join("Cargo.lock")).unwrap_or_default();
    let deps: Vec<String> = std::fs::read_dir(from.join("deps"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    // Built units only: a library (`.rlib`, a proc-macro's `.so`) or a build script (its folder
    // in `build/`), not a check build's metadata.
    let built: BTreeSet<&str> = deps
        .iter()
        .filter(|name| name.ends_with(".rlib") || name.ends_with(".so"))
        .filter_map(|name| unit_hash(name))
        .collect();
    let packages: Vec<String> = lessons.iter().map(|l| l.package(side)).collect();
    let units: Vec<String> = registry_units(&from, &registry_packages(&lockfile, &packages))
        .into_iter()
        .filter(|unit| {
            unit_hash(unit).is_some_and(|h| built.contains(h))
                || from.join("build").join(unit).is_dir()
        })
        .collect();
    let hashes: BTreeSet<&str> = units.iter().filter_map(|u| unit_hash(u)).collect();
    let mut files: Vec<String> = deps
        .iter()
        .filter(|name| unit_hash(name).is_some_and(|h| hashes.contains(h)))
        .map(|name| format!("deps/{name}"))
        .collect();
    let under = |folder: &str| -> Vec<String> {
        units
            .iter()
            .flat_map(|unit| {
                crate::fsutil::files_under(&from.join(folder).join(unit), &from, &|_, _| false)
            })
            .collect()
    };
    files.extend(under("build"));
    let copied = crate::fsutil::copy_files(&from, &to, &files)
        .and_then(|()| crate::fsutil::copy_files(&from, &to, &under(".fingerprint")));
    if copied.is_err() {
        let _ = std::fs::remove_dir_all(to.join(".fingerprint"));
    }
    copied
}

/// The names of the packages that `lockfile` (a `Cargo.lock`'s text) takes from a registry and
/// that `roots` depend on, directly or not (whatever the kind of dependency).
fn registry_packages(lockfile: &str, roots: &[String]) -> BTreeSet<String> {
    let Ok(lock) = lockfile.parse::<toml::Table>() else {
        return BTreeSet::new();
    };
    let packages = lock.get("package").and_then(toml::Value::as_array);
    let packages: Vec<&toml::Value> = packages.into_iter().flatten().collect();
    let name = |p: &toml::Value| -> String {
        let name = p.get("name").and_then(toml::Value::as_str);
        name.unwrap_or_default().to_owned()
    };
    let from_registry = |p: &toml::Value| {
        p.get("source")
            .and_then(toml::Value::as_str)
            .is_some_and(|s| s.starts_with("registry+") || s.starts_with("sparse+"))
    };
    // A dependency is written `name`, `name version` or `name version (source)`.
    let dependencies = |p: &toml::Value| -> Vec<String> {
        let list = p.get("dependencies").and_then(toml::Value::as_array);
        list.into_iter()
            .flatten()
            .filter_map(toml::Value::as_str)
            .filter_map(|d| d.split(' ').next())
            .map(str::to_owned)
            .collect()
    };
    let mut reached: BTreeSet<String> = roots.iter().cloned().collect();
    let mut next: Vec<String> = roots.to_vec();
    while let Some(at) = next.pop() {
        for p in packages.iter().filter(|p| name(p) == at) {
            for d in dependencies(p) {
                if reached.insert(d.clone()) {
                    next.push(d);
                }
            }
        }
    }
    // A name the course's own packages have too is never taken for the registry's.
    let own: BTreeSet<String> = packages
        .iter()
        .filter(|p| !from_registry(p))
        .map(|p| name(p))
        .collect();
    packages
        .iter()
        .filter(|p| from_registry(p) && reached.contains(&name(p)) && !own.contains(&name(p)))
        .map(|p| name(p))
        .collect()
}

/// The units (`<package>-<hash>`) in `debug`'s `.fingerprint` of the packages `registry`.
fn registry_units(debug: &Path, registry: &BTreeSet<String>) -> Vec<String> {
    let mut units: Vec<String> = std::fs::read_dir(debug.join(".fingerprint"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| {
            unit_hash(name).is_some_and(|h| {
                name.strip_suffix(h)
                    .and_then(|n| n.strip_suffix('-'))
                    .is_some_and(|package| registry.contains(package))
            })
        })
        .collect();
    units.sort();
    units
}

/// The unit hash a file or folder of a target folder is named with: the 16 hexadecimal digits
/// after its last `-`, before an extension (`libndarray-05cce864bb0d2ea0.rlib`, `ndarray-…`).
fn unit_hash(name: &str) -> Option<&str> {
    let (_, rest) = name.rsplit_once('-')?;
    let hash = rest.get(..16)?;
    let after = &rest[16..];
    (hash.bytes().all(|b| b.is_ascii_hexdigit()) && (after.is_empty() || after.starts_with('.')))
        .then_some(hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCK: &str = r#"
version = 4

[[package]]
name = "ndarray"
version = "0.16.1"
source = "registry+https://github.com/rust-lang/crates.io-index"
dependencies = ["num-traits"]

[[package]]
name = "num-traits"
version = "0.2.19"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "zip"
version = "9.0.0"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "lesson02"
version = "0.1.0"
dependencies = ["ndarray 0.16.1"]

[[package]]
name = "lesson02-solution"
version = "0.1.0"
"#;

    fn write(path: &Path, text: &str) {
        crate::fsutil::write(path, text).unwrap();
    }

    /// A grading copy with [`LOCK`] and a course's target folder beside it, in `dir`.
    fn copy_and_target(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
        let (root, target) = (dir.join("copy"), dir.join("target"));
        write(&root.join("Cargo.lock"), LOCK);
        (root, target)
    }

    #[test]
    fn a_new_submissions_folder_takes_the_lessons_registry_units_with_their_times() {
        let dir = tempfile::tempdir().unwrap();
        let (root, target) = copy_and_target(dir.path());
        let debug = target.join("debug");
        let registry = "ndarray-05cce864bb0d2ea0";
        let script_run = "num-traits-0123456789abcdef";
        let solution = "lesson02-solution-1111222233334444";
        // Checked only (metadata), and a registry crate no lesson uses (the grader's).
        let (checked, unused) = ("ndarray-0f3d0f25d2c4b330", "zip-5555666677778888");
        for unit in [registry, script_run, solution, checked, unused] {
            write(&debug.join(".fingerprint").join(unit).join("lib"), "fp");
        }
        write(&debug.join("build").join(registry).join("out/x.rs"), "out");
        // A build script's run: a folder in `build/`, no library.
        write(&debug.join("build").join(script_run).join("output"), "cfg");
        let deps = debug.join("deps");
        write(&deps.join("libndarray-05cce864bb0d2ea0.rlib"), "rlib");
        write(&deps.join("ndarray-05cce864bb0d2ea0.d"), "dep-info");
        write(&deps.join("libndarray-0f3d0f25d2c4b330.rmeta"), "rmeta");
        write(&deps.join("libzip-5555666677778888.rlib"), "zip");
        write(
            &deps.join("liblesson02_solution-1111222233334444.rlib"),
            "secret",
        );
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1 << 30);
        std::fs::File::options()
            .write(true)
            .open(deps.join("libndarray-05cce864bb0d2ea0.rlib"))
            .unwrap()
            .set_modified(old)
            .unwrap();

        let submissions = target.join("submissions");
        let course = crate::course::fixture();
        let lessons = [&course.lessons[0]];
        seed(&root, &submissions, &lessons, Side::Exercises).unwrap();
        let seeded = submissions.join("debug");
        let mut got = crate::fsutil::files_under(&seeded, &seeded, &|_, _| false);
        got.sort();
        assert_eq!(
            got,
            [
                ".fingerprint/ndarray-05cce864bb0d2ea0/lib",
                ".fingerprint/num-traits-0123456789abcdef/lib",
                "build/ndarray-05cce864bb0d2ea0/out/x.rs",
                "build/num-traits-0123456789abcdef/output",
                "deps/libndarray-05cce864bb0d2ea0.rlib",
                "deps/ndarray-05cce864bb0d2ea0.d",
            ]
        );
        let modified = std::fs::metadata(seeded.join("deps/libndarray-05cce864bb0d2ea0.rlib"))
            .and_then(|m| m.modified())
            .unwrap();
        assert_eq!(modified, old);

        // A folder that has a build already is left as it is.
        std::fs::remove_file(seeded.join("deps/ndarray-05cce864bb0d2ea0.d")).unwrap();
        seed(&root, &submissions, &lessons, Side::Exercises).unwrap();
        assert!(!seeded.join("deps/ndarray-05cce864bb0d2ea0.d").exists());
    }

    /// What an earlier build could leave in the submissions' folder: a `debug` that is a link
    /// into the instructors' tree, or a `debug` without fingerprints whose files are links there.
    /// Nothing is written through either.
    #[cfg(unix)]
    #[test]
    fn nothing_is_written_through_what_an_earlier_build_left() {
        let dir = tempfile::tempdir().unwrap();
        let (root, target) = copy_and_target(dir.path());
        let debug = target.join("debug");
        write(
            &debug.join(".fingerprint/ndarray-05cce864bb0d2ea0/lib"),
            "fp",
        );
        write(&debug.join("deps/libndarray-05cce864bb0d2ea0.rlib"), "rlib");
        let instructors = dir.path().join("instructors");
        write(&instructors.join("solution.rs"), "kept");
        let course = crate::course::fixture();
        let lessons = [&course.lessons[0]];

        let linked = target.join("submissions-a");
        std::fs::create_dir_all(&linked).unwrap();
        std::os::unix::fs::symlink(&instructors, linked.join("debug")).unwrap();
        seed(&root, &linked, &lessons, Side::Exercises).unwrap();

        let planted = target.join("submissions-b");
        std::fs::create_dir_all(planted.join("debug/deps")).unwrap();
        std::os::unix::fs::symlink(
            instructors.join("solution.rs"),
            planted.join("debug/deps/libndarray-05cce864bb0d2ea0.rlib"),
        )
        .unwrap();
        seed(&root, &planted, &lessons, Side::Exercises).unwrap();

        let mut left = crate::fsutil::files_under(&instructors, &instructors, &|_, _| false);
        left.sort();
        assert_eq!(left, ["solution.rs"]);
        assert_eq!(
            std::fs::read_to_string(instructors.join("solution.rs")).unwrap(),
            "kept"
        );
        assert!(!planted.join("debug/.fingerprint").exists());
    }

    #[test]
    fn a_registry_name_the_course_uses_too_is_not_the_registrys() {
        let lock = format!("{LOCK}\n[[package]]\nname = \"ndarray\"\nversion = \"0.1.0\"\n");
        let got = registry_packages(&lock, &["lesson02".to_owned()]);
        assert_eq!(got, BTreeSet::from(["num-traits".to_owned()]));
        let got = registry_packages(LOCK, &["lesson02".to_owned()]);
        assert_eq!(
            got,
            BTreeSet::from(["ndarray".to_owned(), "num-traits".to_owned()])
        );
    }

    #[test]
    fn unit_hashes_are_read_from_names_only_where_cargo_writes_them() {
        assert_eq!(
            unit_hash("libndarray-05cce864bb0d2ea0.rlib"),
            Some("05cce864bb0d2ea0")
        );
        assert_eq!(
            unit_hash("serde_json-a7fd9a12b64a12cd"),
            Some("a7fd9a12b64a12cd")
        );
        assert_eq!(unit_hash("lesson01-solution"), None);
        assert_eq!(unit_hash("x-05cce864bb0d2ea0extra"), None);
        assert_eq!(unit_hash("x-05cce864bb0d2eag"), None);
    }
}
