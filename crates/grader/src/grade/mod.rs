//! `cargo xtask grade`: the grading pipeline, as a [`Request`] asks.
//!
//! [`plan`](crate::plan) → [`build`](crate::build) → [`list`] → [`run`](crate::run) →
//! [`judge`](crate::judge) → [`report`](crate::report), each stage a function of the value the
//! one before gives (`stages.rs`: `Plan` → `Built` → `Listing` → `Runs` → `Verdicts` → `Report`).

mod bar;
mod list;
mod recompile;
mod stages;
mod variant_misconceptions;
mod verdicts;

use crate::build::reuse::{Listed, Recorded, Stamp};
use crate::build::{BuildOutput, Sandboxed, build, build_observed};
use crate::course::{CheckId, Course, Lesson, Side};
use crate::judge::verdict::{Origin, origin, panic_of};
use crate::plan::{LessonPlan, plan};
use crate::report::{Graded as What, Report};
use crate::request::{Local, Mode, Official, Request, Sandbox};
use crate::run::runs::{Grouping, Runs};
use crate::run::{Isolation, RunOutput, Runner};
use crate::variants::Variants;
use anyhow::{Result, bail};
use list::Slot;
use stages::{Built, Listing, Plan, Planned, Verdicts};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The container mode's guard on the grader's folders (see [`crate::run::closed`]); nothing
/// elsewhere.
#[cfg(all(target_os = "linux", feature = "instructor"))]
type ClosedFolders = crate::run::closed::Closed;
#[cfg(not(all(target_os = "linux", feature = "instructor")))]
type ClosedFolders = std::convert::Infallible;

/// A grading run with what the build said on the side (for `cargo xtask check`).
#[derive(Debug, Clone)]
pub struct GradeRun {
    /// The report.
    pub report: Report,
    /// Per lesson id: the compiler's warnings for the graded crate.
    pub warnings: HashMap<String, Vec<String>>,
    /// Per lesson id: the test functions of each check binary, `(hidden, full names)`.
    pub tests: HashMap<String, Vec<(bool, Vec<CheckId>)>>,
}

/// Grades the course at `root` locally.
pub fn grade(root: &Path, course: &Course, request: &Request<Local>) -> Result<Report> {
    Ok(grade_detailed(root, course, request)?.report)
}

/// Grades the course at `root` locally and keeps the build's warnings and test lists.
///
/// Hidden checks (`hidden = true` in course.toml) are looked up in the lesson's hidden-check
/// binary (test target `lessonNN_hidden`), visible checks in the visible one (`lessonNN`).
pub fn grade_detailed(root: &Path, course: &Course, request: &Request<Local>) -> Result<GradeRun> {
    let request = request.with_mode(Mode::Local(request.mode.clone()));
    Pipeline::new(root, root, course, &request).run()
}

/// Grades officially the copy at `root` of the instructors' workspace at `instructors` (where the
/// expected observations and the variant secret are read).
pub fn grade_official(
    root: &Path,
    course: &Course,
    instructors: &Path,
    request: &Request<Official>,
) -> Result<Report> {
    let request = request.with_mode(Mode::Official(request.mode.clone()));
    Ok(Pipeline::new(root, instructors, course, &request)
        .run()?
        .report)
}

/// One grading run, its stages in order.
struct Pipeline<'a> {
    /// The workspace graded (a copy of the instructors' in official grading).
    root: &'a Path,
    /// Where the expected observations and the variant secret are read.
    expected_root: &'a Path,
    course: &'a Course,
    request: &'a Request,
    /// The lessons graded (one exercise grades its lesson holding only that exercise).
    selected: Vec<Cow<'a, Lesson>>,
    /// The misconception planted (local grading of the solutions only).
    plant: Option<&'a str>,
    /// When grading started (the report's `execution_time`).
    started: Instant,
    /// The progress shown on stderr, from the start of the build.
    display: bar::Display,
}

impl<'a> Pipeline<'a> {
    /// The lessons `request` selects (resolved where it was made), and the plant.
    fn new(
        root: &'a Path,
        expected_root: &'a Path,
        course: &'a Course,
        request: &'a Request,
    ) -> Self {
        let started = Instant::now();
        let plant = match &request.mode {
            Mode::Local(local) => local.plant.as_deref(),
            Mode::Official(_) => None,
        };
        let mut selected = request.selection.lessons(course);
        if student_id(request).is_none() {
            for lesson in selected.iter_mut().filter(|l| l.has_variants()) {
                *lesson = Cow::Owned(crate::variants::without_variants(lesson));
            }
        }
        let display = bar::building(request.progress, selected.len());
        Self {
            root,
            expected_root,
            course,
            request,
            selected,
            plant,
            started,
            display,
        }
    }

    /// The side graded.
    fn side(&self) -> Side {
        self.request.mode.side()
    }

    /// The official settings, in official grading.
    fn official(&self) -> Option<&'a Official> {
        match &self.request.mode {
            Mode::Official(official) => Some(official),
            Mode::Local(_) => None,
        }
    }

    /// Every stage, from the plan to the report.
    fn run(&self) -> Result<GradeRun> {
        let lessons: Vec<&Lesson> = self.selected.iter().map(|l| &**l).collect();
        let plan = self.plan(&lessons)?;
        let modified_files = crate::course::manifest::differences(self.expected_root, self.course);
        // Held until grading ends: the container mode's folders open again when dropped.
        let (isolation, _closed) = self.isolation()?;
        let mut built = self.built(&lessons, isolation, plan.variants.as_ref())?;
        let listing = self.listing(&mut built, &plan.lessons)?;
        let runs = self.runs(&plan, &built, &listing, isolation);
        let planned = plan.complete()?;
        self.display.finish();
        let runs = trace_library_panics(&built.runner, &planned, &listing, runs, self.request.jobs);
        let verdicts = self.verdicts(planned, &built, &listing, &runs)?;
        let report = self.report(verdicts.lessons, modified_files, isolation);
        Ok(GradeRun {
            report,
            warnings: built.output.warnings,
            tests: listing.tests,
        })
    }

    /// Stage 1, **plan**: the lessons' plans, with the variant checks' reference run started.
    fn plan(&self, lessons: &[&'a Lesson]) -> Result<Plan<'a>> {
        let expected_root = self.expected_root;
        // Official seeds come from the instructors' secret, read before any student code runs;
        // local grading of the solutions draws from a public key, so a clone needs no secret.
        let variants = match (&self.request.mode, student_id(self.request)) {
            (_, _) if !lessons.iter().any(|l| l.has_variants()) => None,
            (Mode::Official(_), Some(id)) => Some(Variants::new(expected_root, lessons, id)?),
            (Mode::Local(_), Some(_)) => Some(Variants::local(lessons)),
            (_, None) => None,
        };
        // The reference run of the variant checks starts now, beside the student's build and
        // checks: it runs no student code, and is built from the instructors' tree.
        let references = variants
            .clone()
            .map(|v| crate::variants::reference_runs_in_background(expected_root, lessons, v));
        let plans = plan(
            self.root,
            expected_root,
            self.course,
            lessons,
            self.side(),
            self.request.timeout,
        )?;
        Ok(Plan::new(plans, variants, references))
    }

    /// Stage 4, **run**: the first pass over the check executables, shared per executable
    /// locally, a process per check when isolated.
    fn runs(&self, plan: &Plan, built: &Built, listing: &Listing, isolation: Isolation) -> Runs {
        let bar = &self.display;
        bar.running_checks(listing.jobs.len());
        let progress = |done: usize, _| bar.checks_done(done);
        let grouping = if isolation.is_enforced() || self.isolates() {
            Grouping::Alone
        } else {
            let alone = keeping_state(self.root, &plan.lessons, &built.output.lessons, self.side());
            Grouping::Shared { alone }
        };
        let jobs = &listing.jobs;
        Runs::first(&built.runner, jobs, &grouping, self.request.jobs, &progress)
    }

    /// Stage 5, **judge**: the verdicts, after the misconceptions of failed variant checks are
    /// recognised (each planted into the reference run, [`variant_misconceptions`]); failures are
    /// blamed as the lessons are judged.
    fn verdicts(
        &self,
        mut planned: Planned,
        built: &Built,
        listing: &Listing,
        runs: &Runs,
    ) -> Result<Verdicts> {
        if let Some(v) = &planned.variants {
            let seeds = v.env_value();
            variant_misconceptions::recognise(
                &mut planned.lessons,
                &listing.slots,
                &runs.outputs,
                &planned.references,
                &seeds,
                self.request.jobs,
            )?;
        }
        let judging = verdicts::Judging {
            outputs: &runs.outputs,
            built: &built.output.lessons,
            stubbed: &built.recompiled.lessons,
            variants: planned.variants.as_ref(),
            references: &planned.references,
        };
        Ok(judging.lessons(self.course, &planned.lessons, &listing.slots))
    }

    /// Whether every check runs in a process of its own (always, in official grading).
    fn isolates(&self) -> bool {
        match &self.request.mode {
            Mode::Local(local) => local.isolate,
            Mode::Official(_) => true,
        }
    }

    /// The isolation the checks get: the one the official request was made with (local grading
    /// runs checks directly); refused when official grading requires a sandbox. In the
    /// container mode, with the guard that keeps the grader's folders closed until grading ends.
    fn isolation(&self) -> Result<(Isolation, Option<ClosedFolders>)> {
        let Some(official) = self.official() else {
            return Ok((Isolation::None, None));
        };
        let isolation = official.isolation;
        if official.sandbox == Sandbox::Required && !isolation.is_enforced() {
            bail!(
                "official grading needs a sandbox, and this machine has none (Linux with Landlock, or \
                 a grader running as root for the container mode): pass --allow-unsandboxed to grade \
                 anyway, unofficially"
            );
        }
        // The container mode's checks run as other users: nothing of the grader's may be theirs to
        // read (the course, its target folders, the grader's scratch folders).
        #[cfg(all(target_os = "linux", feature = "instructor"))]
        if isolation == Isolation::ContainerUid {
            let target = crate::course::layout::target_dir(self.expected_root, None);
            let scratch = crate::fsutil::scratch_root();
            let closed = [
                self.expected_root,
                self.root,
                target.as_path(),
                scratch.as_path(),
                official.target_dir.as_path(),
            ];
            // The build runs as the builder's user, which must reach the submissions' target
            // folder and the toolchain.
            let (cargo_home, rustup_home) = crate::build::toolchain_homes();
            let mut tools = vec![cargo_home, rustup_home];
            tools.extend(std::env::var_os("CARGO").map(PathBuf::from));
            let guard = crate::run::builder::close_for_grading(
                &scratch,
                &closed,
                &official.target_dir,
                &tools,
            )?;
            return Ok((isolation, Some(guard)));
        }
        Ok((isolation, None))
    }

    /// Stage 2, **build**: the lessons' build (lessons that did not compile built again without
    /// the exercises their errors are in: [`recompile`]), and the runner their checks run with.
    fn built(
        &self,
        lessons: &[&Lesson],
        isolation: Isolation,
        variants: Option<&Variants>,
    ) -> Result<Built> {
        let official = self.official();
        // Local builds skip cargo when nothing they read changed (see `freshness`).
        let stamp = official
            .is_none()
            .then(|| Stamp::new(self.root, lessons, self.side(), None));
        let recorded = stamp
            .as_ref()
            .map_or_else(|| Recorded::Stale(Listed::default()), Stamp::load);
        // A fresh record is kept as it is: nothing a grade lists from its build is new.
        let fresh = matches!(recorded, Recorded::Fresh(_));
        let (mut output, listed) = match recorded {
            // A fresh record means every lesson built and nothing it read changed since, so none
            // of its sources was refused then or now (below).
            Recorded::Fresh(fresh) => fresh,
            // The tests of the executables this build left as they were are known.
            Recorded::Stale(listed) => (self.build(lessons, isolation)?, listed.unchanged()),
        };
        // The record keeps the build as it was: a lesson that did not compile is never fresh.
        let as_built = (!output.errors.is_empty()).then(|| output.clone());
        let recompiled = self.recompile(lessons, &mut output, isolation)?;
        let sandbox = official.map_or(Sandbox::Optional, |o| o.sandbox);
        let mut runner = Runner::new(isolation, sandbox)?;
        // A planted misconception is chosen when the checks run: the solutions' build is the usual one.
        runner.setting.plant = self.plant.map(str::to_owned);
        runner.setting.variant_seeds = variants.map(Variants::env_value);
        Ok(Built {
            output,
            recompiled,
            runner,
            listed,
            keep: stamp.filter(|_| !fresh).map(|stamp| (stamp, as_built)),
        })
    }

    /// Stage 3, **list**: the check jobs of `plans` in what was built; a local build's record is
    /// kept once its executables' tests are known.
    fn listing(&self, built: &mut Built, plans: &[LessonPlan]) -> Result<Listing> {
        let (runner, lessons) = (&built.runner, &built.output.lessons);
        list::list_unknown(runner, lessons, &mut built.listed, self.request.jobs)?;
        let stubbed = &built.recompiled.lessons;
        let listing = list::list(runner, plans, lessons, stubbed, &mut built.listed)?;
        if let Some((stamp, as_built)) = built.keep.take() {
            stamp.keep(as_built.as_ref().unwrap_or(&built.output), &built.listed);
        }
        Ok(listing)
    }

    /// Builds again the lessons of `output` that failed on errors inside their exercises only,
    /// with those exercises stubbed out ([`recompile`]); exercises only: a reference solution has
    /// no stub.
    fn recompile(
        &self,
        lessons: &[&Lesson],
        output: &mut BuildOutput,
        isolation: Isolation,
    ) -> Result<recompile::Recompiled> {
        if self.side() != Side::Exercises {
            return Ok(recompile::Recompiled::default());
        }
        let stubs = match self.official() {
            Some(_) => recompile::Stubs::Instructors(self.expected_root),
            None => recompile::Stubs::Course,
        };
        let build = |root: &Path, lessons: &[&Lesson]| self.build_in(root, lessons, isolation);
        recompile::recompile(self.root, self.course, lessons, stubs, output, &build)
    }

    /// Builds `lessons`: sandboxed in official grading (through the class's cache when there is
    /// one), else as the student's own build.
    fn build(&self, lessons: &[&Lesson], isolation: Isolation) -> Result<BuildOutput> {
        self.build_in(self.root, lessons, isolation)
    }

    /// [`Self::build`] of the course at `root`: the graded course, or a copy of it.
    fn build_in(
        &self,
        root: &Path,
        lessons: &[&Lesson],
        isolation: Isolation,
    ) -> Result<BuildOutput> {
        let side = self.side();
        let Some(official) = self.official() else {
            // A copy of the course builds into the course's own target folder.
            let target =
                (root != self.root).then(|| crate::course::layout::target_dir(self.root, None));
            let display = &self.display;
            let mut output = build_observed(root, lessons, side, target.as_deref(), display)?;
            if side == Side::Exercises {
                crate::build::refuse_sources(root, lessons, &mut output);
            }
            return Ok(output);
        };
        let limit = official
            .build_timeout
            .unwrap_or(crate::build::SUBMISSION_BUILD_TIMEOUT);
        let target = Some(official.target_dir.as_path());
        let sandbox = isolation
            .is_enforced()
            .then_some(Sandboxed { isolation, limit });
        match (&official.build_cache, sandbox) {
            (Some(cache), Some(sandbox)) => {
                crate::build::build_shared(cache, root, self.course, lessons, target, sandbox)
            }
            _ => build(root, lessons, side, target, sandbox),
        }
    }

    /// Stage 6, **report**: the whole run's report from its lessons'.
    fn report(
        &self,
        lessons: Vec<crate::report::LessonReport>,
        modified_files: Vec<String>,
        isolation: Isolation,
    ) -> Report {
        // The instructors' files are checked again after grading: nothing may have changed them.
        let changed_while_grading: Vec<String> =
            crate::course::manifest::differences(self.expected_root, self.course)
                .into_iter()
                .filter(|f| !modified_files.contains(f))
                .collect();
        Report {
            schema_version: crate::report::SCHEMA_VERSION,
            course: self.course.course.title.clone(),
            graded: match self.side() {
                Side::Solutions => What::Solutions,
                Side::Exercises => What::Exercises,
            },
            official: modified_files.is_empty() && changed_while_grading.is_empty(),
            isolation,
            student: None,
            sources_sha256: None,
            modified_files,
            changed_while_grading,
            score: lessons.iter().map(|l| l.score).sum(),
            max_score: lessons.iter().map(|l| l.max_score).sum(),
            execution_time: self.started.elapsed().as_secs_f64(),
            lessons,
        }
    }
}

/// Whose inputs the variant checks run with: the student's in official grading, the local id
/// for the reference solutions; `None` leaves them out (local grading of the exercises).
fn student_id(request: &Request) -> Option<&str> {
    match &request.mode {
        Mode::Official(official) => Some(&official.student),
        Mode::Local(local) if local.side.is_solutions() => Some(crate::variants::LOCAL_ID),
        Mode::Local(_) => None,
    }
}

/// The check executables of the lessons in `plans` whose code can keep state between calls
/// ([`crate::run::stateful`]): local grading runs their checks alone, not in a shared process.
fn keeping_state(
    root: &Path,
    plans: &[LessonPlan],
    built: &HashMap<String, crate::build::Built>,
    side: Side,
) -> HashSet<PathBuf> {
    // Only lessons that built have checks to run: the others' sources are not read.
    plans
        .iter()
        .filter_map(|plan| match &built[&plan.lesson.id] {
            crate::build::Built::Ok(bins) => Some((plan.lesson, bins)),
            crate::build::Built::Failed(_) => None,
        })
        .filter(|(lesson, _)| crate::run::stateful::keeps_state(root, lesson, side))
        .flat_map(|(_, bins)| bins.iter().map(|b| b.exe.clone()))
        .collect()
}

/// Runs again, with a backtrace, each check that panicked inside a library (ndarray, std, ...),
/// so the verdict can name the student's line that called it; a rerun that panics elsewhere is
/// ignored.
fn trace_library_panics(
    runner: &Runner,
    planned: &Planned,
    listing: &Listing,
    runs: Runs,
    workers: usize,
) -> Runs {
    let location = |out: &RunOutput| panic_of(&out.output).map(|(at, _)| at);
    let mut again = Vec::new();
    for (plan, per_exercise) in planned.lessons.iter().zip(&listing.slots) {
        for slot in per_exercise.iter().flatten() {
            let Slot::Job(i) = slot else { continue };
            let out = &runs.outputs[*i];
            let in_library = location(out)
                .is_some_and(|at| matches!(origin(&at, &plan.student_src), Origin::Library(_)));
            if in_library && out.ended != crate::run::sandbox::Ended::TimedOut {
                again.push(*i);
            }
        }
    }
    runs.traced(runner, &listing.jobs, &again, workers, |first, traced| {
        location(traced) == location(first)
    })
}
