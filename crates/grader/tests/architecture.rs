//! The grader's shape, checked: no cycle between its modules, its top-level modules used in the
//! order docs/architecture.md states, no function over 100 lines, no file over 800 (tests aside),
//! no `bool` parameter in a stage's public functions, and every source file the docs name exists. A reader can then trust docs/architecture.md's
//! layering.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_FN_LINES: usize = 100;
const MAX_FILE_LINES: usize = 800;

fn course_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The source without its unit tests (`#[cfg(test)] mod tests { .. }` to the end of the file,
/// where the course keeps them).
fn without_tests(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .windows(2)
        .position(|w| w[0].trim() == "#[cfg(test)]" && w[1].trim_start().starts_with("mod tests"))
        .unwrap_or(lines.len());
    lines[..end].join("\n")
}

/// The source with comments, string and character literals blanked (kept as spaces, so lines
/// and braces outside them stay where they were).
fn code_only(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                    continue;
                }
                out.push(blank(b[i]));
                i += 1;
            }
        } else if c == 'r' && matches!(next, Some('"') | Some('#')) && raw_start(&b, i).is_some() {
            let (hashes, body) = raw_start(&b, i).unwrap();
            out.extend(std::iter::repeat_n(' ', body - i));
            i = body;
            while i < b.len() {
                if b[i] == '"' && (1..=hashes).all(|k| b.get(i + k) == Some(&'#')) {
                    out.extend(std::iter::repeat_n(' ', hashes + 1));
                    i += hashes + 1;
                    break;
                }
                out.push(blank(b[i]));
                i += 1;
            }
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < b.len() {
                    out.push(blank(b[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && (b.get(i + 2) == Some(&'\'') || next == Some('\\')) {
            // A character literal (a lifetime has no closing quote).
            out.push(' ');
            i += 1;
            while i < b.len() && b[i] != '\'' {
                if b[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                out.push(' ');
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// At `r"` or `r#..#"`: the number of `#` and where the body starts.
fn raw_start(b: &[char], i: usize) -> Option<(usize, usize)> {
    if i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_') {
        return None;
    }
    let mut j = i + 1;
    while b.get(j) == Some(&'#') {
        j += 1;
    }
    (b.get(j) == Some(&'"')).then_some((j - i - 1, j + 1))
}

/// A crate's modules: path (`build::freshness`) -> code without tests and comments.
fn modules(src: &Path) -> BTreeMap<String, String> {
    rust_files(src)
        .into_iter()
        .map(|path| {
            let rel = path.strip_prefix(src).unwrap().with_extension("");
            let mut parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(
                parts.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                parts.pop();
            }
            let text = std::fs::read_to_string(&path).unwrap();
            (parts.join("::"), code_only(&without_tests(&text)))
        })
        .collect()
}

/// The longest module of `mods` that `path` (`a::b::item`) is in.
fn owner<'a>(mods: &'a BTreeMap<String, String>, path: &[&str]) -> Option<&'a str> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].join("::"))
        .find_map(|m| mods.get_key_value(&m).map(|(k, _)| k.as_str()))
}

/// Paths written after `prefix` (`crate::`, `super::`, `child::`) in `code`, split at `::`.
fn paths_after<'a>(code: &'a str, prefix: &str) -> Vec<Vec<&'a str>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find(prefix) {
        let start = from + at;
        from = start + prefix.len();
        let before = code[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &code[from..];
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        out.push(rest[..end].split("::").filter(|s| !s.is_empty()).collect());
    }
    out
}

/// Module -> the modules its code names (`crate::`, `super::`, `self::` and its own children).
fn dependencies(mods: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut deps = BTreeMap::new();
    for (m, code) in mods {
        let own: Vec<&str> = if m.is_empty() {
            vec![]
        } else {
            m.split("::").collect()
        };
        let mut named = BTreeSet::new();
        let mut add = |base: &[&str], rest: &[&str]| {
            let full: Vec<&str> = base.iter().chain(rest).copied().collect();
            if let Some(o) = owner(mods, &full).filter(|o| o != m) {
                named.insert(o.to_owned());
            }
        };
        for p in paths_after(code, "crate::") {
            add(&[], &p);
        }
        for p in paths_after(code, "super::") {
            add(&own[..own.len().saturating_sub(1)], &p);
        }
        for p in paths_after(code, "self::") {
            add(&own, &p);
        }
        let children = mods.keys().filter_map(|k| {
            let rest = if m.is_empty() {
                Some(k.as_str())
            } else {
                k.strip_prefix(&format!("{m}::"))
            };
            rest.filter(|r| !r.is_empty() && !r.contains("::"))
        });
        for child in children {
            for p in paths_after(code, &format!("{child}::")) {
                let mut full = vec![child];
                full.extend(p);
                add(&own, &full);
            }
        }
        deps.insert(m.clone(), named);
    }
    deps
}

/// The strongly connected components of more than one module (Tarjan).
fn cycles(deps: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        deps: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        for w in s.deps.get(v).into_iter().flatten() {
            if !s.index.contains_key(w.as_str()) {
                visit(s, w);
                let lw = s.low[w.as_str()];
                s.low.entry(v).and_modify(|l| *l = (*l).min(lw));
            } else if s.stack.contains(&w.as_str()) {
                let iw = s.index[w.as_str()];
                s.low.entry(v).and_modify(|l| *l = (*l).min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let at = s.stack.iter().rposition(|x| *x == v).unwrap();
            let comp: Vec<String> = s.stack.drain(at..).map(str::to_owned).collect();
            if comp.len() > 1 {
                s.found.push(comp);
            }
        }
    }
    let mut s = State {
        deps,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in deps.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.found
}

fn crates() -> [(&'static str, PathBuf); 2] {
    let root = course_root();
    [
        ("grader", root.join("crates/grader/src")),
        ("xtask", root.join("xtask/src")),
    ]
}

#[test]
fn no_module_depends_on_itself_through_others() {
    let mut problems = Vec::new();
    for (name, src) in crates() {
        let mods = modules(&src);
        let deps = dependencies(&mods);
        for c in cycles(&deps) {
            problems.push(format!("{name}: modules in a cycle: {}", c.join(", ")));
        }
        // Between the top-level folders too: the layering docs/architecture.md describes.
        let top = |m: &str| m.split("::").next().unwrap_or("").to_owned();
        let mut folders: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (m, ds) in &deps {
            for d in ds {
                if top(m) != top(d) && !m.is_empty() && !d.is_empty() {
                    folders.entry(top(m)).or_default().insert(top(d));
                }
            }
        }
        for c in cycles(&folders) {
            problems.push(format!(
                "{name}: top-level modules in a cycle: {}",
                c.join(", ")
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The layers docs/architecture.md states for the grader's top-level modules, left to right: the
/// sentence that starts "Each uses only those to its left:", layers split at `←`, the modules of
/// one layer (which use none of each other) at `,`.
fn stated_layers(doc: &str) -> Vec<Vec<String>> {
    let start = doc
        .find("Each uses only those to its left:")
        .expect("docs/architecture.md states the modules' order");
    let paragraph = doc[start..].split("\n\n").next().unwrap_or_default();
    let order = paragraph.split_once(':').map_or("", |(_, o)| o);
    let order = order.split('.').next().unwrap_or_default();
    order
        .split('←')
        .map(|layer| {
            layer
                .split(',')
                .filter_map(|m| {
                    let name = m.trim().trim_matches('`');
                    (!name.is_empty()).then(|| name.to_owned())
                })
                .collect()
        })
        .collect()
}

/// What breaks the stated `layers` in `deps` (module -> the modules it names): a top-level module
/// the order leaves out or names twice, and a use of a module in its own layer or one to its right.
fn layering_problems(
    layers: &[Vec<String>],
    deps: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<String> {
    let mut rank: BTreeMap<&str, usize> = BTreeMap::new();
    let mut problems = Vec::new();
    for (i, layer) in layers.iter().enumerate() {
        for m in layer {
            if rank.insert(m.as_str(), i).is_some() {
                problems.push(format!("`{m}` is named twice in the stated order"));
            }
        }
    }
    let top = |m: &str| m.split("::").next().unwrap_or("").to_owned();
    for (m, ds) in deps {
        if m.is_empty() {
            continue;
        }
        let Some(&from) = rank.get(top(m).as_str()) else {
            problems.push(format!("`{}` is not in the stated order", top(m)));
            continue;
        };
        for d in ds.iter().filter(|d| !d.is_empty() && top(d) != top(m)) {
            match rank.get(top(d).as_str()) {
                Some(&to) if to < from => {}
                Some(_) => problems.push(format!(
                    "`{m}` uses `{d}`, which the stated order puts in its layer or to its right"
                )),
                None => problems.push(format!("`{}` is not in the stated order", top(d))),
            }
        }
    }
    problems.sort();
    problems.dedup();
    problems
}

#[test]
fn the_grader_uses_its_modules_in_the_order_the_docs_state() {
    let doc = std::fs::read_to_string(course_root().join("docs/architecture.md")).unwrap();
    let layers = stated_layers(&doc);
    assert!(layers.len() > 3, "the stated order: {layers:?}");
    let src = course_root().join("crates/grader/src");
    let problems = layering_problems(&layers, &dependencies(&modules(&src)));
    assert!(
        problems.is_empty(),
        "docs/architecture.md, \"The modules of crates/grader/src\", states an order the code \
         does not follow (change the code or the order):\n{}",
        problems.join("\n")
    );
}

/// `(first line, lines)` of every `fn` in `code` with a body.
fn functions(code: &str) -> Vec<(usize, usize, String)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(name) = fn_name(lines[i]) else {
            i += 1;
            continue;
        };
        let (mut depth, mut opened, mut j) = (0i32, false, i);
        'scan: while j < lines.len() {
            for ch in lines[j].chars() {
                match ch {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    ';' if !opened => break 'scan,
                    _ => {}
                }
                if opened && depth == 0 {
                    break 'scan;
                }
            }
            j += 1;
        }
        if opened {
            out.push((i + 1, j - i + 1, name));
            // Nested functions are inside their parent's count.
            i = j + 1;
        } else {
            i += 1;
        }
    }
    out
}

fn fn_name(line: &str) -> Option<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "fn")?;
    let ok = words[..at].iter().all(|w| {
        w.starts_with("pub") || matches!(*w, "const" | "async" | "unsafe" | "extern" | "\"C\"")
    });
    let name = words.get(at + 1)?;
    ok.then(|| name.split(['(', '<']).next().unwrap_or(name).to_owned())
}

#[test]
fn functions_and_files_stay_short_enough_to_read() {
    let mut problems = Vec::new();
    for (name, src) in crates() {
        for path in rust_files(&src) {
            let text = std::fs::read_to_string(&path).unwrap();
            let code = code_only(&without_tests(&text));
            let rel = path.strip_prefix(&src).unwrap().display().to_string();
            let lines = code.lines().count();
            if lines > MAX_FILE_LINES {
                problems.push(format!(
                    "{name}/{rel}: {lines} lines (at most {MAX_FILE_LINES})"
                ));
            }
            for (at, n, f) in functions(&code) {
                if n > MAX_FN_LINES {
                    problems.push(format!(
                        "{name}/{rel}:{at}: fn {f} is {n} lines (at most {MAX_FN_LINES})"
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_source_files_the_docs_name_exist() {
    let root = course_root();
    let mut docs = vec![root.join("README.md")];
    docs.extend(
        std::fs::read_dir(root.join("docs"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md")),
    );
    let mut missing = Vec::new();
    for doc in docs {
        let text = std::fs::read_to_string(&doc).unwrap();
        for word in text.split(|c: char| c.is_whitespace() || "`()[],;".contains(c)) {
            let word = word.trim_end_matches([':', '.']);
            let named = word.starts_with("crates/grader/") || word.starts_with("xtask/src/");
            if named && (word.ends_with(".rs") || word.ends_with('/')) && !root.join(word).exists()
            {
                missing.push(format!("{}: {word}", doc.file_name().unwrap().display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "the docs name files that do not exist:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_checker_sees_a_cycle_a_long_function_and_a_string_brace() {
    let mods: BTreeMap<String, String> = [
        ("a".to_owned(), "use crate::b::X; fn f() {}".to_owned()),
        (
            "b".to_owned(),
            "pub struct X; fn g() { crate::a::f() }".to_owned(),
        ),
        ("c".to_owned(), "use crate::a::f;".to_owned()),
    ]
    .into();
    assert_eq!(
        cycles(&dependencies(&mods)),
        vec![vec!["a".to_owned(), "b".to_owned()]]
    );
    let long = format!(
        "fn long() {{\n{}}}\nfn short() {{ \"}}\"; }}\n",
        "    x();\n".repeat(120)
    );
    let found = functions(&code_only(&long));
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!((found[0].1, found[1].1), (122, 1));
    let layers = stated_layers("Each uses only those to its left: `a` ← `b`, `c` ← `d`.\n\nNext.");
    assert_eq!(layers, [vec!["a"], vec!["b", "c"], vec!["d"]]);
    let deps = |pairs: &[(&str, &str)]| -> BTreeMap<String, BTreeSet<String>> {
        let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (m, d) in pairs {
            out.entry((*m).to_owned())
                .or_default()
                .insert((*d).to_owned());
        }
        out
    };
    assert!(layering_problems(&layers, &deps(&[("d::x", "b"), ("b", "a::y")])).is_empty());
    assert_eq!(
        layering_problems(&layers, &deps(&[("a", "d"), ("b", "c"), ("e", "a")])).len(),
        3,
        "a use to the right, one within a layer, a module the order leaves out"
    );
}

/// The grader's stage modules: a value that decides what a stage does is a type of its own
/// (`Side`, `Isolation`, `Sandbox`), never a `bool` in a public signature.
const STAGES: [&str; 7] = [
    "plan", "build", "run", "judge", "report", "grade", "request",
];

/// `(line, function)` of every `pub fn` or `pub(crate) fn` in `code` that takes a parameter whose
/// type names `bool`.
fn bool_parameters(code: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("fn ").map(|i| from + i) {
        from = at + 3;
        let mut before = code[..at].trim_end();
        while let Some(rest) = ["const", "async", "unsafe"]
            .iter()
            .find_map(|q| before.strip_suffix(q))
        {
            before = rest.trim_end();
        }
        let public = before.ends_with("pub") || before.ends_with("pub(crate)");
        let boundary = at == 0 || !code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        if !public || !boundary {
            continue;
        }
        let name: String = code[from..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        // The parameters: from the first `(` after the name (and its generics) to its match.
        let Some(open) = code[from..].find('(').map(|i| from + i) else {
            continue;
        };
        let mut depth = 0;
        let mut params = Vec::new();
        let mut current = String::new();
        for c in code[open..].chars() {
            match c {
                '(' | '<' | '[' => depth += 1,
                ')' | '>' | ']' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                break;
            }
            if c == ',' && depth == 1 {
                params.push(std::mem::take(&mut current));
            } else if depth > 1 || c != '(' {
                current.push(c);
            }
        }
        params.push(current);
        let takes_bool = params.iter().any(|p| {
            p.split_once(':').is_some_and(|(_, ty)| {
                ty.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .any(|word| word == "bool")
            })
        });
        if takes_bool {
            out.push((code[..at].lines().count().max(1), name));
        }
    }
    out
}

#[test]
fn no_stage_takes_a_bool_parameter_in_its_public_api() {
    let src = course_root().join("crates/grader/src");
    let mut problems = Vec::new();
    for stage in STAGES {
        let files = match src.join(stage) {
            dir if dir.is_dir() => rust_files(&dir),
            _ => vec![src.join(format!("{stage}.rs"))],
        };
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap();
            let rel = path.strip_prefix(&src).unwrap().display().to_string();
            for (line, f) in bool_parameters(&code_only(&without_tests(&text))) {
                problems.push(format!("{rel}:{line}: fn {f} takes a bool"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "a stage's public function takes a bool: give the choice a type of its own (an enum, \
         `Side`, `Isolation`, `Sandbox`):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_bool_checker_sees_a_planted_bool_parameter() {
    let planted = "impl Lesson {\n    pub fn crate_dir(&self, root: &Path, solutions: bool) -> PathBuf {\n        todo()\n    }\n}\npub(crate) fn build<'a>(\n    lessons: &[&'a Lesson],\n    sandboxed: Option<bool>,\n) {}\npub const fn tolerance(exact: bool) -> f64 { 0.0 }\n";
    assert_eq!(
        bool_parameters(planted),
        [
            (2, "crate_dir".to_owned()),
            (6, "build".to_owned()),
            (10, "tolerance".to_owned())
        ]
    );
    let fine = "pub fn new(isolation: Isolation, sandbox: Sandbox) -> bool { true }\nfn private(x: bool) {}\npub fn closure(f: &dyn Fn(usize) -> usize, boolean: Boolish) {}\npub fn is_solutions(self) -> bool { false }\n";
    assert!(
        bool_parameters(fine).is_empty(),
        "{:?}",
        bool_parameters(fine)
    );
}
