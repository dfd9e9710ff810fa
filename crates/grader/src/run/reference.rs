//! The passes over the reference solutions' executables: the variant checks' reference run with a
//! student's seeds, the same run with a misconception planted, and `check`'s fairness sweeps.
//! Each job is some tests of one executable in one process, started directly (these executables
//! run no student code, so no sandbox) with its own [`Setting`]; the outputs come back as values,
//! in the jobs' order, for `variants/` to judge.

use crate::run::{RunOutput, Runner, Setting};
use anyhow::Result;
use std::path::PathBuf;
use std::time::Duration;

/// One process of a pass: the tests `tests` (full names, e.g. `variants::heads_split`) of `exe`,
/// which the harness runs one after another in the order of their names, started as `setting`
/// says.
#[derive(Debug, Clone)]
pub struct Job {
    /// The reference executable.
    pub exe: PathBuf,
    /// The tests it runs (none: every test of the executable, as the harness reads no name).
    pub tests: Vec<String>,
    /// Its plant, seeds, sweep and fitted plant's file.
    pub setting: Setting,
}

/// Runs every job, `workers` processes at a time, each under the time limit `timeout`; the
/// outputs in the order of `jobs`. Jobs with the same setting share a runner.
pub fn run(jobs: &[Job], timeout: Duration, workers: usize) -> Result<Vec<RunOutput>> {
    let mut runners: Vec<(&Setting, Runner)> = Vec::new();
    let mut at = Vec::with_capacity(jobs.len());
    for job in jobs {
        match runners.iter().position(|(s, _)| **s == job.setting) {
            Some(k) => at.push(k),
            None => {
                runners.push((&job.setting, Runner::direct_with(job.setting.clone())?));
                at.push(runners.len() - 1);
            }
        }
    }
    let indexed: Vec<(usize, &Job)> = at.into_iter().zip(jobs).collect();
    Ok(crate::fsutil::par_map(workers, &indexed, |&(k, job)| {
        let tests: Vec<&str> = job.tests.iter().map(String::as_str).collect();
        runners[k].1.run_tests(&job.exe, &tests, timeout)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::sandbox::Ended;
    use std::path::Path;

    /// An executable that prints its arguments and the setting it was started with.
    #[cfg(unix)]
    fn echo_exe(dir: &Path) -> PathBuf {
        let script = format!(
            "#!/bin/sh\necho \"tests=$*\"\necho \"plant=${}\"\necho \"seeds=${}\"\necho \
             \"sweep=${}\"\n",
            check_protocol::PLANT_ENV,
            check_protocol::VARIANT_ENV,
            check_protocol::variant::SWEEP_ENV
        );
        crate::run::script_exe(dir, "echo-check", &script)
    }

    #[cfg(unix)]
    #[test]
    fn each_job_runs_its_tests_with_its_own_setting_and_the_outputs_keep_the_jobs_order() {
        let dir = tempfile::tempdir().unwrap();
        let exe = echo_exe(dir.path());
        let setting = |plant: Option<&str>, seeds: &str| Setting {
            plant: plant.map(str::to_owned),
            variant_seeds: Some(seeds.to_owned()),
            ..Setting::default()
        };
        let job = |tests: &[&str], setting: Setting| Job {
            exe: exe.clone(),
            tests: tests.iter().map(|t| (*t).to_owned()).collect(),
            setting,
        };
        let jobs = [
            job(&["variants::a", "variants::b"], setting(None, "s1")),
            job(&["variants::a"], setting(Some("split-a"), "s1")),
            job(&["variants::b"], setting(Some("merge-a"), "s2")),
            job(&["variants::c"], setting(Some("split-a"), "s1")),
        ];
        let outs = run(&jobs, Duration::from_secs(20), 2).unwrap();
        assert_eq!(outs.len(), jobs.len());
        let lines = |i: usize| -> Vec<String> {
            assert_eq!(outs[i].ended, Ended::Exited(0), "{}", outs[i].output);
            outs[i].output.lines().map(str::to_owned).collect()
        };
        assert_eq!(
            lines(0),
            [
                "tests=--exact --test-threads=1 variants::a variants::b",
                "plant=",
                "seeds=s1",
                "sweep="
            ]
        );
        assert_eq!(
            lines(1)[..3],
            [
                "tests=--exact --test-threads=1 variants::a",
                "plant=split-a",
                "seeds=s1"
            ]
        );
        assert_eq!(
            lines(2)[..3],
            [
                "tests=--exact --test-threads=1 variants::b",
                "plant=merge-a",
                "seeds=s2"
            ]
        );
        assert_eq!(
            lines(3)[..3],
            [
                "tests=--exact --test-threads=1 variants::c",
                "plant=split-a",
                "seeds=s1"
            ]
        );
    }
}
