//! `cargo xtask class-page RDIR --merge SHARD_RDIR,...`: the report folders of a class graded in
//! parts (`grade --submissions --shard K/N`) put back together into `RDIR`, as one run of the
//! whole class would have written it: the reports, the record, the pages, the gradebook and,
//! given the class folder, the similarity over the whole class. Nothing is graded. Parts that
//! do not make one class (a part missing or twice, another roster or lessons, a student in two
//! parts) are refused (exit 2): a merged gradebook must never lack a student silently.

use crate::course::Course;
use crate::official::class_record::{self, Record};
use crate::official::class_run::Batch;
use crate::official::shard::Shard;
use anyhow::{Context as _, Result, bail};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A class put back together from its parts.
#[derive(Debug)]
pub struct Merged {
    /// The whole class, as one run would have graded it.
    pub batch: Batch,
    /// Per row of `batch`, the folder of the part it comes from.
    pub sources: Vec<PathBuf>,
}

/// The part each record of `parts` (folder and record) grades, refused unless they are parts
/// 1 to N of N, each once.
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

/// The class in the parts' report folders `dirs`.
pub fn merge(dirs: &[PathBuf]) -> Result<Merged> {
    let parts: Vec<(PathBuf, Record)> = dirs
        .iter()
        .map(|d| Ok((d.clone(), Record::read(d)?)))
        .collect::<Result<_>>()?;
    if parts.is_empty() {
        bail!("no reports folder to merge");
    }
    check_parts(&parts)?;
    let (first_dir, first) = &parts[0];
    let mut rows = Vec::new();
    for (dir, record) in &parts {
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
        for row in class_record::rows(dir, record)? {
            rows.push((row, dir.clone()));
        }
    }
    rows.sort_by(|a, b| a.0.id.cmp(&b.0.id));
    if let Some(pair) = rows.windows(2).find(|p| p[0].0.id == p[1].0.id) {
        bail!(
            "the student `{}` is in {} and in {}: the parts of a class do not overlap",
            crate::report::student_text::name(&pair[0].0.id),
            pair[0].1.display(),
            pair[1].1.display()
        );
    }
    if let Some((a, b)) = crate::official::report_name::clash(rows.iter().map(|r| r.0.id.as_str()))
    {
        bail!(
            "the students `{}` and `{}` would write their reports to one file: they cannot be \
             merged into one folder",
            crate::report::student_text::name(&rows[a].0.id),
            crate::report::student_text::name(&rows[b].0.id)
        );
    }
    let (rows, sources) = rows.into_iter().unzip();
    Ok(Merged {
        batch: Batch {
            lessons: first.lessons.clone(),
            roster: first.roster(),
            rows,
            first_seconds: 0.0,
            total_seconds: 0.0,
            parallel: 1,
            builds: (0, 0),
        },
        sources,
    })
}

/// The class page's rows of the reports folder `dir`: from its [`class_record::FILE`] when it
/// has one (every row, students missing or not graded too, and no report file the run did not
/// write), else from its reports.
pub fn class_rows(dir: &Path) -> Result<Vec<crate::official::pages::ClassRow>> {
    if !dir.join(class_record::FILE).is_file() {
        return crate::official::pages::class_of(dir);
    }
    let batch = class_record::load(dir)?;
    Ok(batch
        .rows
        .iter()
        .map(crate::official::class::class_row)
        .collect())
}

/// What to write besides the reports and the pages.
#[derive(Debug, Clone, Default)]
pub struct Outputs {
    /// The class folder, for `similarity.csv` over the whole class.
    pub submissions: Option<PathBuf>,
    /// Where to write the gradebook, and its layout.
    pub gradebook: Option<(PathBuf, crate::official::gradebook::Format)>,
}

/// Merges the parts in `dirs` into `out`: the reports (copied as written), the record of the
/// whole class, `similarity.csv` when the class folder is given, the pages (with the
/// instructors' `comments`), and the gradebook when asked.
pub fn run(
    root: &Path,
    course: &Course,
    out: &Path,
    dirs: &[PathBuf],
    outputs: &Outputs,
    comments: crate::official::comments::Comments,
) -> Result<()> {
    if let Some(dir) = dirs.iter().find(|d| same_folder(d, out)) {
        bail!(
            "{} is both a part and where the merged class goes\n  help: merge into a new folder",
            dir.display()
        );
    }
    let merged = merge(dirs)?;
    if let Some((_, format)) = &outputs.gradebook {
        crate::official::gradebook::check(*format, merged.batch.roster.as_ref())?;
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    for (row, dir) in merged.batch.rows.iter().zip(&merged.sources) {
        if row.report.is_some() {
            let name = format!("{}.json", crate::official::report_name::stem(&row.id));
            std::fs::copy(dir.join(&name), out.join(&name))
                .with_context(|| format!("cannot copy {name} into {}", out.display()))?;
        }
    }
    class_record::write_record(out, &merged.batch, None)?;
    let pairs = match &outputs.submissions {
        Some(class) => {
            let only = lesson_ids(course, &merged.batch);
            let opts = crate::official::similarity::Options::new(
                course,
                crate::official::similarity::DEFAULT_THRESHOLD,
                only.as_deref(),
            )?;
            let pairs =
                crate::official::class::similar_pairs(&merged.batch, root, course, class, &opts)?;
            let path = out.join("similarity.csv");
            crate::fsutil::write(&path, &crate::official::similarity::csv(&pairs)?)?;
            println!(
                "{} pair(s) of similar code written to {}",
                pairs.len(),
                path.display()
            );
            pairs
        }
        None => {
            eprintln!(
                "note: no similarity.csv: give --submissions DIR (the class folder) to compare \
                 the whole class's code"
            );
            Vec::new()
        }
    };
    let rows: Vec<_> = merged
        .batch
        .rows
        .iter()
        .map(crate::official::class::class_row)
        .collect();
    let extras = crate::official::pages::Extras {
        comments,
        ..Default::default()
    };
    let pages = crate::official::pages::write_with(out, &rows, &pairs, &extras)?;
    println!(
        "merged {} part(s): {} student(s), {pages} page(s) and the class page in {}",
        dirs.len(),
        merged.batch.rows.len(),
        out.display()
    );
    if let Some((path, format)) = &outputs.gradebook {
        crate::fsutil::write(
            path,
            &crate::official::gradebook::render(&merged.batch, *format)?,
        )?;
        println!("gradebook written to {}", path.display());
    }
    Ok(())
}

/// The graded lessons as similarity's selection: `None` for the whole course.
fn lesson_ids(course: &Course, batch: &Batch) -> Option<Vec<String>> {
    (batch.lessons.len() != course.lessons.len())
        .then(|| batch.lessons.iter().map(|(id, _)| id.clone()).collect())
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
    use crate::official::class_run::Row;
    use crate::official::gradebook::{Format, render};
    use crate::official::regrade::tests::report;
    use crate::official::roster::{Enrolment, Roster};

    /// A class with a roster: graded students (one not on the roster, one whose entry has
    /// another name), one whose submission could not be graded and one who handed nothing in.
    fn class() -> Batch {
        let roster = Roster::parse(
            Path::new("roster.csv"),
            b"id,name,email,submission\nalice,Alice A,alice@x.org,\nbob,\"Bob, B\",bob@x.org,\
              bob-final.zip\ncarol,Carol,carol@x.org,\ndan,Dan,dan@x.org,\nerin,Erin,erin@x.org,\n",
        )
        .unwrap();
        let listed = Enrolment::Listed;
        let rows: Vec<Row> = vec![
            // A hostile archive name, not on the roster, that could not be graded.
            Row {
                enrolment: Enrolment::NotListed,
                ..failed(HOSTILE, "bad archive \u{1b}[2J\nnext line %41", 4)
            },
            reported(
                "alice",
                listed(0),
                "alice.zip",
                report(&[("a", Passed), ("b", Wrong)]),
            ),
            reported(
                "bob",
                listed(1),
                "bob-final.zip",
                report(&[("a", Passed), ("b", Passed)]),
            ),
            Row {
                enrolment: listed(2),
                ..failed("carol", "not a course: no exercises/ folder", 4)
            },
            missing("dan", 3, 4),
            reported(
                "erin",
                listed(4),
                "erin",
                report(&[("a", Wrong), ("b", Wrong)]),
            ),
            reported(
                "zed",
                Enrolment::NotListed,
                "zed.tgz",
                report(&[("a", Passed), ("b", Wrong)]),
            ),
        ];
        batch(&[("lesson01", 4)], rows, Some(roster))
    }

    /// An id with an escape, a C1 control, a reordering character and what looks like an
    /// encoded byte.
    const HOSTILE: &str = "=x\u{1b}[2J%41\u{9b}\u{202e}";

    /// Writes part `shard` of `class` into `dir` as a sharded class run does.
    fn write_part(class: &Batch, shard: Shard, dir: &Path) {
        let part = batch(
            &[("lesson01", 4)],
            shard.select(class.rows.clone()),
            class.roster.clone(),
        );
        class_record::write(dir, &part, Some(shard)).unwrap();
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
            let merged = merge(&reversed).unwrap();
            let ids = |b: &Batch| b.rows.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
            assert_eq!(ids(&merged.batch), ids(&class), "{n} parts");
            for format in [Format::Csv, Format::Canvas, Format::Moodle] {
                assert_eq!(
                    render(&merged.batch, format).unwrap(),
                    render(&class, format).unwrap(),
                    "{format:?}, {n} parts"
                );
            }
        }
        // The record shows nothing a terminal would act on.
        let record = std::fs::read(tmp.path().join("4-1").join(class_record::FILE)).unwrap();
        let text = String::from_utf8(record).unwrap();
        assert!(text.contains("%1B[2J%2541%C2%9B%E2%80%AE"), "{text}");
        assert!(
            !text
                .chars()
                .any(|c| c.is_control() && c != '\n' || c == '\u{202e}')
        );
        // The plain gradebook holds every kind of row the merge had to rebuild.
        let csv = render(&class, Format::Csv).unwrap();
        for cell in [",not_in_roster,", ",missing,", ",error,", "bob-final.zip"] {
            assert!(csv.contains(cell), "{cell} in\n{csv}");
        }
    }

    #[test]
    fn a_whole_class_read_back_from_its_folder_writes_the_same_gradebook() {
        let class = class();
        let tmp = tempfile::tempdir().unwrap();
        class_record::write(tmp.path(), &class, None).unwrap();
        let again = class_record::load(tmp.path()).unwrap();
        for format in [Format::Csv, Format::Canvas, Format::Moodle] {
            assert_eq!(
                render(&again, format).unwrap(),
                render(&class, format).unwrap()
            );
        }
    }

    #[test]
    fn the_class_page_reads_every_row_from_the_record_and_only_reports_without_one() {
        use crate::official::pages::Standing;
        let tmp = tempfile::tempdir().unwrap();
        class_record::write(tmp.path(), &class(), None).unwrap();
        // A report the run did not write (left from an earlier run) is not the class's.
        let stale = report(&[("a", Passed), ("b", Passed)]);
        std::fs::write(tmp.path().join("old-student.json"), stale.to_json()).unwrap();
        let kinds = |rows: Vec<crate::official::pages::ClassRow>| -> Vec<(String, &'static str)> {
            rows.into_iter()
                .map(|r| {
                    let kind = match r.standing {
                        Standing::Graded(_) => "graded",
                        Standing::NotGraded(_) => "not graded",
                        Standing::Missing => "missing",
                    };
                    (r.id, kind)
                })
                .collect()
        };
        let all = kinds(class_rows(tmp.path()).unwrap());
        let want = [
            (HOSTILE, "not graded"),
            ("alice", "graded"),
            ("bob", "graded"),
            ("carol", "not graded"),
            ("dan", "missing"),
            ("erin", "graded"),
            ("zed", "graded"),
        ];
        assert_eq!(all, want.map(|(i, k)| (i.to_owned(), k)));
        std::fs::remove_file(tmp.path().join(class_record::FILE)).unwrap();
        let reports = kinds(class_rows(tmp.path()).unwrap());
        assert_eq!(reports.len(), 5, "{reports:?}");
        assert!(reports.iter().all(|(_, k)| *k == "graded"));
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
        class_record::write(&dir("whole"), &class, None).unwrap();
        let refused = |names: &[&str]| {
            let dirs: Vec<PathBuf> = names.iter().map(|n| dir(n)).collect();
            format!("{:#}", merge(&dirs).unwrap_err())
        };
        assert!(refused(&["a", "b"]).contains("part(s) 3/3 of the class are missing"));
        assert!(refused(&["a", "b", "b2", "c"]).contains("two folders hold part 2/3"));
        assert!(refused(&["a", "other-n"]).contains("the parts of one class have the same N"));
        assert!(refused(&["whole"]).contains("holds a whole class, not a part"));
        assert!(refused(&["a", "nowhere"]).contains("cannot read"));
        // A part's report gone: refused, not a student silently without a grade.
        let gone = dir("c").join("zed.json");
        std::fs::remove_file(gone).unwrap();
        assert!(refused(&["a", "b", "c"]).contains("the report of `zed`"));
        assert!(merge(&[dir("a"), dir("b2"), dir("b")]).is_err());
    }
}
