//! One comment, many students: the instructors' `comments.toml` (in the course, never shipped)
//! holds comments keyed by a misconception id or by a check; each appears on the feedback page of
//! every student it applies to, and the class page counts them. A key the course does not have
//! stops the class run before grading (exit 2): a typo must not leave students without their
//! comment silently.

use crate::course::Course;
use crate::judge::verdict::Status;
use crate::report::Report;
use anyhow::{Context as _, Result, bail};
use serde::Deserialize;
use std::path::Path;

/// The comments file, relative to the course root.
pub const FILE: &str = "comments.toml";

/// What a comment is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum About {
    /// A misconception (course.toml `[[lessons.misconceptions]]`): every student whose report
    /// names it. Its id and title.
    Misconception {
        /// Its id.
        id: String,
        /// Its title, as the student's page shows it.
        title: String,
    },
    /// A check: every student for whom it fails (not counting `not_started`, an exercise not
    /// attempted, and `compile_error`, whose compiler output says it).
    Check {
        /// Its lesson's id.
        lesson: String,
        /// Its exercise.
        exercise: String,
        /// Its name.
        check: String,
    },
}

/// One instructors' comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    /// What it is about, hence whom it reaches.
    pub about: About,
    /// The comment, as the instructors wrote it (plain text; blank lines part paragraphs).
    pub text: String,
}

/// The course's comments, in the order of the file (none without one).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Comments(pub Vec<Comment>);

/// The file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    comments: Vec<Entry>,
}

/// One `[[comments]]` table as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    misconception: Option<String>,
    check: Option<String>,
    lesson: Option<String>,
    text: String,
}

impl Comment {
    /// True when the comment applies to the student of `report`.
    pub fn applies(&self, report: &Report) -> bool {
        let checks = report
            .lessons
            .iter()
            .flat_map(|l| l.exercises.iter().map(move |e| (l, e)))
            .flat_map(|(l, e)| e.checks.iter().map(move |c| (l, e, c)));
        match &self.about {
            About::Misconception { id, .. } => checks
                .into_iter()
                .any(|(_, _, c)| c.diagnosis.as_ref().is_some_and(|d| &d.id == id)),
            About::Check {
                lesson,
                exercise,
                check,
            } => checks.into_iter().any(|(l, e, c)| {
                &l.id == lesson
                    && &e.name == exercise
                    && &c.name == check
                    && !matches!(
                        c.status,
                        Status::Passed | Status::NotStarted | Status::CompileError
                    )
            }),
        }
    }

    /// What it is about, in words: `the misconception “Title” (id)`, `the check lesson02 /
    /// split_heads / values`.
    pub fn label(&self) -> String {
        match &self.about {
            About::Misconception { id, title } => format!("the misconception “{title}” ({id})"),
            About::Check {
                lesson,
                exercise,
                check,
            } => format!("the check {lesson} / {exercise} / {check}"),
        }
    }
}

impl Comments {
    /// The comments of the course at `root` (none when it has no [`FILE`]), each key checked
    /// against `course`.
    pub fn load(root: &Path, course: &Course) -> Result<Comments> {
        let path = root.join(FILE);
        if !path.exists() {
            return Ok(Comments::default());
        }
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        Comments::parse(&text, course)
    }

    /// The comments written in `text` (a [`FILE`]), each key checked against `course`: a
    /// comment names exactly one of `misconception` or `check` (with `lesson` when two lessons
    /// have a check of that name), one the course has, and some text.
    pub fn parse(text: &str, course: &Course) -> Result<Comments> {
        let file: File = toml::from_str(text).map_err(|e| {
            anyhow::anyhow!(
                "{FILE} is not a comments file: {}\n  help: write each comment as a \
                 `[[comments]]` table with `misconception = \"ID\"` or `check = \"NAME\"`, \
                 and `text`",
                e.to_string().trim_end()
            )
        })?;
        let mut out = Vec::new();
        for (n, entry) in file.comments.into_iter().enumerate() {
            let at = |needle: &str| {
                crate::course::line_of(text, None, needle, 1).map_or_else(
                    || format!("{FILE}, comment {}", n + 1),
                    |l| format!("{FILE}:{l}"),
                )
            };
            if entry.text.trim().is_empty() {
                bail!(
                    "{}: the comment has no text\n  help: write it in `text = \"...\"`",
                    at(&format!(
                        "\"{}\"",
                        entry.check.or(entry.misconception).unwrap_or_default()
                    ))
                );
            }
            let about = match (&entry.misconception, &entry.check) {
                (Some(id), None) if entry.lesson.is_none() => misconception(course, id, &at)?,
                (None, Some(name)) => check(course, name, entry.lesson.as_deref(), &at)?,
                _ => bail!(
                    "{FILE}, comment {}: a comment is about one misconception or one check\n  \
                     help: give it exactly one of `misconception = \"ID\"` or `check = \"NAME\"` \
                     (`lesson` goes only with `check`)",
                    n + 1
                ),
            };
            out.push(Comment {
                about,
                text: entry.text.trim().to_owned(),
            });
        }
        Ok(Comments(out))
    }

    /// The comments that apply to the student of `report`, in the order of the file.
    pub fn applying(&self, report: &Report) -> Vec<&Comment> {
        self.0.iter().filter(|c| c.applies(report)).collect()
    }
}

/// The misconception `id` of `course`, or an error at `at` naming the closest id.
fn misconception(course: &Course, id: &str, at: &dyn Fn(&str) -> String) -> Result<About> {
    let all = course.lessons.iter().flat_map(|l| &l.misconceptions);
    if let Some(m) = all.clone().find(|m| m.id == id) {
        return Ok(About::Misconception {
            id: m.id.clone(),
            title: m.title.clone(),
        });
    }
    let close = crate::course::suggest::did_you_mean(id, all.map(|m| m.id.as_str()));
    bail!(
        "{}: no misconception of course.toml has the id `{id}`: no student would get this \
         comment\n  help: {}",
        at(&format!("\"{id}\"")),
        match close {
            Some(c) => format!("did you mean `{c}`?"),
            None => "the ids are the `id` of each `[[lessons.misconceptions]]`".to_owned(),
        }
    )
}

/// The check `name` of `course` (in `lesson`, when given), or an error at `at`.
fn check(
    course: &Course,
    name: &str,
    lesson: Option<&str>,
    at: &dyn Fn(&str) -> String,
) -> Result<About> {
    let all: Vec<(&str, &str, &str)> = course
        .lessons
        .iter()
        .filter(|l| lesson.is_none_or(|id| l.id == id))
        .flat_map(|l| l.exercises.iter().map(move |e| (l, e)))
        .flat_map(|(l, e)| {
            e.checks
                .iter()
                .map(move |c| (l.id.as_str(), e.name.as_str(), c.name.as_str()))
        })
        .collect();
    let found: Vec<_> = all.iter().filter(|(_, _, c)| *c == name).collect();
    match found.as_slice() {
        [(l, e, c)] => Ok(About::Check {
            lesson: (*l).to_owned(),
            exercise: (*e).to_owned(),
            check: (*c).to_owned(),
        }),
        [] => {
            let close = crate::course::suggest::did_you_mean(name, all.iter().map(|t| t.2));
            let within = lesson.map_or(String::new(), |l| format!(" in the lesson `{l}`"));
            bail!(
                "{}: course.toml has no check `{name}`{within}: no student would get this \
                 comment\n  help: {}",
                at(&format!("\"{name}\"")),
                match close {
                    Some(c) => format!("did you mean `{c}`?"),
                    None => "give a check's `name` as course.toml lists it (and `lesson = \
                             \"lessonNN\"` for its lesson)"
                        .to_owned(),
                }
            )
        }
        many => bail!(
            "{}: lessons {} each have a check `{name}`\n  help: add `lesson = \"...\"` to say \
             which",
            at(&format!("\"{name}\"")),
            many.iter().map(|t| t.0).collect::<Vec<_>>().join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::verdict::Status::{CompileError, NotStarted, Passed, Wrong};
    use crate::official::regrade::tests::report;
    use crate::report::Diagnosis;

    fn course() -> Course {
        toml::from_str(
            r#"
            [course]
            title = "T"
            [[lessons]]
            id = "lesson01"
            dir = "lesson01-a"
            title = "A"
            [[lessons.exercises]]
            name = "split"
            checks = [{ name = "shape", points = 2 }, { name = "values", points = 2 }]
            [[lessons.misconceptions]]
            id = "no-transpose"
            exercise = "split"
            title = "Split without a transpose"
            explanation = "x"
            checks = ["values"]
            "#,
        )
        .unwrap()
    }

    /// The report of a student whose `values` check has `status`, diagnosed `no-transpose`
    /// when `diagnosed`.
    fn student(status: crate::judge::verdict::Status, diagnosed: bool) -> Report {
        let mut r = report(&[("shape", Passed), ("values", status)]);
        if diagnosed {
            r.lessons[0].exercises[0].checks[1].diagnosis = Some(Diagnosis {
                id: "no-transpose".into(),
                title: "Split without a transpose".into(),
                explanation: "x".into(),
            });
        }
        r
    }

    #[test]
    fn a_comment_reaches_exactly_the_students_it_is_about() {
        let comments = Comments::parse(
            "[[comments]]\nmisconception = \"no-transpose\"\ntext = \"See lecture 3.\"\n\n\
             [[comments]]\ncheck = \"values\"\ntext = \"\"\"\nCompare with the example.\n\"\"\"\n",
            &course(),
        )
        .unwrap();
        assert_eq!(comments.0.len(), 2);
        assert_eq!(comments.0[1].text, "Compare with the example.");
        let class = [
            ("diagnosed", student(Wrong, true)),
            ("wrong", student(Wrong, false)),
            ("passed", student(Passed, false)),
            ("not-started", student(NotStarted, false)),
            ("broken", student(CompileError, false)),
        ];
        let reached = |c: &Comment| -> Vec<&str> {
            class
                .iter()
                .filter(|(_, r)| c.applies(r))
                .map(|(id, _)| *id)
                .collect()
        };
        assert_eq!(reached(&comments.0[0]), ["diagnosed"]);
        assert_eq!(reached(&comments.0[1]), ["diagnosed", "wrong"]);
        assert_eq!(comments.applying(&class[0].1).len(), 2);
        assert!(comments.applying(&class[2].1).is_empty());
        assert_eq!(
            comments.0[0].label(),
            "the misconception “Split without a transpose” (no-transpose)"
        );
        assert_eq!(comments.0[1].label(), "the check lesson01 / split / values");
    }

    #[test]
    fn a_key_the_course_does_not_have_is_refused_with_its_line() {
        let course = course();
        let refused = |text: &str| format!("{:#}", Comments::parse(text, &course).unwrap_err());
        let e = refused("\n[[comments]]\nmisconception = \"no-transpse\"\ntext = \"x\"\n");
        assert!(e.starts_with("comments.toml:3: no misconception"), "{e}");
        assert!(e.contains("did you mean `no-transpose`?"), "{e}");
        let e = refused("[[comments]]\ncheck = \"valuse\"\ntext = \"x\"\n");
        assert!(
            e.contains("comments.toml:2: course.toml has no check `valuse`"),
            "{e}"
        );
        assert!(e.contains("did you mean `values`?"), "{e}");
        let e = refused("[[comments]]\ncheck = \"values\"\nlesson = \"lesson02\"\ntext = \"x\"\n");
        assert!(
            e.contains("no check `values` in the lesson `lesson02`"),
            "{e}"
        );
        let e = refused(
            "[[comments]]\ncheck = \"values\"\nmisconception = \"no-transpose\"\ntext = \"x\"\n",
        );
        assert!(e.contains("exactly one of"), "{e}");
        let e = refused("[[comments]]\ncheck = \"values\"\ntext = \"  \"\n");
        assert!(e.contains("has no text"), "{e}");
        let e = refused("[[comments]]\ncheck = \"values\"\ntxt = \"x\"\n");
        assert!(e.contains("is not a comments file"), "{e}");
        assert_eq!(Comments::parse("", &course).unwrap(), Comments::default());
    }
}
