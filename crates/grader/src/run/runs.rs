//! The runs of a grade's check jobs as one value, [`Runs`]: the first pass over the executables
//! (shared per executable locally, [`crate::run::grouped`], or a process per check), then the
//! checks the caller names again with a backtrace. [`Listed`] is one executable's listing, for
//! the commands that run every check of a reference solution (`bless`, `check`).

use crate::course::CheckId;
use crate::run::{Backtrace, CheckRun, RunOutput, Runner, list_tests};
use anyhow::Result;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How the first pass runs the jobs.
#[derive(Debug, Clone)]
pub enum Grouping {
    /// Each check in a process of its own (official grading, `--isolate`).
    Alone,
    /// The checks of each executable in one process, except the executables in `alone` (their
    /// code keeps state between checks, [`crate::run::stateful`]); see [`crate::run::grouped`].
    Shared {
        /// The executables whose checks run alone anyway.
        alone: HashSet<PathBuf>,
    },
}

/// One output per check job, in the jobs' order.
#[derive(Debug, Clone, Default)]
pub struct Runs {
    /// `outputs[i]` is the run of job `i`.
    pub outputs: Vec<RunOutput>,
}

impl Runs {
    /// The first pass: every job of `jobs`, `workers` at a time, as `grouping` says;
    /// `on_done(done, total)` after each job's output is known.
    pub fn first(
        runner: &Runner,
        jobs: &[CheckRun],
        grouping: &Grouping,
        workers: usize,
        on_done: &(dyn Fn(usize, usize) + Sync),
    ) -> Self {
        let outputs = match grouping {
            Grouping::Alone => runner.run_all(jobs, workers, on_done),
            Grouping::Shared { alone } => {
                crate::run::grouped::run(runner, jobs, alone, workers, on_done)
            }
        };
        Self { outputs }
    }

    /// The jobs `again` (indices into `jobs`) run once more, alone and with a backtrace (it costs
    /// about 0.15 s a panic, so only for the checks that need it); a job's new output replaces
    /// the first when `keep(first, again)` says so.
    pub fn traced(
        mut self,
        runner: &Runner,
        jobs: &[CheckRun],
        again: &[usize],
        workers: usize,
        keep: impl Fn(&RunOutput, &RunOutput) -> bool,
    ) -> Self {
        if again.is_empty() {
            return self;
        }
        let rerun: Vec<CheckRun> = again
            .iter()
            .map(|i| CheckRun {
                after: Vec::new(),
                backtrace: Backtrace::On,
                ..jobs[*i].clone()
            })
            .collect();
        for (i, out) in again
            .iter()
            .zip(runner.run_all(&rerun, workers, &|_, _| {}))
        {
            if keep(&self.outputs[*i], &out) {
                self.outputs[*i] = out;
            }
        }
        self
    }
}

/// One check executable's tests, as the test harness lists them.
#[derive(Debug, Clone)]
pub struct Listed {
    /// The executable.
    pub exe: PathBuf,
    /// Its tests, in the harness's order.
    pub checks: Vec<CheckId>,
}

impl Listed {
    /// Lists the tests of `exe` (a process of its own, as `runner` runs one).
    pub fn of(runner: &Runner, exe: &Path) -> Result<Self> {
        Ok(Self {
            exe: exe.to_path_buf(),
            checks: list_tests(runner, exe)?,
        })
    }

    /// The same listing with only the checks `keep` accepts.
    pub fn only(mut self, keep: impl Fn(&CheckId) -> bool) -> Self {
        self.checks.retain(keep);
        self
    }

    /// One job per check of `checks` (indices into [`Self::checks`]), each alone, none waiting.
    pub fn jobs(&self, checks: &[usize], timeout: Duration, backtrace: Backtrace) -> Vec<CheckRun> {
        checks
            .iter()
            .map(|i| CheckRun {
                exe: self.exe.clone(),
                check: self.checks[*i].clone(),
                timeout,
                after: Vec::new(),
                backtrace,
            })
            .collect()
    }

    /// Every check listed, each in a process of its own, `workers` at a time.
    pub fn run_each(&self, runner: &Runner, timeout: Duration, workers: usize) -> Runs {
        let all: Vec<usize> = (0..self.checks.len()).collect();
        let jobs = self.jobs(&all, timeout, Backtrace::Off);
        Runs::first(runner, &jobs, &Grouping::Alone, workers, &|_, _| {})
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::run::sandbox::Ended;

    /// An executable that appends the check it was asked for to `log` and prints it with its
    /// backtrace setting.
    fn logging_exe(dir: &Path, log: &Path) -> PathBuf {
        let script = format!(
            "#!/bin/sh\necho \"$1\" >> '{}'\necho \"ran $1 backtrace=$RUST_BACKTRACE\"\n",
            log.display()
        );
        crate::run::script_exe(dir, "logging-check", &script)
    }

    fn first_output(i: usize) -> RunOutput {
        RunOutput {
            ended: Ended::Exited(101),
            output: format!("first {i}"),
            observations: Vec::new(),
            duration: Duration::from_millis(10),
            limit: Duration::from_secs(20),
        }
    }

    #[test]
    fn only_the_jobs_named_run_again_with_a_backtrace_and_keep_decides_which_output_stays() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("ran.log");
        let exe = logging_exe(dir.path(), &log);
        let jobs: Vec<CheckRun> = (0..4)
            .map(|i| CheckRun {
                exe: exe.clone(),
                check: CheckId::new(format!("checks::c{i}")),
                timeout: Duration::from_secs(20),
                // A rerun waits for nothing: these indices are not the reruns'.
                after: (0..i).collect(),
                backtrace: Backtrace::Off,
            })
            .collect();
        let runs = Runs {
            outputs: (0..4).map(first_output).collect(),
        };
        let runner = Runner::direct().unwrap();
        let traced = runs.traced(&runner, &jobs, &[1, 3], 2, |first, again| {
            assert!(first.output.starts_with("first "), "{}", first.output);
            assert!(again.output.starts_with("ran "), "{}", again.output);
            first.output == "first 1"
        });
        let outputs: Vec<&str> = traced.outputs.iter().map(|o| o.output.trim()).collect();
        assert_eq!(
            outputs,
            [
                "first 0",
                "ran checks::c1 backtrace=1",
                "first 2",
                "first 3"
            ]
        );
        assert_eq!(traced.outputs[1].ended, Ended::Exited(0));
        let mut ran: Vec<String> = std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
        ran.sort();
        assert_eq!(ran, ["checks::c1", "checks::c3"]);
    }

    #[test]
    fn nothing_to_trace_runs_nothing() {
        let runs = Runs {
            outputs: vec![first_output(0)],
        };
        let jobs = [CheckRun {
            exe: PathBuf::from("/nonexistent/check"),
            check: CheckId::new("checks::c0"),
            timeout: Duration::from_secs(1),
            after: Vec::new(),
            backtrace: Backtrace::Off,
        }];
        let runner = Runner::direct().unwrap();
        let traced = runs.traced(&runner, &jobs, &[], 1, |_, _| panic!("nothing ran again"));
        assert_eq!(traced.outputs[0].output, "first 0");
    }
}
