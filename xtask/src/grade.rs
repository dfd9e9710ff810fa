//! `cargo xtask grade`: the grading pipeline, one stage per module.
//!
//! [`plan`](crate::plan) → [`build`](crate::build) → [`list`](crate::run::list_tests) →
//! [`run`](crate::run) → [`judge`](crate::judge) → [`report`](crate::report).

use crate::build::{Built, build};
use crate::course::Course;
use crate::judge::{Context, judge};
use crate::plan::{LessonPlan, plan, select};
use crate::report::{Build, CheckReport, ExerciseReport, Graded as What, LessonReport, Report};
use crate::run::{CheckRun, Runner, list_tests};
use crate::verdict::{Status, Verdict};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What to grade and how.
#[derive(Debug, Clone)]
pub struct Options {
    /// Grade `solutions/` instead of `exercises/`.
    pub solutions: bool,
    /// Only this lesson (id, number or directory).
    pub lesson: Option<String>,
    /// Overrides every time limit.
    pub timeout: Option<Duration>,
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

/// Prints a one-line progress indicator on stderr (only when it is a terminal).
fn progress(enabled: bool, text: &str) {
    use std::io::Write;
    if enabled {
        let mut err = std::io::stderr();
        let _ = write!(err, "\r\x1b[2K{text}");
        let _ = err.flush();
    }
}

/// Grades the course at `root`.
pub fn grade(root: &Path, course: &Course, opts: &Options) -> Result<Report, String> {
    Ok(grade_detailed(root, course, opts)?.report)
}

/// A check that will run, or why it cannot.
enum Slot {
    /// Index into the jobs.
    Job(usize),
    /// Decided without running: the lesson did not compile, or the check is missing.
    Decided(Verdict),
}

/// Stage 3, **list**: finds each check of `plan` in its lesson's check binaries and makes it a job.
fn list(
    runner: &Runner,
    plans: &[LessonPlan],
    built: &HashMap<String, Built>,
    tests: &mut HashMap<String, Vec<(bool, Vec<String>)>>,
    jobs: &mut Vec<CheckRun>,
) -> Result<Vec<Vec<Vec<Slot>>>, String> {
    let mut slots = Vec::new();
    for plan in plans {
        let lesson = plan.lesson;
        let listed = match &built[&lesson.id] {
            Built::Ok(bins) => {
                let mut listed = Vec::new();
                for bin in bins {
                    let names = list_tests(runner, &bin.exe)?;
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
            for check in &ex.checks {
                let slot = match &listed {
                    None => Slot::Decided(Verdict {
                        status: Status::CompileError,
                        message: "the lesson's crate does not compile".into(),
                    }),
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
                                });
                                Slot::Job(jobs.len() - 1)
                            }
                            None if check.hidden => Slot::Decided(Verdict {
                                status: Status::Wrong,
                                message: format!(
                                    "no hidden test function `{}` in the lesson's hidden checks (test target `{}`)",
                                    check.name,
                                    lesson.hidden_target()
                                ),
                            }),
                            None => Slot::Decided(Verdict {
                                status: Status::Wrong,
                                message: format!(
                                    "no test function `{}` in the lesson's checks (was tests/checks.rs edited?)",
                                    check.name
                                ),
                            }),
                        }
                    }
                };
                per_check.push(slot);
            }
            per_exercise.push(per_check);
        }
        slots.push(per_exercise);
    }
    Ok(slots)
}

/// Grades the course at `root` and keeps the build's warnings and test lists.
///
/// Hidden checks (`hidden = true` in course.toml) are looked up in the lesson's hidden-check
/// binary (test target `lessonNN_hidden`), visible checks in the visible one (`lessonNN`).
pub fn grade_detailed(root: &Path, course: &Course, opts: &Options) -> Result<Graded, String> {
    let started = Instant::now();
    let lessons = select(course, opts.lesson.as_deref())?;
    let expected_root = opts.expected_root.as_deref().unwrap_or(root);
    let plans = plan(
        root,
        expected_root,
        course,
        &lessons,
        opts.solutions,
        opts.timeout,
    )?;
    let modified_files = crate::manifest::differences(expected_root, course);
    // Probed once per run, and only when asked for: local grading runs checks directly.
    let isolation = if opts.require_sandbox || opts.sandboxed_build {
        crate::sandbox::isolation()
    } else {
        "none".to_owned()
    };
    let sandboxed = isolation != "none";
    if opts.require_sandbox && !sandboxed {
        return Err(
            "official grading needs a sandbox, and this machine has none (Linux with Landlock): \
             pass --allow-unsandboxed to grade anyway, unofficially"
                .into(),
        );
    }

    progress(
        opts.progress,
        &format!("Building {} lesson(s)…", lessons.len()),
    );
    let output = build(
        root,
        &lessons,
        opts.solutions,
        opts.target_dir.as_deref(),
        opts.sandboxed_build && sandboxed,
    )?;
    let runner = Runner::new(sandboxed, opts.require_sandbox)?;
    let mut tests = HashMap::new();
    let mut jobs = Vec::new();
    let slots = list(&runner, &plans, &output.lessons, &mut tests, &mut jobs)?;

    let show = opts.progress;
    let outputs = runner.run_all(&jobs, opts.jobs, &|done, total| {
        progress(show, &format!("Running checks {done}/{total}…"));
    });
    progress(opts.progress, "");

    let mut reports = Vec::new();
    for (plan, per_exercise) in plans.iter().zip(slots) {
        let lesson = plan.lesson;
        let mut exercises = Vec::new();
        for (ex, per_check) in lesson.exercises.iter().zip(per_exercise) {
            let mut checks = Vec::new();
            for (check, slot) in ex.checks.iter().zip(per_check) {
                let (verdict, duration) = match slot {
                    Slot::Decided(v) => (v, Duration::ZERO),
                    Slot::Job(i) => {
                        let run = &outputs[i];
                        let ctx = Context {
                            expected: plan.expected.checks.get(&check.name).map(Vec::as_slice),
                            snapshots: &plan.expected.snapshots,
                            student_src: &plan.student_src,
                        };
                        let mut v = judge(&ctx, run);
                        if v.status == Status::TimedOut {
                            v.message = format!(
                                "stopped after {} s while checking `{}`: look for a loop that never ends",
                                plan.timeout.as_secs_f64(),
                                ex.name
                            );
                        }
                        (v, run.duration)
                    }
                };
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
                });
            }
            exercises.push(ExerciseReport {
                name: ex.name.clone(),
                score: checks.iter().map(|c| c.points).sum(),
                max_score: ex.checks.iter().map(|c| c.points).sum(),
                checks,
            });
        }
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
    for f in crate::manifest::differences(expected_root, course) {
        if !modified_files.contains(&f) {
            modified_files.push(format!("{f} (changed while grading)"));
        }
    }
    let report = Report {
        schema_version: crate::report::SCHEMA_VERSION,
        course: course.course.title.clone(),
        graded: if opts.solutions {
            What::Solutions
        } else {
            What::Exercises
        },
        official: modified_files.is_empty(),
        isolation,
        sources_sha256: None,
        modified_files,
        score: reports.iter().map(|l| l.score).sum(),
        max_score: reports.iter().map(|l| l.max_score).sum(),
        execution_time: started.elapsed().as_secs_f64(),
        lessons: reports,
    };
    Ok(Graded {
        report,
        warnings: output.warnings,
        tests,
    })
}
