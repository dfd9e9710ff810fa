//! Planting a lesson's misconceptions into its reference solution (`cargo xtask bless` and
//! `check`): what each one fails, the records it leaves, and what the report would name.

use crate::course::expected::Expected;
use crate::course::{Lesson, Misconception};
use crate::fsutil::relative;
use crate::judge::diagnosis::{Graded, Seen, blame, passing};
use crate::judge::misconception::{Record, candidates, contradicted};
use crate::judge::panicked::{Panic, Panicked};
use crate::judge::verdict::Status;
use crate::judge::{Context, judge, up_to_a_panic, up_to_first_wrong};
use crate::run::Backtrace;
use crate::run::Runner;
use crate::run::runs::{Grouping, Listed, Runs};
use anyhow::Result;
use check_protocol::Observation;
use std::collections::{BTreeSet, HashMap};
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
/// compares what fails with `course.toml`. `listed` is the reference solution's visible-check
/// binary as built and listed (one build serves every misconception: each is planted when its
/// checks run); `expected` is the lesson's blessed expectations (or the ones being blessed).
pub fn plant_all(
    root: &Path,
    runner: &Runner,
    lesson: &Lesson,
    listed: &Listed,
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
    let student_src = relative(
        root,
        &lesson
            .crate_dir(root, crate::course::Side::Solutions)
            .join("src"),
    );
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    // The visible checks listed, in course order.
    let (runs, at): (Vec<&str>, Vec<usize>) = visible
        .iter()
        .filter_map(|check| Some((*check, listed.checks.iter().position(|n| n.is(check))?)))
        .unzip();
    // The stack names the exercise a panic happened in (bless only: 0.15 s a panic).
    let jobs = listed.jobs(&at, timeout, Backtrace::On);
    for m in &lesson.misconceptions {
        let mut planting = Runner::new(runner.isolation, runner.sandbox)?;
        planting.setting.plant = Some(m.id.clone());
        let outputs = Runs::first(&planting, &jobs, &Grouping::Alone, workers, &|_, _| {}).outputs;
        let mut outcome = Outcome {
            id: m.id.clone(),
            failed: BTreeSet::new(),
            diagnosed: BTreeSet::new(),
        };
        for (check, run) in runs.iter().zip(&outputs) {
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

/// What the rest of a misconception's lesson is when it is planted alone in its exercise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rest {
    /// Every other exercise solved.
    Solved,
    /// Every other exercise a `todo!()` stub, as during top-down work, but those that every
    /// check of its exercise needs (it calls them: `attention_scores` folds with `fold_heads`).
    Stubs,
}

/// The visible checks of `lesson` that name misconception `m` when it is planted alone in its
/// exercise and the other exercises are `rest`, as the report would name it: `failed` are the
/// checks it fails, `records` every misconception's records.
pub fn named_alone(
    lesson: &Lesson,
    records: &[Record],
    m: &Misconception,
    failed: &BTreeSet<String>,
    rest: Rest,
) -> BTreeSet<String> {
    named(
        lesson,
        &planted_alone(lesson, records, m, failed, rest),
        &m.id,
    )
}

/// Each visible check of `lesson` graded with `m` planted alone (see [`named_alone`]): its status
/// and what it says of the recorded misconceptions. With stubs, a check of a stubbed exercise,
/// or one that needs one (course.toml `needs`), stops at a `todo!()`.
pub fn planted_alone<'l>(
    lesson: &'l Lesson,
    records: &[Record],
    m: &Misconception,
    failed: &BTreeSet<String>,
    rest: Rest,
) -> HashMap<&'l str, (Status, Option<Seen>)> {
    let visible = || {
        (lesson.exercises.iter())
            .flat_map(|e| e.checks.iter().map(move |c| (e, c)))
            .filter(|(_, c)| !c.hidden)
    };
    let mut own_checks = visible().filter(|(e, _)| e.name == m.exercise);
    let first = own_checks.next().map(|(_, c)| c.needs.clone());
    let needed: Vec<String> = (first.unwrap_or_default().into_iter())
        .filter(|n| own_checks.clone().all(|(_, c)| c.needs.contains(n)))
        .collect();
    let stubbed = |e: &String| rest == Rest::Stubs && *e != m.exercise && !needed.contains(e);
    let mut graded = HashMap::new();
    for (ex, check) in visible() {
        let name = check.name.as_str();
        let status = match () {
            _ if stubbed(&ex.name) || check.needs.iter().any(stubbed) => Status::NotStarted,
            _ if failed.contains(name) => Status::Wrong,
            _ => Status::Passed,
        };
        let planted = (records.iter()).find(|r| r.misconception == m.id && r.check == name);
        // The observations of a check that passed, or stopped at a `todo!()`, repeat no record.
        let (matched, run) = match (status, planted) {
            (Status::Wrong, None) => {
                graded.insert(name, (status, None));
                continue;
            }
            (Status::Wrong, Some(r)) => {
                let panicked = r.panic.as_ref().map(|p| Panicked {
                    message: p.message.clone(),
                    functions: Vec::new(),
                });
                let matched = candidates(records, name, &r.observations, panicked.as_ref());
                let matched = matched.map(|c| c.misconception.clone()).collect();
                (
                    matched,
                    [&[Observation::Begin], &r.observations[..]].concat(),
                )
            }
            _ => (Vec::new(), Vec::new()),
        };
        let contradicted = contradicted(records, name, &run);
        let seen = Seen {
            matched,
            contradicted,
        };
        graded.insert(name, (status, Some(seen)));
    }
    graded
}

/// `checks` as the blame reads them.
fn as_graded<'a>(
    checks: &'a HashMap<&str, (Status, Option<Seen>)>,
) -> HashMap<&'a str, Graded<'a>> {
    (checks.iter())
        .map(|(c, (status, seen))| {
            let (status, seen) = (*status, seen.as_ref());
            (*c, Graded { status, seen })
        })
        .collect()
}

/// The checks among `checks` (status and what each says of the records) whose failure names
/// misconception `id`, as the report's blame decides.
pub fn named(
    lesson: &Lesson,
    checks: &HashMap<&str, (Status, Option<Seen>)>,
    id: &str,
) -> BTreeSet<String> {
    let graded = as_graded(checks);
    let passing = passing(lesson, &graded);
    let blamed = blame(lesson, &graded, &|e| passing.get(e).copied());
    (blamed.into_iter())
        .filter(|(_, b)| b.diagnosis.is_some_and(|d| d.id == id))
        .map(|(c, _)| c)
        .collect()
}

/// Fills each outcome's `diagnosed` (the checks that name it with the rest of the lesson solved)
/// and adds a problem for a misconception that no check names, with the rest of its lesson
/// solved or not started.
fn name_as_the_report_would(root: &Path, lesson: &Lesson, planted: &mut Planted) {
    for outcome in &mut planted.outcomes {
        let Some(m) = lesson.misconceptions.iter().find(|m| m.id == outcome.id) else {
            continue;
        };
        let named = |rest| named_alone(lesson, &planted.records, m, &outcome.failed, rest);
        outcome.diagnosed = named(Rest::Solved);
        let at = where_listed(root, &outcome.id);
        if outcome.diagnosed.is_empty() {
            planted.problems.push(format!(
                "misconception `{}` is named by no check: none of the checks it fails sees a wrong \
                 value (an assertion or a snapshot) or a panic before it stops, or another misconception \
                 fails them the same way\n    help: give one of its checks an assertion or a \
                 snapshot that sees its wrong value (exercises/{}/tests/checks.rs), or remove it \
                 from course.toml ({at})",
                outcome.id, lesson.dir,
            ));
        } else if named(Rest::Stubs).is_empty() {
            planted.problems.push(format!(
                "misconception `{}` is named by no check while the rest of its lesson is \
                 `todo!()`: every check of `{}` that sees it needs another exercise\n    help: \
                 add a check of `{}` alone that sees its wrong value \
                 (exercises/{}/tests/checks.rs, course.toml without `needs`), or remove it from \
                 course.toml ({at})",
                outcome.id, m.exercise, m.exercise, lesson.dir,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::misconception::load;

    /// The course's own catalogue and blessed records.
    fn course() -> (std::path::PathBuf, crate::course::Course) {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let course = crate::course::Course::load(&root).expect("course.toml loads");
        (root, course)
    }

    /// Every catalogued misconception, planted alone with the rest of its lesson solved or
    /// `todo!()`, is named, nothing else is, and it loses points: from its blessed records and
    /// the checks course.toml lists for it, as the report decides. (`cargo xtask check`, in CI,
    /// plants each one for real and finds the records and the listed checks as blessed.)
    #[test]
    fn every_catalogued_misconception_is_named_where_it_is_made() {
        let (root, course) = course();
        let (mut tried, mut missed) = (0, Vec::new());
        for lesson in &course.lessons {
            let [visible, _] = lesson.snapshot_dirs(&root);
            let records = load(&visible).expect("the records load");
            for m in &lesson.misconceptions {
                let failed: BTreeSet<String> = m.checks.iter().cloned().collect();
                let lost: u32 = (lesson.exercises.iter().flat_map(|e| &e.checks))
                    .filter(|c| failed.contains(&c.name))
                    .map(|c| c.points)
                    .sum();
                if lost == 0 {
                    missed.push(format!("{} {}: loses no points", lesson.id, m.id));
                }
                for rest in [Rest::Solved, Rest::Stubs] {
                    tried += 1;
                    let checks = planted_alone(lesson, &records, m, &failed, rest);
                    let graded = as_graded(&checks);
                    let passing = passing(lesson, &graded);
                    let blamed = blame(lesson, &graded, &|e| passing.get(e).copied());
                    let named: Vec<&str> = (blamed.values())
                        .filter_map(|b| b.diagnosis.map(|d| d.id.as_str()))
                        .collect();
                    if !named.contains(&m.id.as_str()) {
                        missed.push(format!("{} {} ({rest:?}): not named", lesson.id, m.id));
                    }
                    if let Some(other) = named.iter().find(|id| **id != m.id) {
                        missed.push(format!("{} {} ({rest:?}): {other} named", lesson.id, m.id));
                    }
                }
            }
        }
        assert!(tried >= 40, "the catalogue was read: {tried}");
        assert!(missed.is_empty(), "{missed:#?}");
    }

    /// `merge_heads` without its transpose while `split_heads` fails only on views: the merge's
    /// failures that need the split are the merge's own.
    #[test]
    fn a_failure_its_own_exercise_explains_is_not_blamed_on_a_prerequisite() {
        let (root, course) = course();
        let lesson = course.find_lesson("lesson02").expect("lesson 2");
        let records = load(&lesson.snapshot_dirs(&root)[0]).expect("the records load");
        let m = (lesson.misconceptions.iter())
            .find(|m| m.id == "merge-without-transpose")
            .expect("catalogued");
        let failed = m.checks.iter().cloned().collect();
        // merge_heads without its transpose, and split_heads failing only on views.
        let mut checks = planted_alone(lesson, &records, m, &failed, Rest::Solved);
        checks.insert("split_heads_accepts_views", (Status::Wrong, None));
        let graded = as_graded(&checks);
        let passing = passing(lesson, &graded);
        let blamed = blame(lesson, &graded, &|e| passing.get(e).copied());
        for check in ["merge_inverts_split_exactly", "merge_heads_property"] {
            let b = &blamed[check];
            assert_eq!(b.blocked_by, None, "{check}");
            assert_eq!(b.diagnosis.map(|d| d.id.as_str()), Some(m.id.as_str()));
        }
        // A failure that matches nothing stays blamed on the failing prerequisite.
        checks.insert("merge_heads_property", (Status::Wrong, None));
        let blamed = blame(lesson, &as_graded(&checks), &|e| passing.get(e).copied());
        let b = &blamed["merge_heads_property"];
        assert_eq!(b.blocked_by.as_deref(), Some("split_heads"));
    }
}
