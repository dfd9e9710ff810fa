use super::*;
use crate::official::class::fixture::{batch, graded};
use crate::official::roster::Roster;

const DEADLINE: &str = "2026-12-20T23:59:00+01:00";
const DAY: i64 = 86_400;

/// A policy of 10% a day down to 50%, lesson02 due a day later.
fn policy() -> Policy {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("late.toml"),
        format!(
            "deadline = \"{DEADLINE}\"\ndeduction = 10\ninterval = \"day\"\nfloor = 50\n\
             extensions = \"ext.csv\"\nsubmitted_at = \"submissions.csv\"\n\
             [lessons]\nlesson02 = \"2026-12-21T23:59:00+01:00\"\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("ext.csv"),
        "id,extension\nbo,2d\ncy,2026-12-30T00:00:00Z\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("submissions.csv"),
        "repository,commit,committed\nann,abc,2026-12-21T00:00:00+01:00\nzed,,no commit before the deadline\n",
    )
    .unwrap();
    Policy::load(&dir.path().join("late.toml")).unwrap()
}

/// `seconds` after the policy's deadline, in RFC 3339 (UTC).
fn after(seconds: i64) -> String {
    format_epoch(time::instant(DEADLINE).unwrap() + seconds)
}

#[test]
fn a_policy_reads_its_deadlines_extensions_and_times() {
    let p = policy();
    assert_eq!(
        p.deadline.at,
        time::instant("2026-12-20T22:59:00Z").unwrap()
    );
    assert_eq!(p.lessons["lesson02"].at - p.deadline.at, DAY);
    assert_eq!(p.extensions["bo"], Extension::Extra(2 * DAY));
    assert!(matches!(p.extensions["cy"], Extension::Until(_)));
    assert_eq!(p.times["ann"], "2026-12-21T00:00:00+01:00");
    assert!(!p.times.contains_key("zed"));
    assert_eq!(after(0), "2026-12-20T22:59:00Z");
}

#[test]
fn each_lesson_is_late_against_its_own_deadline_and_the_students_extension() {
    let p = policy();
    let earned = [
        ("lesson01".to_owned(), 10, 10),
        ("lesson02".to_owned(), 10, 10),
    ];
    let cost = |at: &str, ext| {
        let late = p.lateness(at, ext, &earned).unwrap();
        (late.of("lesson01"), late.of("lesson02"))
    };
    // Exactly at the deadline, then one second after.
    assert_eq!(cost(&after(0), None), (0.0, 0.0));
    assert_eq!(cost(&after(1), None), (1.0, 0.0));
    // lesson02 is due a day later: at its deadline it costs nothing, a second after, a day.
    assert_eq!(cost(&after(DAY), None), (1.0, 0.0));
    assert_eq!(cost(&after(DAY + 1), None), (2.0, 1.0));
    // At the floor.
    assert_eq!(cost(&after(30 * DAY), None), (5.0, 5.0));
    // Two more days: on time at the new deadline's edge, a day late one second after it.
    let two = Some(Extension::Extra(2 * DAY));
    assert_eq!(cost(&after(2 * DAY), two), (0.0, 0.0));
    assert_eq!(cost(&after(2 * DAY + 1), two), (1.0, 0.0));
    let until = Some(Extension::Until(time::instant(&after(DAY * 5)).unwrap()));
    assert_eq!(cost(&after(DAY * 5), until), (0.0, 0.0));
    assert_eq!(cost(&after(DAY * 5 + 1), until), (1.0, 1.0));
    let late = p.lateness(&after(DAY + 1), None, &earned).unwrap();
    let said = late.sentences().join("\n");
    assert!(
        said.contains(
            "lesson01: 2 day(s) after the deadline 2026-12-20T23:59:00+01:00: −2 point(s)"
        ),
        "{said}"
    );
}

#[test]
fn the_gradebook_takes_the_penalty_and_says_when_and_how_much() {
    let p = policy();
    let roster = Roster::parse(
        Path::new("roster.csv"),
        format!(
            "id,submitted_at,extension\nann,,\nbo,{},\ndi,{},1d\n",
            after(DAY + 1),
            after(DAY + 1)
        )
        .as_bytes(),
    )
    .unwrap();
    let mut rows = vec![
        graded("ann", &[("lesson01", 10), ("lesson02", 5)], 20),
        graded("bo", &[("lesson01", 10)], 20),
        graded("di", &[("lesson01", 7)], 20),
    ];
    for (i, r) in rows.iter_mut().enumerate() {
        r.enrolment = Enrolment::Listed(i);
        let mut report = crate::official::pages::fixture::report(crate::report::Build::Ok, vec![]);
        report.lessons = ["lesson01", "lesson02"]
            .iter()
            .map(|id| crate::report::LessonReport {
                id: (*id).to_owned(),
                score: r.lessons.get(*id).copied().unwrap_or(0),
                max_score: 10,
                ..report.lessons[0].clone()
            })
            .collect();
        r.report = Some(report);
    }
    let mut class = batch(&[("lesson01", 10), ("lesson02", 10)], rows, Some(roster));
    apply(&mut class, &p).unwrap();
    let csv = crate::official::gradebook::plain::render(
        &class,
        crate::official::gradebook::Missing::Zero,
    )
    .unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(
        lines[0].ends_with(",error,submitted_at,late_penalty"),
        "{}",
        lines[0]
    );
    // ann: the times file, 1 minute after lesson01's deadline (a day), lesson02 on time.
    assert!(
        lines[1].starts_with("ann,,,ann.zip,14,20,ok,listed,9,10,5,10,"),
        "{}",
        lines[1]
    );
    assert!(
        lines[1].ends_with(",2026-12-21T00:00:00+01:00,1"),
        "{}",
        lines[1]
    );
    // bo: the roster's time, a day and a second late, with two days more (the file's): on time.
    assert!(lines[2].ends_with(",0"), "{}", lines[2]);
    // di: the roster's extension of a day; a second past it on lesson01; 7 of 10 loses 1.
    assert!(lines[3].contains(",6,10,0,10,"), "{}", lines[3]);
}

#[test]
fn a_gradescope_submission_tells_its_time() {
    let dir = tempfile::tempdir().unwrap();
    let meta = dir.path().join("submission_metadata.json");
    assert_eq!(gradescope_time(&meta), None);
    std::fs::write(
        &meta,
        r#"{"id": 1, "created_at": "2026-12-21T00:00:00.123456+01:00", "users": []}"#,
    )
    .unwrap();
    assert_eq!(
        gradescope_time(&meta).as_deref(),
        Some("2026-12-21T00:00:00.123456+01:00")
    );
    // A policy's Gradescope folder: one metadata file per student, `<id>.json`.
    let folder = dir.path().join("gradescope");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(&meta, folder.join("ann.json")).unwrap();
    std::fs::write(
        dir.path().join("late.toml"),
        format!("deadline = \"{DEADLINE}\"\ndeduction = 10\ninterval = \"hour\"\ngradescope = \"gradescope\"\n"),
    )
    .unwrap();
    let p = Policy::load(&dir.path().join("late.toml")).unwrap();
    assert_eq!(p.times["ann"], "2026-12-21T00:00:00.123456+01:00");
    std::fs::write(&meta, r#"{"created_at": "yesterday"}"#).unwrap();
    assert_eq!(gradescope_time(&meta), None);
    std::fs::copy(&meta, folder.join("bo.json")).unwrap();
    let e = Policy::load(&dir.path().join("late.toml")).unwrap_err();
    assert!(
        format!("{e:#}").contains("bo.json: no `created_at`"),
        "{e:#}"
    );
}
