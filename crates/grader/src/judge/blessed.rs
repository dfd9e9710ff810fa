//! What a reference solution's checks observe, read as the expected observations `bless` writes
//! (`course::expected`), with the checks it fails: every listed check of one executable, each
//! run alone ([`crate::run::runs::Listed::run_each`]).

use crate::course::CheckId;
use crate::course::expected::{Expect, Expected};
use crate::run::RunOutput;
use crate::run::runs::{Listed, Runs};
use crate::run::sandbox::Ended;
use check_protocol::Observation;
use std::time::Duration;

/// The checks a reference solution fails, each with why.
pub type Failures = Vec<(CheckId, String)>;

/// What the checks of `listed` observed in `runs` (one run per check, in order), and the checks
/// the solution fails, each with why. `timeout` is the limit they ran under, for the message.
pub fn observed(
    listed: &Listed,
    runs: &Runs,
    timeout: Duration,
) -> (Expected, Vec<(CheckId, String)>) {
    let mut observed = Expected::default();
    let mut failures = Vec::new();
    for (check, out) in listed.checks.iter().zip(&runs.outputs) {
        if let Some(why) = failure(out, timeout) {
            failures.push((check.clone(), why));
            continue;
        }
        let mut list = Vec::new();
        for o in &out.observations {
            match o {
                Observation::Assert { label, .. } => list.push(Expect::Assert(label.clone())),
                Observation::Snapshot { name, text, exact } => {
                    if let Some(old) = observed.snapshots.get(name)
                        && old != text
                    {
                        failures.push((
                            check.clone(),
                            format!(
                                "the snapshot `{name}` is asserted twice with different values"
                            ),
                        ));
                    }
                    observed.snapshots.insert(name.clone(), text.clone());
                    list.push(Expect::Snapshot {
                        name: name.clone(),
                        exact: *exact,
                    });
                }
                Observation::Begin | Observation::End => {}
            }
        }
        observed.checks.insert(check.name().to_owned(), list);
    }
    (observed, failures)
}

/// Why the run `out` of a reference solution's check is not a clean pass: a failed assertion's
/// message, a timeout, a check that does not start with its proof, or how it ended.
fn failure(out: &RunOutput, timeout: Duration) -> Option<String> {
    let failed_assert = out.observations.iter().find_map(|o| match o {
        Observation::Assert {
            passed: false,
            message,
            ..
        } => Some(message.clone()),
        _ => None,
    });
    if failed_assert.is_some() {
        return failed_assert;
    }
    let begun = matches!(out.observations.first(), Some(Observation::Begin));
    let complete = begun
        && matches!(out.observations.last(), Some(Observation::End))
        && out.ended == Ended::Exited(0);
    if complete {
        return None;
    }
    Some(match out.ended {
        Ended::TimedOut => format!("did not finish within {:.0} s", timeout.as_secs_f64()),
        _ if !begun => "it does not start with `let _proof = course_check::proof();`".to_owned(),
        ended => {
            let tail: Vec<&str> = out.output.lines().rev().take(6).collect();
            format!(
                "ended with {ended:?}: {}",
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(ended: Ended, observations: Vec<Observation>, output: &str) -> RunOutput {
        RunOutput {
            ended,
            output: output.to_owned(),
            observations,
            duration: Duration::ZERO,
            limit: Duration::from_secs(1),
        }
    }

    fn snap(name: &str, text: &str) -> Observation {
        Observation::Snapshot {
            name: name.into(),
            text: text.into(),
            exact: false,
        }
    }

    #[test]
    fn clean_runs_become_expected_observations_and_the_rest_failures() {
        let listed = Listed {
            exe: "checks".into(),
            checks: [
                "checks::a",
                "checks::b",
                "checks::c",
                "checks::d",
                "checks::e",
            ]
            .map(CheckId::new)
            .to_vec(),
        };
        let ok = |obs: Vec<Observation>| {
            let mut all = vec![Observation::Begin];
            all.extend(obs);
            all.push(Observation::End);
            run(Ended::Exited(0), all, "")
        };
        let assert = |passed: bool| Observation::Assert {
            label: "shape".into(),
            passed,
            message: "shape differs".into(),
        };
        let runs = Runs {
            outputs: vec![
                ok(vec![assert(true), snap("a_out", "1")]),
                ok(vec![assert(false)]),
                run(Ended::TimedOut, vec![Observation::Begin], ""),
                run(Ended::Exited(0), vec![], "ok"),
                // The same snapshot name as `a`, another value.
                ok(vec![snap("a_out", "2")]),
            ],
        };
        let (expected, failures) = observed(&listed, &runs, Duration::from_secs(60));
        assert_eq!(
            expected.checks["a"],
            [
                Expect::Assert("shape".into()),
                Expect::Snapshot {
                    name: "a_out".into(),
                    exact: false
                }
            ]
        );
        let failed: Vec<(&str, &str)> = failures
            .iter()
            .map(|(c, why)| (c.full(), why.as_str()))
            .collect();
        assert_eq!(
            failed,
            [
                ("checks::b", "shape differs"),
                ("checks::c", "did not finish within 60 s"),
                (
                    "checks::d",
                    "it does not start with `let _proof = course_check::proof();`"
                ),
                (
                    "checks::e",
                    "the snapshot `a_out` is asserted twice with different values"
                ),
            ]
        );
        assert!(!expected.checks.contains_key("b"));
        assert!(expected.checks.contains_key("e"));
    }
}
