//! The class page (`index.html`): the score distribution, every student with a link to their
//! page, their standing on the roster and the misconceptions their report names, each exercise's
//! attempt and pass rates, the most frequent misconceptions, compile errors, submissions not
//! graded, missing students and similar pairs.

use super::class_stats::{BINS, Stats, named, stats};
use super::escape::{href, html};
use super::extras::Extras;
use super::feedback::percent;
use super::layout::document;
use super::rows::{ClassRow, SimilarPair, Standing, page_stem};
use crate::official::roster::Enrolment;
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
        "<p>{} student(s): {graded} graded, {} not graded, {} missing{}.</p>",
        rows.len(),
        s.not_graded.len(),
        s.missing.len(),
        match s.not_listed.len() {
            0 => String::new(),
            n => format!(", {n} not on the roster"),
        }
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
         <th>%</th><th>Status</th><th>Roster</th><th>Misconceptions</th></tr></thead>\n<tbody>"
    );
    for row in rows {
        let (points, pct, status) = standing(row);
        let misconceptions = match &row.standing {
            Standing::Graded(r) => named(r)
                .iter()
                .map(|d| format!("<code title=\"{}\">{}</code>", html(&d.title), html(&d.id)))
                .collect::<Vec<_>>()
                .join(" "),
            _ => String::new(),
        };
        let _ = writeln!(
            body,
            "<tr><td>{}</td><td class=\"num\">{points}</td><td class=\"num\">{pct}</td>{status}\
             {}<td>{misconceptions}</td></tr>",
            who(&row.id, pages),
            roster_cell(row.enrolment)
        );
    }
    let _ = writeln!(body, "</tbody>\n</table>");
}

/// A student's points, percent and status cell; a row that is not simply graded is flagged.
fn standing(row: &ClassRow) -> (String, String, String) {
    let flagged = |text: &str| format!("<td class=\"flag\">{}</td>", html(text));
    match &row.standing {
        Standing::Graded(r) => {
            let broken: Vec<&str> = r
                .lessons
                .iter()
                .filter(|l| l.build == crate::report::Build::CompileError)
                .map(|l| l.id.as_str())
                .collect();
            let mut notes = String::new();
            if !r.official {
                notes.push_str(" (unofficial)");
            }
            if let Some(late) = row.late.as_ref().filter(|l| l.total() > 0.0) {
                let after =
                    crate::official::late::lateness::points(f64::from(r.score) - late.total());
                let _ = write!(
                    notes,
                    ", late: −{} → {after}",
                    crate::official::late::lateness::points(late.total())
                );
            }
            let status = if broken.is_empty() && notes.is_empty() {
                "<td>graded</td>".to_owned()
            } else if broken.is_empty() {
                flagged(&format!("graded{notes}"))
            } else {
                flagged(&format!("does not compile: {}{notes}", broken.join(", ")))
            };
            (
                format!("{}/{}", r.score, r.max_score),
                percent(r.score, r.max_score).to_string(),
                status,
            )
        }
        Standing::NotGraded(_) => (String::new(), String::new(), flagged("not graded")),
        Standing::Missing => (
            String::new(),
            String::new(),
            flagged("missing: nothing handed in"),
        ),
    }
}

/// The roster cell: empty without a roster, flagged for a submission it does not list.
fn roster_cell(enrolment: Enrolment) -> &'static str {
    match enrolment {
        Enrolment::NoRoster => "<td></td>",
        Enrolment::Listed(_) => "<td>listed</td>",
        Enrolment::NotListed => "<td class=\"flag\">not on the roster</td>",
    }
}

fn pass_rates(body: &mut String, s: &Stats) -> Result<()> {
    let items: Vec<(String, f64)> = s
        .pass_rates
        .iter()
        .map(|r| {
            (
                r.exercise.clone(),
                r.passed as f64 / r.attempted.max(1) as f64,
            )
        })
        .collect();
    let _ = writeln!(
        body,
        "<h2>Pass rate per exercise</h2>\n<figure id=\"pass-rates\">\n{}<figcaption>Share of the \
         students who attempted the exercise (not left as handed out) with every check passing.\
         </figcaption>\n</figure>",
        super::plots::rates(&items)?
    );
    let _ = writeln!(
        body,
        "<table id=\"exercises\">\n<thead><tr><th>Lesson</th><th>Exercise</th><th>Attempted</th>\
         <th>%</th><th>Passed</th><th>% of attempts</th></tr></thead>\n<tbody>"
    );
    for r in &s.pass_rates {
        let _ = writeln!(
            body,
            "<tr><td>{}</td><td><code>{}</code></td><td class=\"num\">{}/{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}/{}</td><td class=\"num\">{}</td></tr>",
            html(&r.lesson),
            html(&r.exercise),
            r.attempted,
            r.graded,
            percent(r.attempted as u32, r.graded as u32),
            r.passed,
            r.attempted,
            rate(r.passed, r.attempted)
        );
    }
    let _ = writeln!(body, "</tbody>\n</table>");
    Ok(())
}

/// `n` of `of` in whole percent, or a dash when nobody attempted.
fn rate(n: usize, of: usize) -> String {
    if of == 0 {
        "–".to_owned()
    } else {
        percent(n as u32, of as u32).to_string()
    }
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
    if !s.not_listed.is_empty() {
        let names: Vec<String> = s.not_listed.iter().map(|id| who(id, pages)).collect();
        let _ = writeln!(
            body,
            "<h2>Not on the roster</h2>\n<p id=\"not-listed\">{}: graded, but left out of a Canvas \
             or Moodle gradebook (the platform would not know them). Add them to the roster, or \
             check their submission's name.</p>",
            names.join(", ")
        );
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::verdict::Status;
    use crate::official::pages::fixture::{check, report};
    use crate::report::Build;

    fn row(id: &str, standing: Standing, enrolment: Enrolment) -> ClassRow {
        ClassRow {
            id: id.into(),
            standing,
            enrolment,
            late: None,
        }
    }

    #[test]
    fn the_class_page_flags_roster_trouble_and_names_each_students_misconceptions() {
        let graded = |checks| Standing::Graded(Box::new(report(Build::Ok, checks)));
        let rows = vec![
            row(
                "ann",
                graded(vec![
                    check(Status::Wrong, Some("m1")),
                    check(Status::Wrong, Some("m2")),
                    check(Status::Wrong, Some("m1")),
                ]),
                Enrolment::Listed(0),
            ),
            row(
                "bob",
                graded(vec![check(Status::Passed, None)]),
                Enrolment::Listed(1),
            ),
            row(
                "cy",
                graded(vec![check(Status::NotStarted, None)]),
                Enrolment::Listed(2),
            ),
            row("dee", Standing::Missing, Enrolment::Listed(3)),
            row(
                "eve",
                graded(vec![check(Status::Passed, None)]),
                Enrolment::NotListed,
            ),
        ];
        let page = render("c", &rows, &[], &Extras::default()).unwrap();
        let line = |id: &str| {
            page.lines()
                .find(|l| l.starts_with("<tr>") && l.contains(&format!(">{id}<")))
                .unwrap_or_else(|| panic!("no row of {id}:\n{page}"))
                .to_owned()
        };
        assert!(
            line("ann").ends_with(
                "<td>listed</td><td><code title=\"title of m1\">m1</code> \
                 <code title=\"title of m2\">m2</code></td></tr>"
            ),
            "{}",
            line("ann")
        );
        assert!(line("dee").contains("<td class=\"flag\">missing: nothing handed in</td>"));
        assert!(line("eve").contains("<td class=\"flag\">not on the roster</td>"));
        assert!(
            page.contains("5 student(s): 4 graded, 0 not graded, 1 missing, 1 not on the roster.")
        );
        assert!(page.contains("<h2>Not on the roster</h2>"));
        // cy left the stub: 3 of 4 attempted, 2 of the 3 attempts pass (66%, rounded down; 50% of all).
        assert!(
            page.contains(
                "<td class=\"num\">3/4</td><td class=\"num\">75</td>\
                 <td class=\"num\">2/3</td><td class=\"num\">66</td>"
            ),
            "{page}"
        );
    }
}
