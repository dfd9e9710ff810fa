//! Feedback that teaches, on real scratch copies of the course whose exercises are the reference
//! solutions with one classic mistake planted: every failing check is shown, labelled values are
//! decoded, the blame lands on the exercise where the bug is, the misconception is named, a panic
//! in a library names the student's line, an endless loop is waited out once (and gets the
//! verdicts isolated grading gives), code that keeps state between calls is graded as if each
//! check ran alone, raw floats are shortened in the table.

use crate::support::{
    Scratch, assert_isolated_grading_agrees, checks, course_root, json_of, planted, statuses,
    xtask_in,
};

use predicates::prelude::*;

const L1: &str = "exercises/lesson01-why-heads/src/exercises.rs";
const L2: &str = "exercises/lesson02-split-heads/src/exercises.rs";

/// `split_heads` reshaped straight to `(B, h, T, hs)`: the classic missing transpose.
fn split_without_transpose() -> String {
    planted(
        "lesson02-split-heads",
        ".into_shape_with_order((b, t, h, hs))\n        .expect(\"a standard-layout array reshapes\")\n        .permuted_axes([0, 2, 1, 3]);",
        ".into_shape_with_order((b, h, t, hs))\n        .expect(\"a standard-layout array reshapes\");",
    )
}

/// `grade ARGS --format json` in the copy, expecting exit status 1, as JSON.
fn graded(s: &Scratch, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["grade"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    json_of(s.xtask(&all).assert().code(1).get_output())
}

/// The wrong split's report, graded once as JSON, in every other format (`--format` and
/// `--brief` only pick the renderer: grading again gives the same run): the table shows every
/// failing check, the blame and the misconception once; Gradescope and JUnit carry the blame and
/// the misconception in each check's text; `--brief` keeps the one-failure-per-exercise form.
fn in_every_other_format(s: &Scratch, json: &serde_json::Value) {
    use grader::report::{self, human::Detail, style::Style};
    let report: report::Report = serde_json::from_value(json.clone()).unwrap();
    let restore = Some(grader::course::pristine::Restore::at(&s.root));
    let table = report::human::render_for(&report, &Style::plain(), Detail::Full, restore);
    assert!(
        table.contains("blocked: fix `split_heads` first"),
        "{table}"
    );
    assert!(
        table.contains("split_heads_batch_and_heads_differ: wrong"),
        "{table}"
    );
    assert!(
        table.contains("merge_inverts_split_exactly: wrong, blocked by `split_heads`"),
        "{table}"
    );
    assert_eq!(
        table
            .matches("Misconception: Reshaped straight to (B, h, T, hs)\n")
            .count(),
        1,
        "{table}"
    );
    assert!(table.contains("(explained above)"), "{table}");
    assert!(table.contains("Next: work on `split_heads`"), "{table}");
    let gradescope: serde_json::Value =
        serde_json::from_str(&report::gradescope::render(&report)).unwrap();
    let test = gradescope["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| {
            t["name"]
                .as_str()
                .unwrap()
                .ends_with("/ merge_inverts_split_exactly")
        })
        .unwrap();
    let output = test["output"].as_str().unwrap();
    assert!(output.contains("Blocked: `split_heads`"), "{output}");
    assert!(
        output.contains("Misconception: Reshaped straight to (B, h, T, hs)."),
        "{output}"
    );
    let course = grader::course::Course::load(&s.root).unwrap();
    let junit = report::junit::render(&report, &course);
    assert!(
        junit.contains("Misconception: Reshaped straight to (B, h, T, hs)."),
        "{junit}"
    );
    let brief = report::human::render_for(&report, &Style::plain(), Detail::Brief, restore);
    assert!(!brief.contains("Misconception"), "{brief}");
    assert!(
        brief.contains("split_heads_moves_data: first at index"),
        "{brief}"
    );
}

#[test]
fn a_wrong_split_is_decoded_named_and_blamed_where_it_is() {
    let s = Scratch::new("feedback-split");
    s.write(L2, &split_without_transpose());
    let report = graded(&s, &["lesson02"]);
    let all = checks(&report);
    let moves = &all["split_heads_moves_data"];
    assert_eq!(moves["status"], "wrong");
    let message = moves["message"].as_str().unwrap();
    assert!(
        message.contains("expected 100 = (b 0, t 1, c 0), got 2 = (b 0, t 0, c 2)"),
        "{message}"
    );
    assert!(
        message.contains("without moving the head axis"),
        "{message}"
    );
    assert_eq!(moves["diagnosis"]["id"], "split-without-transpose");
    assert_eq!(moves["blocked_by"], serde_json::Value::Null);
    // merge_heads is right: its round-trip check fails because of split_heads, and says so.
    let round_trip = &all["merge_inverts_split_exactly"];
    assert_eq!(round_trip["status"], "wrong");
    assert_eq!(round_trip["blocked_by"], "split_heads");
    assert_eq!(round_trip["diagnosis"]["id"], "split-without-transpose");
    // Checks that do not involve the mistake have neither.
    for name in ["head_size_divides_width", "merge_heads_moves_data"] {
        let c = &all[name];
        assert_eq!(c["status"], "passed", "{name}");
        assert_eq!(c["diagnosis"], serde_json::Value::Null, "{name}");
        assert_eq!(c["blocked_by"], serde_json::Value::Null, "{name}");
    }
    // A diagnosis never changes points: the score is the passing checks' points.
    let passed: u64 = all
        .values()
        .filter(|c| c["status"] == "passed")
        .map(|c| c["max_points"].as_u64().unwrap())
        .sum();
    assert_eq!(report["score"].as_u64().unwrap(), passed);

    // The other formats, rendered from this run's report (`--format` only picks the renderer).
    in_every_other_format(&s, &report);
    // A source that reads a file at compile time (even one no module includes) is refused
    // locally as official grading refuses it, instead of passing here and scoring 0 there.
    s.write(
        "exercises/lesson02-split-heads/src/notes.rs",
        "pub const NOTES: &str = include_str!(\"exercises.rs\");\n",
    );
    let report = graded(&s, &["lesson02"]);
    let lesson = &report["lessons"][0];
    assert_eq!(lesson["build"], "compile_error", "{report:#}");
    assert_eq!(lesson["score"], 0);
    s.xtask(&["grade", "lesson02"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "error: exercises/lesson02-split-heads/src/notes.rs uses `include_str!` (it reads \
             files at compile time), which the course does not allow: remove it",
        ))
        .stdout(predicate::str::contains(
            "official grading refuses the lesson",
        ));
}

#[test]
fn panics_name_the_students_line_and_checker_failures_are_not_panics() {
    let s = Scratch::new("feedback-panics");
    // Past the last column for every head: ndarray panics on the slice.
    let off_by_one = planted(
        "lesson02-split-heads",
        "project(x, wq.slice(s![.., i * hs..(i + 1) * hs]))",
        "project(x, wq.slice(s![.., i * hs..(i + 1) * hs + c]))",
    );
    // split_heads always refuses, so the checks' `unwrap` of its result fails in the check.
    let refuses = off_by_one.replacen(
        "pub fn split_heads(x: ArrayView3<f64>, h: usize) -> Result<Array4<f64>> {\n",
        "pub fn split_heads(x: ArrayView3<f64>, h: usize) -> Result<Array4<f64>> {\n    if h > 0 {\n        return Err(ShapeError::with_got(\"split_heads\", \"nothing\", \"refused\"));\n    }\n",
        1,
    );
    assert_ne!(refuses, off_by_one);
    s.write(L2, &refuses);
    let report = graded(&s, &["lesson02"]);
    let all = checks(&report);
    let with = |prefix: &str| -> Vec<&serde_json::Value> {
        all.values()
            .filter(|c| c["message"].as_str().unwrap().starts_with(prefix))
            .collect()
    };
    let library =
        with("panicked in ndarray, called from exercises/lesson02-split-heads/src/exercises.rs:");
    assert!(!library.is_empty(), "{all:#?}");
    assert!(library.iter().all(|c| c["status"] == "panicked"));
    let checker = with(
        "your code returned an error where the check expects a value (at exercises/lesson02-split-heads/tests/checks.rs:",
    );
    assert!(!checker.is_empty(), "{all:#?}");
    assert!(checker.iter().all(|c| c["status"] == "wrong"));
    // The error reads as its message, not as the struct's fields.
    assert!(
        checker.iter().all(|c| c["message"]
            .as_str()
            .unwrap()
            .ends_with("): split_heads: expected nothing, got refused")),
        "{checker:#?}"
    );
}

#[test]
fn an_endless_loop_is_waited_out_once_and_blamed_on_its_exercise() {
    let s = Scratch::new("feedback-loop");
    // A loop that computes and never returns (the hostile fixture's loop only sleeps), busy one
    // millisecond in five: the grader stops it by the clock all the same, and the 15 checks it
    // holds (about 10 s of looping per grade, two grades) do not take a core from the tests
    // running beside this one for all that time.
    let looping = planted(
        "lesson01-why-heads",
        "    let wq = draw();",
        "    let mut spins = 0u64;
    while c > 0 {
        let busy = std::time::Instant::now();
        while busy.elapsed() < std::time::Duration::from_millis(1) {
            spins = std::hint::black_box(spins.wrapping_add(1));
        }
        std::thread::sleep(std::time::Duration::from_millis(4));
    }
    let wq = draw();",
    );
    s.write(L1, &looping);
    let report = graded(&s, &["lesson01", "--timeout", "2"]);
    let all = checks(&report);
    assert_eq!(all["draw_head_order_and_scale"]["status"], "timed_out");
    assert!(
        all["draw_head_order_and_scale"]["duration_ms"]
            .as_u64()
            .unwrap()
            >= 2000
    );
    let blocked: Vec<(&String, &serde_json::Value)> = all
        .iter()
        .filter(|(_, c)| c["blocked_by"] == "draw_head")
        .collect();
    assert!(blocked.len() >= 8, "{all:#?}");
    for (name, c) in &blocked {
        assert_eq!(c["status"], "timed_out", "{name}");
        // Not waited out again: stopped at the short limit, not the 2 s one.
        assert!(c["duration_ms"].as_u64().unwrap() < 1500, "{name}: {c}");
    }
    // A check of draw_head itself is never "blocked by draw_head".
    assert_eq!(
        all["third_head_focus"]["blocked_by"],
        serde_json::Value::Null
    );
    // Code that spins: one process per check gives the same verdicts and messages.
    let args = ["grade", "lesson01", "--timeout", "2", "--format", "json"];
    assert_isolated_grading_agrees(&s, &args, &report);
}

/// A cache in a `static` whose key forgets the projections: a second head of the same input gets
/// the first head's weights. Alone, a check that computes one head passes; after a check that
/// computed another head of the same input, in one process, it would fail. Local grading runs
/// such a lesson's checks one per process, so each gets the verdict it gets alone (and official
/// grading gives), and the mistake shows where it shows alone: in a check comparing two heads.
#[test]
fn code_that_keeps_state_between_calls_gets_the_verdicts_it_gets_alone() {
    let s = Scratch::new("feedback-state");
    // Remembers the last weights it computed, by the input's shape alone.
    let lookup = "    static LAST: std::sync::Mutex<Option<(Vec<usize>, Array3<f64>)>> =
        std::sync::Mutex::new(None);
    let mut last = LAST.lock().unwrap();
    if let Some((shape, weights)) = last.as_ref()
        && shape == x.shape()
    {
        return Ok(weights.clone());
    }
";
    let first = "    let op = \"attention_weights\";\n";
    let cached = planted("lesson01-why-heads", first, &format!("{lookup}{first}"));
    let store = "    softmax_inplace(&mut scores);\n";
    assert!(
        cached.contains(store),
        "the reference solution changed: {store}"
    );
    let cached = cached.replacen(
        store,
        &format!("{store}    *last = Some((x.shape().to_vec(), scores.clone()));\n"),
        1,
    );
    // The verdicts each check gets alone, in the grade of lesson 1 and in isolated grading.
    let graded_as_alone = || {
        let report = graded(&s, &["lesson01"]);
        let all = checks(&report);
        // Run after `attention_weights_head_a` in one process, this check would get head A's
        // weights.
        assert_eq!(
            all["attention_weights_head_b"]["status"], "passed",
            "{all:#?}"
        );
        assert_eq!(
            all["max_abs_diff_between_heads"]["status"], "wrong",
            "{all:#?}"
        );
        assert_isolated_grading_agrees(&s, &["grade", "lesson01", "--format", "json"], &report);
    };
    s.write(L1, &cached);
    graded_as_alone();

    // The same cache with its `static` in a file of another lesson's `src/` (which official
    // grading takes too), included: nothing in lesson 1's own files keeps state, and still each
    // check gets the verdict it gets alone.
    let (declaration, _) = lookup.split_once("let mut last").unwrap();
    s.write(
        "exercises/lesson02-split-heads/src/last_weights.rs",
        &declaration.replace("Array3", "ndarray::Array3"),
    );
    let included = cached.replacen(declaration, "    ", 1)
        + "\ninclude!(\"../../lesson02-split-heads/src/last_weights.rs\");\n";
    assert!(!included.contains("static"), "{included}");
    s.write(L1, &included);
    graded_as_alone();
}

/// A misconception is named only when every check that caught it fails as it did: a fused
/// product cut at the wrong columns fails some of `fused_qkv`'s checks just as blocks stacked in
/// the wrong order do, but not the ones that tell them apart, so nothing is named for it; the
/// wrong order itself is named on all four.
#[test]
fn a_mistake_that_only_looks_like_a_misconception_is_not_named() {
    let s = Scratch::new("feedback-lookalike");
    let l4 = "exercises/lesson04-multi-head-layer/src/exercises.rs";
    let block = "qkv.slice(s![.., .., i * d..(i + 1) * d])";
    let diagnoses = |code: String| {
        s.write(l4, &code);
        let all = checks(&graded(&s, &["fused_qkv"]));
        assert_eq!(all.len(), 4, "{all:#?}");
        all.values()
            .map(|c| {
                assert_eq!(c["status"], "wrong", "{c:#}");
                c["diagnosis"]["id"].as_str().unwrap_or("").to_owned()
            })
            .collect::<Vec<_>>()
    };
    let cut = planted(
        "lesson04-multi-head-layer",
        block,
        "qkv.slice(s![.., .., (i * d).saturating_sub(i)..(i + 1) * d - i])",
    );
    assert_eq!(diagnoses(cut), ["", "", "", ""]);
    let swapped = planted(
        "lesson04-multi-head-layer",
        "concatenate![Axis(1), layer.wq, layer.wk, layer.wv]",
        "concatenate![Axis(1), layer.wq, layer.wv, layer.wk]",
    );
    assert_eq!(diagnoses(swapped), ["fused-qkv-wrong-order"; 4]);
}

/// A check's message keeps raw `f64`s (the misconception matcher compares them) and ndarray's
/// whole `Debug`; the table a student reads shortens both, and the JSON report keeps them.
#[test]
fn the_table_shortens_raw_floats_and_array_dumps_and_the_json_keeps_them() {
    let root = course_root();
    let plant = [
        "grade",
        "--solutions",
        "--plant",
        "decode-attends-only-to-new-key",
    ];
    let report = json_of(
        &xtask_in(&root, &[&plant[..], &["--format", "json"]].concat())
            .output()
            .unwrap(),
    );
    let (_, message) = &statuses(&report)["decode_step_matches_last_row_of_full_attention"];
    let raw = message
        .split("by ")
        .nth(1)
        .and_then(|m| m.split_whitespace().next())
        .unwrap_or_else(|| panic!("no difference in {message}"));
    assert!(raw.len() > 12 && raw.parse::<f64>().is_ok(), "{message}");

    let out = xtask_in(&root, &plant).output().unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(!table.contains(raw), "{table}");
    let line = table
        .lines()
        .find(|l| l.contains("(weights)"))
        .unwrap_or_else(|| panic!("{table}"));
    // Every number on the line has at most 4 significant digits (5 with a leading `0.`).
    for word in line.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == '-')) {
        let digits = word
            .split('e')
            .next()
            .unwrap()
            .trim_start_matches(['-', '0', '.']);
        assert!(digits.replace('.', "").len() <= 4, "{word} in {line}");
    }

    // An `assert_eq!` on arrays: the shape stays, the memory layout goes.
    let plant = ["grade", "--solutions", "--plant", "split-without-transpose"];
    let report = json_of(
        &xtask_in(&root, &[&plant[..], &["--format", "json"]].concat())
            .output()
            .unwrap(),
    );
    let (_, message) = &statuses(&report)["split_heads_by_hand"];
    assert!(message.contains(", strides=["), "{message}");
    let table = xtask_in(&root, &plant).output().unwrap().stdout;
    let table = String::from_utf8_lossy(&table);
    assert!(table.contains("shape=[3, 2]"), "{table}");
    assert!(!table.contains("strides="), "{table}");
}
