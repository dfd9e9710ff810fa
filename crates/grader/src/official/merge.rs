//! `cargo xtask class-page RDIR --merge SHARD_RDIR,...`: the reports folders of a class graded in
//! parts (`grade --submissions --shard K/N`) put back together into `RDIR`, as one run of the
//! whole class would have written it: the reports and the class run's record
//! ([`crate::official::stored`]), and, given the class folder, the similarity over the whole
//! class. Nothing is graded; `class-page` then writes the pages and `gradebook RDIR` the
//! gradebook. Parts that do not make one class (a part missing or twice, another N, roster or
//! lessons, a student in two parts) are refused (exit 2): a merged gradebook must never lack a
//! student silently.

use crate::course::Course;
use crate::official::shard::Shard;
use crate::official::stored::{self, RECORD, Record};
use anyhow::{Context as _, Result, bail};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Refuses `parts` (folder and record) unless they are parts 1 to N of N, each once.
fn check_parts(parts: &[(PathBuf, Record)]) -> Result<()> {
    let mut shards = Vec::new();
    for (dir, record) in parts {
        let Some(text) = &record.shard else {
            bail!(
                "{} holds a whole class, not a part of one: nothing to merge\n  help: merge the \
                 folders of `grade --submissions DIR --shard K/N --reports RDIR`",
                dir.display()
            );
        };
        shards.push((Shard::parse(text)?, dir));
    }
    let n = shards.first().map_or(0, |(s, _)| s.n);
    let mut seen = BTreeSet::new();
    for (s, dir) in &shards {
        if s.n != n {
            bail!(
                "{} holds part {s}, and {} part {}: the parts of one class have the same N",
                dir.display(),
                shards[0].1.display(),
                shards[0].0
            );
        }
        if !seen.insert(s.k) {
            bail!(
                "two folders hold part {s}: {} is one of them",
                dir.display()
            );
        }
    }
    let missing: Vec<String> = (1..=n)
        .filter(|k| !seen.contains(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        bail!(
            "part(s) {} of the class are missing: a merged class would lack their students\n  \
             help: give every part's reports folder",
            missing.join(", ")
        );
    }
    Ok(())
}

/// The record of the whole class whose parts' records are `parts`, with, per student, the folder
/// of the part that graded them.
pub fn merge_records(parts: &[(PathBuf, Record)]) -> Result<(Record, Vec<PathBuf>)> {
    let Some((first_dir, first)) = parts.first() else {
        bail!("no reports folder to merge");
    };
    check_parts(parts)?;
    let mut students = Vec::new();
    for (dir, record) in parts {
        let differs = if record.lessons != first.lessons {
            Some("lessons")
        } else if record.roster != first.roster {
            Some("roster")
        } else {
            None
        };
        if let Some(what) = differs {
            bail!(
                "{} and {} were graded with other {what}: they are not parts of one class run",
                first_dir.display(),
                dir.display()
            );
        }
        students.extend(record.students.iter().map(|s| (s.clone(), dir.clone())));
    }
    students.sort_by(|a, b| a.0.id.cmp(&b.0.id));
    if let Some(pair) = students.windows(2).find(|p| p[0].0.id == p[1].0.id) {
        bail!(
            "the student `{}` is in {} and in {}: the parts of a class do not overlap",
            crate::report::student_text::name(&pair[0].0.id),
            pair[0].1.display(),
            pair[1].1.display()
        );
    }
    let ids = students.iter().map(|s| s.0.id.as_str());
    if let Some((a, b)) = crate::official::report_name::clash(ids) {
        bail!(
            "the students `{}` and `{}` would write their reports to one file: they cannot be \
             merged into one folder",
            crate::report::student_text::name(&students[a].0.id),
            crate::report::student_text::name(&students[b].0.id)
        );
    }
    let (students, sources) = students.into_iter().unzip();
    let record = Record {
        students,
        shard: None,
        ..first.clone()
    };
    Ok((record, sources))
}

/// Merges the parts in `dirs` into `out`: every graded student's report, copied as written, and
/// the record of the whole class; with the `class` folder, `similarity.csv` over the whole class.
pub fn run(
    root: &Path,
    course: &Course,
    out: &Path,
    dirs: &[PathBuf],
    class: Option<&Path>,
) -> Result<()> {
    if let Some(dir) = dirs.iter().find(|d| same_folder(d, out)) {
        bail!(
            "{} is both a part and where the merged class goes\n  help: merge into a new folder",
            dir.display()
        );
    }
    let mut parts = Vec::new();
    for dir in dirs {
        let Some(record) = stored::read_record(dir)? else {
            bail!(
                "{} holds no {RECORD}: it is not the reports folder of a class run's part",
                dir.display()
            );
        };
        parts.push((dir.clone(), record));
    }
    let (record, sources) = merge_records(&parts)?;
    // Every report is looked for before anything is written: a part missing one leaves no half
    // merged folder behind.
    let reports: Vec<(PathBuf, String)> = record
        .students
        .iter()
        .zip(&sources)
        .filter(|(s, _)| s.submission.is_some() && s.error.is_none())
        .map(|(s, dir)| {
            let name = format!("{}.json", crate::official::report_name::stem(&s.id));
            (dir.join(&name), name)
        })
        .collect();
    if let Some((path, _)) = reports.iter().find(|(path, _)| !path.is_file()) {
        bail!(
            "{} is missing: its part's record lists the student as graded\n  help: grade that \
             part again, or copy its reports folder whole; nothing was merged",
            path.display()
        );
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    for (path, name) in &reports {
        std::fs::copy(path, out.join(name))
            .with_context(|| format!("cannot copy {} into {}", path.display(), out.display()))?;
    }
    let text = serde_json::to_string_pretty(&record)?;
    crate::fsutil::write(&out.join(RECORD), &format!("{text}\n"))?;
    println!(
        "merged {} part(s): {} student(s) in {}",
        dirs.len(),
        record.students.len(),
        out.display()
    );
    let path = out.join("similarity.csv");
    match class {
        Some(class) => {
            let batch = stored::load(out, None)?;
            let only = (batch.lessons.len() != course.lessons.len()).then(|| {
                batch
                    .lessons
                    .iter()
                    .map(|(id, _)| id.clone())
                    .collect::<Vec<_>>()
            });
            let opts = crate::official::similarity::Options::new(
                course,
                crate::official::similarity::DEFAULT_THRESHOLD,
                only.as_deref(),
            )?;
            let pairs = crate::official::class::similar_pairs(&batch, root, course, class, &opts)?;
            crate::fsutil::write(&path, &crate::official::similarity::csv(&pairs)?)?;
            println!(
                "{} pair(s) of similar code written to {}",
                pairs.len(),
                path.display()
            );
        }
        None => eprintln!(
            "note: no {}: give --submissions DIR (the class folder) to compare the whole \
             class's code",
            path.display()
        ),
    }
    Ok(())
}

/// True when `a` and `b` name one folder.
fn same_folder(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::verdict::Status::{Passed, Wrong};
    use crate::official::class::fixture::{batch, failed, missing, reported};
    use crate::official::class_run::{Batch, Row};
    use crate::official::gradebook::{Format, Missing, Options, render};
    use crate::official::regrade::tests::report;
    use crate::official::roster::{Enrolment, Roster};

    /// The class's roster.
    fn roster() -> Roster {
        Roster::parse(
            Path::new("roster.csv"),
            b"id,name,email,submission\nalice,Alice A,alice@x.org,\nbob,\"Bob, B\",bob@x.org,\
              bob-final.zip\ncarol,Carol,carol@x.org,\ndan,Dan,dan@x.org,\nerin,Erin,erin@x.org,\n",
        )
        .unwrap()
    }

    /// A class with a roster: graded students (one not on the roster, one whose entry has
    /// another name), one whose submission could not be graded and one who handed nothing in.
    fn class() -> Batch {
        let listed = Enrolment::Listed;
        let graded = |id: &str, s, entry: &str, b| {
            reported(id, s, entry, report(&[("a", Passed), ("b", b)]))
        };
        let rows: Vec<Row> = vec![
            graded("alice", listed(0), "alice.zip", Wrong),
            graded("bob", listed(1), "bob-final.zip", Passed),
            Row {
                enrolment: listed(2),
                ..failed("carol", "not a course: no exercises/ folder", 4)
            },
            missing("dan", 3, 4),
            graded("erin", listed(4), "erin", Wrong),
            graded("zed", Enrolment::NotListed, "zed.tgz", Wrong),
        ];
        batch(&[("lesson01", 4)], rows, Some(roster()))
    }

    /// Writes part `shard` of `class` into `dir` as a sharded class run does.
    fn write_part(class: &Batch, shard: Shard, dir: &Path) {
        let part = batch(
            &[("lesson01", 4)],
            shard.select(class.rows.clone()),
            class.roster.clone(),
        );
        stored::write(dir, &part, Some(Path::new("roster.csv")), Some(shard)).unwrap();
    }

    /// Merges the folders `dirs` into `out` as `class-page --merge` does.
    fn merge_into(dirs: &[PathBuf], out: &Path) -> Result<()> {
        let course: Course = toml::from_str("[course]\ntitle = \"T\"\n").unwrap();
        run(Path::new("."), &course, out, dirs, None)
    }

    #[test]
    fn shards_partition_the_class_and_merge_to_its_gradebook_byte_for_byte() {
        let class = class();
        let tmp = tempfile::tempdir().unwrap();
        for n in 1..=4 {
            let dirs: Vec<PathBuf> = (1..=n)
                .map(|k| tmp.path().join(format!("{n}-{k}")))
                .collect();
            for (k, dir) in (1..=n).zip(&dirs) {
                write_part(&class, Shard { k, n }, dir);
            }
            // In reverse order: the merge sorts by id whatever order the folders come in.
            let reversed: Vec<PathBuf> = dirs.iter().rev().cloned().collect();
            let out = tmp.path().join(format!("{n}-merged"));
            merge_into(&reversed, &out).unwrap();
            let merged = stored::load(&out, Some(roster())).unwrap();
            let ids = |b: &Batch| b.rows.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
            assert_eq!(ids(&merged), ids(&class), "{n} parts");
            for format in [Format::Csv, Format::Canvas, Format::Moodle] {
                for missing in [Missing::Zero, Missing::Blank] {
                    let opts = Options { format, missing };
                    assert_eq!(
                        render(&merged, opts).unwrap(),
                        render(&class, opts).unwrap(),
                        "{format:?}, {missing:?}, {n} parts"
                    );
                }
            }
        }
        // The plain gradebook holds every kind of row the merge had to rebuild.
        let csv = render(&class, Options::default()).unwrap();
        for cell in [",not_in_roster,", ",missing,", ",error,", "bob-final.zip"] {
            assert!(csv.contains(cell), "{cell} in\n{csv}");
        }
    }

    #[test]
    fn parts_that_do_not_make_one_class_are_refused() {
        let class = class();
        let tmp = tempfile::tempdir().unwrap();
        let dir = |name: &str| tmp.path().join(name);
        write_part(&class, Shard { k: 1, n: 3 }, &dir("a"));
        write_part(&class, Shard { k: 2, n: 3 }, &dir("b"));
        write_part(&class, Shard { k: 2, n: 3 }, &dir("b2"));
        write_part(&class, Shard { k: 3, n: 3 }, &dir("c"));
        write_part(&class, Shard { k: 2, n: 2 }, &dir("other-n"));
        stored::write(&dir("whole"), &class, None, None).unwrap();
        let refused = |names: &[&str]| {
            let dirs: Vec<PathBuf> = names.iter().map(|n| dir(n)).collect();
            format!("{:#}", merge_into(&dirs, &dir("out")).unwrap_err())
        };
        assert!(refused(&["a", "b"]).contains("part(s) 3/3 of the class are missing"));
        assert!(refused(&["a", "b", "b2", "c"]).contains("two folders hold part 2/3"));
        assert!(refused(&["a", "other-n"]).contains("the parts of one class have the same N"));
        assert!(refused(&["whole"]).contains("holds a whole class, not a part"));
        assert!(refused(&["a", "nowhere"]).contains("holds no class-run.json"));
        assert!(!dir("out").exists(), "a refused merge wrote its folder");
        // A part's report gone: refused, not a student silently without a grade.
        std::fs::remove_file(dir("c").join("zed.json")).unwrap();
        assert!(refused(&["a", "b", "c"]).contains("zed.json"));
        assert!(
            !dir("out").exists(),
            "a merge refused for a missing report wrote its folder"
        );
    }
}
