//! Which crate of a lesson is graded: the student's exercises or the reference solutions.

/// The side of a lesson that is built and graded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// `exercises/<lesson>`: the student's code.
    Exercises,
    /// `solutions/<lesson>`: the reference solutions.
    Solutions,
}

impl Side {
    /// `Solutions` when `solutions` is true.
    pub fn from_solutions(solutions: bool) -> Self {
        if solutions {
            Self::Solutions
        } else {
            Self::Exercises
        }
    }

    /// True for the reference solutions.
    pub fn is_solutions(self) -> bool {
        self == Self::Solutions
    }
}
