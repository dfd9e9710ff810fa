//! A first `cargo xtask grade` builds the student grader (`cargo run -p xtask
//! --no-default-features`, the alias) and then the lessons' checks, in one target folder. A crate
//! both builds need is compiled once only when both resolve it to the same features; the
//! `workspace-hack` crate asks for the union. These tests read both builds' feature lists with
//! `cargo tree` and name any crate that would be compiled twice. The last one checks what keeps
//! `cargo test`'s build and the grader's tests' scratch builds apart in one target folder.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// `cargo tree ARGS` in the course, offline (the test build has fetched every crate).
fn tree(args: &[&str]) -> String {
    tree_in(&crate::support::course_root(), args)
}

/// `cargo tree ARGS` in the course at `root` (the real one or a scratch copy), offline.
fn tree_in(root: &Path, args: &[impl AsRef<str>]) -> String {
    let args: Vec<&str> = args.iter().map(AsRef::as_ref).collect();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(root)
        .args(["tree", "--quiet", "--locked", "--offline", "--prefix"])
        .args(&args)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The packages of a build, `name vVERSION`, each with the feature lists it is built with (one
/// per unit kind: a crate built for proc-macros and for the program has two).
fn features(args: &[impl AsRef<str>]) -> BTreeMap<String, BTreeSet<String>> {
    features_in(&crate::support::course_root(), args)
}

/// [`features`] of a build of the course at `root`.
fn features_in(root: &Path, args: &[impl AsRef<str>]) -> BTreeMap<String, BTreeSet<String>> {
    let mut all = vec!["none", "--format", "{p} [{f}]"];
    all.extend(args.iter().map(AsRef::as_ref));
    let mut map: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in tree_in(root, &all).lines() {
        let line = line.trim_end_matches(" (*)");
        let Some((package, rest)) = line.split_once(" [") else {
            continue;
        };
        // A path dependency prints `name vX (path)`.
        let package = package.split(" (").next().unwrap().to_owned();
        let features = rest.trim_end_matches(']').to_owned();
        map.entry(package).or_default().insert(features);
    }
    map
}

const GRADER: &[&str] = &["-p", "xtask", "--no-default-features", "-e", "normal,build"];

/// The lesson packages (`lessonNN`) of the course at `root`, as course.toml lists them.
pub(crate) fn lesson_packages(root: &Path) -> Vec<String> {
    let course: toml::Table =
        toml::from_str(&std::fs::read_to_string(root.join("course.toml")).unwrap()).unwrap();
    course["lessons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|lesson| lesson["id"].as_str().unwrap().to_owned())
        .collect()
}

/// `cargo tree` arguments for the grader's build of the checks of every lesson of the course.
fn lessons() -> Vec<String> {
    lessons_of(&lesson_packages(&crate::support::course_root()))
}

/// `cargo tree` arguments for the grader's build of the checks of these lesson packages.
fn lessons_of(packages: &[String]) -> Vec<String> {
    let mut args = vec![];
    for package in packages {
        args.push("-p".to_owned());
        args.push(package.clone());
    }
    args.extend(["-e", "normal,build,dev"].map(str::to_owned));
    args
}

/// The crates that the build of one of `packages`' checks alone (`cargo xtask grade N`) compiles
/// with other features than the build of every lesson of the course at `root` (`cargo xtask
/// grade`), each line naming the lesson, the crate and both feature lists. A lesson graded alone
/// would compile them again, and with them everything built on them (the core, `ndarray`, the
/// checks' support).
pub(crate) fn built_otherwise_alone(root: &Path, packages: &[String]) -> Vec<String> {
    let all = features_in(root, &lessons_of(&lesson_packages(root)));
    let mut drift = Vec::new();
    for package in packages {
        let alone = features_in(root, &lessons_of(std::slice::from_ref(package)));
        for (crate_, lists) in alone {
            if all.get(&crate_) != Some(&lists) {
                drift.push(format!(
                    "{package}: {crate_} alone {lists:?}, with the others {:?}",
                    all.get(&crate_)
                ));
            }
        }
    }
    drift
}

#[test]
fn each_lesson_alone_builds_its_crates_as_the_whole_course_does() {
    let root = crate::support::course_root();
    let drift = built_otherwise_alone(&root, &lesson_packages(&root));
    assert!(
        drift.is_empty(),
        "`cargo xtask grade N` would compile these again (give every lesson the same \
         dependencies):\n{}",
        drift.join("\n")
    );
}

/// `cargo xtask demo N` builds the lesson's worked example with `--features demo`, which adds the
/// pictures (and `plotters`): every crate the lessons' checks build too must keep its feature list
/// there, or the first demo after a grade compiles `ndarray`, the core and the checks' support again
/// (`num-traits` did, until `course-check` asked for its `default` feature). The reference
/// solutions' demos are compared with the build of the solutions' checks. Likewise every crate the
/// student grader builds too (`serde_derive` and the `syn` it needs, built for the host): the
/// demo's `serde` derive asked `proc-macro2`, `quote` and `syn` for fewer features than the grader
/// does, and the first demo compiled the four again (5 s of CPU), until `pictures` listed them as
/// build dependencies with the grader's features.
#[test]
fn each_demo_builds_shared_crates_as_the_checks_and_the_grader_do() {
    let root = crate::support::course_root();
    let lessons = lesson_packages(&root);
    let grader = features(GRADER);
    let mut drift = Vec::new();
    for packages in [
        lessons.clone(),
        lessons.iter().map(|l| format!("{l}-solution")).collect(),
    ] {
        let checks = features_in(&root, &lessons_of(&packages));
        for package in &packages {
            let mut demo = lessons_of(std::slice::from_ref(package));
            demo.extend(["--features", "demo"].map(str::to_owned));
            for (crate_, lists) in features_in(&root, &demo) {
                if crate_.split(' ').next() == Some(package.as_str()) {
                    continue;
                }
                if let Some(theirs) = checks.get(&crate_)
                    && theirs != &lists
                {
                    drift.push(format!(
                        "{package}: {crate_} in the demo {lists:?}, in the checks {theirs:?} \
                         (ask for the demo's features in crates/course-check/Cargo.toml)"
                    ));
                }
                if let Some(theirs) = grader.get(&crate_)
                    && !lists.is_subset(theirs)
                {
                    drift.push(format!(
                        "{package}: {crate_} in the demo {lists:?}, in the grader {theirs:?} \
                         (give crates/pictures/Cargo.toml the grader's features)"
                    ));
                }
            }
        }
    }
    assert!(
        drift.is_empty(),
        "`cargo xtask demo N` would compile these again:\n{}",
        drift.join("\n")
    );
}

#[test]
fn the_grader_and_the_lessons_build_their_shared_crates_alike() {
    let grader = features(GRADER);
    let lessons = features(&lessons());
    let shared: Vec<&String> = lessons.keys().filter(|p| grader.contains_key(*p)).collect();
    assert!(
        shared.iter().any(|p| p.starts_with("serde_core ")) && shared.len() > 10,
        "the two builds should share serde_core and more: {shared:?}"
    );
    let mut twice = vec![];
    for package in shared {
        for list in &lessons[package] {
            if !grader[package].contains(list) {
                twice.push(format!(
                    "{package}: the lessons build it with [{list}], the grader with {:?}",
                    grader[package]
                ));
            }
        }
    }
    assert!(
        twice.is_empty(),
        "a first `cargo xtask grade` would compile these twice; add the features to \
         crates/workspace-hack/Cargo.toml:\n{}",
        twice.join("\n")
    );
}

#[test]
fn the_workspace_hack_adds_no_crate_to_either_build() {
    let lesson_args = lessons();
    let lesson_args: Vec<&str> = lesson_args.iter().map(String::as_str).collect();
    let hack = features(&["-p", "workspace-hack", "-e", "normal,build", "--depth", "1"]);
    // `name@version`: the grader has two `syn`s.
    let listed: Vec<String> = hack
        .keys()
        .filter(|p| !p.starts_with("workspace-hack "))
        .map(|p| p.replacen(" v", "@", 1))
        .collect();
    assert!(
        listed.iter().any(|p| p.starts_with("serde_core@")),
        "{listed:?}"
    );
    for build in [GRADER, &lesson_args[..]] {
        for package in &listed {
            // Who depends on it directly in this build: someone besides the hack must.
            let mut args = vec!["depth", "--format", "{p}", "--depth", "1", "-i", package];
            args.extend_from_slice(build);
            let text = tree(&args);
            let others = text
                .lines()
                .filter(|l| l.starts_with('1') && !l.contains("workspace-hack"))
                .count();
            assert!(
                others > 0,
                "workspace-hack makes `{}` build {package}, which it does not need otherwise:\n{text}",
                build.join(" ")
            );
        }
    }
}

/// The grader's tests grade scratch copies of the course (dev profile) in `cargo test`'s own
/// target folder. The course's crates must get other unit names in the test profile than in dev,
/// or a copy's rebuild replaces what `cargo test` linked (its doc tests then failed with E0460);
/// registry crates must keep the same names, or the copies share nothing. Both come from
/// `codegen-units`: left unset in `[profile.dev]`, written out in `[profile.test]` (the course's
/// crates) and, with the same value, in `[profile.dev.package."*"]` (registry crates, which the
/// test profile inherits), and set by no other override.
#[test]
fn test_and_dev_builds_differ_for_the_course_crates_only() {
    let root = crate::support::course_root();
    let manifest: toml::Table =
        toml::from_str(&std::fs::read_to_string(root.join("Cargo.toml")).unwrap()).unwrap();
    let profile = &manifest["profile"];
    let units = |table: &toml::Value| table.get("codegen-units").and_then(toml::Value::as_integer);
    assert_eq!(
        units(&profile["dev"]),
        None,
        "[profile.dev] must leave codegen-units unset"
    );
    let test = units(&profile["test"]).expect("[profile.test] must write codegen-units out");
    assert_eq!(
        units(&profile["dev"]["package"]["*"]),
        Some(test),
        "[profile.dev.package.\"*\"] must write out the test profile's codegen-units"
    );
    for name in ["dev", "test"] {
        let packages = profile[name].get("package").and_then(toml::Value::as_table);
        for (package, table) in packages.into_iter().flatten() {
            if (name, package.as_str()) != ("dev", "*") {
                assert_eq!(
                    units(table),
                    None,
                    "[profile.{name}.package.{package}] must not set codegen-units"
                );
            }
        }
    }
}
