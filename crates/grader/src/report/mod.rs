//! The grade report and its formats: `human` (a table per lesson), `json`, `gradescope`, `junit`.

pub mod blame;
pub mod student_text;
pub mod style;

pub mod gradescope;
pub mod human;
#[cfg(feature = "instructor")]
pub mod junit;
pub mod readable;

use crate::judge::verdict::Status;
use serde::{Deserialize, Serialize};

/// Version of the JSON report's layout (2: `blocked_by` and `diagnosis` on every check; 3:
/// `stubbed` on every lesson, and the `stubbed` build).
pub const SCHEMA_VERSION: u32 = 3;

/// A whole grading run. Read back (`Deserialize`) by `cargo xtask class-page` from the JSON
/// reports a class run wrote.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    /// Layout version of this report ([`SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// The course's title.
    pub course: String,
    /// What was graded.
    pub graded: Graded,
    /// False when checks, snapshots or the course file differ from the instructors' manifest, or
    /// (submissions) when the checks ran without a sandbox.
    pub official: bool,
    /// How check processes were isolated: `landlock-abi-N`, `container-uid` or `none`.
    pub isolation: crate::run::Isolation,
    /// Submissions: whose they are (`grade --submission DIR --student ID`, by default the
    /// folder's or archive's name; a class run's id). The student's words: written escaped and
    /// cut ([`crate::report::student_text::name`]).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "student_name"
    )]
    pub student: Option<String>,
    /// Submissions: SHA-256 over the graded student sources (see `manifest::sources_digest`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sources_sha256: Option<String>,
    /// Files that differ from the manifest (empty when official), each as `<path> (changed)`,
    /// `(added)` or `(deleted)`. Their names are the student's: written escaped and cut
    /// ([`crate::report::student_text::name`]).
    #[serde(serialize_with = "student_names")]
    pub modified_files: Vec<String>,
    /// The instructors' files that differed from the manifest only once grading had ended (they
    /// changed while it ran), worded as `modified_files` are; the report is then unofficial.
    /// Left out of the JSON when empty.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "student_names"
    )]
    pub changed_while_grading: Vec<String>,
    /// Points earned.
    pub score: u32,
    /// Points available.
    pub max_score: u32,
    /// Wall time of the whole run, seconds.
    pub execution_time: f64,
    /// One entry per graded lesson.
    pub lessons: Vec<LessonReport>,
}

/// A student's id as [`crate::report::student_text::name`] shows it.
fn student_name<S: serde::Serializer>(id: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
    match id {
        Some(id) => s.serialize_str(&crate::report::student_text::name(id)),
        None => s.serialize_none(),
    }
}

/// `names` as [`crate::report::student_text::name`] shows them.
fn student_names<S: serde::Serializer>(names: &[String], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(names.iter().map(|n| crate::report::student_text::name(n)))
}

/// What a report grades.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Graded {
    /// The exercises in this workspace.
    Exercises,
    /// The reference solutions.
    Solutions,
    /// A student's submission (`grade --submission`).
    Submission,
}

/// Whether a lesson's crate compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Build {
    /// It compiled; its checks ran.
    Ok,
    /// It did not compile: every check is `compile_error`.
    CompileError,
    /// It did not compile as handed in, and every error was inside the exercises `stubbed`: with
    /// those put back to their handed-out stubs it did, so their checks are `compile_error` and
    /// the other exercises' checks ran.
    Stubbed,
}

/// One lesson's result.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LessonReport {
    /// Package id, e.g. `lesson01`.
    pub id: String,
    /// Human title.
    pub title: String,
    /// Whether the lesson's crate compiled.
    pub build: Build,
    /// The compiler's first error, trimmed (when the build failed or was `stubbed`).
    pub compiler_output: Option<String>,
    /// The exercises graded as their handed-out stubs because they do not compile (build
    /// `stubbed`), in course order; empty otherwise.
    #[serde(default)]
    pub stubbed: Vec<String>,
    /// Points earned.
    pub score: u32,
    /// Points available.
    pub max_score: u32,
    /// Exercises in course order.
    pub exercises: Vec<ExerciseReport>,
}

/// One exercise's result.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExerciseReport {
    /// The function's name.
    pub name: String,
    /// Points earned.
    pub score: u32,
    /// Points available.
    pub max_score: u32,
    /// Its checks.
    pub checks: Vec<CheckReport>,
}

/// One check's result.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CheckReport {
    /// The test function's name.
    pub name: String,
    /// The verdict.
    pub status: Status,
    /// Points earned (all or nothing).
    pub points: u32,
    /// Points available.
    pub max_points: u32,
    /// What happened and what to do next.
    pub message: String,
    /// Wall time of the check process.
    pub duration_ms: u64,
    /// A hidden check (instructors' official grading only).
    pub hidden: bool,
    /// When it failed while an exercise it needs (course.toml `needs`) is not passing: that
    /// exercise, followed back to the first one that fails on its own. Fix it first. Not set when
    /// the failure matches only misconceptions of the check's own exercise.
    pub blocked_by: Option<String>,
    /// When it failed the way a known misconception does: which one.
    pub diagnosis: Option<Diagnosis>,
    /// A variant check: the seed its inputs were drawn from and their shapes (`None` on others).
    pub variant: Option<VariantInputs>,
}

/// The inputs of a variant check (see [`crate::variants`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariantInputs {
    /// The seed, as a decimal string (a u64 does not fit a JSON number exactly everywhere).
    pub seed: String,
    /// The shapes drawn, as the reference solution's run reported them (`B=2, T=3, C=6, h=3`);
    /// empty when they are not known (the reference run was not made).
    pub shapes: String,
}

/// A named misconception that a wrong answer matches (course.toml `[[lessons.misconceptions]]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnosis {
    /// Its id, e.g. `split-without-transpose`.
    pub id: String,
    /// One line naming the mistake.
    pub title: String,
    /// Why it is wrong and what to do instead.
    pub explanation: String,
}

impl CheckReport {
    /// The message followed by whom the failure is blocked by and the misconception it matches:
    /// the whole explanation, for formats with one text per check (Gradescope, JUnit).
    pub fn explanation(&self) -> String {
        let text = explain(
            &self.message,
            self.blocked_by.as_deref(),
            self.diagnosis
                .as_ref()
                .map(|d| (d.title.as_str(), d.explanation.as_str())),
        );
        match self.inputs_line() {
            Some(line) if text.is_empty() => line,
            Some(line) => format!("{text}\n{line}"),
            None => text,
        }
    }

    /// A failing variant check's inputs, as one line (`None` for other checks and passes).
    pub fn inputs_line(&self) -> Option<String> {
        let v = self
            .variant
            .as_ref()
            .filter(|_| self.status != Status::Passed)?;
        Some(format!(
            "This variant's inputs: {} (seed {}).",
            v.shapes, v.seed
        ))
    }
}

/// `message`, then a line naming the exercise it is blocked by and a line with the misconception
/// (`title`, `explanation`) it matches, when there are.
pub fn explain(message: &str, blocked_by: Option<&str>, diagnosis: Option<(&str, &str)>) -> String {
    let mut lines: Vec<String> = Vec::new();
    if !message.is_empty() {
        lines.push(message.to_owned());
    }
    if let Some(b) = blocked_by {
        lines.push(format!(
            "Blocked: `{b}`, which this check needs, is not passing: fix it first."
        ));
    }
    if let Some((title, explanation)) = diagnosis {
        lines.push(format!("Misconception: {title}. {explanation}"));
    }
    lines.join("\n")
}

impl ExerciseReport {
    /// One status summarising the exercise: passed when every check passed, not started when
    /// every check hit `todo!`, else the most telling failure.
    pub fn status(&self) -> Status {
        let all = |s: Status| self.checks.iter().all(|c| c.status == s);
        if all(Status::Passed) {
            return Status::Passed;
        }
        if all(Status::NotStarted) {
            return Status::NotStarted;
        }
        let order = [
            Status::CompileError,
            Status::Crashed,
            Status::TimedOut,
            Status::WroteTooMuch,
            Status::ExitedEarly,
            Status::Panicked,
            Status::Wrong,
            Status::NotStarted,
        ];
        order
            .into_iter()
            .find(|s| self.checks.iter().any(|c| c.status == *s))
            .unwrap_or(Status::Wrong)
    }

    /// The exercise every failing check of this one is blocked by, when they all are.
    pub fn blocked_by(&self) -> Option<&str> {
        let mut failing = self.checks.iter().filter(|c| c.status != Status::Passed);
        let first = failing.next()?.blocked_by.as_deref()?;
        failing.all(|c| c.blocked_by.is_some()).then_some(first)
    }
}

impl Report {
    /// Every check with its lesson and exercise, in course order.
    pub fn checks(&self) -> impl Iterator<Item = (&LessonReport, &ExerciseReport, &CheckReport)> {
        self.lessons.iter().flat_map(|l| {
            l.exercises
                .iter()
                .flat_map(move |e| e.checks.iter().map(move |c| (l, e, c)))
        })
    }

    /// The first exercise, in course order, that is not at full marks, with its lesson.
    pub fn first_unfinished(&self) -> Option<(&LessonReport, &ExerciseReport)> {
        self.lessons.iter().find_map(|l| {
            l.exercises
                .iter()
                .find(|e| e.score < e.max_score)
                .map(|e| (l, e))
        })
    }

    /// Every file the report lists as differing, as the human formats show them:
    /// `modified_files`, then each of `changed_while_grading` marked as such (in a submission's
    /// report, as the instructors' copy).
    pub fn listed_files(&self) -> Vec<String> {
        let copy = match self.graded {
            Graded::Submission => "instructors' copy: ",
            _ => "",
        };
        let changed = self
            .changed_while_grading
            .iter()
            .map(|f| format!("{copy}{f} (changed while grading)"));
        self.modified_files.iter().cloned().chain(changed).collect()
    }

    /// The JSON report (`docs/report.schema.json`).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("the report serialises")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_students_file_names_are_escaped_and_cut_in_every_format() {
        let forged = format!(
            "exercises/\x1b[2J\x1b[HTotal: 26/26\u{9b}{}",
            "x".repeat(1 << 20)
        );
        let report = Report {
            schema_version: SCHEMA_VERSION,
            course: "t".into(),
            graded: Graded::Submission,
            official: false,
            isolation: crate::run::Isolation::None,
            student: Some(forged.clone()),
            sources_sha256: None,
            modified_files: vec![format!("{forged} (added)"), "Cargo.toml (changed)".into()],
            changed_while_grading: vec![],
            score: 0,
            max_score: 0,
            execution_time: 0.0,
            lessons: vec![],
        };
        let outputs = [
            report.to_json(),
            gradescope::render(&report),
            human::render(
                &report,
                &crate::report::style::Style::plain(),
                human::Detail::Full,
            ),
        ];
        for out in outputs {
            assert!(!out.contains('\x1b') && !out.contains('\u{9b}'), "{out}");
            assert!(!out.contains("\\u001b"), "{out}");
            assert!(out.contains("Total: 26/26"), "{out}");
            assert!(out.contains("Cargo.toml (changed)"), "{out}");
            assert!(out.len() < 2000, "{}", out.len());
            assert!(out.contains("more characters)"), "{out}");
        }
    }

    #[test]
    fn files_changed_while_grading_have_a_field_of_their_own_and_the_same_text() {
        let mut report = Report {
            schema_version: SCHEMA_VERSION,
            course: "t".into(),
            graded: Graded::Exercises,
            official: false,
            isolation: crate::run::Isolation::None,
            student: None,
            sources_sha256: None,
            modified_files: vec!["Cargo.toml (changed)".into()],
            changed_while_grading: vec!["course.toml (changed)".into()],
            score: 0,
            max_score: 0,
            execution_time: 0.0,
            lessons: vec![],
        };
        let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
        assert_eq!(
            json["modified_files"],
            serde_json::json!(["Cargo.toml (changed)"])
        );
        assert_eq!(
            json["changed_while_grading"],
            serde_json::json!(["course.toml (changed)"])
        );
        let text = human::render(&report, &style::Style::plain(), human::Detail::Full);
        assert!(
            text.contains(
                "  Cargo.toml (changed)\n  course.toml (changed) (changed while grading)\n"
            ),
            "{text}"
        );
        assert!(gradescope::render(&report).contains(
            "differ from the instructors' copy: Cargo.toml (changed), course.toml (changed) \
             (changed while grading)"
        ));
        report.graded = Graded::Submission;
        assert_eq!(
            report.listed_files()[1],
            "instructors' copy: course.toml (changed) (changed while grading)"
        );
        // Left out when empty, as earlier reports were written, and read back as empty.
        report.changed_while_grading.clear();
        let json = report.to_json();
        assert!(!json.contains("changed_while_grading"), "{json}");
        let back: Report = serde_json::from_str(&json).unwrap();
        assert!(back.changed_while_grading.is_empty());
    }

    #[test]
    fn a_failing_variant_shows_its_inputs_in_every_format() {
        let check = |status: Status| CheckReport {
            name: "fitted_variant".into(),
            status,
            points: 0,
            max_points: 3,
            message: "first at index [0, 1, 0, 0]".into(),
            duration_ms: 1,
            hidden: true,
            blocked_by: None,
            diagnosis: None,
            variant: Some(VariantInputs {
                seed: "42".into(),
                shapes: "B=2, T=3, C=6, h=3".into(),
            }),
        };
        let report = |status: Status| Report {
            schema_version: SCHEMA_VERSION,
            course: "t".into(),
            graded: Graded::Submission,
            official: true,
            isolation: crate::run::Isolation::None,
            student: None,
            sources_sha256: None,
            modified_files: vec![],
            changed_while_grading: vec![],
            score: 0,
            max_score: 3,
            execution_time: 0.0,
            lessons: vec![LessonReport {
                id: "lesson02".into(),
                title: "t".into(),
                build: Build::Ok,
                compiler_output: None,
                stubbed: vec![],
                score: 0,
                max_score: 3,
                exercises: vec![ExerciseReport {
                    name: "split_heads".into(),
                    score: 0,
                    max_score: 3,
                    checks: vec![check(status)],
                }],
            }],
        };
        let line = "This variant's inputs: B=2, T=3, C=6, h=3 (seed 42).";
        let wrong = report(Status::Wrong);
        let human = |r: &Report| {
            human::render(
                r,
                &crate::report::style::Style::plain(),
                human::Detail::Full,
            )
        };
        assert!(human(&wrong).contains(line), "{}", human(&wrong));
        assert!(gradescope::render(&wrong).contains(line));
        assert!(
            wrong
                .to_json()
                .contains("\"shapes\": \"B=2, T=3, C=6, h=3\"")
        );
        // A pass shows no inputs; its report still carries them.
        assert_eq!(check(Status::Passed).inputs_line(), None);
        assert!(!check(Status::Passed).explanation().contains("inputs"));
    }
}
