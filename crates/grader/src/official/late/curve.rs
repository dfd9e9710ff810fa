//! The penalty curve of a late submission, as Canvas' late policy computes it: a deduction of a
//! share of the points possible per interval late (any part of an interval counts as a whole
//! one), never below the lowest possible grade; a grade at or below that floor loses nothing.

/// A late policy's curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Curve {
    /// Percent of the points possible deducted per interval late.
    pub deduction: f64,
    /// The interval, in seconds (a day or an hour).
    pub interval: i64,
    /// The lowest possible grade, in percent of the points possible.
    pub floor: f64,
}

impl Curve {
    /// Intervals late, `late` seconds after the deadline: 0 at or before it, then every started
    /// interval.
    pub fn intervals(&self, late: i64) -> i64 {
        if late <= 0 {
            0
        } else {
            (late + self.interval - 1) / self.interval
        }
    }

    /// Points deducted from `points` of `max` handed in `late` seconds after the deadline,
    /// rounded to hundredths.
    pub fn deduction(&self, points: f64, max: f64, late: i64) -> f64 {
        let floor = max * self.floor / 100.0;
        if points <= floor {
            return 0.0;
        }
        let wanted = max * self.deduction / 100.0 * self.intervals(late) as f64;
        round2(wanted.min(points - floor))
    }
}

/// `x` rounded to hundredths.
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400;

    fn canvas() -> Curve {
        Curve {
            deduction: 10.0,
            interval: DAY,
            floor: 50.0,
        }
    }

    #[test]
    fn penalties_at_the_boundaries() {
        let c = canvas();
        // At the deadline and before: nothing.
        assert_eq!(c.deduction(10.0, 10.0, 0), 0.0);
        assert_eq!(c.deduction(10.0, 10.0, -5), 0.0);
        // One second after: a whole day.
        assert_eq!(c.intervals(1), 1);
        assert_eq!(c.deduction(10.0, 10.0, 1), 1.0);
        // At each interval's edge, and one second past it.
        assert_eq!(c.deduction(10.0, 10.0, DAY), 1.0);
        assert_eq!(c.deduction(10.0, 10.0, DAY + 1), 2.0);
        assert_eq!(c.deduction(10.0, 10.0, 2 * DAY), 2.0);
        assert_eq!(c.deduction(10.0, 10.0, 2 * DAY + 1), 3.0);
        // Down to the floor (50%), never below.
        assert_eq!(c.deduction(10.0, 10.0, 5 * DAY), 5.0);
        assert_eq!(c.deduction(10.0, 10.0, 5 * DAY + 1), 5.0);
        assert_eq!(c.deduction(10.0, 10.0, 100 * DAY), 5.0);
        // A grade just above the floor loses only what lies above it; at or below, nothing.
        assert_eq!(c.deduction(6.0, 10.0, 3 * DAY), 1.0);
        assert_eq!(c.deduction(5.0, 10.0, 3 * DAY), 0.0);
        assert_eq!(c.deduction(2.0, 10.0, 3 * DAY), 0.0);
        // A share of the points possible, not of the points earned: Canvas' 1.3 days on 10 points.
        assert_eq!(c.deduction(8.0, 10.0, DAY * 13 / 10), 2.0);
        // Fractions of a point are kept to hundredths.
        assert_eq!(c.deduction(5.0, 5.0, 1), 0.5);
        let hourly = Curve {
            deduction: 1.0,
            interval: 3600,
            floor: 0.0,
        };
        assert_eq!(hourly.deduction(3.0, 3.0, 3600 * 5 + 1), 0.18);
        assert_eq!(hourly.deduction(3.0, 3.0, 3600 * 1000), 3.0);
    }
}
