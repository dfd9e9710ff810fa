//! The class page (`index.html`): the score distribution, every student with a link to their
//! page, each exercise's pass rate, the most frequent misconceptions, compile errors, submissions
//! not graded, missing students and similar pairs.

use super::class_stats::{BINS, Stats, stats};
use super::escape::{href, html};
use super::extras::Extras;
use super::feedback::percent;
use super::layout::document;
use super::rows::{ClassRow, SimilarPair, Standing, page_stem};
use anyhow::Result;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The class page of `rows`, with the `pairs` the similarity check found and the `extras` asked for.
pub fn render(
    course: &str,
    rows: &[ClassRow],
    pairs: &[SimilarPair],
    extras: &Extras,
) -> Result<String> {
    let s = stats(rows);
    let graded = s.histogram.iter().sum::<usize>();
    let mut body = String::new();
    let _ = writeln!(body, "<h1>{}: the class</h1>", html(course));
    let _ = writeln!(
        body,
        "<p>{} student(s): {graded} graded, {} not graded, {} missing.</p>",
        rows.len(),
        s.not_graded.len(),
        s.missing.len()
    );
    let pages: Pages = rows
        .iter()
        .filter(|r| matches!(r.standing, Standing::Graded(_)))
        .map(|r| r.id.as_str())
        .collect();
    scores(&mut body, &s)?;
    students(&mut body, rows, &pages);
    pass_rates(&mut body, &s)?;
    diagnoses(&mut body, &s, &pages);
    problems(&mut body, &s, &pages);
    similar(&mut body, pairs, &pages);
    super::comments::class_section(&mut body, &extras.comments, rows, &|id| who(id, &pages));
    if let Some((old, diff)) = &extras.regrade {
        super::regrade::section(&mut body, old, diff, &|id| who(id, &pages));
    }
    Ok(document(&format!("{course}: the class"), &body))
}

/// The students who have a page: those graded.
type Pages<'a> = BTreeSet<&'a str>;

/// `id` for people, linked to their page when they have one.
fn who(id: &str, pages: &Pages) -> String {
    let shown = html(&crate::report::student_text::name(id));
    match page_stem(id).filter(|_| pages.contains(id)) {
        Some(stem) => format!("<a href=\"{}.html\">{shown}</a>", href(&stem)),
        None => shown,
    }
}

fn scores(body: &mut String, s: &Stats) -> Result<()> {
    let labels: Vec<String> = (0..BINS)
        .map(|i| match i {
            i if i + 1 == BINS => "100%".to_owned(),
            i => format!("{}–{}%", i * 10, i * 10 + 9),
        })
        .collect();
    let _ = writeln!(
        body,
        "<h2>Scores</h2>\n<figure id=\"histogram\">\n{}<figcaption>Graded students per total \
         score (percent of the points available).</figcaption>\n</figure>",
        super::plots::histogram(&s.histogram, &labels)?
    );
    Ok(())
}

fn students(body: &mut String, rows: &[ClassRow], pages: &Pages) {
    let _ = writeln!(
        body,
        "<h2>Students</h2>\n<table id=\"students\">\n<thead><tr><th>Student</th><th>Points</th>\
         <th>%</th><th>Status</th></tr></thead>\n<tbody>"
    );
    for row in rows {
        let (points, pct, status) = match &row.standing {
            Standing::Graded(r) => {
                let broken: Vec<&str> = r
                    .lessons
                    .iter()
                    .filter(|l| l.build == crate::report::Build::CompileError)
                    .map(|l| l.id.as_str())
                    .collect();
                let status = if broken.is_empty() {
                    "graded".to_owned()
                } else {
                    format!("does not compile: {}", broken.join(", "))
                };
                let unofficial = if r.official { "" } else { " (unofficial)" };
                (
                    format!("{}/{}", r.score, r.max_score),
                    percent(r.score, r.max_score).to_string(),
                    format!("{status}{unofficial}"),
                )
            }
            Standing::NotGraded(_) => (String::new(), String::new(), "not graded".to_owned()),
            Standing::Missing => (String::new(), String::new(), "missing".to_owned()),
        };
        let _ = writeln!(
            body,
            "<tr><td>{}</td><td class=\"num\">{points}</td><td class=\"num\">{pct}</td><td>{}</td></tr>",
            who(&row.id, pages),
            html(&status)
        );
    }
    let _ = writeln!(body, "</tbody>\n</table>");
}

fn pass_rates(body: &mut String, s: &Stats) -> Result<()> {
    let items: Vec<(String, f64)> = s
        .pass_rates
        .iter()
        .map(|r| (r.exercise.clone(), r.passed as f64 / r.graded.max(1) as f64))
        .collect();
    let _ = writeln!(
        body,
        "<h2>Pass rate per exercise</h2>\n<figure id=\"pass-rates\">\n{}<figcaption>Share of the \
         graded students with every check of the exercise passing.</figcaption>\n</figure>",
        super::plots::rates(&items)?
    );
    let _ = writeln!(
        body,
        "<table id=\"exercises\">\n<thead><tr><th>Lesson</th><th>Exercise</th><th>Passed</th>\
         <th>%</th></tr></thead>\n<tbody>"
    );
    for r in &s.pass_rates {
        let _ = writeln!(
            body,
            "<tr><td>{}</td><td><code>{}</code></td><td class=\"num\">{}/{}</td><td class=\"num\">{}</td></tr>",
            html(&r.lesson),
            html(&r.exercise),
            r.passed,
            r.graded,
            percent(r.passed as u32, r.graded as u32)
        );
    }
    let _ = writeln!(body, "</tbody>\n</table>");
    Ok(())
}

fn diagnoses(body: &mut String, s: &Stats, pages: &Pages) {
    let _ = writeln!(body, "<h2>Most frequent misconceptions</h2>");
    if s.diagnoses.is_empty() {
        let _ = writeln!(body, "<p>No misconception was named.</p>");
        return;
    }
    let _ = writeln!(
        body,
        "<table id=\"misconceptions\">\n<thead><tr><th>Misconception</th><th>Title</th>\
         <th>Students</th><th>Who</th></tr></thead>\n<tbody>"
    );
    for d in &s.diagnoses {
        let names: Vec<String> = d.students.iter().map(|id| who(id, pages)).collect();
        let _ = writeln!(
            body,
            "<tr><td><code>{}</code></td><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            html(&d.id),
            html(&d.title),
            d.students.len(),
            names.join(", ")
        );
    }
    let _ = writeln!(body, "</tbody>\n</table>");
}

/// Compile errors, submissions not graded and missing students.
fn problems(body: &mut String, s: &Stats, pages: &Pages) {
    let _ = writeln!(body, "<h2>Compile errors</h2>");
    if s.compile_errors.is_empty() {
        let _ = writeln!(body, "<p>Every graded lesson compiled.</p>");
    } else {
        let _ = writeln!(
            body,
            "<table id=\"compile-errors\">\n<thead><tr><th>Student</th><th>Lessons that do not \
             compile</th></tr></thead>\n<tbody>"
        );
        for (id, lessons) in &s.compile_errors {
            let _ = writeln!(
                body,
                "<tr><td>{}</td><td>{}</td></tr>",
                who(id, pages),
                html(&lessons.join(", "))
            );
        }
        let _ = writeln!(body, "</tbody>\n</table>");
    }
    let _ = writeln!(body, "<h2>Not graded</h2>");
    if s.not_graded.is_empty() {
        let _ = writeln!(body, "<p>Every submission was graded.</p>");
    } else {
        let _ = writeln!(
            body,
            "<table id=\"not-graded\">\n<thead><tr><th>Submission</th><th>Why</th></tr></thead>\n<tbody>"
        );
        for (id, why) in &s.not_graded {
            let why = crate::report::student_text::message(why);
            let _ = writeln!(
                body,
                "<tr><td>{}</td><td>{}</td></tr>",
                who(id, pages),
                html(&why)
            );
        }
        let _ = writeln!(body, "</tbody>\n</table>");
    }
    let _ = writeln!(body, "<h2>Missing students</h2>");
    if s.missing.is_empty() {
        let _ = writeln!(
            body,
            "<p>No student on the roster is missing a submission.</p>"
        );
    } else {
        let names: Vec<String> = s
            .missing
            .iter()
            .map(|id| html(&crate::report::student_text::name(id)))
            .collect();
        let _ = writeln!(body, "<p id=\"missing\">{}</p>", names.join(", "));
    }
}

fn similar(body: &mut String, pairs: &[SimilarPair], pages: &Pages) {
    let _ = writeln!(body, "<h2>Similar submissions</h2>");
    if pairs.is_empty() {
        let _ = writeln!(body, "<p>No pair above the threshold.</p>");
        return;
    }
    let _ = writeln!(
        body,
        "<table id=\"similar\">\n<thead><tr><th>Student</th><th>Student</th><th>Similarity</th>\
         <th>Exercises</th></tr></thead>\n<tbody>"
    );
    for p in pairs {
        let _ = writeln!(
            body,
            "<tr><td>{}</td><td>{}</td><td class=\"num\">{:.2}</td><td>{}</td></tr>",
            who(&p.a, pages),
            who(&p.b, pages),
            p.score,
            html(&p.exercises.join(", "))
        );
    }
    let _ = writeln!(body, "</tbody>\n</table>");
}
