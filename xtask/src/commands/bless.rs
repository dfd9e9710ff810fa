//! `cargo xtask bless [LESSON] [--check]`: regenerates snapshots from the reference solutions.
//!
//! The solutions' check binaries are built like `grade --solutions` builds them, and every check
//! runs in its sandbox exactly as under grading, reporting its observations (see
//! `check_protocol::observe`). From them bless writes, per snapshot directory, the `.snap` files (in
//! insta's format, with the `source:` header naming the check file, so `cargo test` reads them as
//! before) and the index of expected observations (`expected-observations.txt`) the grader judges
//! against. Nothing is written in the tree until every check of the lesson has run cleanly:
//! `--check` only reports; `bless` writes the files and refreshes the lesson's entries in
//! `checks.sha256`. A lesson whose solution fails a check (an assertion, a panic, a compile error)
//! is refused as a whole. A `.snap` file no check produces is an orphan and is removed.

use anyhow::{Context as _, Result, bail};
use grader::build::{Built, build};
use grader::course::expected::{Expect, Expected, INDEX_FILE, render_index};
use grader::course::{CheckId, Course, Lesson};
use grader::fsutil::relative;
use grader::judge::{blessed, misconception, planting};
use grader::run::Runner;
use grader::run::runs::Listed;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What happens to one snapshot file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A check asserts a snapshot that has no file yet.
    Added,
    /// The file differs from what the solution produces (or its header is not normalised).
    Changed,
    /// No check references the file: an orphan.
    Removed,
}

impl Kind {
    fn label(self) -> &'static str {
        match self {
            Kind::Added => "added",
            Kind::Changed => "changed",
            Kind::Removed => "removed",
        }
    }
}

/// One snapshot file to add, change or remove.
#[derive(Debug, Clone)]
pub struct Change {
    /// Path relative to the course root, `/`-separated.
    pub path: String,
    /// What happens to it.
    pub kind: Kind,
    /// The file's current contents (changed and removed files).
    pub old: Option<String>,
    /// The regenerated contents (added and changed files).
    pub new: Option<String>,
}

/// The outcome of regenerating one lesson's snapshots.
#[derive(Debug, Clone)]
pub struct LessonPlan {
    /// The lesson's id.
    pub id: String,
    /// Snapshot files that would be added, changed or removed, by path.
    pub changes: Vec<Change>,
    /// Snapshot files the checks reference that are already up to date.
    pub unchanged: usize,
    /// Why the lesson cannot be blessed (its solution fails a check, does not build, ...).
    pub refused: Option<String>,
    /// The lesson's manifest prefixes (its tests, hidden checks and `Cargo.toml`).
    pub prefixes: Vec<String>,
    /// How each of its misconceptions fared when planted.
    pub misconceptions: Vec<planting::Outcome>,
    /// Where its misconceptions disagree with course.toml (the lesson is then refused).
    pub misconception_problems: Vec<String>,
}

/// Removes `.` and `..` components without touching the file system.
pub fn normalise_path(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    let absolute = path.starts_with('/');
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

/// Rewrites a snapshot's `source:` header to the check file's normalised path
/// (`solutions/<dir>/tests/../../../exercises/<dir>/tests/checks.rs` becomes
/// `exercises/<dir>/tests/checks.rs`). Everything else is kept byte for byte.
pub fn normalise_header(text: &str) -> String {
    let Some(rest) = text.strip_prefix("---\n") else {
        return text.to_owned();
    };
    let Some(end) = rest.find("\n---\n") else {
        return text.to_owned();
    };
    let header: Vec<String> = rest[..end]
        .lines()
        .map(|line| match line.strip_prefix("source: ") {
            Some(src) => format!("source: {}", normalise_path(src.trim())),
            None => line.to_owned(),
        })
        .collect();
    format!("---\n{}{}", header.join("\n"), &rest[end..])
}

fn snap_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_file() && p.extension().is_some_and(|e| e == "snap") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A snapshot file's text in insta's format.
pub fn snap_file(source: &str, text: &str) -> String {
    format!("---\nsource: {source}\n---\n{}\n", text.trim_end())
}

/// Lists and runs every check of one solution check binary (variant checks aside: they have no
/// snapshot files, their expected values are computed per student), each alone, and reads what
/// they observe; failures are returned as `(test, why)`.
fn observe_binary(
    runner: &Runner,
    exe: &Path,
    timeout: Duration,
    variants: &[&str],
) -> Result<(Listed, Expected, blessed::Failures)> {
    let listed = Listed::of(runner, exe)?.only(|n| !variants.contains(&n.name()));
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let runs = listed.run_each(runner, timeout, workers);
    let (observed, failures) = blessed::observed(&listed, &runs, timeout);
    Ok((listed, observed, failures))
}

/// The checks (by name, sorted) whose expected observations hold no snapshot: assertions only, or
/// nothing at all.
fn without_snapshots(checks: &HashMap<String, Vec<Expect>>) -> Vec<&str> {
    let mut bare: Vec<&str> = checks
        .iter()
        .filter(|(_, list)| !list.iter().any(|e| matches!(e, Expect::Snapshot { .. })))
        .map(|(name, _)| name.as_str())
        .collect();
    bare.sort_unstable();
    bare
}

/// Regenerates the snapshots of `lessons` in a mirror and says what would change. Nothing in the
/// course tree is written.
pub fn plan(root: &Path, course: &Course, lessons: &[&Lesson]) -> Result<Vec<LessonPlan>> {
    grader::course::require_solutions(root)?;
    let built = build(root, lessons, grader::course::Side::Solutions, None, None)?.lessons;
    let runner = Runner::direct()?;
    let mut plans = Vec::new();
    for lesson in lessons {
        let mut plan = LessonPlan {
            id: lesson.id.clone(),
            changes: Vec::new(),
            unchanged: 0,
            refused: None,
            prefixes: grader::course::manifest::lesson_prefixes(root, lesson),
            misconceptions: Vec::new(),
            misconception_problems: Vec::new(),
        };
        match &built[&lesson.id] {
            Built::Failed(err) => {
                plan.refused = Some(format!("the reference solution does not build:\n{err}"));
            }
            Built::Ok(bins) => {
                let timeout = Duration::from_secs_f64(
                    lesson
                        .timeout_secs
                        .unwrap_or(course.course.default_timeout_secs)
                        * 10.0,
                )
                .max(Duration::from_secs(60));
                let bins: Vec<(bool, PathBuf)> =
                    bins.iter().map(|b| (b.hidden, b.exe.clone())).collect();
                match plan_lesson(root, &runner, lesson, &bins, timeout) {
                    Ok((changes, unchanged, planted)) => {
                        plan.changes = changes;
                        plan.unchanged = unchanged;
                        if let Some(planted) = planted {
                            plan.misconception_problems = planted.problems.clone();
                            if !planted.problems.is_empty() {
                                plan.refused = Some(format!(
                                    "its misconceptions disagree with course.toml:\n  {}",
                                    planted.problems.join("\n  ")
                                ));
                            }
                            plan.misconceptions = planted.outcomes;
                        }
                    }
                    Err(why) => plan.refused = Some(format!("{why:#}")),
                }
            }
        }
        plans.push(plan);
    }
    Ok(plans)
}

fn plan_lesson(
    root: &Path,
    runner: &Runner,
    lesson: &Lesson,
    bins: &[(bool, PathBuf)],
    timeout: Duration,
) -> Result<(Vec<Change>, usize, Option<planting::Planted>)> {
    let [visible_dir, hidden_dir] = lesson.snapshot_dirs(root);
    let mut failures = Vec::new();
    // Per snapshot directory: the files it must hold (relative path -> contents).
    let mut wanted: Vec<(PathBuf, Vec<(String, String)>)> = Vec::new();
    let mut outcomes = None;
    for (hidden, exe) in bins {
        let variants: Vec<&str> = lesson
            .exercises
            .iter()
            .flat_map(|e| &e.checks)
            .filter(|c| c.variant)
            .map(|c| c.name.as_str())
            .collect();
        let (listed, observed, failed) = observe_binary(runner, exe, timeout, &variants)?;
        failures.extend(failed);
        let bare = if *hidden {
            without_snapshots(&observed.checks)
        } else {
            Vec::new()
        };
        refuse_bare(&bare)?;
        let dir = if *hidden { &hidden_dir } else { &visible_dir };
        let mut files = snapshot_files(root, lesson, *hidden, dir, &observed);
        if !*hidden && !lesson.misconceptions.is_empty() && failures.is_empty() {
            // Each misconception planted in turn: what the visible checks see of it.
            let planted = planting::plant_all(root, runner, lesson, &listed, &observed, timeout)?;
            files.push((
                relative(root, &dir.join(misconception::FILE)),
                misconception::render(&planted.records),
            ));
            outcomes = Some(planted);
        }
        wanted.push((dir.to_path_buf(), files));
    }
    refuse_failures(&failures)?;
    let (changes, unchanged) = changes(root, &wanted);
    Ok((changes, unchanged, outcomes))
}

/// What writing the `wanted` files (per snapshot directory) changes, and how many files are
/// already as wanted; a snapshot file no longer wanted is removed.
fn changes(root: &Path, wanted: &[(PathBuf, Vec<(String, String)>)]) -> (Vec<Change>, usize) {
    let mut changes = Vec::new();
    let mut unchanged = 0;
    for (dir, files) in wanted {
        for (rel, new) in files {
            match std::fs::read_to_string(root.join(rel)) {
                Ok(old) if &old == new => unchanged += 1,
                // Records that differ in the last digits of a number only are kept as they are.
                Ok(old)
                    if rel.ends_with(misconception::FILE)
                        && misconception::same_records(&old, new) =>
                {
                    unchanged += 1
                }
                Ok(old) => changes.push(Change {
                    path: rel.clone(),
                    kind: Kind::Changed,
                    old: Some(old),
                    new: Some(new.clone()),
                }),
                Err(_) => changes.push(Change {
                    path: rel.clone(),
                    kind: Kind::Added,
                    old: None,
                    new: Some(new.clone()),
                }),
            }
        }
        for file in snap_files(dir) {
            let file_rel = relative(root, &file);
            if !files.iter().any(|(rel, _)| *rel == file_rel) {
                changes.push(Change {
                    path: file_rel,
                    kind: Kind::Removed,
                    old: std::fs::read_to_string(&file).ok(),
                    new: None,
                });
            }
        }
    }
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    (changes, unchanged)
}

/// Refuses hidden checks that compare no snapshot (`bare`, their names).
fn refuse_bare(bare: &[&str]) -> Result<()> {
    if !bare.is_empty() {
        bail!(
            "hidden check(s) that compare no snapshot: {}. A hidden check must compare at \
             least one (`assert_close_snapshot!`, `assert_exact_snapshot!` or \
             `assert_text_snapshot!`): its expected text is never where student code can \
             read it, whereas an assertion's observation says only that it held, which \
             student code running in the check's process can write itself once it knows \
             the assertion's text (compiled into the check executable, which the check \
             process can read)",
            bare.join(", ")
        );
    }
    Ok(())
}

/// Refuses a reference solution that fails checks: `(check, message)`.
fn refuse_failures(failures: &[(CheckId, String)]) -> Result<()> {
    if failures.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = failures
        .iter()
        .map(|(name, msg)| {
            let msg = msg.lines().collect::<Vec<_>>().join("\n      ");
            format!("  {name}\n      {msg}")
        })
        .collect();
    bail!(
        "the reference solution fails {} check(s):\n{}",
        failures.len(),
        list.join("\n")
    );
}

/// The snapshot files of one check binary (`hidden` or visible) of `lesson`, in `dir`: one per
/// snapshot it observed, and the index of its expected observations.
fn snapshot_files(
    root: &Path,
    lesson: &Lesson,
    hidden: bool,
    dir: &Path,
    observed: &Expected,
) -> Vec<(String, String)> {
    let source = if hidden {
        lesson.hidden_dir(root).join("checks.rs")
    } else {
        lesson
            .crate_dir(root, grader::course::Side::Exercises)
            .join("tests")
            .join("checks.rs")
    };
    let source = relative(root, &source);
    let mut files: Vec<(String, String)> = observed
        .snapshots
        .iter()
        .map(|(name, text)| {
            (
                relative(root, &dir.join(format!("{name}.snap"))),
                snap_file(&source, text),
            )
        })
        .collect();
    files.push((
        relative(root, &dir.join(INDEX_FILE)),
        render_index(&observed.checks),
    ));
    files
}

/// Writes the planned changes of the lessons that were not refused, then refreshes their entries in
/// the manifest.
pub fn apply(root: &Path, course: &Course, plans: &[LessonPlan]) -> Result<()> {
    let mut prefixes = Vec::new();
    for plan in plans.iter().filter(|p| p.refused.is_none()) {
        for change in &plan.changes {
            let path = root.join(&change.path);
            match (&change.kind, &change.new) {
                (Kind::Removed, _) => std::fs::remove_file(&path)
                    .with_context(|| format!("cannot remove {}", change.path))?,
                (_, Some(text)) => {
                    if let Some(dir) = path.parent() {
                        std::fs::create_dir_all(dir)
                            .with_context(|| format!("cannot create {}", dir.display()))?;
                    }
                    std::fs::write(&path, text)
                        .with_context(|| format!("cannot write {}", change.path))?;
                }
                (_, None) => {}
            }
        }
        prefixes.extend(plan.prefixes.iter().cloned());
    }
    if prefixes.is_empty() {
        return Ok(());
    }
    grader::course::manifest::refresh(root, course, &prefixes)
}

/// The changed lines of `old` -> `new`, `-`/`+` prefixed, at most `max` of them (then a count of
/// the rest). A block of changed lines is shown line by line, each old line followed by the new
/// one that replaces it, so that a long block cut at `max` still shows new values.
pub fn short_diff(old: &str, new: &str, max: usize) -> Vec<String> {
    // Line by line as `str::lines` splits them (`TextDiff::from_lines` would count a missing
    // final newline, or `\r\n` for `\n`, as a changed line); the deadline bounds huge inputs.
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let diff = similar::TextDiff::configure()
        .timeout(std::time::Duration::from_secs(1))
        .diff_slices(&a, &b);
    let mut lines: Vec<String> = Vec::new();
    for op in diff.ops() {
        let (_, olds, news) = op.as_tag_tuple();
        if matches!(op, similar::DiffOp::Equal { .. }) {
            continue;
        }
        for k in 0..olds.len().max(news.len()) {
            if let Some(line) = a.get(olds.start + k).filter(|_| k < olds.len()) {
                lines.push(format!("-{line}"));
            }
            if let Some(line) = b.get(news.start + k).filter(|_| k < news.len()) {
                lines.push(format!("+{line}"));
            }
        }
    }
    if lines.len() > max {
        let rest = lines.len() - max;
        lines.truncate(max);
        lines.push(format!("... and {rest} more changed line(s)"));
    }
    lines
}

/// How many changed lines of a snapshot `bless` shows.
const DIFF_LINES: usize = 16;

/// The report of a bless (or `--check`) run, for people.
pub fn render(plans: &[LessonPlan], check: bool) -> String {
    let mut out = String::new();
    for plan in plans {
        if let Some(why) = &plan.refused {
            out.push_str(&format!("{}: refused, nothing blessed: {why}\n", plan.id));
            continue;
        }
        if plan.changes.is_empty() {
            out.push_str(&format!(
                "{}: {} snapshot(s) up to date\n",
                plan.id, plan.unchanged
            ));
            continue;
        }
        out.push_str(&format!(
            "{}: {} snapshot(s) {}, {} up to date\n",
            plan.id,
            plan.changes.len(),
            if check { "would change" } else { "updated" },
            plan.unchanged
        ));
        for change in &plan.changes {
            let what = if check {
                match change.kind {
                    Kind::Added => "would add",
                    Kind::Changed => "would change",
                    Kind::Removed => "would remove",
                }
            } else {
                change.kind.label()
            };
            out.push_str(&format!("  {what:12} {}", change.path));
            match change.kind {
                Kind::Added => {
                    let n = change.new.as_deref().map_or(0, |t| t.lines().count());
                    out.push_str(&format!(" ({n} lines)\n"));
                }
                Kind::Removed => out.push_str(" (orphan: no check references it)\n"),
                Kind::Changed => {
                    out.push('\n');
                    let diff = short_diff(
                        change.old.as_deref().unwrap_or(""),
                        change.new.as_deref().unwrap_or(""),
                        DIFF_LINES,
                    );
                    for line in diff {
                        out.push_str(&format!("      {line}\n"));
                    }
                }
            }
        }
    }
    let count = |kind: Kind| {
        plans
            .iter()
            .filter(|p| p.refused.is_none())
            .flat_map(|p| &p.changes)
            .filter(|c| c.kind == kind)
            .count()
    };
    let refused = plans.iter().filter(|p| p.refused.is_some()).count();
    out.push_str(&format!(
        "Summary: {} snapshot(s) {}, {} {}, {} {}; {refused} lesson(s) refused.\n",
        count(Kind::Added),
        if check { "to add" } else { "added" },
        count(Kind::Changed),
        if check { "to change" } else { "changed" },
        count(Kind::Removed),
        if check { "to remove" } else { "removed" },
    ));
    out
}

/// `cargo xtask bless`: returns true when it succeeded (with `--check`: nothing would change;
/// with `--dry-run`, which also writes nothing: no lesson was refused).
pub fn run(
    root: &Path,
    course: &Course,
    lesson: Option<&str>,
    check: bool,
    dry_run: bool,
) -> Result<bool> {
    if dry_run && !check {
        let lessons = grader::plan::select(course, lesson)?;
        let plans = plan(root, course, &lessons)?;
        print!("{}", render(&plans, true));
        return Ok(plans.iter().all(|p| p.refused.is_none()));
    }
    let lessons = grader::plan::select(course, lesson)?;
    let plans = plan(root, course, &lessons)?;
    print!("{}", render(&plans, check));
    let refused = plans.iter().filter(|p| p.refused.is_some()).count();
    let pending: Vec<&Change> = plans
        .iter()
        .filter(|p| p.refused.is_none())
        .flat_map(|p| &p.changes)
        .collect();
    if check {
        if !pending.is_empty() {
            println!(
                "{} snapshot(s) are not what the reference solutions produce; run `cargo xtask bless{}`:",
                pending.len(),
                lesson.map(|l| format!(" {l}")).unwrap_or_default()
            );
            for c in &pending {
                println!("  {} ({})", c.path, c.kind.label());
            }
        } else if refused == 0 {
            println!("All snapshots are fresh.");
        }
        return Ok(pending.is_empty() && refused == 0);
    }
    apply(root, course, &plans)?;
    if !pending.is_empty() {
        println!(
            "{} snapshot file(s) written or removed; {} updated.",
            pending.len(),
            grader::course::manifest::FILE
        );
    } else if refused == 0 {
        println!("Nothing to bless: every snapshot is what the reference solutions produce.");
    }
    Ok(refused == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_comparing_no_snapshot_are_found() {
        let snap = |name: &str| Expect::Snapshot {
            name: name.into(),
            exact: true,
        };
        let checks = HashMap::from([
            ("asserts".to_owned(), vec![Expect::Assert("a == b".into())]),
            ("empty".to_owned(), vec![]),
            (
                "mixed".to_owned(),
                vec![Expect::Assert("a == b".into()), snap("s")],
            ),
            ("snapshot".to_owned(), vec![snap("t")]),
        ]);
        assert_eq!(without_snapshots(&checks), ["asserts", "empty"]);
        assert!(without_snapshots(&HashMap::new()).is_empty());
    }

    #[test]
    fn headers_are_normalised_once() {
        let text = "---\nsource: solutions/l2/tests/../../../exercises/l2/tests/checks.rs\n---\nshape (1)\n[0] 1\n";
        let once = normalise_header(text);
        assert_eq!(
            once,
            "---\nsource: exercises/l2/tests/checks.rs\n---\nshape (1)\n[0] 1\n"
        );
        assert_eq!(normalise_header(&once), once);
        assert_eq!(normalise_header("no header"), "no header");
    }

    #[test]
    fn paths_are_normalised_lexically() {
        assert_eq!(normalise_path("a/b/../c/./d"), "a/c/d");
        assert_eq!(normalise_path("/t/m/s/x/tests/../../../e/x"), "/t/m/e/x");
        assert_eq!(normalise_path("../a"), "../a");
    }

    #[test]
    fn short_diffs_show_only_changed_lines() {
        let old = "a\nb\nc\nd\n";
        let new = "a\nB\nc\nd\ne\n";
        assert_eq!(short_diff(old, new, 8), vec!["-b", "+B", "+e"]);
        let many_old: String = (0..20).map(|i| format!("{i}\n")).collect();
        let many_new: String = (0..20).map(|i| format!("{}\n", i * 2)).collect();
        let d = short_diff(&many_old, &many_new, 4);
        assert_eq!(d.len(), 5);
        assert!(d[4].starts_with("... and "));
        assert_eq!(d[4], "... and 16 more changed line(s)");
        // Line endings are not changes; a changed block pairs each old line with its new one.
        assert!(short_diff("a\nb", "a\r\nb\n", 8).is_empty());
        assert_eq!(
            short_diff("a\nx\ny\nb\n", "a\nX\nY\nb\n", 8),
            ["-x", "+X", "-y", "+Y"]
        );
        // A long changed block cut short still shows the new values of its first lines.
        let olds: String = (0..20).map(|i| format!("a{i}\n")).collect();
        let news: String = (0..20).map(|i| format!("b{i}\n")).collect();
        let cut = short_diff(&olds, &news, 4);
        assert_eq!(cut[..4], ["-a0", "+b0", "-a1", "+b1"]);
        assert_eq!(cut[4], "... and 36 more changed line(s)");
        assert_eq!(short_diff("", "a\n", 8), ["+a"]);
        assert_eq!(short_diff("a\n", "", 8), ["-a"]);
    }
}
