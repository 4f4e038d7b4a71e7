//! redis-cli's help entries and what it builds from them: models redis-cli.c 7.0
//! `cliInitHelp()` (one entry per command and subcommand, its argument synopsis built from
//! COMMAND DOCS by `cliAddArgument()`/`cliConcatArguments()`), `cliOutputHelp()` (`help …`)
//! and the linenoise `hintsCallback()` (the grey argument hint drawn after the cursor).
//!
//! The entries come from the engine's command table, i.e. the COMMAND DOCS recorded from
//! redis-server 7.0.15 for the commands the engine has — what redis-cli builds when it connects
//! to `redisplay serve`. The synopses are computed once (they are static data) and shared.
//!
//! The hint, as redis-cli 7.0 computes it: split the line as `sdssplitargs()` does (no hint
//! for an empty line or unbalanced quotes); find the entry whose words are the longest prefix of
//! the arguments, case-insensitively; drop one leading word of its synopsis per argument typed
//! beyond the command's own words, stopping at the first optional one (`[`); put a space in
//! front unless the line already ends in one. So `SET k` hints ` value [NX|XX] …`, and the
//! hint stops shrinking at the first optional argument.

use std::sync::OnceLock;

use crate::command::call::{doc_field, Command};
use crate::command::table::table;
use crate::reply::Reply;
use crate::tokenize::split_args;
use crate::util::{c_str, is_c_space};

/// One command or subcommand as redis-cli lists it.
pub(super) struct HelpEntry {
    pub cmd: &'static Command,
    /// `["config", "get"]`.
    pub words: Vec<String>,
    /// The argument synopsis: `key value [NX|XX] …`.
    pub params: String,
}

/// Every command, then its subcommands, in the table's order.
pub(super) fn entries() -> &'static [HelpEntry] {
    static ENTRIES: OnceLock<Vec<HelpEntry>> = OnceLock::new();
    ENTRIES.get_or_init(|| {
        let mut out = Vec::new();
        for c in &table().commands {
            for cmd in std::iter::once(c).chain(c.subcommands.iter()) {
                out.push(HelpEntry {
                    cmd,
                    words: cmd.name.split('|').map(str::to_string).collect(),
                    params: command_params(cmd),
                });
            }
        }
        out
    })
}

// ---------------------------------------------------------------------------------------------
// Hints — redis-cli.c `hintsCallback()`
// ---------------------------------------------------------------------------------------------

/// The grey hint redis-cli 7.0 draws after `line` (with its leading space when the line does
/// not end in one), or `None` when it draws none.
pub fn hint(line: &[u8]) -> Option<String> {
    let line = c_str(line);
    let argv = split_args(line)?;
    if argv.is_empty() {
        return None;
    }
    let endspace = line.last().is_some_and(|&c| is_c_space(c));
    // strcasecmp: an argument is compared up to its first NUL.
    let matches = |word: &str, arg: &Vec<u8>| c_str(arg).eq_ignore_ascii_case(word.as_bytes());
    let mut best: Option<&HelpEntry> = None;
    for e in entries() {
        let n = e.words.len();
        if n <= argv.len()
            && n > best.map_or(0, |b| b.words.len())
            && e.words.iter().zip(&argv).all(|(w, a)| matches(w, a))
        {
            best = Some(e);
        }
    }
    let entry = best?;
    let mut hint = entry.params.as_bytes();
    let mut toremove = argv.len() - entry.words.len();
    while toremove > 0 && !hint.is_empty() {
        if hint[0] == b'[' {
            break;
        }
        if hint[0] == b' ' {
            toremove -= 1;
        }
        hint = &hint[1..];
    }
    // The synopsis is ASCII from the docs, cut at an ASCII byte: still valid text.
    let hint = String::from_utf8_lossy(hint);
    Some(if endspace { hint.into_owned() } else { format!(" {hint}") })
}

// ---------------------------------------------------------------------------------------------
// help — redis-cli.c `cliOutputHelp()`
// ---------------------------------------------------------------------------------------------

const BANNER: &str = "redis-cli 7.0.15
To get help about Redis commands type:
      \"help @<group>\" to get a list of commands in <group>
      \"help <command>\" for help on <command>
      \"help <tab>\" to get a list of possible help topics
      \"quit\" to exit

To set redis-cli preferences:
      \":set hints\" enable online hints
      \":set nohints\" disable online hints
Set your preferences in ~/.redisclirc
";

/// What `help` with these arguments prints.
pub fn help(args: &[Vec<u8>]) -> Vec<u8> {
    if args.is_empty() {
        return BANNER.as_bytes().to_vec();
    }
    let mut out = b"\r\n".to_vec();
    let group = args[0].strip_prefix(b"@").map(|g| g.to_ascii_lowercase());
    for entry in entries() {
        let cmd = entry.cmd;
        let words = &entry.words;
        let matched = match &group {
            Some(g) => cmd.group.as_bytes() == g.as_slice(),
            None => {
                words.len() >= args.len() && args.iter().zip(words).all(|(a, w)| a.eq_ignore_ascii_case(w.as_bytes()))
            }
        };
        if !matched {
            continue;
        }
        let title = words.join(" ").to_ascii_uppercase();
        out.extend(format!("  \x1b[1m{title}\x1b[0m \x1b[90m{}\x1b[0m\r\n", entry.params).as_bytes());
        out.extend(format!("  \x1b[33msummary:\x1b[0m {}\r\n", cmd.summary).as_bytes());
        out.extend(format!("  \x1b[33msince:\x1b[0m {}\r\n", cmd.since).as_bytes());
        if group.is_none() {
            out.extend(format!("  \x1b[33mgroup:\x1b[0m {}\r\n", cmd.group).as_bytes());
        }
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// The argument synopsis redis-cli builds from a command's documented arguments.
fn command_params(cmd: &Command) -> String {
    let docs = cmd.docs.as_resp2();
    match doc_field(&docs, "arguments") {
        Some(Reply::Array(args)) => concat_args(args, " "),
        _ => String::new(),
    }
}

fn concat_args(args: &[Reply], sep: &str) -> String {
    args.iter().map(add_argument).collect::<Vec<_>>().join(sep)
}

fn text_of(r: Option<&Reply>) -> String {
    match r {
        Some(Reply::Bulk(b)) => String::from_utf8_lossy(b).into_owned(),
        Some(Reply::Status(s)) => s.clone(),
        _ => String::new(),
    }
}

/// redis-cli.c `cliAddArgument()`: `[TOKEN name]`, `a|b` for oneof, `name [name ...]`.
fn add_argument(arg: &Reply) -> String {
    let name = text_of(doc_field(arg, "name"));
    let kind = text_of(doc_field(arg, "type"));
    let token = text_of(doc_field(arg, "token"));
    let flags: Vec<String> = match doc_field(arg, "flags") {
        Some(Reply::Array(f)) => f.iter().map(|x| text_of(Some(x))).collect(),
        _ => vec![],
    };
    let optional = flags.iter().any(|f| f == "optional");
    let multiple = flags.iter().any(|f| f == "multiple");
    let children = match doc_field(arg, "arguments") {
        Some(Reply::Array(a)) => a.as_slice(),
        _ => &[],
    };
    let repeat = match kind.as_str() {
        "oneof" => concat_args(children, "|"),
        "block" => concat_args(children, " "),
        "pure-token" => String::new(),
        _ => name,
    };
    let mut token_part = token;
    if !token_part.is_empty() && kind != "pure-token" {
        token_part.push(' ');
    }
    let mut s = String::new();
    if optional {
        s.push('[');
    }
    s.push_str(&token_part);
    s.push_str(&repeat);
    if multiple {
        s.push_str(&format!(" [{repeat} ...]"));
    }
    if optional {
        s.push(']');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_renders_documented_arguments() {
        let text = String::from_utf8(help(&[b"set".to_vec()])).unwrap();
        assert!(text.contains("key value [NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]"), "{text}");
    }

    /// Typed into an interactive redis-cli 7.0.15 (connected to redis-server 7.0.15, in a pty,
    /// without Enter), with the hint linenoise drew after each: `null` where it drew none. The
    /// text between `\x1b[0;90;49m` and `\x1b[0m` of its last refresh, byte for byte.
    const RECORDED: &str = include_str!("hints-recorded.jsonl");

    #[test]
    fn hints_match_redis_cli() {
        let mut checked = 0;
        for line in RECORDED.lines().filter(|l| !l.trim().is_empty()) {
            let (input, want) = parse_recorded(line);
            assert_eq!(hint(input.as_bytes()), want, "hint for {input:?}");
            checked += 1;
        }
        assert!(checked >= 60, "{checked} recorded hints");
    }

    /// `["input", "hint"]` or `["input", null]`: the JSON the recording script printed.
    fn parse_recorded(line: &str) -> (String, Option<String>) {
        let mut chars = line.trim().chars().peekable();
        let mut strings = Vec::new();
        while let Some(c) = chars.next() {
            match c {
                '"' => {
                    let mut s = String::new();
                    while let Some(c) = chars.next() {
                        match c {
                            '"' => break,
                            '\\' => match chars.next() {
                                Some('n') => s.push('\n'),
                                Some('t') => s.push('\t'),
                                Some('r') => s.push('\r'),
                                Some('u') => {
                                    let hex: String = chars.by_ref().take(4).collect();
                                    s.push(char::from_u32(u32::from_str_radix(&hex, 16).expect(line)).expect(line));
                                }
                                Some(other) => s.push(other),
                                None => panic!("{line}"),
                            },
                            c => s.push(c),
                        }
                    }
                    strings.push(Some(s));
                }
                'n' => {
                    assert_eq!(chars.by_ref().take(3).collect::<String>(), "ull", "{line}");
                    strings.push(None);
                }
                _ => {}
            }
        }
        assert_eq!(strings.len(), 2, "{line}");
        (strings[0].clone().expect(line), strings[1].clone())
    }

    #[test]
    fn no_hint_for_nothing_or_unbalanced_quotes() {
        assert_eq!(hint(b""), None);
        assert_eq!(hint(b"   "), None);
        assert_eq!(hint(b"set \"k"), None);
        assert_eq!(hint(b"nosuch"), None);
        // Past the synopsis: nothing left but the space.
        assert_eq!(hint(b"get a b c d").as_deref(), Some(" "));
    }
}
