//! `cargo xtask dist OUT_DIR`: the student handout.
//!
//! The handout is the course workspace without what only instructors may see or need:
//!
//! * `solutions/` (the reference solutions and the hidden checks in `solutions/<dir>/tests/hidden/`),
//! * `.ci/` and `xtask/tests/` (the grader's own tests: they grade the reference solutions, and their
//!   fixtures hold partly correct exercises), `.git/`, `target/`, insta's pending files,
//! * the hidden checks' test targets in `exercises/<dir>/Cargo.toml` (a target whose file is
//!   missing would break the workspace), the hidden checks in `course.toml`, `solutions/*` in the
//!   root `Cargo.toml`'s `members` and `default-members`, the instructors' guide
//!   (`docs/instructors.md`) and the README's pointer to it.
//!
//! It adds a pristine copy of each lesson's stub, `exercises/<dir>/.stubs/exercises.rs`, which
//! `cargo xtask reset` restores from.
//!
//! `Cargo.lock` is the instructors' lock with the solution packages pruned (every dependency keeps
//! its version), and `checks.sha256` is regenerated for the shipped checks and snapshots, so
//! `cargo xtask grade` in the handout is official and `cargo test --locked` passes there.

use crate::course::Course;
use crate::fsutil;
use std::path::Path;

/// Paths (relative to the course root) never shipped to students.
pub const INSTRUCTOR_ONLY: &[&str] = &[
    ".git",
    "target",
    "solutions",
    ".ci",
    "xtask/tests",
    "docs/instructors.md",
];

/// The README section left out of the handout (its pointer to `docs/instructors.md`, which is not
/// shipped either).
pub const INSTRUCTOR_SECTION: &str = "## For instructors";

/// What `dist` wrote.
#[derive(Debug, Clone)]
pub struct Summary {
    /// Files in the handout, relative paths.
    pub files: Vec<String>,
    /// The hidden checks left out, `lesson/check`.
    pub hidden_checks: Vec<String>,
}

/// True when `rel` (a path relative to the course root) stays with the instructors.
pub fn instructor_only(rel: &str) -> bool {
    INSTRUCTOR_ONLY
        .iter()
        .any(|p| rel == *p || rel.strip_prefix(p).is_some_and(|r| r.starts_with('/')))
        || rel.rsplit('/').next() == Some("target")
        || fsutil::is_scratch_file(rel)
}

/// Drops every `"solutions/..."` entry from the root `Cargo.toml`'s `members` and
/// `default-members` (one entry per line, as in the course's manifest).
pub fn strip_solution_members(text: &str) -> Result<String, String> {
    let out = keep_lines(text, |l| {
        let t = l.trim();
        !(t.starts_with("\"solutions/") && (t.ends_with("\",") || t.ends_with('"')))
    });
    let table: toml::Table =
        toml::from_str(&out).map_err(|e| format!("Cargo.toml after removing solutions: {e}"))?;
    let workspace = table.get("workspace").and_then(|w| w.as_table());
    for key in ["members", "default-members"] {
        let list = workspace
            .and_then(|w| w.get(key))
            .and_then(|m| m.as_array())
            .cloned()
            .unwrap_or_default();
        if list
            .iter()
            .any(|m| m.as_str().is_some_and(|s| s.starts_with("solutions")))
        {
            return Err(format!(
                "Cargo.toml: could not remove the solutions from workspace.{key}; put each member on its own line"
            ));
        }
    }
    Ok(out)
}

fn keep_lines(text: &str, keep: impl Fn(&str) -> bool) -> String {
    text.split_inclusive('\n').filter(|l| keep(l)).collect()
}

/// Drops the `[[test]]` tables whose `path` points into `solutions/` (the hidden checks' target)
/// from an exercise crate's `Cargo.toml`.
pub fn strip_hidden_targets(text: &str) -> String {
    // Split into tables: each starts at a `[...]` header line and runs to the next one.
    // Comment lines right above a header belong to the table they introduce.
    let mut sections: Vec<Vec<&str>> = vec![Vec::new()];
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with('[') {
            let current = sections.last_mut().expect("one section");
            let mut split = current.len();
            while split > 0 && current[split - 1].trim_start().starts_with('#') {
                split -= 1;
            }
            let comments = current.split_off(split);
            sections.push(comments);
        }
        sections.last_mut().expect("one section").push(line);
    }
    let sections: Vec<String> = sections.into_iter().map(|s| s.concat()).collect();
    sections
        .into_iter()
        .filter(|s| {
            !(s.lines()
                .find(|l| !l.trim_start().starts_with('#'))
                .is_some_and(|l| l.trim_start().starts_with("[[test]]"))
                && s.lines().any(|l| {
                    let l = l.trim();
                    l.starts_with("path") && l.contains("solutions/")
                }))
        })
        .collect()
}

/// Drops the hidden checks (`{ name = ..., hidden = true }`, one per line) from `course.toml`.
pub fn strip_hidden_checks(text: &str) -> Result<String, String> {
    let out = keep_lines(text, |l| {
        let t = l.trim();
        !(t.starts_with('{') && t.contains("hidden") && is_hidden_entry(t))
    });
    let course: Course =
        toml::from_str(&out).map_err(|e| format!("course.toml without hidden checks: {e}"))?;
    if course
        .lessons
        .iter()
        .flat_map(|l| &l.exercises)
        .flat_map(|e| &e.checks)
        .any(|c| c.hidden)
    {
        return Err(
            "course.toml: could not remove every hidden check; write each check on its own line"
                .into(),
        );
    }
    Ok(out)
}

fn is_hidden_entry(line: &str) -> bool {
    let inline = line.trim_end_matches(',');
    #[derive(serde::Deserialize)]
    struct Entry {
        #[serde(default)]
        hidden: bool,
    }
    toml::from_str::<toml::Table>(&format!("x = {inline}"))
        .ok()
        .and_then(|t| t.get("x").cloned())
        .and_then(|v| v.try_into::<Entry>().ok())
        .is_some_and(|e| e.hidden)
}

/// Drops the README section that starts at `heading` (up to the next `## ` heading).
pub fn strip_section(text: &str, heading: &str) -> String {
    let mut out = String::new();
    let mut skipping = false;
    for line in text.split_inclusive('\n') {
        if line.trim_end() == heading {
            skipping = true;
            continue;
        }
        if skipping && line.starts_with("## ") {
            skipping = false;
        }
        if !skipping {
            out.push_str(line);
        }
    }
    out
}

/// Rewrites the root `Cargo.toml` of the copy at `dir` without the solution packages and lets cargo
/// prune them from `Cargo.lock` (every other package keeps its locked version).
pub fn drop_solution_packages(dir: &Path) -> Result<(), String> {
    let manifest = dir.join("Cargo.toml");
    fsutil::write(
        &manifest,
        &strip_solution_members(&fsutil::read(&manifest)?)?,
    )?;
    prune_lockfile(dir)
}

/// Resolves the workspace at `dir` once so cargo drops unused packages from `Cargo.lock`.
fn prune_lockfile(dir: &Path) -> Result<(), String> {
    let mut last = String::new();
    for offline in [true, false] {
        let mut cmd = crate::build::cargo();
        cmd.current_dir(dir)
            .args(["metadata", "--format-version", "1"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        if offline {
            cmd.arg("--offline");
        }
        let out = cmd
            .output()
            .map_err(|e| format!("could not run cargo: {e}"))?;
        if out.status.success() {
            return Ok(());
        }
        last = String::from_utf8_lossy(&out.stderr).into_owned();
    }
    Err(format!(
        "cargo could not load the handout's workspace:\n{last}"
    ))
}

/// Writes the handout of the course at `root` into `out` (which must not exist or be empty).
pub fn make(root: &Path, course: &Course, out: &Path) -> Result<Summary, String> {
    if out.exists()
        && std::fs::read_dir(out)
            .map_err(|e| format!("cannot read {}: {e}", out.display()))?
            .next()
            .is_some()
    {
        return Err(format!(
            "{} exists and is not empty: give a new directory",
            out.display()
        ));
    }
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let out_canon = out.canonicalize().unwrap_or_else(|_| out.to_path_buf());
    let skip = |rel: &str, is_dir: bool| {
        instructor_only(rel)
            || (is_dir && root.join(rel).canonicalize().is_ok_and(|p| p == out_canon))
    };
    let files = fsutil::files_under(root, root, &skip);
    fsutil::copy_files(root, out, &files)?;

    // The root manifest and the lockfile.
    drop_solution_packages(out)?;
    // The exercise crates lose their hidden-check targets.
    for lesson in &course.lessons {
        let manifest = lesson.crate_dir(out, false).join("Cargo.toml");
        if manifest.is_file() {
            let text = fsutil::read(&manifest)?;
            let stripped = strip_hidden_targets(&text);
            if stripped != text {
                fsutil::write(&manifest, &stripped)?;
            }
        }
    }
    // A pristine copy of each lesson's stub file, for `cargo xtask reset` without git.
    for lesson in &course.lessons {
        let stub = crate::reset::exercise_path(root, lesson);
        if stub.is_file() {
            fsutil::write(&crate::reset::stub_path(out, lesson), &fsutil::read(&stub)?)?;
        }
    }
    // course.toml loses its hidden checks; the README its pointer to the instructors' guide.
    let course_file = out.join("course.toml");
    fsutil::write(
        &course_file,
        &strip_hidden_checks(&fsutil::read(&course_file)?)?,
    )?;
    let readme = out.join("README.md");
    if readme.is_file() {
        fsutil::write(
            &readme,
            &strip_section(&fsutil::read(&readme)?, INSTRUCTOR_SECTION),
        )?;
    }
    // The manifest of the shipped checks and snapshots.
    let handout_course = Course::load(out)?;
    fsutil::write(
        &out.join(crate::manifest::FILE),
        &crate::manifest::generate(out, &handout_course),
    )?;

    let hidden_checks = course
        .lessons
        .iter()
        .flat_map(|l| {
            l.exercises
                .iter()
                .flat_map(|e| &e.checks)
                .filter(|c| c.hidden)
                .map(move |c| format!("{}/{}", l.id, c.name))
        })
        .collect();
    let files = fsutil::files_under(out, out, &|_, _| false);
    Ok(Summary {
        files,
        hidden_checks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solutions_leave_the_workspace() {
        let text = "[workspace]\nmembers = [\n    \"crates/a\",\n    \"solutions/*\",\n    \"xtask\",\n]\ndefault-members = [\n    \"solutions/*\",\n    \"xtask\"\n]\n";
        let out = strip_solution_members(text).unwrap();
        assert!(!out.contains("solutions"));
        assert!(out.contains("\"crates/a\","));
        assert!(strip_solution_members("[workspace]\nmembers = [\"solutions/*\"]\n").is_err());
    }

    #[test]
    fn hidden_targets_are_dropped() {
        let text = "[package]\nname = \"lesson02\"\n\n[[test]]\nname = \"lesson02\"\npath = \"tests/lesson02.rs\"\n\n# hidden checks\n[[test]]\nname = \"lesson09_hidden\"\npath = \"../../solutions/x/tests/hidden/exercise.rs\"\n\n[[example]]\nname = \"d\"\npath = \"examples/demo.rs\"\n";
        let out = strip_hidden_targets(text);
        assert!(!out.contains("hidden"));
        assert!(out.contains(
            "[[test]]\nname = \"lesson02\"\npath = \"tests/lesson02.rs\"\n\n[[example]]"
        ));
        assert_eq!(strip_hidden_targets("[package]\n"), "[package]\n");
    }

    #[test]
    fn hidden_checks_are_dropped() {
        let text = "[course]\ntitle = \"t\"\n[[lessons]]\nid = \"lesson01\"\ndir = \"d\"\ntitle = \"t\"\n[[lessons.exercises]]\nname = \"f\"\nchecks = [\n    { name = \"a\", points = 1 },\n    { name = \"b\", points = 2, hidden = true },\n]\n";
        let out = strip_hidden_checks(text).unwrap();
        assert!(out.contains("name = \"a\""));
        assert!(!out.contains("name = \"b\""));
        let inline = text.replace(
            "[\n    { name = \"a\", points = 1 },\n    { name = \"b\", points = 2, hidden = true },\n]",
            "[{ name = \"a\", points = 1 }, { name = \"b\", points = 2, hidden = true }]",
        );
        assert!(strip_hidden_checks(&inline).is_err());
    }

    #[test]
    fn instructor_paths() {
        for p in [
            "solutions",
            "solutions/x/src/lib.rs",
            ".ci/run",
            "xtask/tests/a.rs",
            "exercises/x/target",
            "a.snap.new",
            "docs/instructors.md",
        ] {
            assert!(instructor_only(p), "{p}");
        }
        for p in [
            "exercises/x/src/lib.rs",
            "xtask/src/main.rs",
            "solutionsx",
            "README.md",
        ] {
            assert!(!instructor_only(p), "{p}");
        }
        let readme = "# T\n## A\na\n## For instructors\nsecret\n## Layout\nl\n";
        assert_eq!(
            strip_section(readme, INSTRUCTOR_SECTION),
            "# T\n## A\na\n## Layout\nl\n"
        );
    }
}
