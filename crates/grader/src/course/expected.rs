//! What every check must observe, read from the instructors' files *before* any student code runs:
//! each snapshot directory's index ([`INDEX_FILE`], written by `cargo xtask bless` from the
//! reference solution) lists every check's observations in order, each assertion by its
//! expression and each snapshot by name and comparator.

use anyhow::{Context as _, Result, anyhow};
use std::collections::HashMap;
use std::fmt::Write;
use std::path::Path;

/// The index's file name in every snapshot directory. An index reads:
///
/// ```text
/// check merge_inverts_split_exactly
/// assert back.shape() == q.shape()
/// snapshot exact lesson02__checks__merge_moves_data
/// ```
pub const INDEX_FILE: &str = "expected-observations.txt";

/// One observation a check must make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// An assertion that must hold, by its expression.
    Assert(String),
    /// A snapshot: its name and whether it is compared exactly.
    Snapshot {
        /// The `.snap` file's stem.
        name: String,
        /// Exact (data movement) or within the tolerance.
        exact: bool,
    },
}

/// Everything expected of one snapshot directory's checks.
#[derive(Debug, Clone, Default)]
pub struct Expected {
    /// Per check (test function name): its observations in order.
    pub checks: HashMap<String, Vec<Expect>>,
    /// Per snapshot name: the expected text.
    pub snapshots: HashMap<String, String>,
}

impl Expected {
    /// Reads the index and every snapshot it names from `dir`. A missing index gives no checks
    /// (every check is then reported as not blessed).
    pub fn load(dir: &Path) -> Result<Self> {
        let mut out = Expected::default();
        let Ok(index) = std::fs::read_to_string(dir.join(INDEX_FILE)) else {
            return Ok(out);
        };
        out.checks = parse_index(&index)?;
        for expects in out.checks.values() {
            for e in expects {
                if let Expect::Snapshot { name, .. } = e
                    && !out.snapshots.contains_key(name)
                {
                    let path = dir.join(format!("{name}.snap"));
                    let text = std::fs::read_to_string(&path)
                        .with_context(|| format!("cannot read {}", path.display()))?;
                    out.snapshots.insert(name.clone(), snapshot_contents(&text));
                }
            }
        }
        Ok(out)
    }

    /// Merges another directory's expectations (the hidden checks') into this one.
    pub fn extend(&mut self, other: Expected) {
        self.checks.extend(other.checks);
        self.snapshots.extend(other.snapshots);
    }
}

/// The value part of a `.snap` file (after insta's `---` header).
pub fn snapshot_contents(text: &str) -> String {
    let body = text
        .strip_prefix("---\n")
        .and_then(|rest| rest.find("\n---\n").map(|end| &rest[end + 5..]))
        .unwrap_or(text);
    let mut s = body.trim_end().to_owned();
    s.push('\n');
    s
}

/// Parses an index file.
pub fn parse_index(text: &str) -> Result<HashMap<String, Vec<Expect>>> {
    let mut checks: HashMap<String, Vec<Expect>> = HashMap::new();
    let mut current: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let bad = || anyhow!("{INDEX_FILE} line {}: cannot read `{line}`", n + 1);
        if let Some(name) = line.strip_prefix("check ") {
            current = Some(name.trim().to_owned());
            checks.entry(name.trim().to_owned()).or_default();
            continue;
        }
        let list = checks
            .get_mut(current.as_deref().ok_or_else(bad)?)
            .ok_or_else(bad)?;
        if let Some(label) = line.strip_prefix("assert ") {
            list.push(Expect::Assert(label.to_owned()));
        } else if let Some(rest) = line.strip_prefix("snapshot ") {
            let (how, name) = rest.split_once(' ').ok_or_else(bad)?;
            let exact = match how {
                "exact" => true,
                "tolerant" => false,
                _ => return Err(bad()),
            };
            list.push(Expect::Snapshot {
                name: name.trim().to_owned(),
                exact,
            });
        } else {
            return Err(bad());
        }
    }
    Ok(checks)
}

/// Writes an index file (checks sorted by name).
pub fn render_index(checks: &HashMap<String, Vec<Expect>>) -> String {
    let mut out = String::from(
        "# The observations each check must make, in order: written by `cargo xtask bless` from the\n\
         # reference solution and read by the grader before any student code runs. Do not edit.\n",
    );
    let mut names: Vec<&String> = checks.keys().collect();
    names.sort();
    for name in names {
        let _ = writeln!(out, "check {name}");
        for e in &checks[name] {
            match e {
                Expect::Assert(label) => {
                    let _ = writeln!(out, "assert {}", one_line(label));
                }
                Expect::Snapshot { name, exact } => {
                    let how = if *exact { "exact" } else { "tolerant" };
                    let _ = writeln!(out, "snapshot {how} {name}");
                }
            }
        }
    }
    out
}

/// An assertion label on one line with single spaces (how it is stored and compared).
pub fn one_line(label: &str) -> String {
    label.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// True when two assertion labels are the same expression, whatever the spacing (`stringify!`
/// may space tokens differently from one compiler to the next).
pub fn same_label(a: &str, b: &str) -> bool {
    let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    squeeze(a) == squeeze(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_round_trips() {
        let mut checks = HashMap::new();
        checks.insert(
            "b_check".to_owned(),
            vec![
                Expect::Assert("x.len() == 3".into()),
                Expect::Snapshot {
                    name: "lesson02__checks__b".into(),
                    exact: true,
                },
                Expect::Snapshot {
                    name: "lesson02__checks__c".into(),
                    exact: false,
                },
            ],
        );
        checks.insert("a_check".to_owned(), vec![]);
        let text = render_index(&checks);
        assert_eq!(parse_index(&text).unwrap(), checks);
        assert!(text.find("check a_check").unwrap() < text.find("check b_check").unwrap());
        assert!(parse_index("assert x\n").is_err());
        assert!(parse_index("check a\nsnapshot fuzzy n\n").is_err());
    }

    #[test]
    fn a_directory_loads_with_the_snapshots_its_index_names() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Expected::load(dir.path()).unwrap().checks.is_empty());
        let index = "# header\ncheck a\nassert x == 1\nsnapshot tolerant l__a\n\
                     check b\nsnapshot exact l__a\n";
        std::fs::write(dir.path().join(INDEX_FILE), index).unwrap();
        let snap = |text: &str| format!("---\nsource: x.rs\n---\n{text}");
        std::fs::write(dir.path().join("l__a.snap"), snap("shape (1,)\n[] 1\n")).unwrap();
        std::fs::write(dir.path().join("l__unnamed.snap"), snap("x\n")).unwrap();
        let mut loaded = Expected::load(dir.path()).unwrap();
        assert_eq!(loaded.checks, parse_index(index).unwrap());
        assert_eq!(
            loaded.snapshots,
            HashMap::from([("l__a".to_owned(), "shape (1,)\n[] 1\n".to_owned())])
        );
        // The hidden checks' directory merges in.
        let hidden = Expected {
            checks: HashMap::from([("h".to_owned(), vec![])]),
            snapshots: HashMap::from([("l__h".to_owned(), "y\n".to_owned())]),
        };
        loaded.extend(hidden);
        assert!(loaded.checks.contains_key("h") && loaded.checks.contains_key("a"));
        assert_eq!(loaded.snapshots.len(), 2);
        // A snapshot the index names but that is missing is an error, not an empty value.
        std::fs::remove_file(dir.path().join("l__a.snap")).unwrap();
        let err = Expected::load(dir.path()).unwrap_err();
        assert!(format!("{err:#}").contains("l__a.snap"), "{err:#}");
    }

    #[test]
    fn snapshot_headers_are_skipped_and_spacing_is_forgiven() {
        let snap = "---\nsource: x.rs\n---\nshape (1,)\n[] 1\n";
        assert_eq!(snapshot_contents(snap), "shape (1,)\n[] 1\n");
        assert!(same_label("a . len ( ) == 3", "a.len() == 3"));
        assert!(!same_label("a.len() == 3", "a.len() == 4"));
    }
}
