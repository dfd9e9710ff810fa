//! Every misconception of the catalogue, planted into the reference solution
//! (`grade --solutions --plant ID`), is named on a check that catches it, fails every check
//! course.toml lists for it, and loses points; nothing is named where nothing is wrong.

use crate::support::{course_root, json_of, xtask_in};

#[derive(serde::Deserialize)]
struct Course {
    lessons: Vec<Lesson>,
}

#[derive(serde::Deserialize)]
struct Lesson {
    id: String,
    #[serde(default)]
    misconceptions: Vec<Misconception>,
}

#[derive(serde::Deserialize)]
struct Misconception {
    id: String,
    checks: Vec<String>,
}

#[test]
fn every_planted_misconception_is_named_and_loses_points() {
    let root = course_root();
    let course: Course =
        toml::from_str(&std::fs::read_to_string(root.join("course.toml")).unwrap()).unwrap();
    let mut count = 0;
    let mut problems = Vec::new();
    for lesson in &course.lessons {
        for m in &lesson.misconceptions {
            count += 1;
            let out = xtask_in(
                &root,
                &["grade", "--solutions", "--plant", &m.id, "--format", "json"],
            )
            .output()
            .unwrap();
            let report = json_of(&out);
            assert_eq!(report["lessons"].as_array().unwrap().len(), 1, "{}", m.id);
            assert_eq!(report["lessons"][0]["id"], lesson.id.as_str(), "{}", m.id);
            let mut named = Vec::new();
            for e in report["lessons"][0]["exercises"].as_array().unwrap() {
                for c in e["checks"].as_array().unwrap() {
                    let name = c["name"].as_str().unwrap();
                    let id = c["diagnosis"]["id"].as_str();
                    if c["status"] == "passed" {
                        if id.is_some() {
                            problems.push(format!("{}: passing check {name} names {id:?}", m.id));
                        }
                        if m.checks.iter().any(|l| l == name) {
                            problems.push(format!("{}: passes {name}, which it lists", m.id));
                        }
                    } else if let Some(id) = id {
                        if id != m.id {
                            problems.push(format!("{}: {name} names {id} instead", m.id));
                        }
                        named.push(name.to_owned());
                    }
                }
            }
            if named.is_empty() {
                problems.push(format!("{}: no check names it", m.id));
            }
            let (score, max) = (
                report["score"].as_u64().unwrap(),
                report["max_score"].as_u64().unwrap(),
            );
            if score >= max {
                problems.push(format!("{}: full marks ({score}/{max})", m.id));
            }
        }
    }
    assert!(count >= 16, "only {count} misconceptions in the catalogue");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

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
