//! `cargo xtask bless [LESSON] [--check]`: regenerates snapshots from the reference solutions.
//!
//! The solutions' check binaries (built like `grade --solutions` builds them) run against a
//! temporary mirror of the lesson's snapshot directories, never against the real tree:
//! `INSTA_WORKSPACE_ROOT` points at the mirror, `INSTA_UPDATE=always` rewrites in place every
//! snapshot the solution does not match, and `INSTA_SNAPSHOT_REFERENCES_FILE` collects every
//! snapshot a check asserts (a snapshot file nobody references is an orphan). Each snapshot's
//! `source:` header is then normalised to the check file's plain path (insta writes the solution's
//! `solutions/<dir>/tests/../../../exercises/<dir>/tests/checks.rs`), and the mirror is compared
//! with the tree: added, changed and removed files. `--check` only reports; `bless` writes them and
//! refreshes the lesson's entries in `checks.sha256`. A lesson whose solution fails a check for
//! another reason than a snapshot (an assertion, a panic, a compile error) is refused as a whole.

use crate::compile::{Built, build};
use crate::course::{Course, Lesson};
use crate::fsutil::TempDir;
use crate::verdict::Ending;
use crate::workspace::relative;
use std::path::{Path, PathBuf};
use std::process::Command;
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
    /// The lesson's manifest prefixes (its tests and hidden checks).
    pub prefixes: Vec<String>,
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

/// A check the solution failed: `(test name, first lines of its panic)`.
type Failure = (String, String);

/// Runs one solution check binary against the mirror; returns the failed checks.
fn run_binary(
    exe: &Path,
    crate_dir: &Path,
    mirror: &Path,
    refs: &Path,
    timeout: Duration,
) -> Result<Vec<Failure>, String> {
    let mut cmd = Command::new(exe);
    for (key, _) in std::env::vars_os() {
        let k = key.to_string_lossy();
        if k.starts_with("INSTA_") || k.starts_with("RUST_TEST_") {
            cmd.env_remove(&key);
        }
    }
    cmd.current_dir(crate_dir)
        .env("INSTA_WORKSPACE_ROOT", mirror)
        .env("INSTA_UPDATE", "always")
        .env("INSTA_OUTPUT", "none")
        .env("INSTA_SNAPSHOT_REFERENCES_FILE", refs)
        .env("RUST_BACKTRACE", "0")
        .env("NO_COLOR", "1")
        .env("CLICOLOR", "0");
    let (ending, out) = crate::runner::run_limited(cmd, timeout, None)
        .map_err(|e| format!("could not start {}: {e}", exe.display()))?;
    if ending == Ending::TimedOut {
        return Ok(vec![(
            "(all checks)".into(),
            format!("did not finish within {:.0} s", timeout.as_secs_f64()),
        )]);
    }
    let mut failures: Vec<Failure> = out
        .lines()
        .filter_map(|l| l.strip_prefix("test ")?.strip_suffix(" ... FAILED"))
        .map(|name| (name.to_owned(), failure_message(&out, name)))
        .collect();
    if ending != Ending::Exited(0) && failures.is_empty() {
        let tail: Vec<&str> = out.lines().rev().take(6).collect();
        failures.push((
            "(check binary)".into(),
            format!(
                "exited with {ending:?}: {}",
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            ),
        ));
    }
    Ok(failures)
}

/// The first lines of a failed test's captured output (its panic message).
fn failure_message(output: &str, name: &str) -> String {
    let header = format!("---- {name} stdout ----");
    let Some(start) = output.find(&header) else {
        return String::new();
    };
    output[start + header.len()..]
        .lines()
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| !l.starts_with("---- ") && !l.starts_with("failures:"))
        .filter(|l| !l.starts_with("note: "))
        .take(4)
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned()
}

/// Regenerates the snapshots of `lessons` in a mirror and says what would change. Nothing in the
/// course tree is written.
pub fn plan(root: &Path, course: &Course, lessons: &[&Lesson]) -> Result<Vec<LessonPlan>, String> {
    require_solutions(root)?;
    let built = build(root, lessons, true, None)?.lessons;
    let mut plans = Vec::new();
    for lesson in lessons {
        let mut plan = LessonPlan {
            id: lesson.id.clone(),
            changes: Vec::new(),
            unchanged: 0,
            refused: None,
            prefixes: crate::manifest::lesson_prefixes(root, lesson),
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
                let bins: Vec<(String, PathBuf)> = bins
                    .iter()
                    .map(|b| (b.target.clone(), b.exe.clone()))
                    .collect();
                match plan_lesson(root, lesson, &bins, timeout) {
                    Ok((changes, unchanged)) => {
                        plan.changes = changes;
                        plan.unchanged = unchanged;
                    }
                    Err(why) => plan.refused = Some(why),
                }
            }
        }
        plans.push(plan);
    }
    Ok(plans)
}

/// Refuses to work without the reference solutions (in a student handout).
pub fn require_solutions(root: &Path) -> Result<(), String> {
    if root.join("solutions").is_dir() {
        Ok(())
    } else {
        Err(
            "this command needs the reference solutions, and solutions/ is missing (is this a student handout?)"
                .into(),
        )
    }
}

fn plan_lesson(
    root: &Path,
    lesson: &Lesson,
    bins: &[(String, PathBuf)],
    timeout: Duration,
) -> Result<(Vec<Change>, usize), String> {
    let mirror = TempDir::new("bless")?;
    let snapshot_dirs: Vec<String> = lesson
        .snapshot_dirs(root)
        .iter()
        .map(|d| relative(root, d))
        .collect();
    // The mirror: copies of the snapshot directories at their relative paths, plus the crates'
    // test directories so that insta's `solutions/<dir>/tests/../../..` resolves.
    for rel in &snapshot_dirs {
        let to = mirror.0.join(rel);
        std::fs::create_dir_all(&to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
        for file in snap_files(&root.join(rel)) {
            let name = file.file_name().expect("a file");
            std::fs::copy(&file, to.join(name))
                .map_err(|e| format!("cannot copy {}: {e}", file.display()))?;
        }
    }
    for solutions in [false, true] {
        let tests = mirror.0.join(relative(
            root,
            &lesson.crate_dir(root, solutions).join("tests"),
        ));
        std::fs::create_dir_all(&tests)
            .map_err(|e| format!("cannot create {}: {e}", tests.display()))?;
    }

    let crate_dir = lesson.crate_dir(root, true);
    let mut failures = Vec::new();
    let refs = mirror.0.join(".references");
    for (_, exe) in bins {
        failures.extend(run_binary(exe, &crate_dir, &mirror.0, &refs, timeout)?);
    }
    if !failures.is_empty() {
        let list: Vec<String> = failures
            .iter()
            .map(|(name, msg)| {
                let msg = msg.lines().collect::<Vec<_>>().join("\n      ");
                format!("  {name}\n      {msg}")
            })
            .collect();
        return Err(format!(
            "the reference solution fails {} check(s) for a reason other than a snapshot:\n{}",
            failures.len(),
            list.join("\n")
        ));
    }

    // Which snapshots the checks asserted, relative to the course root.
    let mirror_str = mirror.0.to_string_lossy().replace('\\', "/");
    let mirror_norm = normalise_path(&mirror_str);
    let mut referenced: Vec<String> = Vec::new();
    let refs_text = std::fs::read_to_string(&refs).unwrap_or_default();
    for line in refs_text.lines().filter(|l| !l.trim().is_empty()) {
        let norm = normalise_path(line.trim());
        let rel = norm
            .strip_prefix(&mirror_norm)
            .and_then(|r| r.strip_prefix('/'))
            .ok_or_else(|| format!("a check wrote a snapshot outside the course: {line}"))?;
        let inside = [
            &lesson.crate_dir(root, false),
            &lesson.crate_dir(root, true),
        ]
        .iter()
        .any(|d| rel.starts_with(&format!("{}/", relative(root, d))));
        if !inside || !rel.ends_with(".snap") {
            return Err(format!(
                "a check references the snapshot {rel}, outside the lesson's crates: move it under tests/snapshots"
            ));
        }
        if !referenced.iter().any(|r| r == rel) {
            referenced.push(rel.to_owned());
        }
    }
    referenced.sort();

    let mut changes = Vec::new();
    let mut unchanged = 0;
    for rel in &referenced {
        let regenerated = std::fs::read_to_string(mirror.0.join(rel))
            .map_err(|e| format!("the check did not write {rel}: {e}"))?;
        let new = normalise_header(&regenerated);
        match std::fs::read_to_string(root.join(rel)) {
            Ok(old) if old == new => unchanged += 1,
            Ok(old) => changes.push(Change {
                path: rel.clone(),
                kind: Kind::Changed,
                old: Some(old),
                new: Some(new),
            }),
            Err(_) => changes.push(Change {
                path: rel.clone(),
                kind: Kind::Added,
                old: None,
                new: Some(new),
            }),
        }
    }
    for rel in &snapshot_dirs {
        for file in snap_files(&root.join(rel)) {
            let file_rel = relative(root, &file);
            if !referenced.contains(&file_rel) {
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
    Ok((changes, unchanged))
}

/// Writes the planned changes of the lessons that were not refused, then refreshes their entries in
/// the manifest.
pub fn apply(root: &Path, course: &Course, plans: &[LessonPlan]) -> Result<(), String> {
    let mut prefixes = Vec::new();
    for plan in plans.iter().filter(|p| p.refused.is_none()) {
        for change in &plan.changes {
            let path = root.join(&change.path);
            match (&change.kind, &change.new) {
                (Kind::Removed, _) => std::fs::remove_file(&path)
                    .map_err(|e| format!("cannot remove {}: {e}", change.path))?,
                (_, Some(text)) => {
                    if let Some(dir) = path.parent() {
                        std::fs::create_dir_all(dir)
                            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
                    }
                    std::fs::write(&path, text)
                        .map_err(|e| format!("cannot write {}: {e}", change.path))?;
                }
                (_, None) => {}
            }
        }
        prefixes.extend(plan.prefixes.iter().cloned());
    }
    if prefixes.is_empty() {
        return Ok(());
    }
    crate::manifest::refresh(root, course, &prefixes)
}

/// The changed lines of `old` -> `new`, `-`/`+` prefixed, at most `max` of them (then a count of
/// the rest).
pub fn short_diff(old: &str, new: &str, max: usize) -> Vec<String> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let mut lines = Vec::new();
    if a.len().saturating_mul(b.len()) <= 4_000_000 {
        // Longest common subsequence, then walk it.
        let (n, m) = (a.len(), b.len());
        let mut lcs = vec![0u32; (n + 1) * (m + 1)];
        let at = |i: usize, j: usize| i * (m + 1) + j;
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                lcs[at(i, j)] = if a[i] == b[j] {
                    lcs[at(i + 1, j + 1)] + 1
                } else {
                    lcs[at(i + 1, j)].max(lcs[at(i, j + 1)])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < n || j < m {
            if i < n && j < m && a[i] == b[j] {
                i += 1;
                j += 1;
            } else if i < n && (j == m || lcs[at(i + 1, j)] >= lcs[at(i, j + 1)]) {
                lines.push(format!("-{}", a[i]));
                i += 1;
            } else {
                lines.push(format!("+{}", b[j]));
                j += 1;
            }
        }
    } else {
        for k in 0..a.len().max(b.len()) {
            match (a.get(k), b.get(k)) {
                (Some(x), Some(y)) if x == y => {}
                (x, y) => {
                    if let Some(x) = x {
                        lines.push(format!("-{x}"));
                    }
                    if let Some(y) = y {
                        lines.push(format!("+{y}"));
                    }
                }
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
                        8,
                    );
                    for line in diff {
                        out.push_str(&format!("      {line}\n"));
                    }
                }
            }
        }
    }
    out
}

/// `cargo xtask bless`: returns true when it succeeded (with `--check`: nothing would change).
pub fn run(
    root: &Path,
    course: &Course,
    lesson: Option<&str>,
    check: bool,
) -> Result<bool, String> {
    let lessons = crate::grade::select(course, lesson)?;
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
            crate::manifest::FILE
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
    }
}
