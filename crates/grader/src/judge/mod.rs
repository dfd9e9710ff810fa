//! Stage 5 of grading, **judge**: the verdict of one check, decided here in the grader from what
//! the check process observed, against what the instructors' files say it must observe.
//!
//! A check passes only when its observations run from `begin` to `end`, are exactly the expected
//! sequence (each assertion held, each snapshot matches its `.snap` text with the snapshot's own
//! comparator) and the process exited with status 0. Nothing else the process prints or does can
//! make it pass. Its output is read only to explain a failure: a `todo!()`, a panic and where it
//! happened, a signal.

pub mod blessed;
pub mod diagnosis;
pub mod misconception;
pub mod observed;
pub mod panicked;
pub mod planting;
#[cfg(feature = "instructor")]
pub mod points_kept;
pub mod sides;
pub mod verdict;

use crate::course::expected::{Expect, same_label};
use crate::judge::misconception::Record;
use crate::judge::observed::{Snapshot, body};
use crate::judge::panicked::Panicked;
use crate::judge::verdict::{
    Origin, Status, Verdict, check_frame, first_lines, origin, panic_of, strip_col, student_frame,
};
use crate::run::RunOutput;
use crate::run::sandbox::Ended;
use check_protocol::{Observation, TODO_PREFIX, todo_function};
use std::collections::HashMap;

/// What the judge knows about the check besides its run.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The expected observations (`None`: the check was never blessed).
    pub expected: Option<&'a [Expect]>,
    /// Expected snapshot texts by name.
    pub snapshots: &'a HashMap<String, String>,
    /// A path fragment of the student's sources, to tell their panics from the checks'.
    pub student_src: &'a str,
    /// The lesson's blessed misconceptions (any check's; those of this check are used).
    pub misconceptions: &'a [Record],
    /// The check's name (its test function).
    pub check: &'a str,
}

fn verdict(status: Status, message: impl Into<String>) -> Verdict {
    Verdict::new(status, message)
}

/// How the observations compare with the expected ones.
enum Comparison {
    /// Every expected observation was made, right.
    Complete,
    /// The first ones were right, then they stopped.
    StoppedEarly,
    /// A wrong one at this index: the verdict says why. `decisive` when the observation itself
    /// is wrong (a failed assertion, a different snapshot), not the sequence.
    Wrong {
        /// Index of the wrong observation.
        at: usize,
        /// Its verdict.
        verdict: Verdict,
        /// A wrong value rather than a wrong sequence.
        decisive: bool,
    },
}

fn compare(ctx: &Context, expected: &[Expect], seen: &[Observation]) -> Comparison {
    for (i, want) in expected.iter().enumerate() {
        let Some(got) = seen.get(i) else {
            return Comparison::StoppedEarly;
        };
        match (want, got) {
            (
                Expect::Assert(label),
                Observation::Assert {
                    label: got_label,
                    passed,
                    message,
                },
            ) if same_label(label, got_label) => {
                if !passed {
                    return Comparison::Wrong {
                        at: i,
                        verdict: verdict(Status::Wrong, sides::labelled(got_label, message)),
                        decisive: true,
                    };
                }
            }
            (
                Expect::Snapshot { name, exact },
                Observation::Snapshot {
                    name: got_name,
                    text,
                    ..
                },
            ) if name == got_name => {
                let Some(want_text) = ctx.snapshots.get(name) else {
                    return Comparison::Wrong {
                        at: i,
                        verdict: verdict(
                            Status::Wrong,
                            format!(
                                "the expected snapshot `{name}` is missing: run `cargo xtask bless`"
                            ),
                        ),
                        decisive: false,
                    };
                };
                if let Some(why) = check_protocol::explain_difference(
                    want_text,
                    text,
                    Snapshot::from(*exact).tolerance(),
                ) {
                    return Comparison::Wrong {
                        at: i,
                        verdict: verdict(Status::Wrong, why),
                        decisive: true,
                    };
                }
            }
            (want, got) => {
                return Comparison::Wrong {
                    at: i,
                    verdict: verdict(
                        Status::Wrong,
                        format!(
                            "the check expected {} next, but the code under test reported {} \
                             (was the check's output forged, or tests/checks.rs edited?)",
                            describe_expect(want),
                            describe_seen(got)
                        ),
                    ),
                    decisive: false,
                };
            }
        }
    }
    if seen.len() > expected.len() {
        return Comparison::Wrong {
            at: expected.len(),
            verdict: verdict(
                Status::Wrong,
                format!(
                    "the check reported {} more observation(s) than it should (was its output forged?)",
                    seen.len() - expected.len()
                ),
            ),
            decisive: false,
        };
    }
    Comparison::Complete
}

/// The observations of a run up to and including its first wrong value (a failed assertion or a
/// snapshot that differs), when it has one: what a misconception is recognised by.
pub fn up_to_first_wrong(ctx: &Context, observations: &[Observation]) -> Option<Vec<Observation>> {
    let (mut body, _, _) = body(observations);
    match compare(ctx, ctx.expected?, &body) {
        Comparison::Wrong {
            at, decisive: true, ..
        } => {
            body.truncate(at + 1);
            Some(body)
        }
        _ => None,
    }
}

/// Whether `observations` (without `begin` and `end`) are every expected one, each right.
pub fn holds(ctx: &Context, observations: &[Observation]) -> bool {
    ctx.expected.is_some_and(|expected| {
        matches!(compare(ctx, expected, observations), Comparison::Complete)
    })
}

/// The observations of a run that panicked after only right ones, and its panic: what a
/// misconception that panics is recognised by.
pub fn up_to_a_panic(ctx: &Context, run: &RunOutput) -> Option<(Vec<Observation>, Panicked)> {
    let (body, _, _) = body(&run.observations);
    match compare(ctx, ctx.expected?, &body) {
        Comparison::StoppedEarly if run.ended != Ended::TimedOut => {
            Some((body, Panicked::of(&run.output)?))
        }
        _ => None,
    }
}

/// The misconceptions whose blessed observations (and panic) this check's run repeats.
fn diagnose(ctx: &Context, run: &RunOutput) -> Vec<String> {
    let (body, _, _) = body(&run.observations);
    let panicked = Panicked::of(&run.output);
    crate::judge::misconception::candidates(ctx.misconceptions, ctx.check, &body, panicked.as_ref())
        .map(|r| r.misconception.clone())
        .collect()
}

fn describe_expect(e: &Expect) -> String {
    match e {
        Expect::Assert(label) => format!("the assertion `{label}`"),
        Expect::Snapshot { name, .. } => format!("the snapshot `{name}`"),
    }
}

fn describe_seen(o: &Observation) -> String {
    match o {
        Observation::Assert { label, .. } => format!("the assertion `{label}`"),
        Observation::Snapshot { name, .. } => format!("the snapshot `{name}`"),
        Observation::Begin => "a second start".into(),
        Observation::End => "an end".into(),
    }
}

/// Judges one finished check, with the misconceptions a failure matches.
pub fn judge(ctx: &Context, run: &RunOutput) -> Verdict {
    let mut v = decide(ctx, run);
    if v.status != Status::Passed {
        v.misconceptions = diagnose(ctx, run);
    }
    v
}

/// The verdict of one finished check.
fn decide(ctx: &Context, run: &RunOutput) -> Verdict {
    if run.ended == Ended::TimedOut {
        return verdict(
            Status::TimedOut,
            "did not finish in time: look for a loop that never ends",
        );
    }
    if let Ended::WroteTooMuch(budget) = run.ended {
        return verdict(
            Status::WroteTooMuch,
            format!(
                "stopped: the code wrote more than {} to disk, the most a check may keep at \
                 once (its own folder and the shared temporary folders count): keep data in \
                 memory, or remove files once done",
                budget.describe()
            ),
        );
    }
    if run.ended == Ended::SetupFailed {
        return verdict(
            Status::Crashed,
            format!(
                "the sandbox could not start the check: {}",
                first_lines(run.output.trim(), 3)
            ),
        );
    }
    let Some(expected) = ctx.expected else {
        return verdict(
            Status::Wrong,
            "this check has no expected observations: run `cargo xtask bless` (instructors)",
        );
    };
    let (body, began, ended) = body(&run.observations);
    match compare(ctx, expected, &body) {
        Comparison::Wrong { verdict, .. } => verdict,
        Comparison::Complete if ended && run.ended == Ended::Exited(0) => {
            verdict(Status::Passed, "")
        }
        // What the process printed cannot tell these apart (student code can print the harness's
        // `... ok` line): only observations, which it cannot forge, decide.
        _ if !began && run.ended == Ended::Exited(0) => verdict(
            Status::ExitedEarly,
            "the process exited with status 0 before the check started: did the code call \
             `std::process::exit`? (If tests/checks.rs was edited and a check no longer calls \
             `course_check::proof()`, put the handed-out checks back: `cargo xtask reset --course-files`.)",
        ),
        // The check's own end was reported: its code returned, short of what it must check.
        Comparison::StoppedEarly if ended && run.ended == Ended::Exited(0) => {
            returned_early(expected, &body)
        }
        _ => explain_ending(ctx, run),
    }
}

/// A check that ran to its end without making every expected observation: its code returned
/// before it checked everything (a check edited, its body cut), which no student code can cause
/// without the check's end being reported first.
fn returned_early(expected: &[Expect], body: &[Observation]) -> Verdict {
    let next = expected.get(body.len()).map_or_else(String::new, |e| {
        format!("; the next was {}", describe_expect(e))
    });
    // Student code can write a check's `end` itself before it exits: the verdict stays the one of
    // code that left early, and the message names the edited check as the other cause.
    verdict(
        Status::ExitedEarly,
        format!(
            "the check stopped after {} of its {} assertions and snapshots{next}, and the process \
             exited with status 0: did the code call `std::process::exit`? If tests/checks.rs was \
             edited so that the check no longer checks everything, put the handed-out checks \
             back: `cargo xtask reset --course-files`.",
            body.len(),
            expected.len()
        ),
    )
}

/// What a stack overflow says: a thread other than the check's own (one a check started with a
/// small stack on purpose, named for why) is named, with the other cause a large local array.
fn stack_overflow(ctx: &Context, output: &str) -> String {
    let thread = output
        .lines()
        .find_map(|l| {
            let (name, _) = l.strip_prefix("thread '")?.split_once("' ")?;
            Some(name)
        })
        .filter(|name: &&str| *name != ctx.check && *name != "main" && name.len() <= 120);
    match thread {
        Some(name) => format!(
            "stack overflow on the thread '{name}': a large array kept on the stack, or a \
             recursion that never reaches its base case?"
        ),
        None => "stack overflow: a recursion that never reaches its base case?".to_owned(),
    }
}

/// Why a check that did not pass stopped: from how the process ended and what it printed.
fn explain_ending(ctx: &Context, run: &RunOutput) -> Verdict {
    let output = &run.output;
    match run.ended {
        Ended::Signal(sig) => {
            let why = if output.contains("has overflowed its stack") {
                stack_overflow(ctx, output)
            } else if sig == 6 {
                "the process aborted (SIGABRT), e.g. `std::process::abort()` or a panic while panicking".to_owned()
            } else if sig == 25 {
                "the process wrote a file larger than the sandbox allows (SIGXFSZ)".to_owned()
            } else {
                format!("the process was killed by signal {sig}")
            };
            return verdict(Status::Crashed, why);
        }
        Ended::Exited(0) => {
            return verdict(
                Status::ExitedEarly,
                "the process exited with status 0 before the check finished (did the code call `std::process::exit`?)",
            );
        }
        _ => {}
    }
    let Some((location, message)) = panic_of(output) else {
        return verdict(
            Status::Crashed,
            "the check process failed without reporting a result (exit code set by the code under test?)",
        );
    };
    if message.starts_with(TODO_PREFIX) {
        return match todo_function(&message) {
            Some(f) => verdict(
                Status::NotStarted,
                format!("implement `{f}` next ({})", strip_col(&location)),
            ),
            None => verdict(
                Status::NotStarted,
                format!("still `todo!()` at {}", strip_col(&location)),
            ),
        };
    }
    let at = strip_col(&location);
    let message = first_lines(&message, 6);
    match origin(&location, ctx.student_src) {
        Origin::Student => verdict(Status::Panicked, format!("panicked at {at}: {message}")),
        Origin::Check => checker_failed(at, &message),
        Origin::Library(name) => {
            match (student_frame(output, ctx.student_src), check_frame(output)) {
                (Some(caller), _) => verdict(
                    Status::Panicked,
                    format!("panicked in {name}, called from {caller}: {message}"),
                ),
                (None, Some(check)) => checker_failed(&check, &format!("{message} (in {name})")),
                // No backtrace (it is asked for only when needed): say where it was.
                (None, None) => verdict(
                    Status::Panicked,
                    format!("panicked in {name} (at {at}): {message}"),
                ),
            }
        }
    }
}

/// The check's own code stopped: not "your code panicked", but what it could not do with the
/// result it got.
fn checker_failed(at: &str, message: &str) -> Verdict {
    if let Some(err) = message.strip_prefix("called `Result::unwrap()` on an `Err` value: ") {
        return verdict(
            Status::Wrong,
            format!("your code returned an error where the check expects a value (at {at}): {err}"),
        );
    }
    verdict(
        Status::Wrong,
        format!(
            "the check could not go on with what your code returned (it stopped at {at}): {message}"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    const SRC: &str = "exercises/lesson02-split-heads/src";

    fn run(ended: Ended, output: &str, observations: Vec<Observation>) -> RunOutput {
        RunOutput {
            ended,
            output: output.to_owned(),
            observations,
            duration: Duration::ZERO,
            limit: Duration::from_secs(10),
        }
    }

    fn assert_obs(label: &str, passed: bool) -> Observation {
        Observation::Assert {
            label: label.into(),
            passed,
            message: if passed { String::new() } else { "no".into() },
        }
    }

    fn snap(text: &str) -> Observation {
        Observation::Snapshot {
            name: "l__checks__s".into(),
            text: text.into(),
            exact: false,
        }
    }

    fn with<R>(f: impl FnOnce(&Context) -> R) -> R {
        let expected = vec![
            Expect::Assert("x == 1".into()),
            Expect::Snapshot {
                name: "l__checks__s".into(),
                exact: false,
            },
        ];
        let mut snapshots = HashMap::new();
        snapshots.insert(
            "l__checks__s".to_owned(),
            "shape (2,)\n[] 1.0000 2.0000\n".to_owned(),
        );
        let ctx = Context {
            expected: Some(&expected),
            snapshots: &snapshots,
            student_src: SRC,
            misconceptions: &[],
            check: "c",
        };
        f(&ctx)
    }

    fn good() -> Vec<Observation> {
        vec![
            Observation::Begin,
            assert_obs("x == 1", true),
            snap("shape (2,)\n[] 1.0000 2.0001\n"),
            Observation::End,
        ]
    }

    /// Asserts the verdict's status and that its message says `fragment`.
    fn assert_verdict(v: &Verdict, status: Status, fragment: &str) {
        assert_eq!(v.status, status, "{}", v.message);
        assert!(v.message.contains(fragment), "{}", v.message);
    }

    #[test]
    fn only_the_right_observations_and_a_clean_exit_pass() {
        with(|ctx| {
            assert_eq!(
                judge(ctx, &run(Ended::Exited(0), "", good())).status,
                Status::Passed
            );
            // The same observations with another ending are not a pass.
            assert_ne!(
                judge(ctx, &run(Ended::Exited(1), "", good())).status,
                Status::Passed
            );
            assert_eq!(
                judge(ctx, &run(Ended::Signal(6), "", good())).status,
                Status::Crashed
            );
            // A forged harness transcript without observations is not a pass.
            let forged = "test result: ok. 1 passed; 0 failed;\n";
            assert_eq!(
                judge(ctx, &run(Ended::Exited(0), forged, vec![])).status,
                Status::ExitedEarly
            );
            // Forged observations with a wrong value are wrong.
            let mut wrong = good();
            wrong[2] = snap("shape (2,)\n[] 1.0000 2.5000\n");
            assert_verdict(
                &judge(ctx, &run(Ended::Exited(0), "", wrong)),
                Status::Wrong,
                "expected 2.0000, got 2.5000",
            );
            // Skipping an assertion, or claiming an unknown one, is wrong.
            let mut skipped = good();
            skipped.remove(1);
            assert_eq!(
                judge(ctx, &run(Ended::Exited(0), "", skipped)).status,
                Status::Wrong
            );
            let mut extra = good();
            extra.insert(3, assert_obs("y", true));
            assert_eq!(
                judge(ctx, &run(Ended::Exited(0), "", extra)).status,
                Status::Wrong
            );
            // Another assertion in the expected one's place, held, is wrong; so is the expected
            // text under another snapshot's name.
            let mut renamed = good();
            renamed[1] = assert_obs("x == x", true);
            let v = judge(ctx, &run(Ended::Exited(0), "", renamed));
            assert_verdict(&v, Status::Wrong, "the assertion `x == 1` next");
            assert!(
                v.message.contains("reported the assertion `x == x`"),
                "{}",
                v.message
            );
            let mut renamed = good();
            renamed[2] = Observation::Snapshot {
                name: "l__checks__other".into(),
                text: "shape (2,)\n[] 1.0000 2.0000\n".into(),
                exact: false,
            };
            assert_verdict(
                &judge(ctx, &run(Ended::Exited(0), "", renamed)),
                Status::Wrong,
                "the snapshot `l__checks__s` next",
            );
        });
    }

    #[test]
    fn an_end_counts_only_after_a_begin_and_every_observation() {
        with(|ctx| {
            // Every observation but the end, then exit 0: the code left before the check returned.
            let mut cut = good();
            cut.pop();
            assert_verdict(
                &judge(ctx, &run(Ended::Exited(0), "", cut)),
                Status::ExitedEarly,
                "before the check finished",
            );
            // Every observation and the end, but no begin: the check never started.
            let mut headless = good();
            headless.remove(0);
            assert_verdict(
                &judge(ctx, &run(Ended::Exited(0), "", headless.clone())),
                Status::ExitedEarly,
                "before the check started",
            );
            // The same with a failing exit status and nothing printed.
            assert_verdict(
                &judge(ctx, &run(Ended::Exited(1), "", headless)),
                Status::Crashed,
                "without reporting a result",
            );
            // A check that observes nothing: an end without its begin is still not a pass.
            let ctx = Context {
                expected: Some(&[]),
                ..*ctx
            };
            let ran = |obs| judge(&ctx, &run(Ended::Exited(0), "", obs)).status;
            assert_eq!(
                ran(vec![Observation::Begin, Observation::End]),
                Status::Passed
            );
            assert_eq!(ran(vec![Observation::End]), Status::ExitedEarly);
        });
    }

    /// A check whose body was cut (it begins and ends, short of its observations) is named as a
    /// cause beside `exit`: student code can write the same observations, so the verdict is one.
    #[test]
    fn a_check_that_returns_without_checking_everything_says_so() {
        with(|ctx| {
            let gutted = vec![Observation::Begin, Observation::End];
            let v = judge(ctx, &run(Ended::Exited(0), "", gutted));
            assert_verdict(
                &v,
                Status::ExitedEarly,
                "stopped after 0 of its 2 assertions",
            );
            assert!(
                v.message.contains("the next was the assertion `x == 1`"),
                "{}",
                v.message
            );
            assert!(
                v.message.contains("tests/checks.rs was edited"),
                "{}",
                v.message
            );
            let half = vec![
                Observation::Begin,
                assert_obs("x == 1", true),
                Observation::End,
            ];
            assert_verdict(
                &judge(ctx, &run(Ended::Exited(0), "", half)),
                Status::ExitedEarly,
                "after 1 of its 2",
            );
            // A body emptied of everything, its `proof()` too: the harness's `ok` line, which
            // student code can print as well, decides nothing; the message names both causes.
            let empty = "running 1 test\ntest c ... ok\n\ntest result: ok. 1 passed;\n";
            let v = judge(ctx, &run(Ended::Exited(0), empty, vec![]));
            assert_verdict(&v, Status::ExitedEarly, "std::process::exit");
            assert!(v.message.contains("reset --course-files"), "{}", v.message);
            assert_eq!(
                judge(ctx, &run(Ended::Exited(0), "", vec![])),
                v,
                "the same verdict whatever the process printed"
            );
            // Without the end, it is still the code that left early.
            let mut cut = good();
            cut.pop();
            assert_eq!(
                judge(ctx, &run(Ended::Exited(0), "", cut)).status,
                Status::ExitedEarly
            );
        });
    }

    #[test]
    fn signals_are_named() {
        with(|ctx| {
            let message = |sig| judge(ctx, &run(Ended::Signal(sig), "", vec![])).message;
            assert!(message(6).contains("SIGABRT"));
            assert!(message(25).contains("SIGXFSZ"));
            assert_eq!(message(9), "the process was killed by signal 9");
        });
    }

    #[test]
    fn a_failure_is_matched_with_the_misconceptions_up_to_its_first_wrong_value() {
        let wrong_snap = snap("shape (2,)\n[] 1.0000 2.5000\n");
        let mut wrong = good();
        wrong[2] = wrong_snap.clone();
        let record = Record {
            misconception: "m".into(),
            check: "c".into(),
            observations: vec![assert_obs("x == 1", true), wrong_snap.clone()],
            panic: None,
        };
        with(|ctx| {
            assert_eq!(
                up_to_first_wrong(ctx, &wrong),
                Some(vec![assert_obs("x == 1", true), wrong_snap.clone()])
            );
            let failed = vec![Observation::Begin, assert_obs("x == 1", false)];
            assert_eq!(
                up_to_first_wrong(ctx, &failed),
                Some(vec![assert_obs("x == 1", false)])
            );
            // Nothing wrong, or only the sequence wrong: nothing to match.
            assert_eq!(up_to_first_wrong(ctx, &good()), None);
            let mut renamed = good();
            renamed[1] = assert_obs("x == x", true);
            assert_eq!(up_to_first_wrong(ctx, &renamed), None);

            let records = [record];
            let ctx = Context {
                misconceptions: &records,
                ..*ctx
            };
            let v = judge(&ctx, &run(Ended::Exited(101), "", wrong));
            assert_eq!(v.misconceptions, ["m"]);
            let v = judge(&ctx, &run(Ended::Exited(0), "", good()));
            assert_eq!((v.status, v.misconceptions.len()), (Status::Passed, 0));
        });
    }

    #[test]
    fn failures_are_explained() {
        with(|ctx| {
            let failed = vec![Observation::Begin, assert_obs("x == 1", false)];
            let v = judge(ctx, &run(Ended::Exited(101), "", failed));
            assert_eq!((v.status, v.message.as_str()), (Status::Wrong, "no"));

            let todo = format!(
                "thread 'checks::c' panicked at {SRC}/exercises.rs:31:5:\nnot yet implemented: split_heads: reshape\nnote: x"
            );
            let v = judge(
                ctx,
                &run(Ended::Exited(101), &todo, vec![Observation::Begin]),
            );
            assert_eq!(v.status, Status::NotStarted);
            assert_eq!(
                v.message,
                format!("implement `split_heads` next ({SRC}/exercises.rs:31)")
            );

            let panic =
                format!("thread 'c' panicked at {SRC}/exercises.rs:40:9:\nindex out of bounds\n");
            let v = judge(
                ctx,
                &run(Ended::Exited(101), &panic, vec![Observation::Begin]),
            );
            assert_eq!(v.status, Status::Panicked);

            assert_eq!(
                judge(ctx, &run(Ended::TimedOut, "", vec![])).status,
                Status::TimedOut
            );
            // Over its disk budget: its own verdict, whatever it observed, naming the budget.
            let budget = crate::run::disk::Budget::per_check(8);
            let v = judge(ctx, &run(Ended::WroteTooMuch(budget), "", good()));
            assert_eq!(v.status, Status::WroteTooMuch);
            assert!(
                v.message.contains("more than 32 MiB or 512 files"),
                "{}",
                v.message
            );
            // The check's own thread: a recursion, most likely.
            let overflow = format!("thread '{}' has overflowed its stack\n", ctx.check);
            let v = judge(
                ctx,
                &run(Ended::Signal(6), &overflow, vec![Observation::Begin]),
            );
            assert!(
                v.message.starts_with("stack overflow: a recursion"),
                "{}",
                v.message
            );
            // A thread the check started with a small stack, named for why: named in the message.
            let named = "thread 'f, on a small stack' (4242) has overflowed its stack\n";
            let v = judge(ctx, &run(Ended::Signal(6), named, vec![Observation::Begin]));
            assert!(
                v.message.starts_with(
                    "stack overflow on the thread 'f, on a small stack': a large array"
                ),
                "{}",
                v.message
            );
            let v = judge(ctx, &run(Ended::Exited(0), "", vec![Observation::Begin]));
            assert_eq!(v.status, Status::ExitedEarly);
        });
    }
}
