//! `cargo xtask check [LESSON]`: everything an instructor must know before publishing, in one
//! report.
//!
//! * every reference solution gets full marks (hidden checks included),
//! * the solutions are clippy-clean (`-D warnings`, all targets) and every lesson crate is
//!   formatted (`cargo fmt --check`),
//! * every stub compiles without a warning and every check grades it `not_started` (a stub that
//!   passes a check leaks a solution; any other verdict is a broken stub or check),
//! * every snapshot is what the solutions produce and none is orphaned (`bless --check`),
//! * every misconception, planted, fails exactly the checks course.toml lists and is named by at
//!   least one of them, and keeps at most half of its exercise's points (`points_kept`),
//! * the variant checks are fair: over many students' ids, the reference passes them, each
//!   misconception keeps the same points on them, and code fitted to the fixed checks fails them
//!   (`grader::variants::fairness`),
//! * `course.toml`, the test functions and the crates agree, and README.md's lesson table lists
//!   course.toml's lessons,
//! * `checks.sha256` matches the tree;
//!
//! and warns when the course secret is tracked by git or readable by others.

use crate::commands::bless;
use anyhow::{Context as _, Result};
use grader::course::{CheckId, Course, Lesson, Side};
use grader::grade;
use grader::judge::verdict::Status;
use grader::request::{Local, Request};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::process::Stdio;

/// One part of the report: a title and its problems (none when it passed).
#[derive(Debug, Clone)]
pub struct Section {
    /// What was checked.
    pub title: String,
    /// What is wrong, one entry per problem.
    pub problems: Vec<String>,
}

/// The report's parts so far, each printed as it is added.
struct Sections(Vec<Section>);

impl Sections {
    /// Prints the part `title` with its `problems` and keeps it.
    fn add(&mut self, title: &str, problems: Vec<String>) {
        let ok = problems.is_empty();
        println!(
            "{} {title}{}",
            if ok { "ok  " } else { "FAIL" },
            if ok {
                String::new()
            } else {
                format!(" ({} problem(s))", problems.len())
            }
        );
        for p in &problems {
            let mut lines = p.lines();
            if let Some(first) = lines.next() {
                println!("     - {first}");
            }
            for l in lines {
                println!("       {l}");
            }
        }
        self.0.push(Section {
            title: title.to_owned(),
            problems,
        });
    }

    /// Prints `warnings` under `title` without failing the report (nothing when there is none).
    fn warn(&self, title: &str, warnings: &[String]) {
        if warnings.is_empty() {
            return;
        }
        println!("warn {title}");
        for w in warnings {
            println!("     - {w}");
        }
    }

    /// Prints the verdict; true when no part has a problem.
    fn finish(self) -> bool {
        let sections = self.0;
        let failed: Vec<&Section> = sections.iter().filter(|s| !s.problems.is_empty()).collect();
        if failed.is_empty() {
            println!("\nReady to publish: every check passed.");
        } else {
            println!(
                "\nNot ready: {} of {} parts have problems ({}).",
                failed.len(),
                sections.len(),
                failed
                    .iter()
                    .map(|s| s.title.as_str())
                    .collect::<Vec<_>>()
                    .join("; ")
            );
        }
        failed.is_empty()
    }
}

/// Runs every check and prints the report; returns true when there is no problem.
pub fn run(root: &Path, course: &Course, lesson: Option<&str>, jobs: usize) -> Result<bool> {
    grader::course::require_solutions(root)?;
    let selection = grader::course::selection::Selection::resolve_lesson(course, lesson)?;
    let lessons = selection.lessons(course);
    let lessons: Vec<&grader::course::Lesson> = lessons.iter().map(|l| &**l).collect();
    let mut sections = Sections(Vec::new());
    // Local grading never reads the secret, so its exposure is a warning, not a failure.
    sections.warn(
        "the course secret is kept from others",
        &grader::variants::secret::exposure(root),
    );
    // The reference solutions run their variant checks too (for the local id's inputs).
    let request = |side| Request {
        selection: selection.clone(),
        timeout: None,
        jobs,
        progress: false,
        mode: Local {
            side,
            isolate: false,
            plant: None,
        },
    };
    let solutions = grade::grade_detailed(root, course, &request(Side::Solutions))?;
    sections.add(
        "reference solutions get full marks",
        solution_problems(&solutions.report),
    );
    sections.add(
        &format!(
            "variant checks are fair: the reference passes and each plant keeps the same points \
             for {} ids",
            grader::variants::fairness::IDS
        ),
        fairness(root, &lessons, jobs)?,
    );
    sections.add(
        "the solutions' own tests pass (reproduces_text and the like)",
        crate::commands::own_tests::problems(root, course, &lessons)?,
    );
    sections.add(
        "reference solutions are clippy-clean (-D warnings)",
        clippy(root, &lessons)?,
    );
    sections.add(
        "lesson crates are formatted (cargo fmt --check)",
        fmt(root, &lessons)?,
    );

    let stubs = grade::grade_detailed(root, course, &request(Side::Exercises))?;
    let mut warnings = Vec::new();
    for l in &lessons {
        for w in stubs.warnings.get(&l.id).into_iter().flatten() {
            warnings.push(format!("{}: {w}", l.package(Side::Exercises)));
        }
    }
    sections.add("stubs compile without warnings", warnings);
    sections.add(
        "stubs grade not_started on every check",
        stub_problems(&stubs.report),
    );

    let plans = bless::plan(root, course, &lessons)?;
    sections.add(
        "snapshots are fresh and none is orphaned",
        stale_snapshots(&plans, lesson),
    );
    sections.add(
        "every misconception fails its checks and is named by one",
        misconceptions_named(&plans, &lessons),
    );
    sections.add(
        "every misconception keeps at most half of its exercise's points",
        points_kept(&plans, &lessons),
    );

    let mut agree = agreement(root, course, &lessons, &solutions.tests);
    if lesson.is_none() {
        agree.extend(unlisted_lessons(root, course));
    }
    sections.add("course.toml agrees with the checks and the crates", agree);
    sections.add(
        "README.md's lesson table lists course.toml's lessons",
        crate::commands::scaffold::readme_problems(root, course, &lessons, lesson.is_none()),
    );
    sections.add(
        "checks.sha256 matches the tree",
        manifest_problems(root, course, &lessons, lesson),
    );
    // A class run would stop on it: said here first.
    if let Some(problems) = comments_problems(root, course) {
        sections.add(COMMENTS_SECTION, problems);
    }
    Ok(sections.finish())
}

/// The section of the instructors' comments file, when the course has one.
const COMMENTS_SECTION: &str = "comments.toml names the course's misconceptions and checks";

/// What is wrong with the instructors' comments file (`grader::official::comments`); `None`
/// when the course has none.
fn comments_problems(root: &Path, course: &Course) -> Option<Vec<String>> {
    if !root.join(grader::official::comments::FILE).exists() {
        return None;
    }
    let loaded = grader::official::comments::Comments::load(root, course);
    Some(loaded.err().map(|e| format!("{e:#}")).into_iter().collect())
}

/// The fairness proof over the lessons with variant checks (see `grader::variants::fairness`).
fn fairness(root: &Path, lessons: &[&Lesson], jobs: usize) -> Result<Vec<String>> {
    let with: Vec<&Lesson> = lessons
        .iter()
        .copied()
        .filter(|l| l.has_variants())
        .collect();
    if with.is_empty() {
        return Ok(Vec::new());
    }
    let bins = match grader::variants::reference::binaries(root, &with) {
        Ok(bins) => bins,
        // A solution that does not build is reported with the solutions.
        Err(e) => return Ok(vec![format!("{e:#}")]),
    };
    let exes = bins
        .into_iter()
        .filter_map(|(id, bins)| {
            let hidden = bins.iter().find(|b| b.hidden)?.exe.clone();
            let all = bins.into_iter().map(|b| b.exe).collect();
            Some((id, grader::variants::fairness::Executables { hidden, all }))
        })
        .collect();
    grader::variants::fairness::problems(&with, &exes, jobs)
}

/// The snapshots `bless` would write, remove or could not regenerate.
fn stale_snapshots(plans: &[bless::LessonPlan], lesson: Option<&str>) -> Vec<String> {
    let mut stale = Vec::new();
    for p in plans {
        // Misconceptions that disagree with course.toml are reported in their own section.
        if let Some(why) = p
            .refused
            .as_ref()
            .filter(|_| p.misconception_problems.is_empty())
        {
            stale.push(format!("{}: cannot regenerate the snapshots: {why}", p.id));
        }
        for c in &p.changes {
            let what = match c.kind {
                bless::Kind::Added => "missing (a check asserts it)",
                bless::Kind::Changed if c.old.as_deref().map(bless::normalise_header) == c.new => {
                    "stale `source:` header only (bless normalises it)"
                }
                bless::Kind::Changed => "stale (differs from what the solution produces)",
                bless::Kind::Removed => "orphaned (no check references it)",
            };
            stale.push(format!("{}: {what}", c.path));
        }
    }
    if !stale.is_empty() {
        stale.push(format!(
            "run `cargo xtask bless{}` to regenerate them",
            lesson.map(|l| format!(" {l}")).unwrap_or_default()
        ));
    }
    stale
}

/// Each misconception not planted, or whose planting disagrees with course.toml; prints the
/// checks each one fails and those that name it.
fn misconceptions_named(plans: &[bless::LessonPlan], lessons: &[&Lesson]) -> Vec<String> {
    let mut named = Vec::new();
    for (p, l) in plans.iter().zip(lessons) {
        named.extend(
            p.misconception_problems
                .iter()
                .map(|m| format!("{}: {m}", l.id)),
        );
        for m in &l.misconceptions {
            match p.misconceptions.iter().find(|o| o.id == m.id) {
                Some(o) if !o.diagnosed.is_empty() => println!(
                    "     {} {}: fails {} check(s), named by {}",
                    l.id,
                    m.id,
                    o.failed.len(),
                    o.diagnosed.iter().cloned().collect::<Vec<_>>().join(", ")
                ),
                Some(_) => {}
                None if p.misconception_problems.is_empty() => {
                    named.push(format!("{} {}: was not planted (see above)", l.id, m.id))
                }
                None => {}
            }
        }
    }
    named
}

/// Each misconception that keeps more than half of its exercise's points.
fn points_kept(plans: &[bless::LessonPlan], lessons: &[&Lesson]) -> Vec<String> {
    let mut kept = Vec::new();
    for (p, l) in plans.iter().zip(lessons) {
        kept.extend(
            grader::judge::points_kept::problems(l, &p.misconceptions)
                .into_iter()
                .map(|m| format!("{}: {m}", l.id)),
        );
    }
    kept
}

/// Where the tree differs from checks.sha256 (only the files of `lesson` when given).
fn manifest_problems(
    root: &Path,
    course: &Course,
    lessons: &[&Lesson],
    lesson: Option<&str>,
) -> Vec<String> {
    let mut manifest = grader::course::manifest::differences(root, course);
    if lesson.is_some() {
        let mut prefixes: Vec<String> = lessons
            .iter()
            .flat_map(|l| grader::course::manifest::lesson_prefixes(root, l))
            .collect();
        prefixes.push("course.toml".into());
        prefixes.extend(
            grader::course::manifest::CHECK_SUPPORT
                .iter()
                .map(|p| (*p).to_owned()),
        );
        manifest.retain(|d| {
            prefixes.iter().any(|p| {
                d.strip_prefix(p.as_str())
                    .is_some_and(|r| r.starts_with('/') || r.starts_with(' '))
            }) || d.starts_with(grader::course::manifest::FILE)
        });
    }
    if !manifest.is_empty() {
        manifest.push("run `cargo xtask manifest` once the changes are intended".into());
    }
    manifest
}

fn checks_of(report: &grader::report::Report) -> Vec<(&str, &str, &grader::report::CheckReport)> {
    report
        .checks()
        .map(|(l, e, c)| (l.id.as_str(), e.name.as_str(), c))
        .collect()
}

/// One problem per lesson whose crate did not compile; `name` says which crate it was.
fn compile_problems(report: &grader::report::Report, name: impl Fn(&str) -> String) -> Vec<String> {
    report
        .lessons
        .iter()
        .filter_map(|l| {
            l.compiler_output
                .as_ref()
                .map(|c| format!("{} does not compile:\n{c}", name(&l.id)))
        })
        .collect()
}

fn solution_problems(report: &grader::report::Report) -> Vec<String> {
    let mut out = compile_problems(report, |id| format!("{id}-solution"));
    for (lesson, _, c) in checks_of(report) {
        if c.status != Status::Passed && c.status != Status::CompileError {
            out.push(format!("{lesson}/{}: {} ({})", c.name, c.status, c.message));
        }
    }
    out
}

fn stub_problems(report: &grader::report::Report) -> Vec<String> {
    let mut out = compile_problems(report, |id| format!("the stub {id}"));
    for (lesson, exercise, c) in checks_of(report) {
        match c.status {
            Status::NotStarted | Status::CompileError => {}
            Status::Passed => out.push(format!(
                "{lesson}/{}: the stub passes this check: a solution of `{exercise}` leaked into the exercise (or the check tests nothing)",
                c.name
            )),
            other => out.push(format!(
                "{lesson}/{}: the stub gives `{}`, not `not_started` ({})",
                c.name,
                other,
                c.message
            )),
        }
    }
    out
}

/// Clippy over the solutions' every target: `--all-targets` leaves out the check targets, which
/// carry `test = false` (so `cargo test` does not build them once more), so they are named too.
fn clippy(root: &Path, lessons: &[&Lesson]) -> Result<Vec<String>> {
    let checks: Vec<String> = (lessons.iter())
        .flat_map(|l| l.check_targets())
        .flat_map(|target| ["--test".to_owned(), target])
        .collect();
    let mut problems = Vec::new();
    // Two runs: cargo takes `--all-targets` over any `--test NAME` given with it.
    for targets in [vec!["--all-targets".to_owned()], checks] {
        problems.extend(clippy_of(root, lessons, &targets)?);
    }
    problems.dedup();
    Ok(problems)
}

/// One `cargo clippy` of the solutions of `lessons`, over `targets`: its problems.
fn clippy_of(root: &Path, lessons: &[&Lesson], targets: &[String]) -> Result<Vec<String>> {
    let mut cmd = grader::build::cargo::command();
    cmd.current_dir(root)
        .args(["clippy", "--message-format=short", "--quiet"])
        .args(targets)
        // Set when we run under `cargo test`; clippy would then lint every crate as primary.
        .env_remove("CARGO_PRIMARY_PACKAGE")
        .stdin(Stdio::null());
    for l in lessons {
        cmd.args(["-p", &l.package(Side::Solutions)]);
    }
    cmd.args(["--", "-D", "warnings"]);
    let out = cmd.output().context("could not run cargo clippy")?;
    if out.status.success() {
        return Ok(Vec::new());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut problems: Vec<String> = stderr
        .lines()
        .filter(|l| l.contains(": error") || l.contains(": warning"))
        .map(str::to_owned)
        .collect();
    problems.dedup();
    if problems.is_empty() {
        problems.push(grader::build::trim_error(&stderr, 12));
    }
    Ok(problems)
}

fn fmt(root: &Path, lessons: &[&Lesson]) -> Result<Vec<String>> {
    let mut cmd = grader::build::cargo::command();
    cmd.current_dir(root)
        .args(["fmt", "--check"])
        .stdin(Stdio::null());
    for l in lessons {
        cmd.args([
            "-p",
            &l.package(Side::Exercises),
            "-p",
            &l.package(Side::Solutions),
        ]);
    }
    let out = cmd.output().context("could not run cargo fmt")?;
    if out.status.success() {
        return Ok(Vec::new());
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut files = BTreeSet::new();
    for line in stdout.lines() {
        if let Some(rest) = line.strip_prefix("Diff in ") {
            // `Diff in /path/file.rs:19:` (or `... at line 19:` in older rustfmt).
            let rest = rest.trim_end_matches(':');
            let file = match rest.split_once(" at line") {
                Some((file, _)) => file,
                None => rest
                    .rsplit_once(':')
                    .filter(|(_, n)| n.chars().all(|c| c.is_ascii_digit()))
                    .map_or(rest, |(file, _)| file),
            };
            let file = crate::commands::bless::normalise_path(file);
            files.insert(grader::fsutil::relative(root, Path::new(&file)));
        }
    }
    if files.is_empty() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Ok(vec![grader::build::trim_error(
            &format!("{stdout}{stderr}"),
            12,
        )]);
    }
    Ok(files
        .into_iter()
        .map(|f| format!("{f} is not formatted (rustfmt --edition 2024 {f})"))
        .collect())
}

/// `course.toml` against the check binaries' test functions and the exercise crates.
fn agreement(
    root: &Path,
    course: &Course,
    lessons: &[&Lesson],
    tests: &HashMap<String, Vec<(bool, Vec<CheckId>)>>,
) -> Vec<String> {
    let _ = course;
    let mut out = Vec::new();
    for lesson in lessons {
        let id = &lesson.id;
        if lesson.exercises.is_empty() {
            out.push(format!("{id}: no exercise"));
        }
        let mut listed: HashMap<&str, bool> = HashMap::new();
        for ex in &lesson.exercises {
            if ex.hints.is_empty() {
                out.push(format!("{id}/{}: no hint", ex.name));
            }
            if ex.checks.is_empty() {
                out.push(format!("{id}/{}: no check", ex.name));
            } else if ex.checks.iter().all(|c| c.hidden) {
                out.push(format!(
                    "{id}/{}: every check is hidden, so students would get none",
                    ex.name
                ));
            }
            for c in &ex.checks {
                if c.points == 0 {
                    out.push(format!("{id}/{}: check `{}` has 0 points", ex.name, c.name));
                }
                listed.insert(c.name.as_str(), c.hidden);
            }
            if !defines_fn(
                &lesson.crate_dir(root, Side::Exercises).join("src"),
                &ex.name,
            ) {
                out.push(format!(
                    "{id}/{}: no `fn {}` in exercises/{}/src: the exercise has nothing to implement",
                    ex.name, ex.name, lesson.dir
                ));
            }
        }
        let Some(binaries) = tests.get(id) else {
            continue; // did not build: reported with the solutions
        };
        let mut found: HashMap<String, bool> = HashMap::new();
        for (hidden, names) in binaries {
            for full in names {
                let name = full.name().to_owned();
                match listed.get(name.as_str()) {
                    None => out.push(format!(
                        "{id}: test `{full}` ({}) is not listed in course.toml",
                        if *hidden {
                            lesson.hidden_target()
                        } else {
                            format!("{}'s checks", id)
                        }
                    )),
                    Some(h) if h != hidden => out.push(format!(
                        "{id}: check `{name}` is {} in course.toml but its test is in the {} checks",
                        if *h { "hidden" } else { "visible" },
                        if *hidden { "hidden" } else { "visible" }
                    )),
                    Some(_) => {}
                }
                found.insert(name, *hidden);
            }
        }
        for ex in &lesson.exercises {
            for c in &ex.checks {
                if !found.contains_key(&c.name) {
                    out.push(format!(
                        "{id}/{}: course.toml lists `{}` but no {}test function has that name",
                        ex.name,
                        c.name,
                        if c.hidden { "hidden " } else { "" }
                    ));
                }
            }
        }
    }
    out
}

/// Lesson crates in `exercises/` or `solutions/` that course.toml does not list.
fn unlisted_lessons(root: &Path, course: &Course) -> Vec<String> {
    let mut out = Vec::new();
    for side in ["exercises", "solutions"] {
        let Ok(entries) = std::fs::read_dir(root.join(side)) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .flatten()
            .filter(|e| e.path().join("Cargo.toml").is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for name in names {
            if !course.lessons.iter().any(|l| l.dir == name) {
                out.push(format!("{side}/{name} is not a lesson of course.toml"));
            }
        }
    }
    out
}

/// True when some `.rs` file under `dir` defines `fn name`.
fn defines_fn(dir: &Path, name: &str) -> bool {
    let files = grader::fsutil::files_under(dir, dir, &|_, _| false);
    let needle = format!("fn {name}");
    files.iter().any(|f| {
        f.ends_with(".rs")
            && std::fs::read_to_string(dir.join(f)).is_ok_and(|text| {
                text.match_indices(&needle).any(|(i, _)| {
                    text[i + needle.len()..]
                        .chars()
                        .next()
                        .is_some_and(|c| c == '(' || c == '<')
                })
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_definitions_are_found() {
        let dir = grader::fsutil::scratch_dir("defines-fn").unwrap();
        std::fs::write(
            dir.path().join("a.rs"),
            "pub fn split_heads(x: u8) {}\npub fn merge_heads_all<T>() {}\n",
        )
        .unwrap();
        assert!(defines_fn(dir.path(), "split_heads"));
        assert!(defines_fn(dir.path(), "merge_heads_all"));
        assert!(!defines_fn(dir.path(), "merge_heads"));
    }
}
