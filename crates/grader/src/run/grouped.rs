//! Local grading's fast path: the checks of one executable run together in one process, and each
//! check whose outcome can be told apart exactly is taken from that run; every other check is run
//! again alone ([`crate::run::Runner::run_all`]), so verdicts and messages are those of isolated
//! grading. Official grading (`--submission`) and `--isolate` never take this path.
//!
//! A check process writes its observations between a `begin` and an `end` (see
//! `check_protocol::observe`), and the test harness runs the named tests one after another in the
//! order of their names. So in a run of `n` checks the `k`-th `begin` starts the `k`-th check's
//! observations. A check is taken from the shared run when:
//!
//! * its observations end with `end`: it returned normally, as it would have alone (exit 0);
//! * or the run finished on its own with the harness's failure status (101), every check began
//!   exactly once, and the harness printed this check's failure section exactly once: it panicked,
//!   and that section is the output it would have printed alone.
//!
//! Anything else (a run that timed out, crashed, exited early, printed too much, or observations
//! that do not line up) leaves the checks it concerns to be run alone. So do the checks of an
//! executable whose code under test can keep state between calls (a `static`; see
//! [`crate::run::stateful`]): in a shared run a check would start from what the checks before it
//! left, and its outcome could differ from the one it has alone.

use crate::run::sandbox::Ended;
use crate::run::{CheckRun, RunOutput, Runner};
use check_protocol::Observation;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::time::Duration;

/// The longest a shared run may take: checks normally finish in milliseconds, and a run that
/// takes longer (an endless loop) leaves its unfinished checks to be run alone, under their own
/// limits.
pub const SHARED_LIMIT: Duration = Duration::from_secs(2);

/// Exit status of the test harness when a test failed.
const HARNESS_FAILED: i32 = 101;

/// Runs `jobs` one process per executable (`workers` at a time), except the executables in
/// `alone`, then alone every job whose outcome the shared run cannot tell exactly or that was
/// not in one. Returns one output per job, in order.
pub fn run(
    runner: &Runner,
    jobs: &[CheckRun],
    alone: &HashSet<PathBuf>,
    workers: usize,
    on_done: &(dyn Fn(usize, usize) + Sync),
) -> Vec<RunOutput> {
    let mut outputs = shared_runs(runner, jobs, alone, workers);
    let done = outputs.iter().filter(|o| o.is_some()).count();
    on_done(done, jobs.len());
    // The rest run alone, with their prerequisites among them (a prerequisite taken from a shared
    // run finished without timing out, which is all the scheduler asks of it).
    let rest: Vec<usize> = (0..jobs.len()).filter(|i| outputs[*i].is_none()).collect();
    let position: BTreeMap<usize, usize> = rest.iter().enumerate().map(|(k, i)| (*i, k)).collect();
    let alone: Vec<CheckRun> = rest
        .iter()
        .map(|i| CheckRun {
            after: jobs[*i]
                .after
                .iter()
                .filter_map(|a| position.get(a).copied())
                .collect(),
            ..jobs[*i].clone()
        })
        .collect();
    let results = runner.run_all(&alone, workers, &|n, _| on_done(done + n, jobs.len()));
    for (i, out) in rest.into_iter().zip(results) {
        outputs[i] = Some(out);
    }
    outputs
        .into_iter()
        .map(|o| o.expect("every job ran"))
        .collect()
}

/// One shared run per executable not in `alone`; per job, its output when the run tells it
/// exactly.
fn shared_runs(
    runner: &Runner,
    jobs: &[CheckRun],
    alone: &HashSet<PathBuf>,
    workers: usize,
) -> Vec<Option<RunOutput>> {
    // Per executable, its jobs in the harness's order (by name).
    let mut groups: BTreeMap<PathBuf, Vec<usize>> = BTreeMap::new();
    for (i, job) in jobs.iter().enumerate() {
        if !alone.contains(&job.exe) {
            groups.entry(job.exe.clone()).or_default().push(i);
        }
    }
    let mut groups: Vec<Vec<usize>> = groups.into_values().collect();
    for group in &mut groups {
        group.sort_by(|a, b| jobs[*a].check.cmp(&jobs[*b].check));
    }
    let told = crate::fsutil::par_map(workers, &groups, |group| {
        let names: Vec<&str> = group.iter().map(|i| jobs[*i].check.full()).collect();
        let limit = group
            .iter()
            .map(|i| jobs[*i].timeout)
            .fold(SHARED_LIMIT, Duration::min);
        let run = runner.run_tests(&jobs[group[0]].exe, &names, limit);
        let timeouts: Vec<Duration> = group.iter().map(|i| jobs[*i].timeout).collect();
        attribute(&names, &timeouts, &run)
    });
    let mut outputs: Vec<Option<RunOutput>> = vec![None; jobs.len()];
    for (group, told) in groups.iter().zip(told) {
        for (i, out) in group.iter().zip(told) {
            outputs[*i] = out;
        }
    }
    outputs
}

/// Splits the shared run of the checks `names` (in the harness's order; `limits` are their own
/// time limits) into one output per check, `None` where the run cannot tell a check's outcome
/// exactly (see the module docs).
pub fn attribute(names: &[&str], limits: &[Duration], run: &RunOutput) -> Vec<Option<RunOutput>> {
    let mut told = vec![None; names.len()];
    // The observations of the k-th check run from the k-th `begin` to the next.
    let mut segments: Vec<Vec<Observation>> = Vec::new();
    for obs in &run.observations {
        match (obs, segments.last_mut()) {
            (Observation::Begin, _) => segments.push(vec![Observation::Begin]),
            (_, Some(segment)) => segment.push(obs.clone()),
            // Something before the first check began: nothing lines up.
            (_, None) => return told,
        }
    }
    if segments.len() > names.len() {
        return told;
    }
    let finished = run.ended == Ended::Exited(HARNESS_FAILED) && segments.len() == names.len();
    let share = run.duration / names.len().max(1) as u32;
    for (k, segment) in segments.into_iter().enumerate() {
        let returned = segment.last() == Some(&Observation::End) && harness_passed(run, names, k);
        let (ended, output) = if returned {
            (Ended::Exited(0), String::new())
        } else if finished {
            match failure_section(&run.output, names, k) {
                Some(section) => (Ended::Exited(HARNESS_FAILED), section),
                None => continue,
            }
        } else {
            continue;
        };
        told[k] = Some(RunOutput {
            ended,
            output,
            observations: segment,
            duration: share,
            limit: limits[k],
        });
    }
    told
}

/// Whether the harness counted `names[k]`, which returned normally, as passed: every check
/// passed (exit 0), or the run finished and printed no failure section for it, or the run died
/// later and the harness had printed `test name ... ok` for it (a check that returns an `Err`
/// after its last observation fails although it returned).
fn harness_passed(run: &RunOutput, names: &[&str], k: usize) -> bool {
    match run.ended {
        Ended::Exited(0) => true,
        Ended::Exited(HARNESS_FAILED) => !run
            .output
            .contains(&format!("\n---- {} stdout ----\n", names[k])),
        _ => {
            run.output
                .matches(&format!("test {} ... ok\n", names[k]))
                .count()
                == 1
        }
    }
}

/// The failure section the harness printed for `names[k]` (`---- name stdout ----` and what
/// the check printed, up to the next failing check's section or the closing list), when its
/// header appears exactly once.
fn failure_section(output: &str, names: &[&str], k: usize) -> Option<String> {
    let header = |name: &str| format!("\n---- {name} stdout ----\n");
    let own = header(names[k]);
    if output.matches(&own).count() != 1 {
        return None;
    }
    let start = output.find(&own)? + 1;
    let rest = &output[start..];
    // The section ends where a later check's section starts, else at the closing list of
    // failures (the last one: the check's own output may contain the word).
    let end = names[k + 1..]
        .iter()
        .filter_map(|next| rest.find(&header(next)))
        .min()
        .or_else(|| rest.rfind("\nfailures:\n"))?;
    Some(rest[..end].trim_end().to_owned() + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_obs() -> Observation {
        Observation::Assert {
            label: "x == 1".into(),
            passed: true,
            message: String::new(),
        }
    }

    fn shared(ended: Ended, output: &str, observations: Vec<Observation>) -> RunOutput {
        RunOutput {
            ended,
            output: output.into(),
            observations,
            duration: Duration::from_millis(30),
            limit: SHARED_LIMIT,
        }
    }

    const NAMES: [&str; 3] = ["checks::a", "checks::b", "checks::c"];
    const LIMITS: [Duration; 3] = [Duration::from_secs(10); 3];

    /// What the harness prints when `b` panicked and `a`, `c` passed.
    const B_PANICKED: &str = "\nrunning 3 tests\ntest checks::a ... ok\ntest checks::b ... FAILED\n\
        test checks::c ... ok\n\nfailures:\n\n---- checks::b stdout ----\n\nthread 'checks::b' \
        (7) panicked at exercises/l/src/exercises.rs:3:5:\nnot yet implemented: f\nnote: run with \
        `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\nfailures:\n    \
        checks::b\n\ntest result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered \
        out; finished in 0.00s\n\n";

    #[test]
    fn returned_checks_and_a_panic_are_told_apart() {
        use Observation::{Begin, End};
        let run = shared(
            Ended::Exited(101),
            B_PANICKED,
            vec![Begin, assert_obs(), End, Begin, Begin, assert_obs(), End],
        );
        let told = attribute(&NAMES, &LIMITS, &run);
        let a = told[0].as_ref().unwrap();
        assert_eq!(a.ended, Ended::Exited(0));
        assert_eq!(a.observations, vec![Begin, assert_obs(), End]);
        let b = told[1].as_ref().unwrap();
        assert_eq!(b.ended, Ended::Exited(101));
        assert_eq!(b.observations, vec![Begin]);
        assert!(
            b.output.starts_with("---- checks::b stdout ----\n"),
            "{}",
            b.output
        );
        assert!(b.output.contains("not yet implemented: f"));
        assert!(!b.output.contains("failures:"), "{}", b.output);
        let (at, msg) = crate::judge::verdict::panic_of(&b.output).unwrap();
        assert_eq!(at, "exercises/l/src/exercises.rs:3:5");
        assert_eq!(msg, "not yet implemented: f");
        assert_eq!(told[2].as_ref().unwrap().ended, Ended::Exited(0));
    }

    #[test]
    fn a_run_that_died_leaves_its_unfinished_checks_alone() {
        use Observation::{Begin, End};
        // `b` aborted the process: `a` returned and passed before it, `b` and `c` run alone.
        let printed = "\nrunning 3 tests\ntest checks::a ... ok\n";
        let obs = vec![Begin, End, Begin, assert_obs()];
        let run = shared(Ended::Signal(6), printed, obs.clone());
        let told = attribute(&NAMES, &LIMITS, &run);
        assert!(told[0].is_some());
        assert!(told[1].is_none() && told[2].is_none());
        // Without the harness's word that `a` passed, `a` runs alone too.
        let run = shared(Ended::Signal(6), "", obs);
        assert!(attribute(&NAMES, &LIMITS, &run)[0].is_none());
        // The same for a run stopped at its limit; one that exited early with status 0 ran no
        // check to its end past the exit.
        let run = shared(Ended::TimedOut, printed, vec![Begin, End, Begin]);
        let told = attribute(&NAMES, &LIMITS, &run);
        assert!(told[0].is_some() && told[1].is_none() && told[2].is_none());
        let run = shared(Ended::Exited(0), "", vec![Begin, End, Begin]);
        let told = attribute(&NAMES, &LIMITS, &run);
        assert!(told[0].is_some() && told[1].is_none() && told[2].is_none());
    }

    #[test]
    fn observations_that_do_not_line_up_tell_nothing() {
        use Observation::{Begin, End};
        // Before any check began.
        let run = shared(Ended::Exited(0), "", vec![assert_obs(), Begin, End]);
        assert!(attribute(&NAMES, &LIMITS, &run).iter().all(Option::is_none));
        // More checks began than ran (a forged `begin`).
        let four = vec![Begin, End, Begin, End, Begin, End, Begin, End];
        let run = shared(Ended::Exited(0), "", four);
        assert!(attribute(&NAMES, &LIMITS, &run).iter().all(Option::is_none));
    }

    #[test]
    fn a_panic_without_exactly_one_section_runs_alone() {
        use Observation::{Begin, End};
        let obs = vec![Begin, End, Begin, Begin, End];
        // No section for b (output cut short).
        let run = shared(Ended::Exited(101), "\nfailures:\n", obs.clone());
        assert!(attribute(&NAMES, &LIMITS, &run)[1].is_none());
        // Two sections for b (one printed by the code under test).
        let twice = B_PANICKED.replace(
            "\n---- checks::b stdout ----\n",
            "\n---- checks::b stdout ----\n\n---- checks::b stdout ----\n",
        );
        let run = shared(Ended::Exited(101), &twice, obs.clone());
        assert!(attribute(&NAMES, &LIMITS, &run)[1].is_none());
        // A harness that did not finish with its failure status.
        let run = shared(Ended::Exited(1), B_PANICKED, obs);
        let told = attribute(&NAMES, &LIMITS, &run);
        assert!(told[0].is_some() && told[1].is_none() && told[2].is_some());
    }

    #[test]
    fn a_check_that_returned_but_failed_is_told_as_failed() {
        use Observation::{Begin, End};
        // `a` recorded its end, then the harness failed it (an `Err` returned after the end).
        let out = B_PANICKED.replace(
            "\n---- checks::b stdout ----\n",
            "\n---- checks::a stdout ----\nError: late\n\n---- checks::b stdout ----\n",
        );
        let run = shared(
            Ended::Exited(101),
            &out,
            vec![Begin, End, Begin, Begin, End],
        );
        let told = attribute(&NAMES, &LIMITS, &run);
        // It failed as it would alone: the harness's failure status, with its own section.
        let a = told[0].as_ref().unwrap();
        assert_eq!(a.ended, Ended::Exited(101));
        assert_eq!(a.output, "---- checks::a stdout ----\nError: late\n");
        assert!(told[1].is_some() && told[2].is_some());
    }

    #[test]
    fn a_section_ends_at_the_next_failing_check() {
        let out = "\nfailures:\n\n---- checks::a stdout ----\nthread 'checks::a' panicked at \
                   x.rs:1:1:\nboom\n\n---- checks::c stdout ----\nthread 'checks::c' panicked \
                   at y.rs:2:2:\nbang\n\n\nfailures:\n    checks::a\n    checks::c\n";
        let a = failure_section(out, &NAMES, 0).unwrap();
        assert_eq!(
            a,
            "---- checks::a stdout ----\nthread 'checks::a' panicked at x.rs:1:1:\nboom\n"
        );
        let c = failure_section(out, &NAMES, 2).unwrap();
        assert!(c.contains("bang") && !c.contains("failures:"), "{c}");
    }
}
