//! `cargo xtask similarity DIR`: a small class in folders (no grading), run in the real course,
//! which the command only reads. `grade --submissions --reports` writing `similarity.csv`:
//! `class_cli`.

use crate::support::{self, OutDir, course_root, xtask_in};
use std::path::Path;

const LESSONS: [&str; 2] = ["lesson01-why-heads", "lesson02-split-heads"];
/// A student's id a spreadsheet would run and a terminal would obey.
const HOSTILE_ID: &str = "=HYPERLINK(\"x\")\x1b[2J";

fn put(class: &Path, who: &str, lesson: &str, text: &str) {
    let dir = class.join(who).join("exercises").join(lesson).join("src");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("exercises.rs"), text).unwrap();
}

fn read(tree: &str, lesson: &str) -> String {
    std::fs::read_to_string(
        course_root()
            .join(tree)
            .join(lesson)
            .join("src/exercises.rs"),
    )
    .unwrap()
}

/// `text` with whole identifiers renamed, indentation doubled, comments and doc comments added: a copy
/// dressed up to look like someone else's work.
fn disguise(text: &str) -> String {
    let renames = [
        ("q", "queries"),
        ("k", "keys"),
        ("hs", "head_width"),
        ("scores", "logits"),
        ("best", "winner"),
        ("row", "line"),
        ("name", "label"),
        ("w", "matrix"),
        ("op", "what"),
        ("x", "input"),
        ("a", "left"),
        ("b", "right"),
        ("v", "values"),
        ("draw", "sample"),
        ("heads", "pieces"),
        ("c", "width"),
        ("h", "n_heads"),
    ];
    let mut out = String::new();
    let mut word = String::new();
    for ch in text.chars().chain(['\n']) {
        if ch.is_alphanumeric() || ch == '_' {
            word.push(ch);
            continue;
        }
        let renamed = renames.iter().find(|(from, _)| *from == word);
        out.push_str(renamed.map_or(word.as_str(), |(_, to)| to));
        word.clear();
        out.push(ch);
    }
    out.lines()
        .map(|line| {
            let body = line.trim_start();
            let indent = " ".repeat(2 * (line.len() - body.len()));
            let note = if body.ends_with(';') {
                " // my own step"
            } else {
                ""
            };
            // Doc comments rewritten, one line more each.
            let doc = if body.starts_with("///") {
                format!("{indent}/// Mine.\n")
            } else {
                String::new()
            };
            format!("{doc}{indent}{body}{note}\n")
        })
        .collect::<String>()
        .replace("{\n", "{ /* here we go */\n")
}

/// The stub of `lesson` with the bodies of some exercises written in `bodies`: `(name, body)`,
/// the body replacing the exercise's `todo!` line.
fn with_bodies(lesson: &str, bodies: &[(&str, &str)]) -> String {
    let stub = read("exercises", lesson);
    let mut out = stub.clone();
    for (name, body) in bodies {
        let line = stub
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("todo!(\"{name}:")))
            .unwrap_or_else(|| panic!("no todo! line for {name}"));
        out = out.replace(line, body);
    }
    out
}

/// Correct answers of lesson 1 written differently from the reference (loops, no helpers).
const OWN_L1: &[(&str, &str)] = &[
    (
        "max_abs_diff",
        r#"    if a.shape() == b.shape() {
        let mut largest = 0.0_f64;
        for (p, q) in a.iter().zip(b.iter()) {
            let gap = (p - q).abs();
            if gap > largest {
                largest = gap;
            }
        }
        return Ok(largest);
    }
    Err(attention::ShapeError::new("max_abs_diff", "two arrays of one shape", b.shape()))"#,
    ),
    (
        "top_focus",
        r#"    let cols = weights.ncols();
    if words.len() != cols {
        let got = format!("{} words", words.len());
        return Err(attention::ShapeError::with_got("top_focus", format!("{cols} words"), got));
    }
    let mut picked = Vec::with_capacity(weights.nrows());
    for r in 0..weights.nrows() {
        let mut at = 0;
        for c in 1..cols {
            if weights[[r, c]] > weights[[r, at]] {
                at = c;
            }
        }
        picked.push(words[at].to_string());
    }
    Ok(picked)"#,
    ),
    (
        "disagreements",
        r#"    if a.dim() != b.dim() {
        return Err(attention::ShapeError::new("disagreements", "equal shapes", b.shape()));
    }
    let first_max = |m: &ArrayView2<f64>, r: usize| {
        (0..m.ncols()).fold(0, |best, c| if m[[r, c]] > m[[r, best]] { c } else { best })
    };
    Ok((0..a.nrows()).filter(|&r| first_max(&a, r) != first_max(&b, r)).count())"#,
    ),
];

/// Correct answers of lesson 2 written differently from the reference.
const OWN_L2: &[(&str, &str)] = &[
    (
        "split_heads",
        r#"    let (bsz, t, c) = x.dim();
    let hs = head_size(c, h)?;
    let mut out = Array4::<f64>::zeros((bsz, h, t, hs));
    for bi in 0..bsz {
        for ti in 0..t {
            for hi in 0..h {
                for d in 0..hs {
                    out[[bi, hi, ti, d]] = x[[bi, ti, hi * hs + d]];
                }
            }
        }
    }
    Ok(out)"#,
    ),
    (
        "merge_heads",
        r#"    let (bsz, h, t, hs) = x.dim();
    Array3::from_shape_fn((bsz, t, h * hs), |(bi, ti, j)| x[[bi, j / hs, ti, j % hs]])"#,
    ),
];

/// Rows of a similarity CSV without its header, each line as it is.
fn rows(csv: &str) -> Vec<&str> {
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("a,b,score,exercises"), "{csv}");
    lines.collect()
}

/// A copy is found however disguised; a source too deep for a parser costs its author's
/// comparison only.
#[test]
fn similarity_flags_a_disguised_copy_and_nothing_else() {
    let work = OutDir::new("similarity");
    let class = work.path.join("class");
    for lesson in LESSONS {
        let solution = read("solutions", lesson);
        put(&class, "alice", lesson, &solution);
        put(&class, HOSTILE_ID, lesson, &disguise(&solution));
        put(&class, "dave", lesson, &read("exercises", lesson));
        put(&class, "erin", lesson, &read("exercises", lesson));
    }
    put(
        &class,
        "carol",
        LESSONS[0],
        &with_bodies(LESSONS[0], OWN_L1),
    );
    put(
        &class,
        "carol",
        LESSONS[1],
        &with_bodies(LESSONS[1], OWN_L2),
    );
    std::fs::write(class.join("notes.txt"), "not a submission\n").unwrap();
    // `rustc` compiles any number of `!`; a parser recursing once for each overflowed its stack
    // and aborted the whole pass.
    let deep = format!(
        "pub fn max_abs_diff(x: bool) -> bool {{ {}x }}\n",
        "!".repeat(100_000)
    );
    put(&class, "mallory", LESSONS[0], &deep);

    let out = xtask_in(&course_root(), &["similarity", class.to_str().unwrap()])
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    // The copy, however dressed up, with every exercise it copied; its id is written out as
    // text: escaped, and marked so that no spreadsheet runs it.
    assert_eq!(
        rows(&stdout),
        [
            "\"'=HYPERLINK(\"\"x\"\")\\u{1b}[2J\",alice,1.00,draw_head;attention_weights;\
          max_abs_diff;top_focus;disagreements;head_output;lesson01:other;head_size;split_heads;\
          merge_heads;head_projection"
        ],
        "{stderr}"
    );
    assert!(
        !stdout.bytes().any(|b| b < 0x20 && b != b'\n'),
        "{stdout:?}"
    );
    assert!(
        stderr.contains("similarity: notes.txt is skipped: `notes.txt` is not a folder"),
        "{stderr}"
    );
    assert!(stderr.contains("1 pair(s) at or above 0.5"), "{stderr}");

    // Each on its own, from the lowest threshold (so that no code is dropped for being shared
    // by the class): answers written independently do not pair (only lesson 1 compared, into a
    // file), and two untouched handouts never do.
    for who in ["alice", "carol"] {
        support::copy_dir(&class.join(who), &work.path.join("two").join(who));
    }
    let file = work.path.join("pairs.csv");
    let two = work.path.join("two");
    let args = [
        "similarity",
        two.to_str().unwrap(),
        "--threshold",
        "0.01",
        "--exercises",
        "1",
        "--output",
        file.to_str().unwrap(),
    ];
    let out = xtask_in(&course_root(), &args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(&file).unwrap();
    let low = rows(&csv);
    assert!(low.len() <= 1, "{csv}");
    for row in low {
        let score: f64 = row.split(',').nth(2).unwrap().parse().unwrap();
        assert!(row.starts_with("alice,carol,") && score < 0.2, "{csv}");
    }
    for who in ["dave", "erin"] {
        support::copy_dir(&class.join(who), &work.path.join("handouts").join(who));
    }
    let handouts = work.path.join("handouts");
    let out = xtask_in(
        &course_root(),
        &[
            "similarity",
            handouts.to_str().unwrap(),
            "--threshold",
            "0.01",
        ],
    )
    .output()
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        rows(&String::from_utf8_lossy(&out.stdout)),
        Vec::<&str>::new()
    );
}

#[test]
fn similarity_refuses_bad_input_with_exit_2() {
    let work = OutDir::new("similarity-bad");
    let missing = work.path.join("no-such-folder");
    let empty = work.path.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    for (args, says) in [
        (
            vec![missing.to_str().unwrap()],
            "cannot read the submissions folder",
        ),
        (vec![empty.to_str().unwrap()], "holds no submission"),
        (
            vec![empty.to_str().unwrap(), "--threshold", "0"],
            "above 0 and at most 1",
        ),
        (
            vec![empty.to_str().unwrap(), "--exercises", "split_head"],
            "did you mean",
        ),
    ] {
        let mut all = vec!["similarity"];
        all.extend(args);
        let out = xtask_in(&course_root(), &all).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{all:?}: {stderr}");
        assert!(stderr.contains(says), "{all:?}: {stderr}");
    }
}
