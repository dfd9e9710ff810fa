//! `cargo xtask dist OUT_DIR`: the student handout, the course workspace without what only
//! instructors may see or need ([`INSTRUCTOR_ONLY`], the hidden checks, the grader's tests and
//! dev-dependencies). It adds each lesson's pristine stub (for `reset`), prunes the solution
//! packages from `Cargo.lock` and regenerates `checks.sha256`, so a grade in the handout is
//! official and `cargo test --locked` passes there.

use crate::course::Course;
use crate::fsutil::{self, relative};
use anyhow::{Context as _, Result, anyhow, bail};
use std::path::Path;
use toml_edit::{Array, DocumentMut, Item, TableLike, Value};

/// Paths (relative to the course root) never shipped to students.
pub const INSTRUCTOR_ONLY: &[&str] = &[
    ".git",
    "target",
    "solutions",
    ".ci",
    "xtask/tests",
    // The grader library's own tests (its architecture rules read the instructors' docs).
    "crates/grader/tests",
    // The instructors' guides and design notes (how grading works, grading a class, how the
    // grader words a failure): the README is the students' page.
    "docs/instructors.md",
    "docs/class-grading.md",
    "docs/feedback.md",
    "docs/architecture.md",
    // What a check can and cannot reach, per mode: a map for whoever attacks the grader.
    "docs/threat-model.md",
    // The benchmarks' logs and scripts: they measure the course and race builds of it from a
    // clone of its repository (`bench-class.sh` grades `solutions/`), nothing a student runs.
    "docs/bench-core.md",
    "docs/bench-grade.md",
    "docs/bench-class.md",
    "scripts",
    // The core's benchmark against NumPy (its Python script and its Rust side), and the tiled
    // forward's against the plain one: the maintainers'.
    "crates/attention/benches",
    "crates/attention/examples/bench_mha.rs",
    "crates/attention/examples/bench_tiled.rs",
    // The course secret: with it, every student's variant inputs could be computed in advance.
    crate::variants::secret::FILE,
    // The instructors' comments for a class's feedback pages: they name what students get wrong.
    crate::official::comments::FILE,
    // The instructors' official grading workflow (`autograder github`), should the course's
    // repository hold it: it names their token, and would only fail in a student's repository.
    crate::course::layout::GRADING_WORKFLOW,
];

/// The grader's crates: members of the handout's workspace (`cargo xtask` builds them) but not
/// of its default members, so the handout's `cargo test` runs the core's tests, not the grader's.
pub const GRADER_CRATES: &[&str] = &["xtask", "crates/grader"];

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

/// The root `Cargo.toml` with the workspace's member lists named in `keys` keeping only the
/// entries (with any leading `./` ignored) for which `keep` holds; the rest of the file is kept as
/// written, whatever the layout.
fn retain_members(text: &str, keys: &[&str], keep: impl Fn(&str) -> bool) -> Result<String> {
    let mut doc = parse_toml(text, "Cargo.toml")?;
    if let Some(workspace) = doc.get_mut("workspace").and_then(Item::as_table_like_mut) {
        for key in keys {
            if let Some(list) = workspace.get_mut(key).and_then(Item::as_array_mut) {
                retain_values(list, |v| {
                    v.as_str().is_none_or(|m| keep(m.trim_start_matches("./")))
                });
            }
        }
    }
    Ok(doc.to_string())
}

/// Drops every `solutions/...` entry from the root `Cargo.toml`'s `workspace.members` and
/// `workspace.default-members`.
pub fn strip_solution_members(text: &str) -> Result<String> {
    retain_members(text, &["members", "default-members"], |m| {
        m != "solutions" && !m.starts_with("solutions/")
    })
}

/// Drops `member` from the root `Cargo.toml`'s `workspace.default-members` (it stays a member):
/// the handout's `cargo test` then leaves out the grader's own unit tests, which test the
/// instructors' tools and would build every dependency of the grader a second time.
pub fn drop_default_member(text: &str, member: &str) -> Result<String> {
    retain_members(text, &["default-members"], |m| m != member)
}

/// Drops the `[[test]]` targets whose `path` points into `solutions/` (the hidden checks' target)
/// from an exercise crate's `Cargo.toml`, with the comments above them.
pub fn strip_hidden_targets(text: &str) -> Result<String> {
    let mut doc: DocumentMut = text.parse()?;
    let into_solutions = |t: &dyn TableLike| {
        t.get("path")
            .and_then(Item::as_str)
            .is_some_and(|p| p.contains("solutions/"))
    };
    if let Some(tests) = doc.get_mut("test") {
        retain_tables(tests, |t| !into_solutions(t));
        if tests.as_array_of_tables().is_some_and(|t| t.is_empty()) {
            doc.remove("test");
        }
    }
    Ok(doc.to_string())
}

/// Drops the `[dev-dependencies]` tables (and the comments above them) from a `Cargo.toml`,
/// the platform-specific ones (`[target.'cfg(..)'.dev-dependencies]`) too.
pub fn strip_dev_dependencies(text: &str) -> Result<String> {
    let mut doc = parse_toml(text, "xtask/Cargo.toml")?;
    doc.remove("dev-dependencies");
    if let Some(targets) = doc.get_mut("target").and_then(Item::as_table_like_mut) {
        for (_, platform) in targets.iter_mut() {
            if let Some(platform) = platform.as_table_like_mut() {
                platform.remove("dev-dependencies");
            }
        }
        let empty: Vec<String> = targets
            .iter()
            .filter(|(_, platform)| platform.as_table_like().is_some_and(TableLike::is_empty))
            .map(|(name, _)| name.to_owned())
            .collect();
        for name in empty {
            targets.remove(&name);
        }
    }
    if doc
        .get("target")
        .and_then(Item::as_table_like)
        .is_some_and(TableLike::is_empty)
    {
        doc.remove("target");
    }
    Ok(doc.to_string())
}

/// Drops the hidden checks (`hidden = true`) from `course.toml`, whatever their layout.
pub fn strip_hidden_checks(text: &str) -> Result<String> {
    let mut doc = parse_toml(text, "course.toml")?;
    let hidden = |t: &dyn TableLike| t.get("hidden").and_then(Item::as_bool) == Some(true);
    if let Some(lessons) = doc.get_mut("lessons") {
        for lesson in tables_mut(lessons) {
            let Some(exercises) = lesson.get_mut("exercises") else {
                continue;
            };
            for exercise in tables_mut(exercises) {
                if let Some(checks) = exercise.get_mut("checks") {
                    retain_tables(checks, |t| !hidden(t));
                }
            }
        }
    }
    let out = doc.to_string();
    let course: Course = toml::from_str(&out).context("course.toml without hidden checks")?;
    if course
        .lessons
        .iter()
        .flat_map(|l| &l.exercises)
        .flat_map(|e| &e.checks)
        .any(|c| c.hidden)
    {
        bail!("course.toml: could not remove every hidden check");
    }
    Ok(out)
}

fn parse_toml(text: &str, what: &str) -> Result<DocumentMut> {
    text.parse().with_context(|| what.to_owned())
}

/// The tables of `item`: an array of tables (`[[x]]`) or an array of inline tables (`x = [{ }]`).
fn tables_mut(item: &mut Item) -> Vec<&mut dyn TableLike> {
    match item {
        Item::ArrayOfTables(tables) => tables.iter_mut().map(|t| t as &mut dyn TableLike).collect(),
        Item::Value(Value::Array(list)) => list
            .iter_mut()
            .filter_map(Value::as_inline_table_mut)
            .map(|t| t as &mut dyn TableLike)
            .collect(),
        _ => Vec::new(),
    }
}

/// Keeps the tables of `item` (as in [`tables_mut`]) for which `keep` is true.
fn retain_tables(item: &mut Item, keep: impl Fn(&dyn TableLike) -> bool) {
    match item {
        Item::ArrayOfTables(tables) => tables.retain(|t| keep(t)),
        Item::Value(Value::Array(list)) => {
            retain_values(list, |v| v.as_inline_table().is_none_or(|t| keep(t)));
        }
        _ => {}
    }
}

/// `Array::retain`, and when the first value goes the new first one takes its leading space
/// (`["solutions/*", "xtask"]` becomes `["xtask"]`, not `[ "xtask"]`).
fn retain_values(list: &mut Array, keep: impl Fn(&Value) -> bool) {
    let first = list.get(0).map(|v| (keep(v), v.decor().prefix().cloned()));
    list.retain(|v| keep(v));
    if let (Some((false, Some(prefix))), Some(v)) = (first, list.get_mut(0)) {
        v.decor_mut().set_prefix(prefix);
    }
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
pub fn drop_solution_packages(dir: &Path) -> Result<()> {
    let manifest = dir.join("Cargo.toml");
    fsutil::write(
        &manifest,
        &strip_solution_members(&fsutil::read(&manifest)?)?,
    )?;
    prune_lockfile(dir)
}

/// Resolves the workspace at `dir` once so cargo drops unused packages from `Cargo.lock`.
///
/// The result depends only on the workspace's manifests and the lockfile, which are the same for
/// every submission of a batch (one set for its grading copy, one for its expected handout): it
/// is remembered for the process, and kept in the course's target folder for the next grading
/// run, which saves each further submission two `cargo metadata` runs.
fn prune_lockfile(dir: &Path) -> Result<()> {
    let kept = crate::course::layout::root()
        .ok()
        .map(|root| crate::course::layout::target_dir(&root, None).join(PRUNED_DIR));
    prune_lockfile_keeping(dir, kept.as_deref())
}

/// The folder, in a course's target folder, of the pruned lockfiles kept between runs (by the
/// SHA-256 of what decides them). Only the instructors' graders write there: a submission's
/// build writes its own folder of the target folder only, and no check reaches it.
const PRUNED_DIR: &str = "xtask/pruned-lockfiles";

/// [`prune_lockfile`], with the results kept in `kept` (when given) between runs.
fn prune_lockfile_keeping(dir: &Path, kept: Option<&Path>) -> Result<()> {
    static PRUNED: std::sync::Mutex<Vec<(String, String)>> = std::sync::Mutex::new(Vec::new());
    let lockfile = dir.join("Cargo.lock");
    let key = pruning_key(dir)?;
    let known = PRUNED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, pruned)| pruned.clone());
    let file = kept.map(|k| k.join(crate::course::manifest::sha256_hex(key.as_bytes())));
    let known = known.or_else(|| std::fs::read_to_string(file.as_ref()?).ok());
    if let Some(pruned) = known {
        return fsutil::write(&lockfile, &pruned);
    }
    resolve(dir)?;
    let pruned = fsutil::read(&lockfile)?;
    if let (Some(kept), Some(file)) = (kept, &file) {
        // Written whole or not at all: a run reading it meanwhile reads the old file or none.
        let _ =
            std::fs::create_dir_all(kept).and_then(|()| fsutil::replace(file, pruned.as_bytes()));
    }
    PRUNED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((key, pruned));
    Ok(())
}

/// What decides the pruned lockfile of the workspace at `dir`: its lockfile, and each manifest and
/// the toolchain file with its path relative to `dir` (the same for every copy, wherever it lies).
fn pruning_key(dir: &Path) -> Result<String> {
    let mut key = std::fs::read_to_string(dir.join("Cargo.lock")).unwrap_or_default();
    let skip = |rel: &str, is_dir: bool| is_dir && rel.rsplit('/').next() == Some("target");
    for rel in fsutil::files_under(dir, dir, &skip) {
        if rel == "Cargo.toml" || rel.ends_with("/Cargo.toml") || rel == "rust-toolchain.toml" {
            key.push_str(&format!("\0{rel}\0{}", fsutil::read(&dir.join(&rel))?));
        }
    }
    Ok(key)
}

/// `cargo metadata` in `dir` (offline first), which rewrites its `Cargo.lock`.
fn resolve(dir: &Path) -> Result<()> {
    let mut last = String::new();
    for offline in [true, false] {
        let mut cmd = crate::build::cargo::command();
        cmd.current_dir(dir)
            .args(["metadata", "--format-version", "1"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        if offline {
            cmd.arg("--offline");
        }
        let out = cmd.output().context("could not run cargo")?;
        if out.status.success() {
            return Ok(());
        }
        last = String::from_utf8_lossy(&out.stderr).into_owned();
    }
    Err(anyhow!(
        "cargo could not load the handout's workspace:\n{last}"
    ))
}

/// Writes the handout of the course at `root` into `out` (which must not exist or be empty).
pub fn make(root: &Path, course: &Course, out: &Path) -> Result<Summary> {
    // Only "is it empty?": the first entry of `read_dir` answers it, no walk needed.
    if out.exists()
        && std::fs::read_dir(out)
            .with_context(|| format!("cannot read {}", out.display()))?
            .next()
            .is_some()
    {
        bail!(
            "{} exists and is not empty: give a new directory",
            out.display()
        );
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let out_canon = out.canonicalize().unwrap_or_else(|_| out.to_path_buf());
    let skip = |rel: &str, is_dir: bool| {
        instructor_only(rel)
            || (is_dir && root.join(rel).canonicalize().is_ok_and(|p| p == out_canon))
    };
    let files = fsutil::files_under(root, root, &skip);
    fsutil::copy_files(root, out, &files)?;

    // The grader loses the dependencies only its own tests (`xtask/tests`, not shipped) use, so a
    // student's `cargo test` does not build them; then the root manifest and the lockfile.
    let grader = out.join("xtask").join("Cargo.toml");
    if grader.is_file() {
        let text = fsutil::read(&grader)?;
        fsutil::write(&grader, &strip_dev_dependencies(&text)?)?;
    }
    drop_solution_packages(out)?;
    let root_manifest = out.join("Cargo.toml");
    let mut text = fsutil::read(&root_manifest)?;
    for grader in GRADER_CRATES {
        text = drop_default_member(&text, grader)?;
    }
    fsutil::write(&root_manifest, &text)?;
    // The exercise crates lose their hidden-check targets.
    for lesson in &course.lessons {
        let manifest = lesson
            .crate_dir(out, crate::course::Side::Exercises)
            .join("Cargo.toml");
        if manifest.is_file() {
            let text = fsutil::read(&manifest)?;
            let stripped = strip_hidden_targets(&text).with_context(|| relative(out, &manifest))?;
            if stripped != text {
                fsutil::write(&manifest, &stripped)?;
            }
        }
    }
    // A pristine copy of each lesson's stub file, for `cargo xtask reset` without git.
    for lesson in &course.lessons {
        let stub = crate::course::stubs::exercise_path(root, lesson);
        if stub.is_file() {
            fsutil::write(
                &crate::course::stubs::stub_path(out, lesson),
                &fsutil::read(&stub)?,
            )?;
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
        &out.join(crate::course::manifest::FILE),
        &crate::course::manifest::generate(out, &handout_course),
    )?;
    // And the handed-out copies of those files, for `cargo xtask reset --course-files`.
    crate::course::pristine::write(out, &handout_course)?;

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

    /// A workspace of one package `name` at `dir`, with a lockfile that names a package it does not
    /// use (pruning drops it).
    fn workspace(dir: &Path, name: &str) {
        let member = dir.join(name);
        std::fs::create_dir_all(member.join("src")).unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            format!("[workspace]\nresolver = \"3\"\nmembers = [\"{name}\"]\n"),
        )
        .unwrap();
        std::fs::write(
            member.join("Cargo.toml"),
            format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\n"),
        )
        .unwrap();
        std::fs::write(member.join("src/lib.rs"), "").unwrap();
        std::fs::write(
            dir.join("Cargo.lock"),
            format!("version = 4\n\n[[package]]\nname = \"{name}\"\nversion = \"0.1.0\"\n\n[[package]]\nname = \"unused\"\nversion = \"1.0.0\"\n"),
        )
        .unwrap();
    }

    #[test]
    fn a_pruned_lockfile_is_kept_by_what_decides_it_and_read_back_without_cargo() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b, kept) = (
            tmp.path().join("a"),
            tmp.path().join("b"),
            tmp.path().join("kept"),
        );
        // A name of its own: the process's own memory of pruned lockfiles does not know it.
        let name = format!("pruned{}", std::process::id());
        workspace(&a, &name);
        workspace(&b, &name);
        assert_eq!(
            pruning_key(&a).unwrap(),
            pruning_key(&b).unwrap(),
            "the folder is no part of it"
        );
        let key = pruning_key(&a).unwrap();
        // Kept beside an earlier run: read back, and no cargo runs (a lockfile it resolved
        // would not say this).
        let file = kept.join(crate::course::manifest::sha256_hex(key.as_bytes()));
        std::fs::create_dir_all(&kept).unwrap();
        std::fs::write(&file, "# kept\n").unwrap();
        prune_lockfile_keeping(&a, Some(&kept)).unwrap();
        assert_eq!(
            std::fs::read_to_string(a.join("Cargo.lock")).unwrap(),
            "# kept\n"
        );
        // Another manifest is another key: cargo prunes it, and the result is kept.
        std::fs::write(
            b.join(&name).join("Cargo.toml"),
            format!("[package]\nname = \"{name}\"\nversion = \"0.2.0\"\nedition = \"2024\"\n"),
        )
        .unwrap();
        let other = kept.join(crate::course::manifest::sha256_hex(
            pruning_key(&b).unwrap().as_bytes(),
        ));
        prune_lockfile_keeping(&b, Some(&kept)).unwrap();
        let pruned = std::fs::read_to_string(b.join("Cargo.lock")).unwrap();
        assert!(
            !pruned.contains("unused") && pruned.contains(&name),
            "{pruned}"
        );
        assert_eq!(std::fs::read_to_string(other).unwrap(), pruned);
    }

    #[test]
    fn the_instructors_grading_workflow_stays_with_them() {
        assert!(instructor_only(".github/workflows/grade-classroom.yml"));
        assert!(!instructor_only(".github/workflows/classroom.yml"));
        assert!(instructor_only(
            "solutions/lesson01-why-heads/src/exercises.rs"
        ));
        assert!(!instructor_only(
            "exercises/lesson01-why-heads/src/exercises.rs"
        ));
        // The instructors' comments name what students get wrong.
        assert!(instructor_only("comments.toml"));
    }

    #[test]
    fn the_benchmarks_stay_with_the_maintainers() {
        for path in [
            "crates/attention/benches/bench_mha.py",
            "crates/attention/examples/bench_mha.rs",
            "crates/attention/examples/bench_tiled.rs",
            "docs/bench-core.md",
            "docs/bench-class.md",
            "scripts/bench-grade.sh",
        ] {
            assert!(instructor_only(path), "{path}");
        }
        for path in ["crates/attention/src/fast/profile.rs", "docs/grading.md"] {
            assert!(!instructor_only(path), "{path}");
        }
    }

    #[test]
    fn solutions_leave_the_workspace() {
        let text = "[workspace]\nmembers = [\n    \"crates/a\",\n    \"solutions/*\",\n    \"xtask\",\n]\ndefault-members = [\n    \"solutions/*\",\n    \"xtask\"\n]\n";
        let out = strip_solution_members(text).unwrap();
        assert_eq!(
            out,
            "[workspace]\nmembers = [\n    \"crates/a\",\n    \"xtask\",\n]\ndefault-members = [\n    \"xtask\"\n]\n"
        );
        assert_eq!(
            strip_solution_members("[workspace]\nmembers = [\"solutions/*\"]\n").unwrap(),
            "[workspace]\nmembers = []\n"
        );
        assert_eq!(
            strip_solution_members("[package]\n").unwrap(),
            "[package]\n"
        );
        assert!(strip_solution_members("[workspace\n").is_err());
    }

    #[test]
    fn solutions_leave_any_workspace_layout() {
        // Members on one line, the workspace as an inline table, comments kept.
        let text = "# root\n[workspace]\nresolver = \"3\" # three\nmembers = [\"solutions/*\", \"crates/a\", \"solutions/lesson01\", \"xtask\"]\ndefault-members = [\"crates/a\", \"./solutions/*\"]\n\n[workspace.dependencies]\na = { path = \"crates/a\" }\n";
        assert_eq!(
            strip_solution_members(text).unwrap(),
            "# root\n[workspace]\nresolver = \"3\" # three\nmembers = [\"crates/a\", \"xtask\"]\ndefault-members = [\"crates/a\"]\n\n[workspace.dependencies]\na = { path = \"crates/a\" }\n"
        );
        let inline = "workspace = { members = [\"xtask\", \"solutions/*\"], default-members = [ \"solutions/*\" ] }\n";
        assert_eq!(
            strip_solution_members(inline).unwrap(),
            "workspace = { members = [\"xtask\"], default-members = [] }\n"
        );
        let dotted = "workspace.members = [\n  \"solutions/*\", # the reference solutions\n  \"xtask\",\n]\n";
        let out = strip_solution_members(dotted).unwrap();
        let table: toml::Table = toml::from_str(&out).unwrap();
        assert_eq!(
            table["workspace"]["members"],
            toml::Value::from(vec!["xtask"])
        );
    }

    #[test]
    fn the_grader_leaves_the_default_members_only() {
        let text = "[workspace]\nmembers = [\"crates/a\", \"xtask\"]\n# tested by default\ndefault-members = [\n    \"crates/a\",\n    \"./xtask\",\n]\n";
        assert_eq!(
            drop_default_member(text, "xtask").unwrap(),
            "[workspace]\nmembers = [\"crates/a\", \"xtask\"]\n# tested by default\ndefault-members = [\n    \"crates/a\",\n]\n"
        );
        let none = "[workspace]\nmembers = [\"xtask\"]\n";
        assert_eq!(drop_default_member(none, "xtask").unwrap(), none);
    }

    #[test]
    fn dev_dependencies_are_dropped() {
        let text = "[package]\nname = \"xtask\"\n\n[dependencies]\nclap = \"4\"\n\n\
                    # The grader's tests.\n[dev-dependencies]\nassert_cmd = \"2\"\n\n\
                    [lints]\nworkspace = true\n";
        let out = strip_dev_dependencies(text).unwrap();
        assert_eq!(
            out,
            "[package]\nname = \"xtask\"\n\n[dependencies]\nclap = \"4\"\n\n[lints]\nworkspace = true\n"
        );
        assert_eq!(strip_dev_dependencies(&out).unwrap(), out);
        // A platform's dev-dependencies go, its dependencies stay.
        let text = "[package]\nname = \"xtask\"\n\n\
                    [target.'cfg(target_os = \"linux\")'.dependencies]\nnix = \"1\"\n\n\
                    # The pty test.\n[target.'cfg(target_os = \"linux\")'.dev-dependencies]\n\
                    nix = { version = \"1\", features = [\"term\"] }\n\n\
                    [target.'cfg(windows)'.dev-dependencies]\nwinapi = \"0.3\"\n";
        let out = strip_dev_dependencies(text).unwrap();
        assert!(
            !out.contains("dev-dependencies") && !out.contains("term"),
            "{out}"
        );
        assert!(!out.contains("windows"), "{out}");
        assert!(
            out.contains("[target.'cfg(target_os = \"linux\")'.dependencies]\nnix = \"1\""),
            "{out}"
        );
    }

    #[test]
    fn hidden_targets_are_dropped() {
        let text = "[package]\nname = \"lesson02\"\n\n[[test]]\nname = \"lesson02\"\npath = \"tests/lesson02.rs\"\n\n# hidden checks\n[[test]]\nname = \"lesson99_hidden\"\npath = \"../../solutions/x/tests/hidden/exercise.rs\"\n\n[[example]]\nname = \"d\"\npath = \"examples/demo.rs\"\n";
        let out = strip_hidden_targets(text).unwrap();
        assert!(!out.contains("hidden"));
        assert!(out.contains(
            "[[test]]\nname = \"lesson02\"\npath = \"tests/lesson02.rs\"\n\n[[example]]"
        ));
        assert_eq!(strip_hidden_targets("[package]\n").unwrap(), "[package]\n");
        // Other layouts: the targets as an inline array; the hidden target alone.
        let inline = "test = [{ name = \"l\", path = \"tests/l.rs\" }, { name = \"l_hidden\", path = \"../../solutions/l/tests/hidden/exercise.rs\" }]\n\n[package]\nname = \"l\"\n";
        assert_eq!(
            strip_hidden_targets(inline).unwrap(),
            "test = [{ name = \"l\", path = \"tests/l.rs\" }]\n\n[package]\nname = \"l\"\n"
        );
        let alone = "[package]\nname = \"l\"\n\n[[test]]\nname = \"l_hidden\"\npath = \"../../solutions/l/tests/hidden/exercise.rs\"\n\n[lints]\nworkspace = true\n";
        assert_eq!(
            strip_hidden_targets(alone).unwrap(),
            "[package]\nname = \"l\"\n\n[lints]\nworkspace = true\n"
        );
    }

    #[test]
    fn hidden_checks_are_dropped() {
        let text = "[course]\ntitle = \"t\"\n[[lessons]]\nid = \"lesson01\"\ndir = \"d\"\ntitle = \"t\"\n[[lessons.exercises]]\nname = \"f\"\nchecks = [\n    { name = \"a\", points = 1 },\n    { name = \"b\", points = 2, hidden = true },\n]\n";
        let out = strip_hidden_checks(text).unwrap();
        assert!(out.contains("name = \"a\""));
        assert!(!out.contains("name = \"b\""));
        assert_eq!(
            out,
            text.replace("    { name = \"b\", points = 2, hidden = true },\n", "")
        );
        // Checks on one line, or as tables of their own.
        let inline = text.replace(
            "[\n    { name = \"a\", points = 1 },\n    { name = \"b\", points = 2, hidden = true },\n]",
            "[{ name = \"b\", points = 2, hidden = true }, { name = \"a\", points = 1 }]",
        );
        assert_eq!(
            strip_hidden_checks(&inline).unwrap(),
            text.replace(
                "[\n    { name = \"a\", points = 1 },\n    { name = \"b\", points = 2, hidden = true },\n]",
                "[{ name = \"a\", points = 1 }]",
            )
        );
        let tables = "[course]\ntitle = \"t\"\n[[lessons]]\nid = \"lesson01\"\ndir = \"d\"\ntitle = \"t\"\n[[lessons.exercises]]\nname = \"f\"\n[[lessons.exercises.checks]]\nname = \"a\"\npoints = 1\n# the hidden one\n[[lessons.exercises.checks]]\nname = \"b\"\npoints = 2\nhidden = true\n";
        assert_eq!(
            strip_hidden_checks(tables).unwrap(),
            tables.split("# the hidden one").next().unwrap()
        );
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
            "docs/class-grading.md",
            "docs/feedback.md",
            "docs/threat-model.md",
            "docs/bench-core.md",
            "docs/bench-grade.md",
            "scripts/bench-grade.sh",
            "scripts/race-tests.sh",
            "scripts/fresh-clone.sh",
        ] {
            assert!(instructor_only(p), "{p}");
        }
        for p in [
            "exercises/x/src/lib.rs",
            "xtask/src/main.rs",
            "solutionsx",
            "scriptsx",
            "README.md",
            "docs/report.schema.json",
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
