//! `cargo xtask grade`: the grading pipeline, one stage per module.
//!
//! [`plan`](crate::plan) → [`build`](crate::build) → [`list`](crate::run::list_tests) →
//! [`run`](crate::run) → [`judge`](crate::judge) → [`report`](crate::report).

use crate::build::reuse::{Listed, Recorded, Stamp};
use crate::build::{Built, build};
use crate::course::{Course, Lesson, Side};
use crate::judge::verdict::{Origin, Status, Verdict, origin, panic_of};
use crate::judge::{Context, judge};
use crate::plan::{LessonPlan, Selection, plan};
use crate::report::{Build, CheckReport, ExerciseReport, Graded as What, LessonReport, Report};
use crate::run::{CheckRun, RunOutput, Runner, list_tests};
use anyhow::{Result, anyhow, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressFinish, ProgressStyle};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What to grade and how.
#[derive(Debug, Clone)]
pub struct Options {
    /// Grade `solutions/` instead of `exercises/`.
    pub solutions: bool,
    /// Only this lesson (id, number or directory), or only this exercise (its name): the
    /// command line's key, resolved by [`Selection::resolve`].
    pub lesson: Option<String>,
    /// Overrides every time limit.
    pub timeout: Option<Duration>,
    /// How long a sandboxed build may take (default [`crate::build::SUBMISSION_BUILD_TIMEOUT`]).
    pub build_timeout: Option<Duration>,
    /// Parallel check processes.
    pub jobs: usize,
    /// Print progress to stderr.
    pub progress: bool,
    /// Build in this target directory instead of cargo's default.
    pub target_dir: Option<PathBuf>,
    /// Refuse to run checks without an enforced sandbox (official grading).
    pub require_sandbox: bool,
    /// Where the expected observations are read (default: the graded root).
    pub expected_root: Option<PathBuf>,
    /// Build the lessons, and run the checks, inside the sandbox when the machine has one (a
    /// build that can read only this workspace, the toolchain and the registry: submissions).
    pub sandboxed_build: bool,
    /// With `solutions`: plant this misconception (its id) into the reference solution, to see
    /// what a student with that mistake gets (instructors).
    pub plant: Option<String>,
    /// Run every check in a process of its own. Local grading otherwise runs the checks of one
    /// executable together and reruns alone those it cannot tell apart (see [`crate::run::grouped`]);
    /// sandboxed grading always isolates.
    pub isolate: bool,
    /// Lesson builds shared by the submissions of one class run (see [`crate::build::reuse::class`]);
    /// used by sandboxed builds only.
    pub build_cache: Option<std::sync::Arc<crate::build::reuse::BuildCache>>,
    /// Run the variant checks with this student's inputs (official grading, and the reference
    /// solutions with [`crate::variants::LOCAL_ID`]); `None` leaves them out (local grading).
    pub variants: Option<String>,
}

/// A grading run with what the build said on the side (for `cargo xtask check`).
#[derive(Debug, Clone)]
pub struct Graded {
    /// The report.
    pub report: Report,
    /// Per lesson id: the compiler's warnings for the graded crate.
    pub warnings: HashMap<String, Vec<String>>,
    /// Per lesson id: the test functions of each check binary, `(hidden, full names)`.
    pub tests: HashMap<String, Vec<(bool, Vec<String>)>>,
}

/// The progress line on stderr: a spinner while `lessons` lesson(s) build, see
/// [`running_checks`] after. Drawn only when `enabled` and stderr is a terminal (indicatif's
/// stderr target hides itself otherwise); cleared when finished or dropped (on an error too).
fn progress(enabled: bool, lessons: usize) -> ProgressBar {
    let target = if enabled {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(None, target)
        .with_style(ProgressStyle::with_template("{spinner} {msg}").expect("a valid template"))
        .with_message(format!("Building {lessons} lesson(s)…"))
        .with_finish(ProgressFinish::AndClear);
    bar.enable_steady_tick(Duration::from_millis(100));
    bar
}

/// Turns the progress line into `Running checks done/total…` with a bar.
fn running_checks(bar: &ProgressBar, total: usize) {
    bar.set_style(
        ProgressStyle::with_template("{spinner} Running checks {pos}/{len}… [{bar:30}]")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_length(total as u64);
    bar.set_position(0);
}

/// Grades the course at `root`.
pub fn grade(root: &Path, course: &Course, opts: &Options) -> Result<Report> {
    Ok(grade_detailed(root, course, opts)?.report)
}

/// A check that will run, or why it cannot.
enum Slot {
    /// Index into the jobs.
    Job(usize),
    /// Decided without running: the lesson did not compile, or the check is missing.
    Decided(Verdict),
}

/// The check executables of the lessons in `plans` whose code can keep state between calls
/// ([`crate::run::stateful`]): local grading runs their checks alone, not in a shared process.
fn keeping_state(
    root: &Path,
    plans: &[LessonPlan],
    built: &HashMap<String, Built>,
    solutions: bool,
) -> HashSet<PathBuf> {
    // Only lessons that built have checks to run: the others' sources are not read.
    plans
        .iter()
        .filter_map(|plan| match &built[&plan.lesson.id] {
            Built::Ok(bins) => Some((plan.lesson, bins)),
            Built::Failed(_) => None,
        })
        .filter(|(lesson, _)| crate::run::stateful::keeps_state(root, lesson, solutions))
        .flat_map(|(_, bins)| bins.iter().map(|b| b.exe.clone()))
        .collect()
}

/// Lists the tests of every built check binary whose tests are not known yet, `workers` at a
/// time (each listing is a sandboxed process of its own), into `listed_by_exe`.
fn list_unknown(
    runner: &Runner,
    built: &HashMap<String, Built>,
    listed_by_exe: &mut HashMap<PathBuf, Vec<String>>,
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
    let next = std::sync::Mutex::new(unknown.into_iter());
    let found = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..workers.max(1) {
            s.spawn(|| {
                while let Some(exe) = next.lock().unwrap_or_else(|e| e.into_inner()).next() {
                    let names = list_tests(runner, exe);
                    found
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((exe.clone(), names));
                }
            });
        }
    });
    for (exe, names) in found.into_inner().unwrap_or_else(|e| e.into_inner()) {
        listed_by_exe.insert(exe, names?);
    }
    Ok(())
}

/// Stage 3, **list**: finds each check of `plan` in its lesson's check binaries and makes it a job.
/// A binary's test names come from `listed_by_exe` when known (a fresh build), else from the
/// binary, and are added there.
fn list(
    runner: &Runner,
    plans: &[LessonPlan],
    built: &HashMap<String, Built>,
    listed_by_exe: &mut HashMap<PathBuf, Vec<String>>,
    tests: &mut HashMap<String, Vec<(bool, Vec<String>)>>,
    jobs: &mut Vec<CheckRun>,
) -> Result<Vec<Vec<Vec<Slot>>>> {
    let mut slots = Vec::new();
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
                    tests
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
            for check in &ex.checks {
                let after: Vec<usize> = check
                    .needs
                    .iter()
                    .filter_map(|n| jobs_of.get(n.as_str()))
                    .flatten()
                    .copied()
                    .collect();
                let slot = match &listed {
                    None => Slot::Decided(Verdict::new(
                        Status::CompileError,
                        "the lesson's crate does not compile",
                    )),
                    Some(listed) => {
                        let found = listed
                            .iter()
                            .filter(|(hidden, _, _)| *hidden == check.hidden)
                            .find_map(|(_, exe, names)| {
                                names
                                    .iter()
                                    .find(|n| n.rsplit("::").next() == Some(check.name.as_str()))
                                    .map(|n| (exe, n))
                            });
                        match found {
                            Some((exe, full)) => {
                                jobs.push(CheckRun {
                                    exe: exe.clone(),
                                    test_name: full.clone(),
                                    timeout: plan.timeout,
                                    after,
                                    backtrace: false,
                                });
                                own.push(jobs.len() - 1);
                                Slot::Job(jobs.len() - 1)
                            }
                            None if check.hidden => Slot::Decided(Verdict::new(
                                Status::Wrong,
                                format!(
                                    "no hidden test function `{}` in the lesson's hidden checks (test target `{}`)",
                                    check.name,
                                    lesson.hidden_target()
                                ),
                            )),
                            None => Slot::Decided(Verdict::new(
                                Status::Wrong,
                                format!(
                                    "no test function `{}` in the lesson's checks (was tests/checks.rs edited?)",
                                    check.name
                                ),
                            )),
                        }
                    }
                };
                per_check.push(slot);
            }
            jobs_of.insert(&ex.name, own);
            per_exercise.push(per_check);
        }
        slots.push(per_exercise);
    }
    Ok(slots)
}

/// Reruns, with a backtrace, each check that panicked inside a library (ndarray, std, ...), so
/// the verdict can name the student's line that called it. Backtraces cost about 0.15 s per
/// panic, so they are asked for only here; a rerun that panics elsewhere is ignored.
fn trace_library_panics(
    runner: &Runner,
    plans: &[LessonPlan],
    slots: &[Vec<Vec<Slot>>],
    jobs: &[CheckRun],
    mut outputs: Vec<RunOutput>,
    workers: usize,
) -> Vec<RunOutput> {
    let location = |out: &RunOutput| panic_of(&out.output).map(|(at, _)| at);
    let mut rerun = Vec::new();
    for (plan, per_exercise) in plans.iter().zip(slots) {
        for slot in per_exercise.iter().flatten() {
            let Slot::Job(i) = slot else { continue };
            let in_library = location(&outputs[*i])
                .is_some_and(|at| matches!(origin(&at, &plan.student_src), Origin::Library(_)));
            if in_library && outputs[*i].ended != crate::run::sandbox::Ended::TimedOut {
                rerun.push(*i);
            }
        }
    }
    if rerun.is_empty() {
        return outputs;
    }
    let again: Vec<CheckRun> = rerun
        .iter()
        .map(|i| CheckRun {
            after: Vec::new(),
            backtrace: true,
            ..jobs[*i].clone()
        })
        .collect();
    for (i, out) in rerun
        .iter()
        .zip(runner.run_all(&again, workers, &|_, _| {}))
    {
        if location(&out) == location(&outputs[*i]) {
            outputs[*i] = out;
        }
    }
    outputs
}

/// The lesson of the misconception `id`, checked against the rest of the options.
fn planted_lesson<'c>(course: &'c Course, id: &str, opts: &Options) -> Result<&'c Lesson> {
    if !opts.solutions {
        bail!("--plant plants a misconception into the reference solutions: add --solutions");
    }
    let lesson = course
        .lessons
        .iter()
        .find(|l| l.misconceptions.iter().any(|m| m.id == id))
        .ok_or_else(|| {
            let ids: Vec<&str> = course
                .lessons
                .iter()
                .flat_map(|l| &l.misconceptions)
                .map(|m| m.id.as_str())
                .collect();
            let close = crate::course::suggest::did_you_mean(id, ids.iter().copied());
            match close {
                Some(c) => anyhow!("no misconception `{id}` in course.toml\n  help: did you mean `{c}`?"),
                None => anyhow!("no misconception `{id}` in course.toml (they are listed under [[lessons.misconceptions]])"),
            }
        })?;
    if let Some(key) = &opts.lesson
        && course.find_lesson(key).is_some_and(|l| l.id != lesson.id)
    {
        bail!(
            "misconception `{id}` belongs to {}, not to `{key}`",
            lesson.id
        );
    }
    Ok(lesson)
}

/// Grades the course at `root` and keeps the build's warnings and test lists.
///
/// Hidden checks (`hidden = true` in course.toml) are looked up in the lesson's hidden-check
/// binary (test target `lessonNN_hidden`), visible checks in the visible one (`lessonNN`).
pub fn grade_detailed(root: &Path, course: &Course, opts: &Options) -> Result<Graded> {
    let started = Instant::now();
    let planted = match &opts.plant {
        Some(id) => Some(planted_lesson(course, id, opts)?),
        None => None,
    };
    // One exercise grades its lesson holding only that exercise (see `Selection::lessons`).
    let key = opts
        .lesson
        .as_deref()
        .or(planted.as_ref().map(|l| l.id.as_str()));
    let mut selected = Selection::resolve(course, key)?.lessons(course);
    if opts.variants.is_none() {
        for lesson in selected.iter_mut().filter(|l| l.has_variants()) {
            *lesson = std::borrow::Cow::Owned(crate::variants::without_variants(lesson));
        }
    }
    let lessons: Vec<&crate::course::Lesson> = selected.iter().map(|l| &**l).collect();
    let expected_root = opts.expected_root.as_deref().unwrap_or(root);
    // The seeds come from the instructors' secret, read before any student code runs.
    let variants = match &opts.variants {
        Some(id) if lessons.iter().any(|l| l.has_variants()) => {
            Some(crate::variants::Variants::new(expected_root, &lessons, id)?)
        }
        _ => None,
    };
    // The reference run of the variant checks starts now, beside the student's build and
    // checks: it runs no student code, and is built from the instructors' tree.
    let references = variants
        .clone()
        .map(|v| crate::variants::reference_runs_in_background(expected_root, &lessons, v));
    let mut plans = plan(
        root,
        expected_root,
        course,
        &lessons,
        opts.solutions,
        opts.timeout,
    )?;
    let modified_files = crate::course::manifest::differences(expected_root, course);
    // Probed once per run, and only when asked for: local grading runs checks directly.
    let isolation = if opts.require_sandbox || opts.sandboxed_build {
        crate::run::sandbox::isolation()
    } else {
        "none".to_owned()
    };
    let sandboxed = isolation != "none";
    if opts.require_sandbox && !sandboxed {
        bail!(
            "official grading needs a sandbox, and this machine has none (Linux with Landlock, or \
             a grader running as root for the container mode): pass --allow-unsandboxed to grade \
             anyway, unofficially"
        );
    }
    // The container mode's checks run as other users: nothing of the grader's may be theirs to
    // read (the course, its target folders, the grader's scratch folders).
    #[cfg(all(target_os = "linux", feature = "instructor"))]
    if isolation == crate::run::sandbox::CONTAINER_MODE {
        let target = crate::course::layout::target_dir(expected_root, None);
        let scratch = crate::fsutil::scratch_root();
        let mut closed = vec![expected_root, root, target.as_path(), scratch.as_path()];
        closed.extend(opts.target_dir.as_deref());
        crate::run::container::close_to_others(&closed)
            .map_err(|e| anyhow!("cannot close the grader's folders to the checks' users: {e}"))?;
    }

    let bar = progress(opts.progress, lessons.len());
    // Local builds skip cargo when nothing they read changed (see `freshness`).
    let stamp = (!opts.sandboxed_build).then(|| {
        Stamp::new(
            root,
            &lessons,
            Side::from_solutions(opts.solutions),
            opts.target_dir.as_deref(),
        )
    });
    let build_limit = opts
        .build_timeout
        .unwrap_or(crate::build::SUBMISSION_BUILD_TIMEOUT);
    let recorded = stamp
        .as_ref()
        .map_or_else(|| Recorded::Stale(Listed::default()), Stamp::load);
    // A fresh record is kept as it is: nothing a grade lists from its build is new.
    let fresh = matches!(recorded, Recorded::Fresh(_));
    let (output, listed) = match recorded {
        // A fresh record means every lesson built and nothing it read changed since, so none of
        // its sources was refused then or now (below).
        Recorded::Fresh(fresh) => fresh,
        Recorded::Stale(listed) => {
            let mut output = match &opts.build_cache {
                Some(cache) if opts.sandboxed_build && sandboxed && !opts.solutions => {
                    crate::build::build_shared(
                        cache,
                        root,
                        course,
                        &lessons,
                        opts.target_dir.as_deref(),
                        build_limit,
                    )?
                }
                _ => build(
                    root,
                    &lessons,
                    Side::from_solutions(opts.solutions),
                    opts.target_dir.as_deref(),
                    (opts.sandboxed_build && sandboxed).then_some(build_limit),
                )?,
            };
            // Official grading refuses a lesson whose sources use `unsafe` or read files at
            // compile time; local grading of the exercises reports the same compile error
            // (`crate::build::refused`), and then keeps a record that is never fresh, so the next grade
            // looks again.
            if !opts.solutions && !opts.sandboxed_build {
                for lesson in &lessons {
                    if let Some(error) = crate::build::refused::in_lesson(root, lesson) {
                        output
                            .lessons
                            .insert(lesson.id.clone(), Built::Failed(error));
                    }
                }
            }
            // The tests of the executables this build left as they were are known.
            (output, listed.unchanged())
        }
    };
    let mut runner = Runner::new(sandboxed, opts.require_sandbox)?;
    // A planted misconception is chosen when the checks run: the solutions' build is the usual one.
    runner.plant = opts.plant.clone();
    runner.variant_seeds = variants.as_ref().map(crate::variants::Variants::env_value);
    let mut tests = HashMap::new();
    let mut jobs = Vec::new();
    let mut listed = listed;
    list_unknown(&runner, &output.lessons, &mut listed, opts.jobs)?;
    let slots = list(
        &runner,
        &plans,
        &output.lessons,
        &mut listed,
        &mut tests,
        &mut jobs,
    )?;
    if let Some(stamp) = stamp.as_ref().filter(|_| !fresh) {
        stamp.keep(&output, &listed);
    }

    running_checks(&bar, jobs.len());
    let progress = |done: usize, _| bar.set_position(done as u64);
    let outputs = if sandboxed || opts.isolate {
        runner.run_all(&jobs, opts.jobs, &progress)
    } else {
        let alone = keeping_state(root, &plans, &output.lessons, opts.solutions);
        crate::run::grouped::run(&runner, &jobs, &alone, opts.jobs, &progress)
    };
    let references = references
        .map(|r| r.join().expect("the reference run does not panic"))
        .transpose()?
        .unwrap_or_default();
    for plan in &mut plans {
        if let Some(observed) = references.get(&plan.lesson.id) {
            plan.expected.extend(observed.expected.clone());
        }
    }
    bar.finish_and_clear();
    let outputs = trace_library_panics(&runner, &plans, &slots, &jobs, outputs, opts.jobs);

    let mut reports = Vec::new();
    // Per (lesson, check): the misconceptions its failure matches; one is named after the blame.
    let mut candidates = HashMap::new();
    for (plan, per_exercise) in plans.iter().zip(slots) {
        let lesson = plan.lesson;
        let mut exercises = Vec::new();
        // What each check that ran observed, to rule out misconceptions it contradicts.
        let mut runs: HashMap<&str, &[check_protocol::Observation]> = HashMap::new();
        for (ex, per_check) in lesson.exercises.iter().zip(per_exercise) {
            let mut checks = Vec::new();
            for (check, slot) in ex.checks.iter().zip(per_check) {
                let (verdict, duration) = match slot {
                    Slot::Decided(v) => (v, Duration::ZERO),
                    Slot::Job(i) => {
                        let run = &outputs[i];
                        runs.insert(&check.name, &run.observations);
                        let ctx = Context {
                            expected: plan.expected.checks.get(&check.name).map(Vec::as_slice),
                            snapshots: &plan.expected.snapshots,
                            student_src: &plan.student_src,
                            misconceptions: &plan.misconceptions,
                            check: &check.name,
                        };
                        let mut v = judge(&ctx, run);
                        if v.status == Status::TimedOut {
                            v.message = if run.limit < plan.timeout {
                                format!(
                                    "stopped after {} s: an exercise this check needs did not finish \
                                     in time, so it was not waited out again",
                                    run.limit.as_secs_f64()
                                )
                            } else {
                                format!(
                                    "stopped after {} s while checking `{}`: look for a loop that never ends",
                                    plan.timeout.as_secs_f64(),
                                    ex.name
                                )
                            };
                        }
                        (v, run.duration)
                    }
                };
                let inputs = variants.as_ref().filter(|_| check.variant).and_then(|v| {
                    let shapes = references
                        .get(&lesson.id)
                        .and_then(|o| o.shapes.get(&check.name));
                    v.inputs(&ex.name, shapes)
                });
                checks.push(CheckReport {
                    name: check.name.clone(),
                    points: if verdict.status == Status::Passed {
                        check.points
                    } else {
                        0
                    },
                    status: verdict.status,
                    max_points: check.points,
                    message: verdict.message,
                    duration_ms: duration.as_millis() as u64,
                    hidden: check.hidden,
                    blocked_by: None,
                    diagnosis: None,
                    variant: inputs,
                });
                if !verdict.misconceptions.is_empty() {
                    candidates.insert(
                        (lesson.id.clone(), check.name.clone()),
                        verdict.misconceptions,
                    );
                }
            }
            exercises.push(ExerciseReport {
                name: ex.name.clone(),
                score: checks.iter().map(|c| c.points).sum(),
                max_score: ex.checks.iter().map(|c| c.points).sum(),
                checks,
            });
        }
        let ruled_out = crate::judge::misconception::ruled_out(&plan.misconceptions, &runs);
        candidates.retain(|(l, _), ids| {
            if *l == lesson.id {
                ids.retain(|id| !ruled_out.contains(id.as_str()));
            }
            !ids.is_empty()
        });
        let (build, compiler_output) = match &output.lessons[&lesson.id] {
            Built::Ok(_) => (Build::Ok, None),
            Built::Failed(err) => (Build::CompileError, Some(err.clone())),
        };
        reports.push(LessonReport {
            id: lesson.id.clone(),
            title: lesson.title.clone(),
            build,
            compiler_output,
            score: exercises.iter().map(|e| e.score).sum(),
            max_score: lesson.max_points(),
            exercises,
        });
    }
    // The instructors' files are checked again after grading: nothing may have changed them.
    let mut modified_files = modified_files;
    for f in crate::course::manifest::differences(expected_root, course) {
        if !modified_files.contains(&f) {
            modified_files.push(format!("{f} (changed while grading)"));
        }
    }
    let mut report = Report {
        schema_version: crate::report::SCHEMA_VERSION,
        course: course.course.title.clone(),
        graded: if opts.solutions {
            What::Solutions
        } else {
            What::Exercises
        },
        official: modified_files.is_empty(),
        isolation,
        student: None,
        sources_sha256: None,
        modified_files,
        score: reports.iter().map(|l| l.score).sum(),
        max_score: reports.iter().map(|l| l.max_score).sum(),
        execution_time: started.elapsed().as_secs_f64(),
        lessons: reports,
    };
    crate::judge::blame::blame(&mut report, course, &candidates);
    Ok(Graded {
        report,
        warnings: output.warnings,
        tests,
    })
}
