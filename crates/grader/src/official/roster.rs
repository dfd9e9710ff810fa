//! `grade --submissions DIR --roster FILE.csv`: the class list, and which entry of `DIR` is whose.
//! A CSV file with a header: `id` names each student, an optional `submission` names their entry
//! (`bob.zip`, `bob`), every other column goes to the gradebook. A mistake in it is the
//! instructor's: it stops the run before anything is graded, naming the file and the line.

use crate::report::student_text;
use anyhow::{Context as _, Result, bail};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One student of the roster.
#[derive(Debug, Clone)]
pub struct Student {
    /// The student's id (trimmed).
    pub id: String,
    /// The entry of the submissions folder that is this student's, when the roster names it.
    pub submission: Option<String>,
    /// The other columns' cells, in the order of [`Roster::columns`].
    pub cells: Vec<String>,
    /// The student's line in the roster file.
    pub line: u64,
}

/// A class list read from a CSV file.
#[derive(Debug, Clone)]
pub struct Roster {
    /// The file it was read from.
    pub path: PathBuf,
    /// The headers of the columns other than `id` and `submission`, as written (trimmed).
    pub columns: Vec<String>,
    /// The students, in the file's order.
    pub students: Vec<Student>,
}

/// Whose row a gradebook line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enrolment {
    /// The class was graded without a roster.
    NoRoster,
    /// The roster's student at this index.
    Listed(usize),
    /// A submission whose student is not in the roster.
    NotListed,
}

/// One line of the gradebook to be: a roster's student, a submission, or both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    /// The row's id: the roster's for a listed student, else the entry's.
    pub id: String,
    /// Whose row it is.
    pub enrolment: Enrolment,
    /// The index of the submission among the entries given to [`Roster::pair`]; `None` when the
    /// student handed nothing in.
    pub entry: Option<usize>,
}

/// A column name as the roster's lookups compare it: trimmed, lower case, spaces and dashes as
/// `_` (so `SIS User ID` is `sis_user_id`).
pub fn key(header: &str) -> String {
    header
        .trim()
        .to_lowercase()
        .chars()
        .map(|c| if c == ' ' || c == '-' { '_' } else { c })
        .collect()
}

impl Roster {
    /// Reads the roster at `path` (UTF-8, with or without Excel's byte order mark).
    pub fn load(path: &Path) -> Result<Roster> {
        let bytes = std::fs::read(path)
            .with_context(|| format!("--roster: cannot read {}", path.display()))?;
        Self::parse(path, &bytes)
    }

    /// Reads a roster from `bytes`, naming `path` in its errors.
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<Roster> {
        let at = |line: u64| format!("{}:{line}", path.display());
        let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
        let mut reader = csv::ReaderBuilder::new().from_reader(bytes);
        let headers: Vec<String> = reader
            .headers()
            .with_context(|| format!("{}: not a CSV file", at(1)))?
            .iter()
            .map(|h| h.trim().to_owned())
            .collect();
        let keys: Vec<String> = headers.iter().map(|h| key(h)).collect();
        let Some(id_at) = keys.iter().position(|k| k == "id") else {
            bail!(
                "{}: the roster has no `id` column (its columns: {})\n  help: name the column of \
                 the students' ids `id`",
                at(1),
                student_text::message(&headers.join(", "))
            );
        };
        for (i, k) in keys.iter().enumerate() {
            if k.is_empty() || keys[..i].contains(k) {
                bail!(
                    "{}: the roster's column {} is {}\n  help: give each column a name of its own",
                    at(1),
                    i + 1,
                    if k.is_empty() {
                        "unnamed"
                    } else {
                        "named twice"
                    }
                );
            }
        }
        let submission_at = keys.iter().position(|k| k == "submission");
        let extra: Vec<usize> = (0..headers.len())
            .filter(|&i| i != id_at && Some(i) != submission_at)
            .collect();
        let mut students: Vec<Student> = Vec::new();
        let mut ids: HashMap<String, u64> = HashMap::new();
        let mut entries: HashMap<String, u64> = HashMap::new();
        for record in reader.records() {
            let record = record.map_err(|e| {
                let line = e.position().map_or(0, |p| p.line());
                anyhow::anyhow!("{}: {e}\n  help: fix the roster's CSV there", at(line))
            })?;
            let line = record.position().map_or(0, |p| p.line());
            let id = record.get(id_at).unwrap_or_default().trim().to_owned();
            check_id(&id).map_err(|why| {
                anyhow::anyhow!("{}: {why}\n  help: fix the student's `id` there", at(line))
            })?;
            if let Some(first) = ids.insert(id.clone(), line) {
                bail!(
                    "{}: the id `{}` appears twice (first at line {first})\n  help: give each \
                     student one line",
                    at(line),
                    student_text::name(&id)
                );
            }
            let submission = submission_at
                .and_then(|i| record.get(i))
                // `bob/` names the folder `bob`.
                .map(|s| s.trim().trim_end_matches(['/', '\\']))
                .filter(|s| !s.is_empty())
                .map(str::to_owned);
            if let Some(s) = &submission
                && let Some(first) = entries.insert(s.clone(), line)
            {
                bail!(
                    "{}: the submission `{}` is named twice (first at line {first})\n  help: one \
                     submission belongs to one student",
                    at(line),
                    student_text::name(s)
                );
            }
            let cells = extra
                .iter()
                .map(|&i| record.get(i).unwrap_or_default().trim().to_owned())
                .collect();
            students.push(Student {
                id,
                submission,
                cells,
                line,
            });
        }
        if students.is_empty() {
            bail!(
                "{}: the roster names no student\n  help: one line per student after the header",
                at(1)
            );
        }
        Ok(Roster {
            path: path.to_path_buf(),
            columns: extra.iter().map(|&i| headers[i].clone()).collect(),
            students,
        })
    }

    /// The first non-empty cell of `student` among the columns whose [`key`] is one of `keys`,
    /// in the order of `keys`.
    pub fn cell(&self, student: usize, keys: &[&str]) -> Option<&str> {
        keys.iter().find_map(|want| {
            let i = self.columns.iter().position(|c| key(c) == *want)?;
            Some(self.students[student].cells[i].as_str()).filter(|c| !c.is_empty())
        })
    }

    /// Whether the roster has a column whose [`key`] is `want`.
    pub fn has_column(&self, want: &str) -> bool {
        self.columns.iter().any(|c| key(c) == want)
    }

    /// `path:line` of `student`, for messages.
    pub fn line_of(&self, student: usize) -> String {
        format!("{}:{}", self.path.display(), self.students[student].line)
    }

    /// Pairs the roster's students with the submissions folder's entries, given as `(file name,
    /// id)`. A student whose `submission` cell names an entry gets that entry; any other student
    /// gets the entry whose id is theirs, if one is left. Entries left over are graded as
    /// [`Enrolment::NotListed`]. Refused: a student with two entries of their id, and two rows
    /// that would share an id (their reports would share a file).
    pub fn pair(&self, entries: &[(String, String)]) -> Result<Vec<Pair>> {
        let mut owner: Vec<Option<usize>> = vec![None; entries.len()];
        let mut pairs: Vec<Pair> = Vec::new();
        for (s, student) in self.students.iter().enumerate() {
            let entry = match &student.submission {
                Some(name) => entries.iter().position(|(n, _)| n == name),
                None => {
                    let mine: Vec<usize> = (0..entries.len())
                        .filter(|&e| entries[e].1 == student.id && owner[e].is_none())
                        .filter(|&e| !self.claimed(&entries[e].0))
                        .collect();
                    if let [a, b, ..] = mine[..] {
                        bail!(
                            "{}: two submissions would be `{}`'s: {} and {}: nothing was graded\n  \
                             help: add a `submission` column to the roster naming each student's \
                             file or folder",
                            self.line_of(s),
                            student_text::name(&student.id),
                            student_text::name(&entries[a].0),
                            student_text::name(&entries[b].0)
                        );
                    }
                    mine.first().copied()
                }
            };
            if let Some(e) = entry {
                owner[e] = Some(s);
            }
            pairs.push(Pair {
                id: student.id.clone(),
                enrolment: Enrolment::Listed(s),
                entry,
            });
        }
        for (e, (name, id)) in entries.iter().enumerate() {
            if owner[e].is_some() {
                continue;
            }
            if let Some(other) = pairs.iter().find(|p| p.id == *id) {
                let whose = match (other.enrolment, other.entry) {
                    (Enrolment::Listed(s), _) => format!("the roster's {}", self.line_of(s)),
                    (_, Some(o)) => student_text::name(&entries[o].0),
                    _ => String::new(),
                };
                bail!(
                    "the submission {} is not in the roster {}, and its id `{}` is already {}: \
                     nothing was graded\n  help: rename it, or give it a line in the roster (with \
                     a `submission` column naming it)",
                    student_text::name(name),
                    self.path.display(),
                    student_text::name(id),
                    whose
                );
            }
            pairs.push(Pair {
                id: id.clone(),
                enrolment: Enrolment::NotListed,
                entry: Some(e),
            });
        }
        Ok(pairs)
    }

    /// Whether a `submission` cell of the roster names the entry `name`.
    fn claimed(&self, name: &str) -> bool {
        self.students
            .iter()
            .any(|s| s.submission.as_deref() == Some(name))
    }
}

/// Why `id` cannot be a student's id: empty, a control character (it is printed and stored), or
/// a path (it names the student's report file).
fn check_id(id: &str) -> std::result::Result<(), String> {
    if id.is_empty() {
        Err("a student without an id".to_owned())
    } else if id.chars().any(student_text::hidden_effect) {
        Err(format!(
            "the id `{}` holds a control character",
            student_text::name(id)
        ))
    } else if id.contains(['/', '\\']) || id == "." || id == ".." {
        Err(format!(
            "the id `{}` is a path (it names the student's report file)",
            student_text::name(id)
        ))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Roster> {
        Roster::parse(Path::new("roster.csv"), text.as_bytes())
    }

    fn err(text: &str) -> String {
        format!("{:#}", parse(text).unwrap_err())
    }

    #[test]
    fn a_roster_keeps_its_columns_and_trims_ids() {
        let r =
            parse("\u{feff}Email, ID ,Name,submission\na@x, alice ,Alice,\nb@x,bob,Bob,bob.zip\nc@x,carl,Carl,carl/\n")
                .unwrap();
        assert_eq!(r.columns, ["Email", "Name"]);
        assert_eq!(r.students[0].id, "alice");
        assert_eq!(r.students[0].submission, None);
        assert_eq!(r.students[1].submission.as_deref(), Some("bob.zip"));
        assert_eq!(r.students[1].line, 3);
        assert_eq!(r.students[2].submission.as_deref(), Some("carl"));
        assert_eq!(r.cell(1, &["email"]), Some("b@x"));
        assert_eq!(r.cell(0, &["missing", "name"]), Some("Alice"));
    }

    #[test]
    fn roster_mistakes_name_the_file_and_line() {
        assert!(err("email,name\na@x,A\n").starts_with("roster.csv:1: the roster has no `id`"));
        assert!(err("id\nalice\n\"\"\n").starts_with("roster.csv:3: a student without an id"));
        assert!(
            err("id,name\nalice,A\nbob,B\nalice,C\n")
                .starts_with("roster.csv:4: the id `alice` appears twice (first at line 2)")
        );
        assert!(err("id\nev\u{1b}[2Jil\n").contains("roster.csv:2: the id `ev\\u{1b}[2Jil` holds"));
        assert!(err("id\n../x\n").contains("roster.csv:2: the id `../x` is a path"));
        assert!(err("id\n").contains("names no student"));
        assert!(err("id,ID\na,b\n").contains("named twice"));
        assert!(err("id,submission\na,x.zip\nb,x.zip\n").starts_with("roster.csv:3:"));
        assert!(err("id,name\na,A,extra\n").starts_with("roster.csv:2:"));
    }

    fn entries(names: &[(&str, &str)]) -> Vec<(String, String)> {
        names
            .iter()
            .map(|(n, i)| ((*n).to_owned(), (*i).to_owned()))
            .collect()
    }

    #[test]
    fn students_get_their_entry_by_id_or_by_name() {
        let r = parse("id,submission\nbob-a,bob.zip\nbob-b,bob\ncarol,\nalice,\n").unwrap();
        let pairs = r
            .pair(&entries(&[
                ("alice", "alice"),
                ("bob", "bob"),
                ("bob.zip", "bob"),
                ("mallory.tgz", "mallory"),
            ]))
            .unwrap();
        let got: Vec<(&str, Enrolment, Option<usize>)> = pairs
            .iter()
            .map(|p| (p.id.as_str(), p.enrolment, p.entry))
            .collect();
        assert_eq!(
            got,
            [
                ("bob-a", Enrolment::Listed(0), Some(2)),
                ("bob-b", Enrolment::Listed(1), Some(1)),
                ("carol", Enrolment::Listed(2), None),
                ("alice", Enrolment::Listed(3), Some(0)),
                ("mallory", Enrolment::NotListed, Some(3)),
            ]
        );
    }

    #[test]
    fn ambiguous_pairs_are_refused() {
        let r = parse("id\nbob\n").unwrap();
        let e = r
            .pair(&entries(&[("bob", "bob"), ("bob.zip", "bob")]))
            .unwrap_err();
        assert!(
            format!("{e:#}").starts_with("roster.csv:2: two submissions would be `bob`'s"),
            "{e:#}"
        );
        // `bob` named for another entry: the folder `bob/` is nobody's, yet has bob's id.
        let r = parse("id,submission\nbob,bob.zip\n").unwrap();
        let e = r
            .pair(&entries(&[("bob", "bob"), ("bob.zip", "bob")]))
            .unwrap_err();
        assert!(
            format!("{e:#}").contains("already the roster's roster.csv:2"),
            "{e:#}"
        );
    }
}
