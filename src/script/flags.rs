//! Script flags — script.c `scripts_flags_def` and eval.c `evalExtractShebangFlags()`: what
//! an EVAL'd script's `#!lua flags=…` shebang, or a function's `flags` (functions.rs),
//! declares.

use crate::reply::Reply;

/// The flags a `#!lua flags=…` shebang declares (script.h `SCRIPT_FLAG_*`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScriptFlags {
    /// Declared with a shebang (no shebang = `SCRIPT_FLAG_EVAL_COMPAT_MODE`).
    pub shebang: bool,
    pub no_writes: bool,
    pub allow_oom: bool,
    pub allow_stale: bool,
    pub no_cluster: bool,
    pub allow_cross_slot_keys: bool,
}

/// script.c `scripts_flags_def`: the flags' names, in the order FUNCTION LIST prints them.
pub const NAMES: [&str; 5] = ["no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys"];

impl ScriptFlags {
    fn slot(&mut self, i: usize) -> &mut bool {
        match i {
            0 => &mut self.no_writes,
            1 => &mut self.allow_oom,
            2 => &mut self.allow_stale,
            3 => &mut self.no_cluster,
            _ => &mut self.allow_cross_slot_keys,
        }
    }

    /// Sets the flag named `name` (exactly as `NAMES` spells it); false if there is none.
    pub fn set(&mut self, name: &[u8]) -> bool {
        match NAMES.iter().position(|n| n.as_bytes() == name) {
            Some(i) => {
                *self.slot(i) = true;
                true
            }
            None => false,
        }
    }

    /// The names of the flags set, in `NAMES`' order.
    pub fn names(&self) -> Vec<&'static str> {
        let mut copy = *self;
        (0..NAMES.len()).filter(|&i| *copy.slot(i)).map(|i| NAMES[i]).collect()
    }
}

/// eval.c `evalExtractShebangFlags()`: the flags and the length of the shebang line (the body
/// handed to Lua starts at its newline, so line numbers stay the script's own).
pub fn extract_shebang(body: &[u8]) -> Result<(ScriptFlags, usize), Reply> {
    if !body.starts_with(b"#!") {
        return Ok((ScriptFlags::default(), 0));
    }
    let Some(end) = body.iter().position(|&b| b == b'\n') else {
        return Err(Reply::err("ERR Invalid script shebang"));
    };
    let line = &body[..end];
    let mut parts = line.split(|&b| b == b' ' || b == b'\t' || b == b'\r').filter(|p| !p.is_empty());
    let engine = parts.next().unwrap_or(b"");
    if engine != b"#!lua" {
        return Err(Reply::Error([b"ERR Unexpected engine in script shebang: ".as_slice(), engine].concat()));
    }
    let mut flags = ScriptFlags { shebang: true, ..Default::default() };
    for part in parts {
        let Some(list) = part.strip_prefix(b"flags=") else {
            return Err(Reply::Error([b"ERR Unknown lua shebang option: ".as_slice(), part].concat()));
        };
        for flag in list.split(|&b| b == b',').filter(|f| !f.is_empty()) {
            if !flags.set(flag) {
                return Err(Reply::Error([b"ERR Unexpected flag in script shebang: ".as_slice(), flag].concat()));
            }
        }
    }
    Ok((flags, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shebangs() {
        assert_eq!(extract_shebang(b"return 1").unwrap(), (ScriptFlags::default(), 0));
        let (f, len) = extract_shebang(b"#!lua flags=no-writes,allow-oom\nreturn 1").unwrap();
        assert!(f.shebang && f.no_writes && f.allow_oom && !f.allow_stale);
        assert_eq!(len, 31);
        assert!(extract_shebang(b"#!lua").is_err());
        assert!(extract_shebang(b"#!lua flags=bad\n").is_err());
        let (f, _) = extract_shebang(b"#!lua flags=allow-cross-slot-keys,no-writes\n").unwrap();
        assert_eq!(f.names(), ["no-writes", "allow-cross-slot-keys"]);
    }
}
