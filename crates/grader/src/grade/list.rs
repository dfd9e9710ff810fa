//! Stage 3, **list**: finds each planned check in its lesson's check binaries and makes it a job.

use super::recompile::Stubbed;
use crate::build::Built;
use crate::course::{Check, CheckId, Lesson};
use crate::judge::verdict::{Status, Verdict};
use crate::plan::LessonPlan;
use crate::run::{CheckRun, Runner, list_tests};
use anyhow::Result;
use std::collections::HashMap;
use std::path::PathBuf;

/// A check that will run, or why it cannot.
pub(super) enum Slot {
    /// Index into the jobs.
    Job(usize),
    /// Decided without running: the lesson did not compile, or the check is missing.
    Decided(Verdict),
}

/// The checks of the plans, found.
pub(super) struct Listing {
    /// Per lesson, per exercise, per check: its job or its verdict.
    pub slots: Vec<Vec<Vec<Slot>>>,
    /// The checks to run.
    pub jobs: Vec<CheckRun>,
    /// Per lesson id: the test functions of each check binary, `(hidden, full names)`.
    pub tests: HashMap<String, Vec<(bool, Vec<CheckId>)>>,
}

/// A lesson's check binaries: `(hidden, executable, its test names)`.
type Binaries = Vec<(bool, PathBuf, Vec<CheckId>)>;

/// Lists the tests of every built check binary whose tests are not known yet, `workers` at a
/// time (each listing is a sandboxed process of its own), into `listed_by_exe`.
pub(super) fn list_unknown(
    runner: &Runner,
    built: &HashMap<String, Built>,
    listed_by_exe: &mut HashMap<PathBuf, Vec<CheckId>>,
    workers: usize,
) -> Result<()> {
    let unknown: Vec<&PathBuf> = built
        .values()
        .filter_map(|b| match b {
            Built::Ok(bins) => Some(bins),
            Built::Failed(_) => None,
        })
        .flatten()
        .map(|b| &b.exe)
        .filter(|exe| !listed_by_exe.contains_key(*exe))
        .collect();
    let found = crate::fsutil::par_map(workers, &unknown, |exe| list_tests(runner, exe));
    for (exe, names) in unknown.into_iter().zip(found) {
        listed_by_exe.insert(exe.clone(), names?);
    }
    Ok(())
}

/// Finds each check of `plans` in its lesson's check binaries. A binary's test names come from
/// `listed_by_exe` when known (a fresh build), else from the binary, and are added there. The
/// checks of an exercise `stubbed` out do not run: they are compile errors.
pub(super) fn list(
    runner: &Runner,
    plans: &[LessonPlan],
    built: &HashMap<String, Built>,
    stubbed: &HashMap<String, Stubbed>,
    listed_by_exe: &mut HashMap<PathBuf, Vec<CheckId>>,
) -> Result<Listing> {
    let mut listing = Listing {
        slots: Vec::new(),
        jobs: Vec::new(),
        tests: HashMap::new(),
    };
    // The jobs of each exercise listed so far: a check waits for those of the exercises it needs
    // (only earlier ones in course order, so the waits never form a cycle).
    let mut jobs_of: HashMap<&str, Vec<usize>> = HashMap::new();
    for plan in plans {
        let lesson = plan.lesson;
        let listed = match &built[&lesson.id] {
            Built::Ok(bins) => {
                let mut listed = Vec::new();
                for bin in bins {
                    let names = match listed_by_exe.get(&bin.exe) {
                        Some(names) => names.clone(),
                        None => {
                            let names = list_tests(runner, &bin.exe)?;
                            listed_by_exe.insert(bin.exe.clone(), names.clone());
                            names
                        }
                    };
                    listing
                        .tests
                        .entry(lesson.id.clone())
                        .or_default()
                        .push((bin.hidden, names.clone()));
                    listed.push((bin.hidden, bin.exe.clone(), names));
                }
                Some(listed)
            }
            Built::Failed(_) => None,
        };
        let mut per_exercise = Vec::new();
        for ex in &lesson.exercises {
            let mut per_check = Vec::new();
            let mut own = Vec::new();
            let broken = stubbed.get(&lesson.id).and_then(|s| s.message(&ex.name));
            for check in &ex.checks {
                if let Some(message) = &broken {
                    let verdict = Verdict::new(Status::CompileError, message.clone());
                    per_check.push(Slot::Decided(verdict));
                    continue;
                }
                let after: Vec<usize> = check
                    .needs
                    .iter()
                    .filter_map(|n| jobs_of.get(n.as_str()))
                    .flatten()
                    .copied()
                    .collect();
                let slot = slot(plan, check, listed.as_ref(), after, &mut listing.jobs);
                if let Slot::Job(i) = slot {
                    own.push(i);
                }
                per_check.push(slot);
            }
            jobs_of.insert(&ex.name, own);
            per_exercise.push(per_check);
        }
        listing.slots.push(per_exercise);
    }
    Ok(listing)
}

/// The slot of `check`: a job (added to `jobs`, waiting for the jobs `after`) when one of the
/// lesson's binaries (`None`: it did not compile) has its test function, else its verdict.
fn slot(
    plan: &LessonPlan,
    check: &Check,
    listed: Option<&Binaries>,
    after: Vec<usize>,
    jobs: &mut Vec<CheckRun>,
) -> Slot {
    let Some(listed) = listed else {
        return Slot::Decided(Verdict::new(
            Status::CompileError,
            "the lesson's crate does not compile",
        ));
    };
    let found = listed
        .iter()
        .filter(|(hidden, _, _)| *hidden == check.hidden)
        .find_map(|(_, exe, names)| names.iter().find(|n| n.is(&check.name)).map(|n| (exe, n)));
    match found {
        Some((exe, full)) => {
            jobs.push(CheckRun {
                exe: exe.clone(),
                check: full.clone(),
                timeout: plan.timeout,
                after,
                backtrace: crate::run::Backtrace::Off,
            });
            Slot::Job(jobs.len() - 1)
        }
        None => Slot::Decided(missing(plan.lesson, check)),
    }
}

/// The verdict of a check whose test function is in none of its lesson's binaries.
fn missing(lesson: &Lesson, check: &Check) -> Verdict {
    let message = if check.hidden {
        format!(
            "no hidden test function `{}` in the lesson's hidden checks (test target `{}`)",
            check.name,
            lesson.hidden_target()
        )
    } else {
        format!(
            "no test function `{}` in the lesson's checks (was tests/checks.rs edited?)",
            check.name
        )
    };
    Verdict::new(Status::Wrong, message)
}
