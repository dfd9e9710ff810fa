//! Planting a lesson's misconceptions into its reference solution (`cargo xtask bless` and
//! `check`): what each one fails, the records it leaves, and what the report would name.

use crate::course::expected::Expected;
use crate::course::{Lesson, Misconception};
use crate::fsutil::relative;
use crate::judge::misconception::{Record, candidates, choose};
use crate::judge::panicked::{Panic, Panicked};
use crate::judge::verdict::Status;
use crate::judge::{Context, judge, up_to_a_panic, up_to_first_wrong};
use crate::run::{CheckRun, Runner, list_tests};
use anyhow::Result;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

/// What planting a lesson's misconceptions showed.
#[derive(Debug, Default)]
pub struct Planted {
    /// The records to bless.
    pub records: Vec<Record>,
    /// Disagreements with `course.toml`, one line each (a listed check that passes, a
    /// misconception no check recognises, ...).
    pub problems: Vec<String>,
    /// Per misconception: the checks it fails and the checks that name it.
    pub outcomes: Vec<Outcome>,
}

/// How one planted misconception fares.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Its id.
    pub id: String,
    /// The visible checks it fails.
    pub failed: BTreeSet<String>,
    /// The checks whose failure the grader names it for (a check that another misconception
    /// fails the same way first names that one).
    pub diagnosed: BTreeSet<String>,
}

/// Where misconception `id` is in the course file at `root`: `course.toml:LINE`, or the file's
/// name alone when the line cannot be found.
fn where_listed(root: &Path, id: &str) -> String {
    let text = std::fs::read_to_string(root.join("course.toml")).unwrap_or_default();
    crate::course::line_of(&text, None, &format!("id = \"{id}\""), 1)
        .map_or_else(|| "course.toml".to_owned(), |n| format!("course.toml:{n}"))
}

/// Plants each misconception of `lesson` in turn, runs the lesson's visible checks on it, and
/// compares what fails with `course.toml`. `exe` is the reference solution's visible-check
/// binary, as built (one build serves every misconception: each is planted when its checks run);
/// `expected` is the lesson's blessed expectations (or the ones being blessed).
pub fn plant_all(
    root: &Path,
    runner: &Runner,
    lesson: &Lesson,
    exe: &Path,
    expected: &Expected,
    timeout: Duration,
) -> Result<Planted> {
    let mut planted = Planted::default();
    let visible: Vec<&str> = lesson
        .exercises
        .iter()
        .flat_map(|e| &e.checks)
        .filter(|c| !c.hidden)
        .map(|c| c.name.as_str())
        .collect();
    let student_src = relative(root, &lesson.crate_dir(root, true).join("src"));
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let names = list_tests(runner, exe)?;
    let mut runs = Vec::new();
    for check in &visible {
        let Some(full) = names.iter().find(|n| n.rsplit("::").next() == Some(check)) else {
            continue;
        };
        runs.push((
            *check,
            CheckRun {
                exe: exe.to_path_buf(),
                test_name: full.clone(),
                timeout,
                after: Vec::new(),
                // The stack names the exercise a panic happened in (bless only: 0.15 s a panic).
                backtrace: true,
            },
        ));
    }
    let jobs: Vec<CheckRun> = runs.iter().map(|(_, j)| j.clone()).collect();
    for m in &lesson.misconceptions {
        let mut planting = Runner::new(runner.sandboxed, runner.require_sandbox)?;
        planting.plant = Some(m.id.clone());
        let outputs = planting.run_all(&jobs, workers, &|_, _| {});
        let mut outcome = Outcome {
            id: m.id.clone(),
            failed: BTreeSet::new(),
            diagnosed: BTreeSet::new(),
        };
        for ((check, _), run) in runs.iter().zip(&outputs) {
            let ctx = Context {
                expected: expected.checks.get(*check).map(Vec::as_slice),
                snapshots: &expected.snapshots,
                student_src: &student_src,
                misconceptions: &[],
                check,
            };
            if judge(&ctx, run).status == Status::Passed {
                continue;
            }
            outcome.failed.insert((*check).to_owned());
            if let Some(observations) = up_to_first_wrong(&ctx, &run.observations) {
                planted.records.push(Record {
                    misconception: m.id.clone(),
                    check: (*check).to_owned(),
                    observations,
                    panic: None,
                });
            } else if let Some((observations, p)) = up_to_a_panic(&ctx, run) {
                let exercises = lesson.exercises.iter().map(|e| e.name.as_str());
                planted.records.push(Record {
                    misconception: m.id.clone(),
                    check: (*check).to_owned(),
                    observations,
                    panic: Some(Panic {
                        exercise: p.exercise(exercises),
                        message: p.message,
                    }),
                });
            }
        }
        planted
            .problems
            .extend(disagreements(root, lesson, m, &outcome.failed));
        planted.outcomes.push(outcome);
    }
    name_as_the_report_would(root, lesson, &mut planted);
    Ok(planted)
}

/// Where what misconception `m` fails (`failed`) disagrees with the checks course.toml lists
/// for it, one problem each.
fn disagreements(
    root: &Path,
    lesson: &Lesson,
    m: &Misconception,
    failed: &BTreeSet<String>,
) -> Vec<String> {
    let mut out = Vec::new();
    let listed: BTreeSet<String> = m.checks.iter().cloned().collect();
    let at = where_listed(root, &m.id);
    for c in listed.difference(failed) {
        out.push(format!(
            "misconception `{}` passes `{c}`, which course.toml says catches it\n    help: take \
             `{c}` out of its `checks` ({at}), or make its wrong answer in \
             solutions/{}/src/misconceptions.rs fail `{c}`; then `cargo xtask bless {}`",
            m.id, lesson.dir, lesson.id
        ));
    }
    for c in failed.difference(&listed) {
        out.push(format!(
            "misconception `{}` also fails `{c}`: add it to the misconception's `checks` \
             ({at}); then `cargo xtask bless {}`",
            m.id, lesson.id
        ));
    }
    out
}

/// Fills each outcome's `diagnosed`, with every record known (two misconceptions may look
/// alike), and adds a problem for a misconception no check names.
fn name_as_the_report_would(root: &Path, lesson: &Lesson, planted: &mut Planted) {
    // With one misconception planted, its exercise fails on its own and a check that needs it is
    // blocked by it.
    for outcome in &mut planted.outcomes {
        let Some(m) = lesson.misconceptions.iter().find(|m| m.id == outcome.id) else {
            continue;
        };
        for r in planted
            .records
            .iter()
            .filter(|r| r.misconception == outcome.id)
        {
            let Some((own, check)) = lesson
                .exercises
                .iter()
                .find_map(|e| e.checks.iter().find(|c| c.name == r.check).map(|c| (e, c)))
            else {
                continue;
            };
            let blocked = (own.name != m.exercise && check.needs.contains(&m.exercise))
                .then_some(m.exercise.as_str());
            let panicked = r.panic.as_ref().map(|p| Panicked {
                message: p.message.clone(),
                functions: Vec::new(),
            });
            let ids: Vec<String> = candidates(
                &planted.records,
                &r.check,
                &r.observations,
                panicked.as_ref(),
            )
            .map(|c| c.misconception.clone())
            .collect();
            let passing = |e: &str| e != m.exercise && e != own.name;
            if choose(lesson, &ids, &own.name, blocked, &passing).is_some_and(|c| c.id == m.id) {
                outcome.diagnosed.insert(r.check.clone());
            }
        }
        if outcome.diagnosed.is_empty() {
            planted.problems.push(format!(
                "misconception `{}` is named by no check: none of the checks it fails sees a wrong \
                 value (an assertion or a snapshot) or a panic before it stops, or another misconception \
                 fails them the same way\n    help: give one of its checks an assertion or a \
                 snapshot that sees its wrong value (exercises/{}/tests/checks.rs), or remove it \
                 from course.toml ({})",
                outcome.id,
                lesson.dir,
                where_listed(root, &outcome.id)
            ));
        }
    }
}
