//! The module graph of src/, pinned: which files import which (by `crate::`, `super::` and
//! `self::` paths, in `use` lines and inline, outside comments, strings and `#[cfg(test)]`
//! modules), and the circles it has. Rust allows circular imports; a circle means none of its
//! files can be read, tested or replaced without the others. The one circle left is Redis's own
//! re-entrancy, and `src/lib.rs` names its files under "The circle": this test fails when the
//! circle grows, shrinks or another appears, so the list and the code cannot drift.
//!
//! `cargo test --test module_graph -- --nocapture` prints every file's imports and the circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under src/ (but the binaries), keyed by its module path (`engine::keyspace`).
fn modules() -> BTreeMap<String, PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "bin") {
                    walk(&path, out);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&src_dir(), &mut files);
    let mut map = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(src_dir()).unwrap().with_extension("");
        let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
            parts.pop();
        }
        map.insert(parts.join("::"), f);
    }
    map
}

/// The source without comments, string/char literals and `#[cfg(test)]` items.
fn code_of(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if b[i] == b'r'
            && (b[i..].starts_with(b"r#") || b[i..].starts_with(b"r\""))
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
            if b.get(i + 1 + hashes) != Some(&b'"') {
                out.push('r');
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
            i += 2 + hashes;
            while i < b.len() && !b[i..].starts_with(&close) {
                i += 1;
            }
            i += close.len();
            out.push_str("\"\"");
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' && (b.get(i + 2) == Some(&b'\'') || b.get(i + 1) == Some(&b'\\')) {
            // A char literal ('x', '\n', '\''); lifetimes ('a) are left alone.
            i += 1;
            while i < b.len() && b[i] != b'\'' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    strip_cfg_test(&out)
}

/// Drops each `#[cfg(test)]` item (a `mod tests { … }` or a single fn/use).
fn strip_cfg_test(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        let brace = after.find('{');
        let semi = after.find(';');
        let end = match (brace, semi) {
            (Some(b), Some(s)) if s < b => s + 1,
            (Some(b), _) => {
                let mut depth = 0;
                let mut end = after.len();
                for (j, c) in after[b..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = b + j + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (None, Some(s)) => s + 1,
            (None, None) => after.len(),
        };
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// Every path the code names from `crate`, `super` or `self`, as absolute segment lists; `use`
/// trees (`use crate::a::{b, c::d}`) are expanded.
fn paths_in(code: &str, module: &str) -> Vec<Vec<String>> {
    let here: Vec<String> = if module.is_empty() { vec![] } else { module.split("::").map(String::from).collect() };
    // `super` is the parent module (of a mod.rs: the folder's parent).
    let parent: Vec<String> = here[..here.len().saturating_sub(1)].to_vec();
    let absolute = |segs: &[String]| -> Option<Vec<String>> {
        let (base, rest): (Vec<String>, &[String]) = match segs.first().map(String::as_str) {
            Some("crate") => (vec![], &segs[1..]),
            Some("super") => {
                let mut base = parent.clone();
                let mut rest = &segs[1..];
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop();
                    rest = &rest[1..];
                }
                (base, rest)
            }
            Some("self") => (here.clone(), &segs[1..]),
            _ => return None,
        };
        Some(base.into_iter().chain(rest.iter().cloned()).collect())
    };
    let mut out = Vec::new();
    // `use` trees.
    let mut rest = code;
    while let Some(at) = find_word(rest, "use") {
        let tail = &rest[at + 3..];
        let Some(end) = tail.find(';') else { break };
        // `a as b` renames keep their left side: mark them, then drop the whitespace.
        let words: Vec<&str> = tail[..end].split_whitespace().collect();
        let tree: String = words.join(" ").replace(" as ", "@").chars().filter(|c| !c.is_whitespace()).collect();
        for p in expand_use_tree(&tree) {
            let segs: Vec<String> = p.split("::").map(String::from).collect();
            if let Some(abs) = absolute(&segs) {
                out.push(abs);
            }
        }
        rest = &tail[end..];
    }
    // Inline paths: `crate::x::y`, `super::x`, `self::x`.
    let bytes = code.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(pos) = code[from..].find(start) {
            let at = from + pos;
            from = at + start.len();
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_' || bytes[at - 1] == b':') {
                continue;
            }
            let len = code[at..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':')).unwrap_or(0);
            let segs: Vec<String> =
                code[at..at + len].split("::").filter(|s| !s.is_empty()).map(String::from).collect();
            if let Some(abs) = absolute(&segs) {
                out.push(abs);
            }
        }
    }
    out
}

fn find_word(s: &str, word: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(pos) = s[from..].find(word) {
        let at = from + pos;
        let before_ok = at == 0 || !(b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_');
        let after = b.get(at + word.len()).copied().unwrap_or(b' ');
        if before_ok && after.is_ascii_whitespace() {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// `a::{b,c::{d,e}}` → `a::b`, `a::c::d`, `a::c::e`.
fn expand_use_tree(tree: &str) -> Vec<String> {
    let tree = tree.trim_start_matches("::");
    let Some(open) = tree.find('{') else {
        let plain = tree.split('@').next().unwrap_or(tree);
        return vec![plain.trim_end_matches("::*").to_string()];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut items = Vec::new();
    let (mut depth, mut last) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[last..i]);
                last = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[last..]);
    let mut out = Vec::new();
    for item in items.into_iter().filter(|i| !i.is_empty()) {
        for sub in expand_use_tree(item) {
            if sub == "self" {
                out.push(prefix.trim_end_matches("::").to_string());
            } else {
                out.push(format!("{prefix}{sub}"));
            }
        }
    }
    out
}

/// Paths that start with the name of one of `module`'s own child modules (`use vm::Vm;`,
/// `call::run(…)`), which 2018+ Rust resolves relative to the module.
fn child_paths(code: &str, module: &str, children: &[String]) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    for child in children {
        let needle = format!("{child}::");
        let mut from = 0;
        while let Some(pos) = code[from..].find(&needle) {
            let at = from + pos;
            from = at + needle.len();
            let before = if at > 0 { bytes[at - 1] } else { b' ' };
            // `x.call::<T>()` is a turbofish, not a path.
            if before.is_ascii_alphanumeric() || matches!(before, b'_' | b':' | b'.') {
                continue;
            }
            let mut path: Vec<String> = module.split("::").filter(|s| !s.is_empty()).map(String::from).collect();
            path.push(child.clone());
            out.push(path);
        }
    }
    out
}

/// The methods each module adds to `Engine` (`impl Engine { fn name(` … `}`): calling one is a
/// dependency on that file as real as an import, though Rust needs no `use` for it.
fn engine_methods(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for block in engine_impls(code) {
        let mut from = 0;
        while let Some(pos) = block[from..].find("fn ") {
            let at = from + pos;
            from = at + 3;
            let before = if at > 0 { block.as_bytes()[at - 1] } else { b' ' };
            if before.is_ascii_alphanumeric() || before == b'_' {
                continue;
            }
            let name: String = block[at + 3..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
    }
    out
}

/// The bodies of the file's `impl Engine { … }` blocks.
fn engine_impls(code: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("impl Engine {") {
        let body = &rest[at + "impl Engine ".len()..];
        let mut depth = 0;
        let mut end = body.len();
        for (i, c) in body.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push(&body[..end]);
        rest = &body[end..];
    }
    out
}

/// Whether `code` calls the Engine method `name`: on `e.`/`engine.` anywhere, on `self.` inside
/// an `impl Engine` block.
fn calls_engine_method(code: &str, name: &str) -> bool {
    let called_on = |text: &str, receiver: &str| {
        let needle = format!("{receiver}.{name}(");
        text.match_indices(&needle).any(|(at, _)| {
            at == 0 || !matches!(text.as_bytes()[at - 1], b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'.')
        })
    };
    ["e", "engine"].iter().any(|r| called_on(code, r)) || engine_impls(code).iter().any(|b| called_on(b, "self"))
}

/// file module → the modules it depends on: what it imports (the longest module prefix of each
/// path) and whose `Engine` methods it calls; itself excluded. A parent's `mod child;` line is
/// containment, not an import.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mods = modules();
    let codes: BTreeMap<&String, String> =
        mods.iter().map(|(m, f)| (m, code_of(&std::fs::read_to_string(f).unwrap()))).collect();
    // Engine method name → the one module defining it (names defined twice are skipped).
    let mut defined: BTreeMap<String, Option<String>> = BTreeMap::new();
    for (m, code) in &codes {
        for name in engine_methods(code) {
            defined.entry(name).and_modify(|d| *d = None).or_insert_with(|| Some((*m).clone()));
        }
    }
    let mut g = BTreeMap::new();
    for (module, file) in &mods {
        let _ = file;
        let code = &codes[module];
        let prefix = if module.is_empty() { String::new() } else { format!("{module}::") };
        let children: Vec<String> = mods
            .keys()
            .filter_map(|m| m.strip_prefix(&prefix).filter(|rest| !rest.is_empty() && !rest.contains("::")))
            .map(String::from)
            .collect();
        let mut deps = BTreeSet::new();
        let found = paths_in(code, module).into_iter().chain(child_paths(code, module, &children));
        for path in found {
            let target = (0..=path.len()).rev().map(|n| path[..n].join("::")).find(|p| mods.contains_key(p));
            if let Some(t) = target {
                if &t != module && !t.is_empty() {
                    deps.insert(t);
                }
            }
        }
        for (name, owner) in &defined {
            let Some(owner) = owner else { continue };
            if owner != module && calls_engine_method(code, name) {
                deps.insert(owner.clone());
            }
        }
        g.insert(module.clone(), deps);
    }
    g
}

/// Tarjan's strongly connected components with more than one module.
fn circles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        next: usize,
        out: Vec<BTreeSet<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        t.index.insert(v, t.next);
        t.low.insert(v, t.next);
        t.next += 1;
        t.stack.push(v);
        t.on.insert(v);
        for w in t.g[v].iter() {
            let w = w.as_str();
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = BTreeSet::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                comp.insert(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                t.out.push(comp);
            }
        }
    }
    let mut t =
        T { g, index: BTreeMap::new(), low: BTreeMap::new(), stack: vec![], on: BTreeSet::new(), next: 0, out: vec![] };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

/// The modules lib.rs lists under its "The circle" heading (`//! - \`a::b\`` lines).
fn documented_circle() -> BTreeSet<String> {
    let lib = std::fs::read_to_string(src_dir().join("lib.rs")).unwrap();
    let mut in_section = false;
    let mut out = BTreeSet::new();
    for line in lib.lines() {
        let Some(doc) = line.strip_prefix("//!") else { continue };
        let doc = doc.trim();
        if doc.starts_with("## ") {
            in_section = doc.starts_with("## The circle");
            continue;
        }
        if in_section {
            let is_module_path = |n: &&str| {
                n.split("::").all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
            };
            for name in doc.split('`').skip(1).step_by(2).filter(is_module_path) {
                out.insert(name.to_string());
            }
        }
    }
    out
}

#[test]
fn the_only_circle_is_the_documented_one() {
    let g = graph();
    for (m, deps) in &g {
        println!("{m} -> {}", deps.iter().cloned().collect::<Vec<_>>().join(", "));
    }
    let found = circles(&g);
    for c in &found {
        println!("circle of {}: {}", c.len(), c.iter().cloned().collect::<Vec<_>>().join(", "));
    }
    assert!(found.len() <= 1, "more than one import circle: {found:#?}");
    let circle = found.into_iter().next().unwrap_or_default();
    let documented = documented_circle();
    let missing: Vec<_> = circle.difference(&documented).collect();
    let stale: Vec<_> = documented.difference(&circle).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "the import circle differs from the one src/lib.rs documents under \"## The circle\":\n  \
         in the circle but not listed: {missing:?}\n  listed but not in the circle: {stale:?}"
    );
}

#[test]
fn the_graph_reader_sees_imports() {
    let code = code_of(
        "use crate::a::{b, c::{d, e as f}};\n// use crate::nope;\nfn x() { let s = \"crate::str\"; crate::g::h(); \
         super::i::j(); }\n#[cfg(test)]\nmod tests { use crate::k; }\n",
    );
    let paths: Vec<String> = paths_in(&code, "m::n").iter().map(|p| p.join("::")).collect();
    assert!(paths.contains(&"a::b".to_string()));
    assert!(paths.contains(&"a::c::d".to_string()));
    assert!(paths.contains(&"a::c::e".to_string()));
    assert!(paths.contains(&"g::h".to_string()));
    assert!(paths.contains(&"m::i::j".to_string()));
    assert!(!paths.iter().any(|p| p.contains("nope") || p.contains("str") || p == "k"), "{paths:?}");
}

/// The `//!` header of a file, as one text.
fn header_docs(text: &str) -> String {
    text.lines()
        .take_while(|l| l.starts_with("//!") || l.trim().is_empty())
        .filter_map(|l| l.strip_prefix("//!"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Backticked words of a text.
fn backticked(text: &str) -> Vec<String> {
    text.split('`').skip(1).step_by(2).map(String::from).collect()
}

#[test]
fn every_folder_header_names_its_files_and_no_others() {
    let mods = modules();
    let mut problems = Vec::new();
    for (module, file) in &mods {
        let name = file.file_name().unwrap().to_string_lossy();
        if name != "mod.rs" && name != "lib.rs" {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        let docs = header_docs(&text);
        let words = backticked(&docs);
        let prefix = if module.is_empty() { String::new() } else { format!("{module}::") };
        let children: BTreeSet<String> = mods
            .keys()
            .filter_map(|m| m.strip_prefix(&prefix).filter(|rest| !rest.is_empty() && !rest.contains("::")))
            .map(String::from)
            .collect();
        let named =
            |child: &str| words.iter().any(|w| w == child || *w == format!("{child}.rs") || *w == format!("{child}/"));
        for child in &children {
            if !named(child) {
                problems.push(format!("{}: its header does not name `{child}`", file.display()));
            }
        }
        // A file name the header mentions must exist beside it.
        let dir = file.parent().unwrap();
        for w in &words {
            if let Some(stem) = w.strip_suffix(".rs").filter(|s| !s.contains('/')) {
                if !dir.join(w).exists() {
                    problems.push(format!(
                        "{}: its header names `{w}`, which is not in {}",
                        file.display(),
                        dir.display()
                    ));
                }
                let _ = stem;
            }
        }
        // lib.rs's map: every plain lowercase word in backticks is a module.
        if module.is_empty() {
            let map = docs.split("## Map").nth(1).unwrap_or("").split("## ").next().unwrap_or("");
            for w in backticked(map) {
                if w.chars().all(|c| c.is_ascii_lowercase() || c == '_') && !children.contains(&w) {
                    problems.push(format!("src/lib.rs's map names `{w}`, which is not a module"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "module maps out of date:\n{}", problems.join("\n"));
}
