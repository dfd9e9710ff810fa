//! A submission's lateness under a late policy: per lesson, how late and the points it cost, and
//! what the student's page says of it.

use super::curve::{Curve, round2};

/// A lesson's lateness: how late, and the points it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct LessonLate {
    /// The lesson's id.
    pub lesson: String,
    /// The student's deadline for it (an extension included), as written.
    pub deadline: String,
    /// Seconds after it (0 or less: on time).
    pub seconds: i64,
    /// Points deducted.
    pub deduction: f64,
}

/// A row's lateness.
#[derive(Debug, Clone, PartialEq)]
pub struct Late {
    /// When the submission was handed in, as its source wrote it.
    pub submitted_at: String,
    /// Per graded lesson.
    pub lessons: Vec<LessonLate>,
    /// The policy's curve, to say it.
    pub curve: Curve,
}

impl Late {
    /// Points deducted in all.
    pub fn total(&self) -> f64 {
        round2(self.lessons.iter().map(|l| l.deduction).sum())
    }

    /// Points deducted from the lesson `id`.
    pub fn of(&self, id: &str) -> f64 {
        self.lessons
            .iter()
            .find(|l| l.lesson == id)
            .map_or(0.0, |l| l.deduction)
    }

    /// What the student's page says: when it was handed in, how late per lesson, what it cost.
    pub fn sentences(&self) -> Vec<String> {
        let unit = if self.curve.interval == 3600 {
            "hour"
        } else {
            "day"
        };
        let mut out = vec![format!(
            "Handed in at {}. Late policy: {}% of a lesson's points per {unit} late (a started \
             {unit} counts), never below {}% of its points.",
            self.submitted_at, self.curve.deduction, self.curve.floor
        )];
        for l in self.lessons.iter().filter(|l| l.seconds > 0) {
            out.push(format!(
                "{}: {} {unit}(s) after the deadline {}: −{} point(s).",
                l.lesson,
                self.curve.intervals(l.seconds),
                l.deadline,
                points(l.deduction)
            ));
        }
        if out.len() == 1 {
            out.push("On time for every lesson.".to_owned());
        }
        out
    }
}

/// `x` points as a cell: whole numbers without decimals, else to hundredths.
pub fn points(x: f64) -> String {
    let x = round2(x);
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x}")
    }
}
