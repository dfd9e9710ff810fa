//! Misconceptions as a student meets them: planted into the reference solution
//! (`grade --solutions --plant ID`) or written by hand, named on a check that catches it and
//! explained; nothing is named where nothing is wrong. That every misconception of the catalogue
//! is named and loses points is decided from its blessed records
//! (`grader::judge::planting::tests::every_catalogued_misconception_is_named_where_it_is_made`),
//! and `cargo xtask check` plants each one for real to find those records fresh.

use crate::support::{Scratch, checks, course_root, json_of, planted, xtask_in};

const L1: &str = "exercises/lesson01-why-heads/src/exercises.rs";
const L2: &str = "exercises/lesson02-split-heads/src/exercises.rs";
const L3: &str = "exercises/lesson03-parallel-attention/src/exercises.rs";
const L5: &str = "exercises/lesson05-heads-with-jobs/src/exercises.rs";
const L6: &str = "exercises/lesson06-grouped-query/src/exercises.rs";

/// Only `--plant` plants. A `COURSE_PLANT` in the environment the grader starts in (a student's
/// shell, a CI job) never reaches a check process, grouped or isolated: their environment is
/// cleared, so the reference solutions keep full marks and the stubs grade as before.
#[test]
fn a_plant_in_the_environment_reaches_no_check() {
    let root = course_root();
    for extra in [&[][..], &["--isolate"][..]] {
        let grade = |args: &[&str], plant: Option<&str>| {
            let mut cmd = xtask_in(&root, &[args, &["2", "--format", "json"], extra].concat());
            if let Some(id) = plant {
                cmd.env("COURSE_PLANT", id);
            }
            json_of(&cmd.output().unwrap())
        };
        let solutions = grade(&["grade", "--solutions"], Some("split-without-transpose"));
        assert_eq!(
            solutions["score"], solutions["max_score"],
            "{extra:?}: a plant from the environment changed the solutions' grade"
        );
        let stubs = grade(&["grade"], None);
        let planted_stubs = grade(&["grade"], Some("split-without-transpose"));
        assert_eq!(
            stubs["score"], planted_stubs["score"],
            "{extra:?}: a plant from the environment changed the stubs' grade"
        );
    }
}

/// A catalogued misconception whose wrong answer is no longer wrong (planted, it is the
/// reference) is caught by no check: `check` fails and names it, with its line in course.toml.
#[test]
fn check_fails_on_a_misconception_that_no_check_catches() {
    let s = Scratch::new("misconception-not-caught");
    let lib = "solutions/lesson05-heads-with-jobs/src/lib.rs";
    let planted = "\"causal-softmax-wrong-axis\" => crate::misconceptions::causal_softmax_wrong_axis::causal_weights,";
    let text = s.read(lib);
    assert!(
        text.contains(planted),
        "lesson 5's plants changed: update this test"
    );
    s.write(
        lib,
        &text.replacen(
            planted,
            "\"causal-softmax-wrong-axis\" => crate::reference::causal_weights,",
            1,
        ),
    );
    let out = s.xtask(&["check", "lesson05"]).assert().code(1);
    let report = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let course = s.read("course.toml");
    let line = course
        .lines()
        .position(|l| l == "id = \"causal-softmax-wrong-axis\"")
        .unwrap()
        + 1;
    assert!(
        report.contains("FAIL every misconception fails its checks and is named by one"),
        "{report}"
    );
    assert!(
        report.contains(&format!(
            "lesson05: misconception `causal-softmax-wrong-axis` passes `causal_weights_small_case`, \
             which course.toml says catches it\n           help: take `causal_weights_small_case` out \
             of its `checks` (course.toml:{line})"
        )),
        "{report}"
    );
    assert!(
        report.contains("misconception `causal-softmax-wrong-axis` is named by no check"),
        "{report}"
    );
    // The other misconceptions of the lesson are still caught and named.
    assert!(
        report.contains("lesson05 mask-with-zero-scores: fails"),
        "{report}"
    );
    assert!(report.contains("Not ready"), "{report}");
}

/// Lesson 3's `masked_softmax` written by hand without the max shift: the student's report names
/// the misconception on both checks that catch it, each message says what went wrong (exp
/// overflowed, 0 / 0), and `parallel_attention`, which calls it, is blocked by it.
#[test]
fn a_masked_softmax_without_max_shift_is_named_with_what_overflowed() {
    let s = Scratch::new("misconception-masked-softmax");
    s.write(
        L3,
        &planted(
            "lesson03-parallel-attention",
            "    softmax_inplace(&mut weights);\n",
            "    weights.mapv_inplace(f64::exp);\n    for mut row in weights.lanes_mut(ndarray::Axis(3)) {\n        let sum = row.sum();\n        row /= sum;\n    }\n",
        ),
    );
    let out = s
        .xtask(&["grade", "lesson03", "--format", "json"])
        .assert()
        .code(1);
    let all = checks(&json_of(out.get_output()));
    let id = "masked-softmax-without-max-shift";
    let overflow = &all["masked_softmax_without_mask"];
    assert_eq!(overflow["diagnosis"]["id"], id);
    assert_eq!(
        overflow["diagnosis"]["title"],
        "Softmax without subtracting the row maximum"
    );
    let message = overflow["message"].as_str().unwrap();
    assert!(
        message.contains("for scores up to 1001: exp overflowed"),
        "{message}"
    );
    let masked_row = &all["fully_masked_row_gets_zero_weights"];
    assert_eq!(masked_row["diagnosis"]["id"], id);
    let message = masked_row["message"].as_str().unwrap();
    assert!(message.contains("0 / 0 is NaN"), "{message}");
    let composed = &all["parallel_attention_fully_masked_query"];
    assert_eq!(composed["status"], "wrong");
    assert_eq!(composed["blocked_by"], "masked_softmax");
    for name in [
        "masked_entries_get_exactly_zero",
        "attention_scores_worked_example",
    ] {
        assert_eq!(all[name]["status"], "passed", "{name}");
        assert_eq!(all[name]["diagnosis"], serde_json::Value::Null, "{name}");
    }
}

/// `text` (a lesson's source) with the bodies of the functions `names` put back to `todo!()`.
fn stubbed(mut text: String, names: &[&str]) -> String {
    for name in names {
        let at = text.find(&format!("pub fn {name}")).expect(name);
        let open = at + text[at..].find(" {\n").expect(name) + 2;
        let close = open + text[open..].find("\n}\n").expect(name);
        text.replace_range(
            open..close,
            &format!("\n    todo!(\"{name}: not written yet\")"),
        );
    }
    text
}

/// Top-down work names a mistake while the rest of the lesson is still `todo!()`: lesson 1's
/// softmax over the wrong axis under `grade 1`, and the README's split without the transpose
/// while `merge_heads` is a stub under `grade 2`. The unwritten exercises' checks, which the
/// mistake would also fail, neither rule it out nor take its points.
#[test]
fn a_mistake_is_named_while_the_rest_of_its_lesson_is_todo() {
    let s = Scratch::new("misconception-top-down");
    let wrong_axis = planted(
        "lesson01-why-heads",
        "    softmax_inplace(&mut scores);\n",
        "    for mut col in scores.lanes_mut(Axis(1)) {\n        let max = col.fold(f64::NEG_INFINITY, |m, &v| m.max(v));\n        col.mapv_inplace(|v| (v - max).exp());\n        let sum = col.sum();\n        col /= sum;\n    }\n",
    );
    let later = [
        "max_abs_diff",
        "top_focus",
        "disagreements",
        "row_sums",
        "head_output",
    ];
    s.write(L1, &stubbed(wrong_axis, &later));
    let no_transpose = planted(
        "lesson02-split-heads",
        "        .into_shape_with_order((b, t, h, hs))\n        .expect(\"a standard-layout array reshapes\")\n        .permuted_axes([0, 2, 1, 3]);\n",
        "        .into_shape_with_order((b, h, t, hs))\n        .expect(\"a standard-layout array reshapes\");\n",
    );
    s.write(
        L2,
        &stubbed(no_transpose, &["merge_heads", "head_projection"]),
    );
    for (lesson, id, named_on) in [
        ("1", "softmax-wrong-axis", "attention_weights_property"),
        ("2", "split-without-transpose", "split_heads_moves_data"),
    ] {
        let out = s
            .xtask(&["grade", lesson, "--format", "json"])
            .assert()
            .code(1);
        let all = checks(&json_of(out.get_output()));
        assert_eq!(all[named_on]["diagnosis"]["id"], id, "{}", all[named_on]);
        let todo = all
            .values()
            .filter(|c| c["status"] == "not_started")
            .count();
        assert!(todo >= 3, "lesson {lesson}: the later exercises are stubs");
    }
}

/// Lesson 5's `causal_weights` normalising the columns: the human report names it under its own
/// check and the heads built on it, explained the first time only.
#[test]
fn a_causal_softmax_over_the_wrong_axis_is_named_and_explained_once() {
    let s = Scratch::new("misconception-causal-axis");
    s.write(
        L5,
        &planted(
            "lesson05-heads-with-jobs",
            "    softmax_inplace(&mut scores);\n",
            "    for mut column in scores.columns_mut() {\n        let mut c = column.to_vec();\n        attention::softmax::softmax_row(&mut c);\n        column.assign(&ndarray::ArrayView1::from(&c));\n    }\n",
        ),
    );
    let out = s.xtask(&["grade", "lesson05"]).assert().code(1);
    let table = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let title = "Misconception: Softmax over the queries instead of the keys";
    assert_eq!(table.matches(&format!("{title}\n")).count(), 1, "{table}");
    assert!(
        table.matches(&format!("{title} (explained above)")).count() >= 2,
        "{table}"
    );
    assert_eq!(
        table
            .matches("Query i spreads its attention over the keys")
            .count(),
        1,
        "{table}"
    );
    assert!(
        table.contains("causal_weights_small_case: wrong"),
        "{table}"
    );
    assert!(
        !table.contains("causal_weights_refuses_bad_shapes: wrong"),
        "{table}"
    );
}

/// Lesson 6's `gqa_forward` reshaping its projections straight into heads: named on the checks
/// that catch it, while the shapes it gets right still pass.
#[test]
fn a_gqa_split_without_the_transpose_is_named() {
    let s = Scratch::new("misconception-gqa-split");
    let reshape = |m: &str, heads: &str| {
        format!(
            "    let {m} = project(x, w.w{m}.view())?;\n    let (b, t, width) = {m}.dim();\n    let {m} = {m}\n        .into_shape_with_order((b, {heads}, t, width / {heads}))\n        .expect(\"a standard-layout array reshapes\");\n"
        )
    };
    let from = "    let q = split_heads(project(x, w.wq.view())?.view(), h)?;\n    let k = split_heads(project(x, w.wk.view())?.view(), h_kv)?;\n    let v = split_heads(project(x, w.wv.view())?.view(), h_kv)?;\n";
    let to = [
        reshape("q", "h"),
        reshape("k", "h_kv"),
        reshape("v", "h_kv"),
    ]
    .concat();
    s.write(L6, &planted("lesson06-grouped-query", from, &to));
    let out = s
        .xtask(&["grade", "lesson06", "--format", "json"])
        .assert()
        .code(1);
    let all = checks(&json_of(out.get_output()));
    for name in [
        "gqa_forward_worked_example",
        "gqa_with_as_many_kv_heads_is_mha",
    ] {
        assert_eq!(
            all[name]["diagnosis"]["id"], "gqa-split-without-transpose",
            "{name}"
        );
    }
    assert_eq!(all["gqa_forward_returns_model_width"]["status"], "passed");
}

/// Lesson 3's `attention_scores` multiplying the keys untransposed: the batched product refuses
/// the shapes, the check stops on that error, and the report names the misconception by the
/// panic it blessed; `parallel_attention`, which calls it, is blocked by it.
#[test]
fn keys_not_transposed_are_named_by_their_panic() {
    let s = Scratch::new("misconception-keys-not-transposed");
    s.write(
        L3,
        &planted(
            "lesson03-parallel-attention",
            "kf.view().permuted_axes([0, 2, 1])",
            "kf.view()",
        ),
    );
    let out = s
        .xtask(&["grade", "lesson03", "--format", "json"])
        .assert()
        .code(1);
    let all = checks(&json_of(out.get_output()));
    for name in [
        "attention_scores_worked_example",
        "attention_scores_shape_for_t_ne_s",
        "parallel_attention_worked_example",
    ] {
        assert_eq!(
            all[name]["diagnosis"]["id"], "keys-not-transposed",
            "{name}: {}",
            all[name]
        );
    }
    assert_eq!(
        all["parallel_attention_worked_example"]["blocked_by"],
        "attention_scores"
    );
}

/// A panic in the same exercise with another message is another mistake: nothing is named.
#[test]
fn another_panic_in_the_same_exercise_is_not_named() {
    let s = Scratch::new("misconception-other-panic");
    s.write(
        L3,
        &planted(
            "lesson03-parallel-attention",
            "    scores *= 1.0 / (hs as f64).sqrt();\n",
            "    scores *= 1.0 / (hs as f64).sqrt();\n    let _ = scores[[0, 0, 99]];\n",
        ),
    );
    let out = s
        .xtask(&["grade", "lesson03", "--format", "json"])
        .assert()
        .code(1);
    let all = checks(&json_of(out.get_output()));
    let worked = &all["attention_scores_worked_example"];
    assert_eq!(worked["status"], "panicked", "{worked}");
    for (name, check) in &all {
        assert_eq!(
            check["diagnosis"],
            serde_json::Value::Null,
            "{name}: {check}"
        );
    }
}

/// Lesson 7's `KvCache::append` writing the new position along the heads axis: ndarray panics
/// inside `append`, and the report names the misconception on the checks that use the cache.
/// The fitted plant's gates in lesson 7's methods (`course_check` is no dependency of a student's
/// crate).
const GATES: [&str; 3] = [
    "        course_check::fitted::gate(\"append\", &[&*self, &k, &v]);\n",
    "        // A method cannot be `plantable!`: the fitted plant's gate is here.\n",
    "        course_check::fitted::gate(\"memory_bytes\", &[self, &bytes_per_value]);\n",
];

#[test]
fn an_append_along_the_wrong_axis_is_named_by_its_panic() {
    let s = Scratch::new("misconception-append-axis");
    let solution = s.read("solutions/lesson07-kv-cache/src/exercises.rs");
    let hook = "        // A method cannot be `plantable!`: its misconceptions are planted here.\n        if course_check::planted() == Some(\"append-wrong-axis\") {\n            return crate::misconceptions::append_wrong_axis::append(self, k, v);\n        }\n";
    assert!(
        solution.contains(hook),
        "lesson 7's plant changed: update this test"
    );
    let right = "slice_mut(s![.., .., p, ..])";
    assert_eq!(
        solution.matches(right).count(),
        2,
        "lesson 7's append changed"
    );
    s.write(
        "exercises/lesson07-kv-cache/src/exercises.rs",
        &solution
            .replacen(hook, "", 1)
            .replace(GATES[0], "")
            .replace(GATES[1], "")
            .replace(GATES[2], "")
            .replace(right, "slice_mut(s![.., p, .., ..])"),
    );
    let out = s
        .xtask(&["grade", "lesson07", "--format", "json"])
        .assert()
        .code(1);
    let all = checks(&json_of(out.get_output()));
    for name in [
        "append_writes_one_position_per_step",
        "decode_step_worked_example_weights",
        "generate_worked_example",
    ] {
        assert_eq!(
            all[name]["diagnosis"]["id"], "append-wrong-axis",
            "{name}: {}",
            all[name]
        );
    }
}
