//! A usage error, printed the way the grader prints its own errors.

/// A usage error found by clap, in the form of the grader's own errors: one `error:` line (with
/// what clap lists under it, e.g. the missing arguments) and at most one `  help:` line (clap's
/// tip, or else the usage).
pub fn usage_error(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut lines = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("For more information"));
    let mut error = lines
        .next()
        .unwrap_or("error: invalid arguments")
        .to_owned();
    let (mut tip, mut usage) = (None, None);
    for line in lines {
        if let Some(t) = line.strip_prefix("tip: ") {
            tip.get_or_insert(t.to_owned());
        } else if let Some(u) = line.strip_prefix("Usage: ") {
            usage.get_or_insert(format!("usage: {u}"));
        } else {
            error.push(' ');
            error.push_str(line);
        }
    }
    match tip.or(usage) {
        Some(help) => format!("{error}\n  help: {help}"),
        None => error,
    }
}
