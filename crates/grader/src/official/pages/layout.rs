//! The frame every page shares: one self-contained HTML document with its style inline, no
//! script, and a content security policy that lets nothing load or run (no network, no script:
//! were a student's text ever left unescaped, the browser would still refuse to run it).

use super::escape::html;

/// The pages' style sheet (inlined into each page).
const CSS: &str = include_str!("page.css");

/// An HTML document titled `title` around `body` (already HTML).
pub fn document(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; img-src data:\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        html(title)
    )
}
