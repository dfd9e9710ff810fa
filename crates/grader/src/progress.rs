//! Progress: the last grade of every lesson, kept in `target/xtask/last-grade.json` (see
//! [`state_file`]), and `cargo xtask list`, which marks each exercise from it. A run of one lesson
//! replaces that lesson's entry only ([`record`]); grades of the reference solutions or of a
//! submission are not the student's progress and are not recorded.

use crate::course::{Course, Lesson};
use crate::report::Report;
use crate::report::style::Style;
use anyhow::{Context as _, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Where the last grade is kept: `target/xtask/last-grade.json` (the same folder as the hint
/// levels; with a shared `CARGO_TARGET_DIR`, `last-grade-<hash>.json`: see
/// [`crate::course::layout::state_file`]).
pub fn state_file(root: &Path) -> PathBuf {
    crate::course::layout::state_file(root, "last-grade")
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The stored state: the course root it belongs to (a shared `CARGO_TARGET_DIR` may serve several
/// copies of the course) and, per lesson id, that lesson's part of its last JSON report plus
/// `graded_at` (Unix seconds).
fn load_value(root: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(state_file(root)).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    (value["root"].as_str() == Some(&crate::course::layout::course_key(root))).then_some(value)
}

/// Records a grade of the student's exercises; other grades (solutions, submissions) are ignored.
/// Lessons in `report` replace their previous entries; the others are kept.
pub fn record(root: &Path, report: &Report) -> Result<()> {
    if report.graded != crate::report::Graded::Exercises {
        return Ok(());
    }
    let mut lessons = load_value(root)
        .and_then(|v| v.get("lessons").and_then(|l| l.as_object()).cloned())
        .unwrap_or_default();
    let fresh: serde_json::Value =
        serde_json::from_str(&report.to_json()).context("the report does not serialise")?;
    let graded_at = now_secs();
    for lesson in fresh["lessons"].as_array().into_iter().flatten() {
        let mut lesson = lesson.clone();
        let Some(id) = lesson["id"].as_str().map(str::to_owned) else {
            continue;
        };
        lesson["graded_at"] = graded_at.into();
        lesson["official"] = report.official.into();
        lessons.insert(id, lesson);
    }
    let state = serde_json::json!({
        "schema_version": report.schema_version,
        "root": crate::course::layout::course_key(root),
        "lessons": lessons,
    });
    let path = state_file(root);
    let dir = path.parent().expect("the state file has a folder");
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    // Write then rename, so a `list` (or a grade of another copy) never reads half a file.
    let tmp = path.with_extension(format!("json.{}.tmp", std::process::id()));
    let text = serde_json::to_string_pretty(&state).expect("JSON values serialise");
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("cannot write {}", path.display()))
}

/// One lesson as stored (the fields `list` reads).
#[derive(Debug, Deserialize)]
struct StoredLesson {
    build: String,
    score: u32,
    #[serde(default)]
    graded_at: u64,
    exercises: Vec<StoredExercise>,
}

#[derive(Debug, Deserialize)]
struct StoredExercise {
    name: String,
    score: u32,
    max_score: u32,
    checks: Vec<StoredCheck>,
}

#[derive(Debug, Deserialize)]
struct StoredCheck {
    status: String,
}

/// An exercise's progress at its last grade.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Every check passed.
    Done,
    /// Some check ran the student's code (right or wrong), or some points were earned.
    Started,
    /// Every check still hits `todo!()`, or the exercise was never graded.
    NotStarted,
    /// The lesson did not compile at its last grade.
    DoesNotCompile,
}

impl Progress {
    fn of(ex: &StoredExercise) -> Self {
        let all = |s: &str| !ex.checks.is_empty() && ex.checks.iter().all(|c| c.status == s);
        if ex.max_score > 0 && ex.score == ex.max_score || all("passed") {
            Progress::Done
        } else if all("compile_error") {
            Progress::DoesNotCompile
        } else if ex.checks.iter().all(|c| c.status == "not_started") && ex.score == 0 {
            Progress::NotStarted
        } else {
            Progress::Started
        }
    }

    /// The word `list` prints.
    pub fn label(self) -> &'static str {
        match self {
            Progress::Done => "done",
            Progress::Started => "in progress",
            Progress::NotStarted => "not started",
            Progress::DoesNotCompile => "does not compile",
        }
    }

    fn mark(self, style: &Style) -> String {
        match self {
            Progress::Done => style.green("✓"),
            Progress::Started => style.yellow("~"),
            Progress::NotStarted => style.dim("·"),
            Progress::DoesNotCompile => style.red("✗"),
        }
    }
}

fn stored_lessons(root: &Path) -> BTreeMap<String, StoredLesson> {
    load_value(root)
        .and_then(|v| v.get("lessons").cloned())
        .and_then(|l| serde_json::from_value(l).ok())
        .unwrap_or_default()
}

/// Seconds since `path` was last modified, as Unix seconds.
fn modified_secs(path: &Path) -> Option<u64> {
    let m = std::fs::metadata(path).ok()?.modified().ok()?;
    Some(m.duration_since(UNIX_EPOCH).ok()?.as_secs())
}

/// True when a file of the lesson's `src/` changed after its last grade.
fn changed_since(root: &Path, lesson: &Lesson, graded_at: u64) -> bool {
    let src = lesson
        .crate_dir(root, crate::course::Side::Exercises)
        .join("src");
    std::fs::read_dir(src)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| modified_secs(&e.path()))
        .any(|m| m > graded_at)
}

fn ago(secs: u64) -> String {
    match secs {
        0..60 => "just now".to_owned(),
        60..3600 => format!("{} min ago", secs / 60),
        3600..86400 => format!("{} h ago", secs / 3600),
        _ => format!("{} days ago", secs / 86400),
    }
}

/// `cargo xtask list`: every lesson and exercise with its points and its progress at the last
/// grade, then the course total.
pub fn list(root: &Path, course: &Course, style: &Style) -> String {
    let stored = stored_lessons(root);
    let now = now_secs();
    let mut out = String::new();
    let (mut score, mut max) = (0, 0);
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    for lesson in &course.lessons {
        let last = stored.get(&lesson.id);
        let lesson_max = lesson.max_points();
        max += lesson_max;
        let status = match last {
            None => "not graded yet".to_owned(),
            Some(l) => {
                score += l.score;
                let mut s = format!(
                    "{}/{lesson_max}, graded {}",
                    l.score,
                    ago(now.saturating_sub(l.graded_at))
                );
                if l.build == "compile_error" {
                    s.push_str(", did not compile");
                }
                if changed_since(root, lesson, l.graded_at) {
                    s.push_str(", changed since");
                }
                s
            }
        };
        let _ = writeln!(
            out,
            "{} · {} ({lesson_max} points) · {status}",
            style.bold(&lesson.id),
            lesson.title
        );
        let width = lesson
            .exercises
            .iter()
            .map(|e| e.name.len())
            .max()
            .unwrap_or(0);
        for e in &lesson.exercises {
            let pts: u32 = e.checks.iter().map(|c| c.points).sum();
            let found = last.and_then(|l| l.exercises.iter().find(|x| x.name == e.name));
            let progress = found.map_or(Progress::NotStarted, Progress::of);
            *counts.entry(progress.label()).or_default() += 1;
            let earned = found.map_or(0, |x| x.score);
            let _ = writeln!(
                out,
                "  {} {:width$}  {:>5}  {:<16} {} checks",
                progress.mark(style),
                e.name,
                format!("{earned}/{pts}"),
                progress.label(),
                e.checks.len()
            );
        }
    }
    let pct = (score * 100).checked_div(max).unwrap_or(100);
    let tally: Vec<String> = [
        Progress::Done,
        Progress::Started,
        Progress::NotStarted,
        Progress::DoesNotCompile,
    ]
    .into_iter()
    .filter_map(|p| counts.get(p.label()).map(|n| format!("{n} {}", p.label())))
    .collect();
    let _ = writeln!(
        out,
        "\n{} {score}/{max} points ({pct}%) · {}",
        style.bold("Course total:"),
        tally.join(", ")
    );
    if stored.is_empty() {
        let _ = writeln!(
            out,
            "No grade yet: `cargo xtask grade` (or `cargo xtask watch`) records your progress."
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(score: u32, max: u32, statuses: &[&str]) -> StoredExercise {
        StoredExercise {
            name: "f".into(),
            score,
            max_score: max,
            checks: statuses
                .iter()
                .map(|s| StoredCheck {
                    status: (*s).into(),
                })
                .collect(),
        }
    }

    #[test]
    fn progress_follows_the_checks() {
        assert_eq!(
            Progress::of(&ex(3, 3, &["passed", "passed"])),
            Progress::Done
        );
        assert_eq!(
            Progress::of(&ex(2, 3, &["passed", "wrong"])),
            Progress::Started
        );
        assert_eq!(
            Progress::of(&ex(0, 3, &["panicked", "not_started"])),
            Progress::Started
        );
        assert_eq!(
            Progress::of(&ex(0, 3, &["not_started", "not_started"])),
            Progress::NotStarted
        );
        assert_eq!(
            Progress::of(&ex(0, 3, &["compile_error"])),
            Progress::DoesNotCompile
        );
    }

    #[test]
    fn ages_read_like_words() {
        assert_eq!(ago(5), "just now");
        assert_eq!(ago(125), "2 min ago");
        assert_eq!(ago(7300), "2 h ago");
    }
}
