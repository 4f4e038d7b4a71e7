//! TypeScript types inferred from serde_json samples, and the .d.ts files written from them —
//! the machinery of tests/event_types.rs (which holds the samples and names the files).
//!
//! A sample's JSON gives a type: objects with their fields in order, arrays, numbers, strings,
//! booleans and nulls; several samples of one thing widen it (`T | null` when an Option was
//! seen both ways, `number | string` for evict.rs's scores). What JSON cannot say comes from
//! hints by path (`EvictionEvent.report.samples[]`): an object's name and the Rust struct whose
//! `///` docs document it, a string that is an enum (the union of the literals seen), an array
//! that is a tuple. Every hint must match something.

use std::collections::BTreeMap;

use serde_json::Value;

#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// The element of an empty list: a sample is missing (never left in the output).
    Never,
    Null,
    Bool,
    Num,
    Str,
    Lit(String),
    Arr(Box<Ty>),
    Tuple(Vec<(&'static str, Ty)>),
    Obj(Vec<(String, Ty)>),
    Union(Vec<Ty>),
    Ref(String),
}

#[derive(Clone, Copy)]
pub enum Hint {
    /// An object type named `ts`, documented by the Rust struct `rust`.
    Name { ts: &'static str, rust: &'static str },
    /// Strings from a Rust enum: the union of the literals seen, named.
    Enum(&'static str),
    /// An array that is a Rust tuple, with names for its members.
    Tuple(&'static [&'static str]),
}

/// One named type of the output.
struct Named {
    name: String,
    doc: String,
    rust: Option<&'static str>,
    ty: Ty,
}

pub struct Schema {
    hints: Vec<(&'static str, Hint, bool)>,
    named: Vec<Named>,
}

fn same_kind(a: &Ty, b: &Ty) -> bool {
    matches!((a, b), (Ty::Arr(_), Ty::Arr(_)) | (Ty::Obj(_), Ty::Obj(_)) | (Ty::Tuple(_), Ty::Tuple(_))) || a == b
}

fn members(t: Ty) -> Vec<Ty> {
    match t {
        Ty::Union(m) => m,
        Ty::Never => vec![],
        t => vec![t],
    }
}

/// The type of a value that is sometimes `a` and sometimes `b`.
pub fn merge(a: Ty, b: Ty, path: &str) -> Ty {
    match (a, b) {
        (Ty::Never, t) | (t, Ty::Never) => t,
        (a, b) if a == b => a,
        (Ty::Arr(x), Ty::Arr(y)) => Ty::Arr(Box::new(merge(*x, *y, &format!("{path}[]")))),
        (Ty::Obj(x), Ty::Obj(y)) => {
            let keys = |o: &[(String, Ty)]| o.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
            assert_eq!(keys(&x), keys(&y), "{path}: two samples have different fields");
            Ty::Obj(
                x.into_iter().zip(y).map(|((k, a), (_, b))| (k.clone(), merge(a, b, &format!("{path}.{k}")))).collect(),
            )
        }
        (Ty::Tuple(x), Ty::Tuple(y)) => {
            Ty::Tuple(x.into_iter().zip(y).map(|((k, a), (_, b))| (k, merge(a, b, &format!("{path}.{k}")))).collect())
        }
        (a, b) => {
            let mut out = members(a);
            for m in members(b) {
                match out.iter().position(|o| same_kind(o, &m)) {
                    Some(i) => {
                        let o = std::mem::replace(&mut out[i], Ty::Never);
                        out[i] = merge(o, m, path);
                    }
                    None => out.push(m),
                }
            }
            if out.len() == 1 {
                out.pop().unwrap()
            } else {
                Ty::Union(out)
            }
        }
    }
}

impl Schema {
    pub fn new(hints: &[(&'static str, Hint)]) -> Schema {
        Schema { hints: hints.iter().map(|&(p, h)| (p, h, false)).collect(), named: vec![] }
    }

    fn hint(&mut self, path: &str) -> Option<Hint> {
        let h = self.hints.iter_mut().find(|(p, _, _)| *p == path)?;
        h.2 = true;
        Some(h.1)
    }

    /// Adds (or widens) a named type: `ty` is what this sample showed.
    fn name(&mut self, name: &str, rust: Option<&'static str>, ty: Ty, path: &str) {
        match self.named.iter_mut().find(|n| n.name == name) {
            Some(n) => {
                let old = std::mem::replace(&mut n.ty, Ty::Never);
                n.ty = merge(old, ty, path);
            }
            None => self.named.push(Named { name: name.to_string(), doc: String::new(), rust, ty }),
        }
    }

    pub fn infer(&mut self, v: &Value, path: &str) -> Ty {
        let hint = self.hint(path);
        let ty = match v {
            Value::Null => Ty::Null,
            Value::Bool(_) => Ty::Bool,
            Value::Number(_) => Ty::Num,
            Value::String(s) if matches!(hint, Some(Hint::Enum(_))) => Ty::Lit(s.clone()),
            Value::String(_) => Ty::Str,
            Value::Array(items) => match hint {
                Some(Hint::Tuple(labels)) => {
                    assert_eq!(items.len(), labels.len(), "{path}: the tuple's length");
                    Ty::Tuple(
                        labels.iter().zip(items).map(|(l, it)| (*l, self.infer(it, &format!("{path}.{l}")))).collect(),
                    )
                }
                _ => {
                    let elem = format!("{path}[]");
                    let mut t = Ty::Never;
                    for it in items {
                        let i = self.infer(it, &elem);
                        t = merge(t, i, &elem);
                    }
                    Ty::Arr(Box::new(t))
                }
            },
            Value::Object(map) => {
                Ty::Obj(map.iter().map(|(k, v)| (k.clone(), self.infer(v, &format!("{path}.{k}")))).collect())
            }
        };
        match hint {
            Some(Hint::Name { .. }) if ty == Ty::Null => ty,
            Some(Hint::Name { ts, rust }) => {
                assert!(matches!(ty, Ty::Obj(_)), "{path}: the hint names an object, but it is not one");
                self.name(ts, Some(rust), ty, path);
                Ty::Ref(ts.to_string())
            }
            Some(Hint::Enum(name)) => {
                assert!(matches!(ty, Ty::Lit(_)), "{path}: the hint says enum, but it is not a string");
                self.name(name, None, ty, path);
                Ty::Ref(name.to_string())
            }
            _ => ty,
        }
    }

    /// A top-level type from its samples: `name` is also the root of the hints' paths.
    pub fn root(&mut self, name: &str, rust: Option<&'static str>, samples: &[Value], fix: impl Fn(Ty) -> Ty) {
        let mut ty = Ty::Never;
        for s in samples {
            let t = self.infer(s, name);
            ty = merge(ty, t, name);
        }
        self.name(name, rust, fix(ty), name);
    }

    pub fn doc(&mut self, name: &str, doc: &str) {
        let n = self.named.iter_mut().find(|n| n.name == name).expect("a named type");
        n.doc = doc.to_string();
    }

    pub fn unused_hints(&self) -> Vec<&'static str> {
        self.hints.iter().filter(|h| !h.2).map(|h| h.0).collect()
    }
}

/// A variant's object with its `kind` as a literal (serde's internal tag).
fn tagged(kind: &str) -> impl Fn(Ty) -> Ty + '_ {
    move |t| match t {
        Ty::Obj(fields) => Ty::Obj(
            fields
                .into_iter()
                .map(|(k, t)| if k == "kind" { (k, Ty::Lit(kind.to_string())) } else { (k, t) })
                .collect(),
        ),
        t => panic!("{kind}: a tagged variant is not an object: {t:?}"),
    }
}

pub fn render(t: &Ty, path: &str) -> String {
    match t {
        Ty::Never => panic!("{path}: every sample of this list is empty; give one with an element"),
        Ty::Null => "null".into(),
        Ty::Bool => "boolean".into(),
        Ty::Num => "number".into(),
        Ty::Str => "string".into(),
        Ty::Lit(s) => serde_json::to_string(s).unwrap(),
        Ty::Ref(n) => n.clone(),
        Ty::Arr(x) => match **x {
            Ty::Union(_) => format!("({})[]", render(x, path)),
            _ => format!("{}[]", render(x, path)),
        },
        Ty::Tuple(items) => {
            let parts: Vec<String> = items.iter().map(|(l, t)| format!("{l}: {}", render(t, path))).collect();
            format!("[{}]", parts.join(", "))
        }
        Ty::Obj(_) => panic!("{path}: an object without a name; add a Hint::Name for it"),
        Ty::Union(ms) => {
            // Null last, the rest in the order first seen.
            let mut parts: Vec<String> = ms.iter().filter(|m| **m != Ty::Null).map(|m| render(m, path)).collect();
            if ms.contains(&Ty::Null) {
                parts.push("null".into());
            }
            parts.join(" | ")
        }
    }
}

/// `///` docs of a Rust source: `Type` → its doc, `Type.member` → a field's or variant's doc.
pub fn rust_docs(src: &str) -> BTreeMap<String, String> {
    let mut docs = BTreeMap::new();
    let mut pending: Vec<String> = vec![];
    let mut current: Option<String> = None;
    for line in src.lines() {
        let t = line.trim();
        if let Some(d) = t.strip_prefix("///") {
            pending.push(d.strip_prefix(' ').unwrap_or(d).to_string());
            continue;
        }
        if t.starts_with("#[") {
            continue;
        }
        let doc = pending.join("\n");
        pending.clear();
        let item = ["pub struct ", "pub enum "].iter().find_map(|p| t.strip_prefix(p));
        if let Some(rest) = item {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !doc.is_empty() {
                docs.insert(name.clone(), doc);
            }
            current = if t.ends_with('{') { Some(name) } else { None };
            continue;
        }
        if line.starts_with('}') {
            current = None;
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        if let (Some(cur), 4, false) = (&current, indent, doc.is_empty()) {
            let ident: String =
                t.trim_start_matches("pub ").chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !ident.is_empty() {
                docs.insert(format!("{cur}.{ident}"), doc);
            }
        }
    }
    docs
}

fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn comment(doc: &str, indent: &str) -> String {
    if doc.is_empty() {
        return String::new();
    }
    let doc = doc.replace("*/", "*\\/");
    let lines: Vec<&str> = doc.lines().collect();
    if lines.len() == 1 {
        return format!("{indent}/** {} */\n", lines[0]);
    }
    let mut out = format!("{indent}/**\n");
    for l in lines {
        out.push_str(&format!("{indent} *{}{l}\n", if l.is_empty() { "" } else { " " }));
    }
    out.push_str(&format!("{indent} */\n"));
    out
}

pub fn write_types(schema: &Schema, docs: &BTreeMap<String, String>, header: &str, tail: &str) -> String {
    let mut out = String::from(header);
    for n in &schema.named {
        out.push('\n');
        let doc = if n.doc.is_empty() {
            n.rust.and_then(|r| docs.get(r)).cloned().unwrap_or_default()
        } else {
            n.doc.clone()
        };
        out.push_str(&comment(&doc, ""));
        match &n.ty {
            Ty::Obj(fields) => {
                out.push_str(&format!("export interface {} {{\n", n.name));
                for (k, t) in fields {
                    let field_doc = n.rust.and_then(|r| {
                        docs.get(&format!("{r}.{k}")).or_else(|| docs.get(&format!("{r}.{}", snake_case(k))))
                    });
                    out.push_str(&comment(field_doc.map(String::as_str).unwrap_or(""), "  "));
                    out.push_str(&format!("  {k}: {};\n", render(t, &format!("{}.{k}", n.name))));
                }
                out.push_str("}\n");
            }
            t => out.push_str(&format!("export type {} = {};\n", n.name, render(t, &n.name))),
        }
    }
    out.push_str(tail);
    out
}

/// Compares with the committed file; `REDISPLAY_REGEN=1` writes it instead.
pub fn check_file(rel: &str, generated: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed == generated {
        return;
    }
    if std::env::var_os("REDISPLAY_REGEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, generated).unwrap();
        eprintln!("event_types: wrote {rel}");
        return;
    }
    let (a, b): (Vec<&str>, Vec<&str>) = (committed.lines().collect(), generated.lines().collect());
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..].iter().rev().zip(b[head..].iter().rev()).take_while(|(x, y)| x == y).count();
    let mut diff = format!("@@ line {} @@\n", head + 1);
    for l in &a[head..a.len() - tail] {
        diff.push_str(&format!("-{l}\n"));
    }
    for l in &b[head..b.len() - tail] {
        diff.push_str(&format!("+{l}\n"));
    }
    panic!(
        "{rel} is not what the Rust types give (- committed, + generated):\n{diff}\n\
         If the change is intended, update the views that read it and run\n  \
         REDISPLAY_REGEN=1 cargo test --test event_types"
    );
}

fn pascal_case(snake: &str) -> String {
    snake
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default()
        })
        .collect()
}

/// Groups tagged samples by `kind`, in the order first seen: `[(kind, samples)]`.
fn by_kind(values: Vec<Value>) -> Vec<(String, Vec<Value>)> {
    let mut out: Vec<(String, Vec<Value>)> = vec![];
    for v in values {
        let kind = v["kind"].as_str().expect("a tagged variant has a kind").to_string();
        match out.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, list)) => list.push(v),
            None => out.push((kind, vec![v])),
        }
    }
    out
}

/// Each variant of a tagged enum as `<union_name><Variant>Event`, then the union.
pub fn tagged_union(
    schema: &mut Schema,
    docs: &BTreeMap<String, String>,
    rust_enum: &str,
    union_name: &str,
    samples: Vec<Value>,
) -> String {
    let mut names = vec![];
    let prefix = union_name.strip_suffix("Event").unwrap_or(union_name);
    for (kind, values) in by_kind(samples) {
        let name = format!("{prefix}{}Event", pascal_case(&kind));
        schema.root(&name, None, &values, tagged(&kind));
        let doc = docs.get(&format!("{rust_enum}.{}", pascal_case(&kind))).cloned().unwrap_or_default();
        schema.doc(&name, &doc);
        names.push(name);
    }
    let doc = comment(docs.get(rust_enum).map(String::as_str).unwrap_or(""), "");
    format!(
        "\n{doc}export type {union_name} =\n{};\n",
        names.iter().map(|n| format!("  | {n}")).collect::<Vec<_>>().join("\n")
    )
}
