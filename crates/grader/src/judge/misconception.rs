//! Named misconceptions: classic wrong answers that the grader recognises.
//!
//! Each misconception of `course.toml` (`[[lessons.misconceptions]]`) is a real wrong
//! implementation in `solutions/<dir>/src/misconceptions.rs`, planted into the reference solution
//! at run time: the grader names it in the check process's environment
//! (`check_protocol::PLANT_ENV`), and the solution's exercise function, defined with
//! `course_check::plantable!`, then runs it instead of the reference one. `cargo xtask bless`
//! builds the solution once, runs the lesson's visible checks with each misconception planted
//! in turn and keeps, per check that catches it, its observations up
//! to the first wrong one: [`FILE`] in the lesson's snapshot directory, one JSON [`Record`] per
//! line. When a student's check fails with the same observations, the report names the
//! misconception (see [`crate::judge`]); points never depend on it.

use crate::course::expected::same_label;
use crate::course::{Lesson, Misconception};
use crate::judge::observed::{Snapshot, body};
use crate::judge::panicked::{Panic, Panicked};
use anyhow::Result;
use check_protocol::Observation;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The file, in a lesson's visible snapshot directory, that holds its misconceptions' records.
pub const FILE: &str = "misconceptions.jsonl";

/// What one check observes of one planted misconception, up to its first wrong observation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The misconception's id.
    pub misconception: String,
    /// The check (test function) that catches it.
    pub check: String,
    /// Its observations from the first after `begin` to the first wrong one, included; or, when
    /// it panics before a wrong one, all of them.
    pub observations: Vec<Observation>,
    /// The panic that stopped the check, when no observation was wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub panic: Option<Panic>,
}

/// Reads the records in `dir` (none when the file is missing).
pub fn load(dir: &Path) -> Result<Vec<Record>> {
    let path = dir.join(FILE);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(Vec::new());
    };
    parse(&text).map_err(|(i, e)| {
        anyhow::Error::new(e).context(format!(
            "{}:{}: not a misconception record",
            path.display(),
            i + 1
        ))
    })
}

/// The records of a text of [`FILE`], or the index of the first line that is not one and why.
fn parse(text: &str) -> std::result::Result<Vec<Record>, (usize, serde_json::Error)> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, line)| serde_json::from_str(line).map_err(|e| (i, e)))
        .collect()
}

/// The file's text: one record per line, by misconception then check.
pub fn render(records: &[Record]) -> String {
    let mut sorted: Vec<&Record> = records.iter().collect();
    sorted.sort_by(|a, b| (&a.misconception, &a.check).cmp(&(&b.misconception, &b.check)));
    sorted
        .iter()
        .map(|r| serde_json::to_string(r).expect("a record serialises") + "\n")
        .collect()
}

/// The records of `check` whose observations `body` (a run's observations after `begin`)
/// repeats: the same assertions with the same outcome, the same snapshots with values within
/// their tolerance, up to the record's wrong one; for a record of a panic, exactly its
/// observations and then the same panic (`panicked`: how the run stopped, if it panicked).
///
/// When some of them also fail with the same messages (numbers within a relative 1e-6), only
/// those are kept: two wrong answers can fail the same assertion with different values.
pub fn candidates<'r>(
    records: &'r [Record],
    check: &'r str,
    body: &'r [Observation],
    panicked: Option<&Panicked>,
) -> impl Iterator<Item = &'r Record> {
    let found: Vec<&Record> = records
        .iter()
        .filter(move |r| {
            r.check == check
                && match (&r.panic, panicked) {
                    (None, _) => repeats(&r.observations, body),
                    (Some(want), Some(got)) => {
                        ends_with_panic(&r.observations, body) && got.is(want)
                    }
                    (Some(_), None) => false,
                }
        })
        .collect();
    let said_the_same: Vec<&Record> = found
        .iter()
        .copied()
        .filter(|r| same_messages(&r.observations, body))
        .collect();
    if said_the_same.is_empty() {
        found.into_iter()
    } else {
        said_the_same.into_iter()
    }
}

/// The misconceptions with a record for `check` that its `run` (all its observations) does not
/// repeat: it passed, or failed in another way. A student with the misconception fails every
/// check that caught it as it was blessed, so where this check decides (see
/// [`crate::judge::diagnosis`]) a failure elsewhere that happens to repeat one of its records
/// is another mistake: a cut at the wrong columns fails `fused_qkv_matches_separate_projections`
/// like blocks stacked in the wrong order, but not `fused_qkv_splits_in_order`.
pub fn contradicted(records: &[Record], check: &str, run: &[Observation]) -> Vec<String> {
    let mine: Vec<&Record> = records.iter().filter(|r| r.check == check).collect();
    if mine.is_empty() {
        // The body is not copied for a check without records (runs can be megabytes).
        return Vec::new();
    }
    let (body, _, _) = body(run);
    mine.into_iter()
        .filter(|r| match r.panic {
            None => !repeats(&r.observations, &body),
            Some(_) => !ends_with_panic(&r.observations, &body),
        })
        .map(|r| r.misconception.clone())
        .collect()
}

/// True when two texts of [`FILE`] hold the same records up to the last digits of the numbers
/// in their strings (messages, snapshot texts), by the rule grading matches messages with: such
/// records name the same misconceptions for the same failures. `bless` keeps the recorded file
/// then, so that a CPU whose matrix products round differently in the last bits (another
/// `matrixmultiply` kernel) neither finds the course stale nor rewrites it.
pub fn same_records(old: &str, new: &str) -> bool {
    let (Ok(old), Ok(new)) = (parse(old), parse(new)) else {
        return false;
    };
    old.len() == new.len()
        && old.iter().zip(&new).all(|(a, b)| {
            a.misconception == b.misconception
                && a.check == b.check
                && match (&a.panic, &b.panic) {
                    (Some(x), Some(y)) => {
                        x.exercise == y.exercise && same_words_and_numbers(&x.message, &y.message)
                    }
                    (x, y) => x == y,
                }
                && a.observations.len() == b.observations.len()
                && a.observations
                    .iter()
                    .zip(&b.observations)
                    .all(|(x, y)| same_observation(x, y))
        })
}

/// The same observation, but for the numbers in a message or a snapshot's text (see
/// [`same_words_and_numbers`]); labels, names and outcomes compare exactly.
fn same_observation(a: &Observation, b: &Observation) -> bool {
    match (a, b) {
        (
            Observation::Assert {
                label: l,
                passed: p,
                message: m,
            },
            Observation::Assert {
                label: k,
                passed: q,
                message: n,
            },
        ) => l == k && p == q && same_words_and_numbers(m, n),
        (
            Observation::Snapshot {
                name: a,
                text: t,
                exact: e,
            },
            Observation::Snapshot {
                name: b,
                text: u,
                exact: f,
            },
        ) => a == b && e == f && same_words_and_numbers(t, u),
        (a, b) => a == b,
    }
}

/// True when every failed assertion of `want` has the message of the same one in `got`, up to
/// the last digits of its numbers.
fn same_messages(want: &[Observation], got: &[Observation]) -> bool {
    want.iter().zip(got).all(|(w, g)| match (w, g) {
        (
            Observation::Assert {
                passed: false,
                message: a,
                ..
            },
            Observation::Assert { message: b, .. },
        ) => same_words_and_numbers(a, b),
        _ => true,
    })
}

/// A message's words and numbers, in order.
#[derive(Debug, PartialEq)]
enum Token {
    Word(String),
    Number(f64),
}

fn tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut word = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let starts_number = c.is_ascii_digit()
            || (matches!(c, '-' | '.') && chars.get(i + 1).is_some_and(char::is_ascii_digit));
        if starts_number {
            let start = i;
            i += 1;
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || chars[i] == '.'
                    || (matches!(chars[i], 'e' | 'E')
                        && chars
                            .get(i + 1)
                            .is_some_and(|n| n.is_ascii_digit() || *n == '-')))
            {
                i += if matches!(chars[i], 'e' | 'E') { 2 } else { 1 };
            }
            let number: String = chars[start..i.min(chars.len())].iter().collect();
            match number.parse::<f64>() {
                Ok(n) => {
                    if !word.trim().is_empty() {
                        out.push(Token::Word(
                            word.split_whitespace().collect::<Vec<_>>().join(" "),
                        ));
                    }
                    word.clear();
                    out.push(Token::Number(n));
                }
                Err(_) => word.push_str(&number),
            }
            continue;
        }
        word.push(c);
        i += 1;
    }
    if !word.trim().is_empty() {
        out.push(Token::Word(
            word.split_whitespace().collect::<Vec<_>>().join(" "),
        ));
    }
    out
}

fn same_words_and_numbers(a: &str, b: &str) -> bool {
    let (a, b) = (tokens(a), tokens(b));
    a.len() == b.len()
        && a.iter().zip(&b).all(|(x, y)| match (x, y) {
            (Token::Number(x), Token::Number(y)) => {
                (x - y).abs() <= 1e-6 * x.abs().max(y.abs()).max(1.0) || x.to_bits() == y.to_bits()
            }
            (x, y) => x == y,
        })
}

/// Which of the candidate misconceptions (ids: those the lesson shows, see
/// [`crate::judge::diagnosis`]) a failing check names. Several wrong answers can fail a check the
/// same way (a wrong split and a wrong merge both break `merge(split(x)) == x`), so where the bug
/// is decides:
/// - a check blocked by an exercise names a misconception of that exercise;
/// - otherwise one of the check's own exercise, else one of another exercise.
///
/// Two candidates left at the same step are indistinguishable: none is named.
pub fn choose<'c>(
    lesson: &'c Lesson,
    candidates: &[String],
    own_exercise: &str,
    blocked_by: Option<&str>,
) -> Option<&'c Misconception> {
    let mut ms: Vec<&Misconception> = candidates
        .iter()
        .filter_map(|id| lesson.misconceptions.iter().find(|m| &m.id == id))
        .collect();
    ms.dedup_by_key(|m| m.id.as_str());
    let only = |of: &dyn Fn(&Misconception) -> bool| -> Option<Option<&'c Misconception>> {
        let found: Vec<&&Misconception> = ms.iter().filter(|m| of(m)).collect();
        match found.as_slice() {
            [] => None,
            [one] => Some(Some(**one)),
            _ => Some(None),
        }
    };
    match blocked_by {
        Some(b) => only(&|m| m.exercise == b).flatten(),
        None => only(&|m| m.exercise == own_exercise)
            .or_else(|| only(&|_| true))
            .flatten(),
    }
}

/// True when `got` is exactly `want`'s observations, all right, as before a recorded panic.
fn ends_with_panic(want: &[Observation], got: &[Observation]) -> bool {
    got.len() == want.len() && (want.is_empty() || repeats(want, got))
}

fn repeats(want: &[Observation], got: &[Observation]) -> bool {
    !want.is_empty()
        && got.len() >= want.len()
        && want.iter().zip(got).all(|(w, g)| match (w, g) {
            (
                Observation::Assert {
                    label: a,
                    passed: p,
                    ..
                },
                Observation::Assert {
                    label: b,
                    passed: q,
                    ..
                },
            ) => same_label(a, b) && p == q,
            (
                Observation::Snapshot {
                    name: a,
                    text: t,
                    exact,
                },
                Observation::Snapshot {
                    name: b, text: u, ..
                },
            ) => {
                a == b
                    && check_protocol::explain_difference(t, u, Snapshot::from(*exact).tolerance())
                        .is_none()
            }
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lesson() -> Lesson {
        crate::course::fixture().lessons.remove(0)
    }

    #[test]
    fn the_misconception_named_is_where_the_bug_is() {
        let l = lesson();
        let ids = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let named = |c: &[&str], own: &str, blocked: Option<&str>| {
            choose(&l, &ids(c), own, blocked).map(|m| m.id.clone())
        };
        // Blocked by split_heads: the split's misconception, not the merge's.
        assert_eq!(
            named(&["merge-a", "split-a"], "merge_heads", Some("split_heads")),
            Some("split-a".into())
        );
        // Not blocked: the check's own exercise first, else another's.
        assert_eq!(
            named(&["split-a", "merge-a"], "merge_heads", None),
            Some("merge-a".into())
        );
        assert_eq!(
            named(&["split-a"], "merge_heads", None),
            Some("split-a".into())
        );
        // Two of the same exercise that fail alike: none is named.
        assert_eq!(named(&["split-a", "split-b"], "split_heads", None), None);
        assert_eq!(named(&[], "split_heads", None), None);
    }

    #[test]
    fn messages_agree_up_to_the_last_digits_of_their_numbers() {
        let a = "differs by 9.398149121264364e-1 (weights), got [1, 0, 0]";
        assert!(same_words_and_numbers(
            a,
            "differs by  9.398149121264399e-1 (weights), got [1, 0, 0]"
        ));
        assert!(!same_words_and_numbers(
            a,
            "differs by 9.2e-1 (weights), got [1, 0, 0]"
        ));
        assert!(!same_words_and_numbers(
            a,
            "differs by 9.398149121264364e-1 (output), got [1, 0, 0]"
        ));
        assert!(!same_words_and_numbers(
            a,
            "differs by 9.398149121264364e-1 (weights), got [1, 0]"
        ));
        assert_eq!(
            tokens("head -1.5e-3, x2"),
            [
                Token::Word("head".into()),
                Token::Number(-1.5e-3),
                Token::Word(", x".into()),
                Token::Number(2.0)
            ]
        );
    }

    #[test]
    fn record_files_agree_up_to_the_last_digits_of_their_numbers() {
        let file = |message: &str, label: &str| {
            render(&[Record {
                misconception: "m".into(),
                check: "c".into(),
                observations: vec![
                    Observation::Assert {
                        label: "shape ok".into(),
                        passed: true,
                        message: String::new(),
                    },
                    Observation::Assert {
                        label: label.into(),
                        passed: false,
                        message: message.into(),
                    },
                ],
                panic: None,
            }])
        };
        let recorded = file("head 0 differs by 0.20880644901501857", "d < 1e-12");
        // Another CPU's last bits, or an exact zero that became an ulp: the same record.
        assert!(same_records(
            &recorded,
            &file("head 0 differs by 0.2088064490150186", "d < 1e-12")
        ));
        assert!(same_records(
            &file("weights by 0e0", "d < 1e-12"),
            &file("weights by 2.220446049250313e-16", "d < 1e-12")
        ));
        // Another number, word, label or record count is a change.
        for other in [
            file("head 0 differs by 0.2089", "d < 1e-12"),
            file("head 1 differs by 0.20880644901501857", "d < 1e-12"),
            file("head 0 differs by 0.20880644901501857", "d < 1e-9"),
            recorded.clone() + &recorded,
            String::new(),
        ] {
            assert!(!same_records(&recorded, &other), "{other}");
        }
        assert!(!same_records("{not json", "{not json"));
    }

    #[test]
    fn records_round_trip_in_a_stable_order() {
        let r = |m: &str, c: &str| Record {
            misconception: m.into(),
            check: c.into(),
            observations: vec![Observation::Assert {
                label: "x == 1".into(),
                passed: false,
                message: "no".into(),
            }],
            panic: None,
        };
        let text = render(&[r("b", "c1"), r("a", "c2"), r("a", "c1")]);
        let first: Vec<&str> = text.lines().map(|l| &l[..30]).collect();
        assert!(
            first[0].contains("\"a\"") && text.lines().count() == 3,
            "{text}"
        );
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE), &text).unwrap();
        let back = load(dir.path()).unwrap();
        assert_eq!(back[0], r("a", "c1"));
        assert_eq!(back[2], r("b", "c1"));
        std::fs::write(dir.path().join(FILE), "{not json\n").unwrap();
        assert!(load(dir.path()).unwrap_err().to_string().contains(":1:"));
    }

    #[test]
    fn a_check_that_ran_otherwise_contradicts_its_records() {
        let assert = |label: &str, passed: bool| Observation::Assert {
            label: label.into(),
            passed,
            message: String::new(),
        };
        let r = |m: &str, c: &str, obs: Vec<Observation>| Record {
            misconception: m.into(),
            check: c.into(),
            observations: obs,
            panic: None,
        };
        let records = [
            // `order` fails `split` at its second assertion and `close` at its first.
            r(
                "order",
                "split",
                vec![assert("a", true), assert("b", false)],
            ),
            r("order", "close", vec![assert("c", false)]),
            // `other` is caught only by a check that did not run.
            r("other", "later", vec![assert("d", false)]),
        ];
        let run = |obs: Vec<Observation>| {
            let mut all = vec![Observation::Begin];
            all.extend(obs);
            all
        };
        let (same, first, passed, close) = (
            run(vec![assert("a", true), assert("b", false)]),
            run(vec![assert("a", false)]),
            run(vec![assert("a", true), assert("b", true), Observation::End]),
            run(vec![assert("c", false)]),
        );
        let contradicted =
            |check: &str, run: &Vec<Observation>| super::contradicted(&records, check, run);
        assert!(contradicted("split", &same).is_empty());
        assert_eq!(contradicted("split", &first), ["order"]);
        assert_eq!(contradicted("split", &passed), ["order"]);
        assert!(contradicted("close", &close).is_empty());
        assert!(contradicted("unrecorded", &first).is_empty());
    }
}
