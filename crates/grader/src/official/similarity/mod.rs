//! Code similarity across a class (`cargo xtask similarity DIR`, and `similarity.csv` beside a
//! class's reports), MOSS-style: each unit of code becomes a stream of token classes
//! ([`normalize`]), fingerprinted by winnowing ([`winnow`]); the handout's code, code much of the
//! class has and units too short never count; every pair sharing the rest is scored ([`pairs`]).
//! A pair is a lead for a person to read both submissions, never a verdict.

mod class;
mod normalize;
mod pairs;
mod winnow;

pub use pairs::Pair;

use crate::course::Course;
use crate::course::suggest::{Kind, unknown};
use anyhow::{Context as _, Result, anyhow, bail};
use std::path::Path;

/// The score from which a pair is reported by default. Copies disguised by renaming and
/// reformatting score near 1, independent correct answers to the course's lessons below 0.2.
pub const DEFAULT_THRESHOLD: f64 = 0.5;

/// What to compare and what to report.
#[derive(Debug, Clone)]
pub struct Options {
    /// Pairs scoring at least this are reported.
    pub threshold: f64,
    units: Vec<class::Unit>,
}

impl Options {
    /// Compare the units `only` names (exercises, lessons for all of theirs, `<lesson>:other`),
    /// or every unit of the course; report pairs from `threshold`. Errors on an unknown name.
    pub fn new(course: &Course, threshold: f64, only: Option<&[String]>) -> Result<Self> {
        let all: Vec<class::Unit> = course
            .lessons
            .iter()
            .enumerate()
            .flat_map(|(i, l)| class::lesson_units(i, l))
            .collect();
        let Some(only) = only else {
            return Ok(Options {
                threshold,
                units: all,
            });
        };
        let mut keep = vec![false; all.len()];
        for name in only {
            let (lesson, other) = match name.strip_suffix(":other") {
                Some(l) => (l, true),
                None => (name.as_str(), false),
            };
            let chosen: Vec<bool> = if let Some(l) = course.find_lesson(lesson) {
                all.iter()
                    .map(|u| {
                        course.lessons[u.lesson].id == l.id && (!other || u.exercise.is_none())
                    })
                    .collect()
            } else if let (Some((l, e)), false) = (course.find_exercise(name), other) {
                all.iter()
                    .map(|u| u.name == e.name && course.lessons[u.lesson].id == l.id)
                    .collect()
            } else {
                return Err(anyhow!(unknown(course, Kind::LessonOrExercise, name)));
            };
            keep.iter_mut().zip(chosen).for_each(|(k, c)| *k |= c);
        }
        let units = all
            .into_iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|(u, _)| u)
            .collect();
        Ok(Options { threshold, units })
    }
}

/// The pairs of the class in the submissions folder `dir` (entries as `grade --submissions`
/// reads them; one that cannot be opened is named on standard error and left out), highest
/// score first.
pub fn for_class(root: &Path, course: &Course, dir: &Path, opts: &Options) -> Result<Vec<Pair>> {
    let handout = class::handout(root, course, &opts.units)?;
    let prints = class::read(course, dir, &opts.units)?;
    let names: Vec<String> = opts.units.iter().map(|u| u.name.clone()).collect();
    let per_unit: Vec<&[u64]> = opts.units.iter().map(|u| handout.of(u)).collect();
    Ok(pairs::pairs(prints, &names, &per_unit, opts.threshold))
}

/// `similarity.csv`: `a,b,score,exercises`, the score with two decimals, the units `;`-separated.
/// Ids are the student's text: escaped and cut ([`crate::report::student_text::message`]) and kept from
/// reading as a formula.
pub fn csv(pairs: &[Pair]) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["a", "b", "score", "exercises"])?;
    for p in pairs {
        let id = |s: &str| {
            crate::official::gradebook::inert_cell(&crate::report::student_text::message(s))
        };
        w.write_record([
            id(&p.a),
            id(&p.b),
            format!("{:.2}", p.score),
            p.exercises.join(";"),
        ])?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// The pairs a class run wrote beside its reports (`dir/similarity.csv`, as [`csv`] writes it),
/// for the class page written again from the reports; none when the file is absent.
pub fn read_csv(dir: &Path) -> Result<Vec<Pair>> {
    let path = dir.join("similarity.csv");
    if !path.is_file() {
        return Ok(Vec::new());
    }
    let mut reader =
        csv::Reader::from_path(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut pairs = Vec::new();
    for record in reader.records() {
        let record =
            record.with_context(|| format!("{} is not a similarity CSV", path.display()))?;
        let (Some(a), Some(b), Some(score), Some(exercises)) =
            (record.get(0), record.get(1), record.get(2), record.get(3))
        else {
            bail!("{}: every row needs a,b,score,exercises", path.display());
        };
        pairs.push(Pair {
            a: a.to_owned(),
            b: b.to_owned(),
            score: score
                .parse()
                .with_context(|| format!("{}: score `{score}`", path.display()))?,
            exercises: exercises
                .split(';')
                .filter(|e| !e.is_empty())
                .map(str::to_owned)
                .collect(),
        });
    }
    Ok(pairs)
}

/// `cargo xtask similarity DIR`: the pairs' CSV to `output` (else standard output), and a line
/// saying how many pairs were found.
pub fn run(
    root: &Path,
    course: &Course,
    dir: &Path,
    opts: &Options,
    output: Option<&Path>,
) -> Result<()> {
    let pairs = for_class(root, course, dir, opts)?;
    let text = csv(&pairs)?;
    let found = format!("{} pair(s) at or above {}", pairs.len(), opts.threshold);
    match output {
        Some(path) => {
            crate::fsutil::write(path, &text)?;
            println!("{found}: written to {}", path.display());
        }
        None => {
            print!("{text}");
            eprintln!("{found}");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_escaped_and_never_read_as_formulas() {
        let pairs = [Pair {
            a: "=cmd|' /C calc'!A0".into(),
            b: "eve\x1b[2J\u{202e}\n".into(),
            score: 0.876,
            exercises: vec!["split_heads".into(), "lesson02:other".into()],
        }];
        let text = csv(&pairs).unwrap();
        assert_eq!(
            text,
            "a,b,score,exercises\n'=cmd|' /C calc'!A0,eve\\u{1b}[2J\\u{202e}\\n,0.88,\
             split_heads;lesson02:other\n"
        );
    }

    #[test]
    fn units_are_chosen_by_exercise_lesson_or_other_code_and_unknown_names_refused() {
        let course = crate::course::fixture();
        let names = |only: &[&str]| {
            let only: Vec<String> = only.iter().map(|s| s.to_string()).collect();
            let opts = Options::new(&course, 0.5, Some(&only)).unwrap();
            opts.units.into_iter().map(|u| u.name).collect::<Vec<_>>()
        };
        let first = &course.lessons[0];
        let all = Options::new(&course, 0.5, None).unwrap().units.len();
        let expected: usize = course.lessons.iter().map(|l| l.exercises.len() + 1).sum();
        assert_eq!(all, expected);
        let e = &first.exercises[0].name;
        assert_eq!(names(&[e]), std::slice::from_ref(e));
        assert_eq!(
            names(&[&format!("{}:other", first.id)]),
            [format!("{}:other", first.id)]
        );
        assert_eq!(names(&[&first.id]).len(), first.exercises.len() + 1);
        let wrong = Options::new(&course, 0.5, Some(&["nope_nope".to_owned()])).unwrap_err();
        assert!(
            wrong
                .to_string()
                .starts_with("no lesson or exercise named `nope_nope`")
        );
    }
}
