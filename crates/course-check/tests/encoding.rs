//! `assert_exact_snapshot!(name, value, encoding = "…")`: the snapshot declares how a labelled
//! input's values encode their positions, and a wrong tensor is explained in positions.
use course_check::{Observation, assert_exact_snapshot, explain_difference, render_exact_encoded};
use ndarray::{Array3, Array4};
use std::process::Command;

const BTC: &str = "b*10000 + t*100 + c";

/// Lesson 2's `setup::labelled(b, t, c)`.
fn labelled(b: usize, t: usize, c: usize) -> Array3<f64> {
    Array3::from_shape_fn((b, t, c), |(i, j, k)| (i * 10000 + j * 100 + k) as f64)
}

/// `(B, T, C) -> (B, h, T, C / h)`, right (with the transpose) or wrong (a bare reshape).
fn split(x: &Array3<f64>, h: usize, transpose: bool) -> Array4<f64> {
    let (b, t, c) = x.dim();
    if transpose {
        x.clone()
            .into_shape_with_order((b, t, h, c / h))
            .unwrap()
            .permuted_axes([0, 2, 1, 3])
            .as_standard_layout()
            .into_owned()
    } else {
        x.clone().into_shape_with_order((b, h, t, c / h)).unwrap()
    }
}

#[test]
fn the_encoding_line_follows_the_shape_line() {
    let x = labelled(1, 2, 2);
    assert_eq!(
        render_exact_encoded(&x, BTC),
        "shape (1, 2, 2)\nencoding b*10000 + t*100 + c\n[0,0] 0 1\n[0,1] 100 101\n"
    );
    // Surrounding blanks are dropped; the rest is render_exact's text, unchanged.
    let plain = course_check::render_exact(&x);
    let encoded = render_exact_encoded(&x, "  b*10000 + t*100 + c ");
    assert_eq!(encoded.replace("encoding b*10000 + t*100 + c\n", ""), plain);
}

#[test]
fn a_split_without_transpose_is_decoded_and_named() {
    let x = labelled(2, 3, 4);
    let expected = render_exact_encoded(&split(&x, 2, true), BTC);
    let got = render_exact_encoded(&split(&x, 2, false), BTC);
    assert_eq!(
        explain_difference(&expected, &got, 0.0).unwrap(),
        "first at index [0, 0, 1, 0]: expected 100 = (b 0, t 1, c 0), got 2 = (b 0, t 0, c 2) \
         (16 of 24 values differ; each input value encodes its position as b·10000 + t·100 + c); \
         your output holds the input's values in their original order: the input was reshaped \
         without moving the head axis (a reshape never moves data; swap the head and time axes \
         with a permute, then make the layout standard)"
    );
    assert_eq!(explain_difference(&expected, &expected, 0.0), None);
}

#[test]
fn swapped_batch_and_head_axes_are_decoded_and_named() {
    // (B, h, T, hs) = (3, 2, 4, 3) laid out as (h, B, T, hs): another shape, so the plain
    // "wrong shape" words come first and the pattern follows.
    let x = labelled(3, 4, 6);
    let right = split(&x, 2, true);
    let swapped = right
        .view()
        .permuted_axes([1, 0, 2, 3])
        .as_standard_layout()
        .into_owned();
    let expected = render_exact_encoded(&right, BTC);
    let got = render_exact_encoded(&swapped, BTC);
    assert_eq!(
        explain_difference(&expected, &got, 0.0).unwrap(),
        "wrong shape: expected (3, 2, 4, 3), got (2, 3, 4, 3); your output is the expected one \
         with its axes swapped: axis 0 holds what belongs on axis 1, axis 1 holds what belongs \
         on axis 0"
    );
}

#[test]
fn without_an_encoding_the_message_stays_plain() {
    let x = labelled(2, 3, 4);
    let expected = course_check::render_exact(&split(&x, 2, true));
    let got = course_check::render_exact(&split(&x, 2, false));
    assert_eq!(
        explain_difference(&expected, &got, 0.0).unwrap(),
        "values differ: first at index [0, 0, 1, 0]: expected 100, got 2 (16 of 24 values differ)"
    );
}

#[test]
fn the_encoding_line_is_compared_but_holds_no_values() {
    let x = labelled(1, 2, 2);
    let (declared, plain) = (
        render_exact_encoded(&x, BTC),
        course_check::render_exact(&x),
    );
    assert_eq!(explain_difference(&declared, &declared, 0.0), None);
    assert_eq!(
        explain_difference(&declared, &plain, 0.0).unwrap(),
        "expected `encoding b*10000 + t*100 + c`, got `[0,0] 0 1`"
    );
    assert_eq!(
        explain_difference(
            &declared,
            &render_exact_encoded(&x, "b*1000 + t*100 + c"),
            0.0
        )
        .unwrap(),
        "expected `encoding b*10000 + t*100 + c`, got `encoding b*1000 + t*100 + c`"
    );
    let longer = render_exact_encoded(&labelled(1, 3, 2), BTC).replace("(1, 3, 2)", "(1, 2, 2)");
    assert_eq!(
        explain_difference(&declared, &longer, 0.0).unwrap(),
        "expected 4 lines, got 5"
    );
}

#[test]
#[should_panic(expected = "the encoding `b*x + c` of an exact snapshot does not parse")]
fn a_formula_that_does_not_parse_is_a_bug_in_the_check() {
    // The formula is checked before anything is snapshotted, so no `.snap` file is involved.
    assert_exact_snapshot!("never_written", labelled(1, 1, 2), encoding = "b*x + c");
}

/// Run by `the_macro_reports_the_encoded_text` in a child process, as under the grader.
#[test]
#[ignore = "run by the_macro_reports_the_encoded_text with COURSE_CHECK_OBSERVE set"]
fn child_snapshots_with_an_encoding() {
    if !course_check::observe::observing() {
        return; // `--include-ignored` without the grader around: nothing to report to.
    }
    let x = labelled(1, 2, 2);
    assert_exact_snapshot!("labelled", x, encoding = BTC);
    assert_exact_snapshot!("plain", x,);
}

#[test]
fn the_macro_reports_the_encoded_text() {
    let file = std::env::temp_dir().join(format!(
        "course-check-encoding-{}.jsonl",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&file);
    let child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_snapshots_with_an_encoding",
            "--ignored",
            "--test-threads=1",
        ])
        .env(course_check::OBSERVE_ENV, &file)
        .output()
        .unwrap();
    assert!(
        child.status.success(),
        "the child check failed:\n{}{}",
        String::from_utf8_lossy(&child.stdout),
        String::from_utf8_lossy(&child.stderr)
    );
    let lines = std::fs::read_to_string(&file).unwrap();
    let _ = std::fs::remove_file(&file);
    let seen: Vec<Observation> = lines
        .lines()
        .map(|l| Observation::from_json(l).unwrap())
        .collect();
    let snapshot = |stem: &str, text: &str| Observation::Snapshot {
        name: format!("encoding__{stem}"),
        text: text.to_owned(),
        exact: true,
    };
    assert_eq!(
        seen,
        [
            snapshot(
                "labelled",
                "shape (1, 2, 2)\nencoding b*10000 + t*100 + c\n[0,0] 0 1\n[0,1] 100 101\n"
            ),
            snapshot("plain", "shape (1, 2, 2)\n[0,0] 0 1\n[0,1] 100 101\n"),
        ]
    );
}
