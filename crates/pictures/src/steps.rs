//! Steps that survive a `todo!()`: a demo runs each computation through [`attempt`], so a function
//! the student has not written yet turns into a [`Skip`] ("`draw_head` is not implemented yet")
//! instead of ending the program, and every later line that does not need it is still computed.
//!
//! The panic hook installed by [`quiet_panics`] stays silent for panics inside [`attempt`] (their
//! message and place are kept for the [`Skip`]) and reports every other panic as usual.

use std::cell::{Cell, RefCell};
use std::fmt::Display;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

/// Why a value could not be computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    /// A function still hits `todo!()`: its name (the text before the first `:` of the message).
    NotImplemented(String),
    /// The code panicked: the message and where.
    Panicked {
        /// The panic message.
        message: String,
        /// `file:line:column`, when known.
        location: String,
    },
    /// The code returned an error (e.g. a shape error).
    Error(String),
}

impl Skip {
    /// The sentence printed in place of the value.
    pub fn describe(&self) -> String {
        match self {
            Skip::NotImplemented(f) => format!("`{f}` is not implemented yet (todo!())"),
            Skip::Panicked { message, location } => {
                format!("your code panicked at {location}: {message}")
            }
            Skip::Error(e) => format!("error: {e}"),
        }
    }
}

/// Any error (a `ShapeError`, say) becomes [`Skip::Error`], so `?` works inside a step.
/// (`Skip` itself is deliberately not `Display`, so this does not overlap `From<Skip> for Skip`.)
impl<E: Display> From<E> for Skip {
    fn from(e: E) -> Self {
        Skip::Error(e.to_string())
    }
}

/// A value a demo computed, or why it could not.
pub type Val<T> = Result<T, Skip>;

/// Borrowing a computed value inside a later step: `wa.got()?`.
pub trait Got<T> {
    /// The value, or a copy of the reason it is missing.
    fn got(&self) -> Result<&T, Skip>;
}

impl<T> Got<T> for Val<T> {
    fn got(&self) -> Result<&T, Skip> {
        self.as_ref().map_err(Clone::clone)
    }
}

thread_local! {
    static IN_STEP: Cell<bool> = const { Cell::new(false) };
    static LAST: RefCell<Option<(String, String)>> = const { RefCell::new(None) };
}

/// Installs (once) the panic hook that keeps panics inside [`attempt`] quiet.
pub fn quiet_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_STEP.with(Cell::get) {
                let payload = info.payload();
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "(no message)".to_owned());
                let location = info.location().map_or_else(String::new, |l| l.to_string());
                LAST.with(|last| *last.borrow_mut() = Some((message, location)));
            } else {
                default(info);
            }
        }));
    });
}

/// The [`Skip`] for a panic message: a `todo!()`'s is [`Skip::NotImplemented`], naming the
/// function as the grader does ([`check_protocol::todo_function`]: `KvCache::append` for
/// `not yet implemented: KvCache::append: …`).
pub fn skip_for_panic(message: &str, location: &str) -> Skip {
    if !message.starts_with(check_protocol::TODO_PREFIX) {
        return Skip::Panicked {
            message: message.to_owned(),
            location: location.to_owned(),
        };
    }
    Skip::NotImplemented(match check_protocol::todo_function(message) {
        Some(name) => name.to_owned(),
        None => format!("a function ({location})"),
    })
}

/// Runs `f`, turning a panic into a [`Skip`] (quietly, once [`quiet_panics`] is installed).
pub fn attempt<T>(f: impl FnOnce() -> Val<T>) -> Val<T> {
    quiet_panics();
    let was = IN_STEP.with(|s| s.replace(true));
    let result = catch_unwind(AssertUnwindSafe(f));
    IN_STEP.with(|s| s.set(was));
    match result {
        Ok(v) => v,
        Err(payload) => {
            let (message, location) = LAST.with(|l| l.borrow_mut().take()).unwrap_or_else(|| {
                let m = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_default();
                (m, String::new())
            });
            Err(skip_for_panic(&message, &location))
        }
    }
}
