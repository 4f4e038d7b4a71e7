//! Function libraries, as functions.c keeps them: the libraries and their functions
//! (`functionsLibCtx`), `functionExtractLibMetaData()`, `functionsVerifyName()`,
//! `functionsCreateWithLibraryCtx()`, `libraryJoin()`, the memory they are charged
//! (`functionsMemoryOverhead()`), and the payload FUNCTION DUMP writes (rdb.c
//! `rdbSaveFunctions()`: `RDB_OPCODE_FUNCTION2` and the library's code, per library) and
//! FUNCTION RESTORE reads (`rdbFunctionLoad()`). The Lua side of a load — running the
//! library's code so that it registers its functions (function_lua.c `luaEngineCreate()`,
//! `luaRegisterFunction()`) — is `Vm::load` (vm.rs).
//!
//! Differences: Redis keeps libraries and functions in dicts hashed with a seed chosen at
//! start-up, so FUNCTION LIST and FUNCTION DUMP order them differently from one run of the
//! server to the next; here they come ordered by name. A load's 500 ms limit is virtual time
//! (`LOAD_TIMEOUT_MS` of the cost model's VM instructions). The functions dict's slots are
//! counted without the second table of an incremental rehash.

use std::collections::{BTreeMap, HashMap};

use omnilua::{Table, Value};

use super::convert::lua_string_bytes;
use super::flags::ScriptFlags;
use super::vm::{Vm, MAX_HEAP};
use crate::ds::sds::{sds_alloc, size_class};
use crate::persist::crc64::crc64;
use crate::persist::lzf::Compressor;
use crate::persist::rdb::{StringWriter, RDB_VERSION};
use crate::persist::rdb_load::Reader;

/// function_lua.c `LOAD_TIMEOUT_MS`: how long a library's code may run in FUNCTION LOAD.
pub const LOAD_TIMEOUT_MS: u64 = 500;

/// rdb.h `RDB_OPCODE_FUNCTION` (7.0's release candidates' format, still read) and
/// `RDB_OPCODE_FUNCTION2`.
pub const OPCODE_FUNCTION_PRE_GA: u8 = 246;
pub const OPCODE_FUNCTION2: u8 = 245;

/// functions.c: the engines dict (one engine, LUA), `functionsLibCtx` and the LUA engine's
/// own allocations (`engine_cache_memory`), charged before any library exists (measured on
/// 7.0.15: 200 bytes).
pub const BASE_MEMORY: u64 = 200;

/// The one engine (function_lua.c `LUA_ENGINE_NAME`).
pub const ENGINE: &str = "LUA";

/// A registered function (functions.h `functionInfo`).
pub struct FunctionInfo {
    pub name: String,
    pub description: Option<Vec<u8>>,
    pub flags: ScriptFlags,
    pub(crate) func: omnilua::Function,
}

/// A library (functions.h `functionLibInfo`): its name, its whole code (shebang included) and
/// its functions by name (case-sensitive here; across libraries, names compare
/// case-insensitively).
pub struct Library {
    pub name: String,
    pub code: Vec<u8>,
    pub functions: BTreeMap<String, FunctionInfo>,
}

/// functions.c `functionsLibCtx`.
#[derive(Default)]
pub struct Libraries {
    libs: BTreeMap<String, Library>,
    /// Lowercased function name → its library (functions.c `functions`, a case-insensitive
    /// dict).
    index: HashMap<String, String>,
    /// The functions dict's slots (it grows as a dict does and only FLUSH empties it).
    slots: usize,
}

/// functions.c `functionsVerifyName()`: `[a-zA-Z0-9_]+`.
pub fn verify_name(name: &[u8]) -> bool {
    !name.is_empty() && name.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

/// The error a bad library or function name gets (7.0.15 words both alike).
pub const BAD_NAME: &str =
    "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long";

/// functions.c `functionsLibMataData`: the shebang's engine and name, and the code after it
/// (from its newline on, so that line numbers stay the code's own).
struct MetaData {
    engine: Vec<u8>,
    name: Vec<u8>,
    body_start: usize,
}

/// functions.c `functionExtractLibMetaData()`.
fn extract_metadata(code: &[u8]) -> Result<MetaData, String> {
    if !code.starts_with(b"#!") {
        return Err("Missing library metadata".into());
    }
    // strchr() on the C string: a NUL ends the search.
    let c_str = &code[..code.iter().position(|&b| b == 0).unwrap_or(code.len())];
    let Some(end) = c_str.iter().position(|&b| b == b'\n') else {
        return Err("Invalid library metadata".into());
    };
    let parts = match crate::tokenize::split_args(&code[..end]) {
        Some(p) if !p.is_empty() => p,
        _ => return Err("Invalid library metadata".into()),
    };
    let engine = parts[0].get(2..).unwrap_or_default().to_vec();
    let mut name = None;
    for part in &parts[1..] {
        if part.len() >= 5 && part[..5].eq_ignore_ascii_case(b"name=") {
            if name.is_some() {
                return Err("Invalid metadata value, name argument was given multiple times".into());
            }
            name = Some(part[5..].to_vec());
            continue;
        }
        return Err(format!("Invalid metadata value given: {}", String::from_utf8_lossy(c_string(part))));
    }
    let Some(name) = name else {
        return Err("Library name was not given".into());
    };
    Ok(MetaData { engine, name, body_start: end })
}

/// What `%s` prints of bytes: up to the first NUL.
fn c_string(b: &[u8]) -> &[u8] {
    &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())]
}

impl Libraries {
    pub fn library_count(&self) -> usize {
        self.libs.len()
    }

    pub fn function_count(&self) -> usize {
        self.index.len()
    }

    pub fn libraries(&self) -> impl Iterator<Item = &Library> {
        self.libs.values()
    }

    /// A function by name, in any case (FCALL).
    pub fn function(&self, name: &[u8]) -> Option<&FunctionInfo> {
        let key = String::from_utf8_lossy(name).to_ascii_lowercase();
        let lib = self.index.get(&key)?;
        self.libs.get(lib)?.functions.values().find(|f| f.name.eq_ignore_ascii_case(&key))
    }

    pub fn library(&self, name: &[u8]) -> Option<&Library> {
        self.libs.get(std::str::from_utf8(name).ok()?)
    }

    /// FUNCTION DELETE: whether there was such a library.
    pub fn delete(&mut self, name: &[u8]) -> bool {
        std::str::from_utf8(name).ok().and_then(|n| self.unlink(n)).is_some()
    }

    /// functions.c `functionsLibCtxClear()` (FUNCTION FLUSH).
    pub fn clear(&mut self) {
        self.libs.clear();
        self.index.clear();
        self.slots = 0;
    }

    /// functions.c `libraryLink()`.
    fn link(&mut self, lib: Library) {
        for f in lib.functions.values() {
            let key = f.name.to_ascii_lowercase();
            // dictAdd() into the case-insensitive dict: a second name differing only in case
            // (within one library) is not added.
            if self.index.contains_key(&key) {
                continue;
            }
            if self.slots == 0 {
                self.slots = 4;
            } else if self.index.len() >= self.slots {
                self.slots = (self.index.len() + 1).next_power_of_two();
            }
            self.index.insert(key, lib.name.clone());
        }
        self.libs.insert(lib.name.clone(), lib);
    }

    /// functions.c `libraryUnlink()`.
    fn unlink(&mut self, name: &str) -> Option<Library> {
        let lib = self.libs.remove(name)?;
        for f in lib.functions.values() {
            let key = f.name.to_ascii_lowercase();
            if self.index.get(&key).is_some_and(|l| *l == lib.name) {
                self.index.remove(&key);
            }
        }
        Some(lib)
    }

    /// The first of `lib`'s functions whose name another library has.
    fn collision<'a>(&self, lib: &'a Library) -> Option<&'a str> {
        lib.functions.values().map(|f| f.name.as_str()).find(|n| self.index.contains_key(&n.to_ascii_lowercase()))
    }

    /// functions.c `functionsCreateWithLibraryCtx()`: compiles `code`, runs it so that it
    /// registers its functions, and links the library (replacing one of its name when
    /// `replace`). Returns the library's name, or the error text (without `ERR `).
    pub fn create(&mut self, vm: &Vm, code: &[u8], replace: bool, step_ns: u64) -> Result<String, String> {
        let md = extract_metadata(code)?;
        if !verify_name(&md.name) {
            return Err(BAD_NAME.into());
        }
        if !md.engine.eq_ignore_ascii_case(ENGINE.as_bytes()) {
            return Err(format!("Engine '{}' not found", String::from_utf8_lossy(&md.engine)));
        }
        let name = String::from_utf8_lossy(&md.name).into_owned();
        let old = match self.libs.contains_key(&name) {
            true if !replace => return Err(format!("Library '{name}' already exists")),
            true => self.unlink(&name),
            false => None,
        };
        let result = load_library(vm, &name, code, md.body_start, step_ns).and_then(|lib| {
            if lib.functions.is_empty() {
                return Err("No functions registered".into());
            }
            if let Some(f) = self.collision(&lib) {
                return Err(format!("Function {f} already exists"));
            }
            Ok(lib)
        });
        match result {
            Ok(lib) => {
                self.link(lib);
                Ok(name)
            }
            Err(e) => {
                if let Some(old) = old {
                    self.link(old);
                }
                Err(e)
            }
        }
    }

    /// functions.c `libraryJoin()`: moves every library of `src` here; on a name collision
    /// replaces the old library when `replace`, else fails leaving both untouched.
    pub fn join(&mut self, src: Libraries, replace: bool) -> Result<(), String> {
        let mut old = Vec::new();
        for name in src.libs.keys() {
            if self.libs.contains_key(name) {
                if !replace {
                    // Put back what was unlinked so far (none: the first collision fails).
                    return Err(format!("Library {name} already exists"));
                }
                old.extend(self.unlink(name));
            }
        }
        let clash = src.libs.values().find_map(|lib| self.collision(lib).map(str::to_string));
        if let Some(f) = clash {
            for lib in old {
                self.link(lib);
            }
            return Err(format!("Function {f} already exists"));
        }
        for (_, lib) in src.libs {
            self.link(lib);
        }
        Ok(())
    }

    /// functions.c `functionsMemoryOverhead()`: the dicts, each library's and each function's
    /// allocations, and the engine's.
    pub fn memory(&self) -> u64 {
        let mut total = BASE_MEMORY + (self.index.len() * 24 + self.slots * 8) as u64;
        for lib in self.libs.values() {
            // functionLibInfo (32 bytes), its name and its code (`libraryMallocSize()`).
            total += (size_class(32) + sds_alloc(lib.name.len()) + sds_alloc(lib.code.len())) as u64;
            for f in lib.functions.values() {
                // functionInfo (40 bytes), its name and description, and the Lua engine's
                // `luaFunctionCtx` (`functionMallocSize()`).
                total += (size_class(40) + sds_alloc(f.name.len()) + size_class(4)) as u64;
                total += f.description.as_ref().map_or(0, |d| sds_alloc(d.len())) as u64;
            }
        }
        total
    }

    /// functions.c `functionDumpCommand()`: each library as `RDB_OPCODE_FUNCTION2` and its
    /// code (an RDB string: LZF-compressed when `compression` and it pays), then the RDB
    /// version and the CRC64, as a key's DUMP ends.
    pub fn dump(&self, compression: bool) -> Vec<u8> {
        let mut out = Vec::new();
        let mut lzf = Compressor::new();
        let mut w = StringWriter { compression, lzf: &mut lzf };
        for lib in self.libs.values() {
            out.push(OPCODE_FUNCTION2);
            w.raw(&mut out, &lib.code);
        }
        out.extend_from_slice(&RDB_VERSION.to_le_bytes());
        let crc = crc64(0, &out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// functions.c `functionRestoreCommand()`'s reading (the payload already verified): the
    /// libraries of `payload` in a fresh set, each created as FUNCTION LOAD would. A string
    /// may decompress to at most `max_alloc` bytes (playground-max-alloc).
    pub fn from_payload(vm: &Vm, payload: &[u8], step_ns: u64, max_alloc: u64) -> Result<Libraries, String> {
        let mut libs = Libraries::default();
        // Until the last 10 bytes (version and CRC) — though a library's code may reach into
        // them, as rdb.c's buffer reader lets it.
        let mut r = Reader::new(payload, max_alloc);
        while r.remaining() > 10 {
            let t = r.byte().map_err(|_| "can not read data type".to_string())?;
            let code = match t {
                OPCODE_FUNCTION2 => r.bytes().map_err(|_| "Failed loading library payload".to_string())?,
                OPCODE_FUNCTION_PRE_GA => crate::persist::rdb_file::pre_ga_code(&mut r)?,
                _ => return Err("given type is not a function".into()),
            };
            libs.create(vm, &code, false, step_ns)?;
        }
        Ok(libs)
    }
}

/// function_lua.c `luaEngineCreate()`: compiles the code after the shebang as
/// `@user_function` and runs it with the library API as its globals, for at most
/// `LOAD_TIMEOUT_MS` of virtual time; what it registered becomes the library.
fn load_library(vm: &Vm, name: &str, code: &[u8], body_start: usize, step_ns: u64) -> Result<Library, String> {
    vm.sandbox.reset();
    let compiled = vm.lua.load(&code[body_start..]).set_name("@user_function").into_function();
    let chunk = compiled.map_err(|e| format!("Error compiling function: {e}"))?;
    let limit = (LOAD_TIMEOUT_MS * 1_000_000 / step_ns.max(1)).max(1);
    vm.ctl.call::<_, ()>(("limit", limit as f64)).map_err(|e| format!("Error registering functions: ERR {e}"))?;
    let ran = vm.load.call::<_, (Value, Value)>(chunk);
    let tripped = vm.sandbox.tripped();
    let result = match ran {
        Ok((Value::Table(list), _)) => registered(name, code, &list),
        Ok((_, err)) => {
            let msg = lua_string_bytes(&err).unwrap_or_else(|| b"ERR unknown error".to_vec());
            Err(format!("Error registering functions: {}", String::from_utf8_lossy(&msg)))
        }
        Err(e) => Err(match tripped {
            Some(omnilua::TripReason::Instructions) => "Error registering functions: ERR FUNCTION LOAD timeout".into(),
            Some(omnilua::TripReason::Memory) => format!(
                "Error registering functions: ERR Script killed by the playground: its Lua heap passed {} MB",
                MAX_HEAP >> 20
            ),
            None => format!("Error registering functions: ERR {e}"),
        }),
    };
    if tripped.is_some() {
        vm.lua.gc_collect();
    }
    vm.sandbox.reset();
    result
}

/// The library `Vm::load` returned: a list of `{name, description, flags, callback}`.
fn registered(name: &str, code: &[u8], list: &Table) -> Result<Library, String> {
    let bad = |e: omnilua::Error| format!("Error registering functions: ERR {e}");
    let mut functions = BTreeMap::new();
    for i in 1..=list.len().map_err(bad)? {
        let entry: Table = list.raw_get(i as f64).map_err(bad)?;
        let fname: String = entry.get("name").map_err(bad)?;
        let description = match entry.get::<_, Value>("description").map_err(bad)? {
            Value::Nil => None,
            v => lua_string_bytes(&v),
        };
        let mut flags = ScriptFlags { shebang: true, ..Default::default() };
        let names: Table = entry.get("flags").map_err(bad)?;
        for j in 1..=names.len().map_err(bad)? {
            let flag: String = names.raw_get(j as f64).map_err(bad)?;
            flags.set(flag.as_bytes());
        }
        let func: omnilua::Function = entry.get("callback").map_err(bad)?;
        functions.insert(fname.clone(), FunctionInfo { name: fname, description, flags, func });
    }
    Ok(Library { name: name.to_string(), code: code.to_vec(), functions })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_is_read_as_functions_c_reads_it() {
        let md = extract_metadata(b"#!lua name=mylib\nreturn 1").unwrap();
        assert_eq!((md.engine.as_slice(), md.name.as_slice(), md.body_start), (&b"lua"[..], &b"mylib"[..], 16));
        assert_eq!(extract_metadata(b"return 1").err().unwrap(), "Missing library metadata");
        assert_eq!(extract_metadata(b"#!lua name=x").err().unwrap(), "Invalid library metadata");
        assert_eq!(extract_metadata(b"#!lua\n").err().unwrap(), "Library name was not given");
        assert_eq!(extract_metadata(b"#!lua \"a\n").err().unwrap(), "Invalid library metadata");
        assert_eq!(extract_metadata(b"#!lua NAME=\"a b\"\n").unwrap().name, b"a b");
        assert!(extract_metadata(b"#!lua name=a name=b\n").err().unwrap().contains("multiple times"));
        assert_eq!(extract_metadata(b"#!lua foo=y\n").err().unwrap(), "Invalid metadata value given: foo=y");
        assert!(verify_name(b"a_B9") && !verify_name(b"") && !verify_name(b"a-b") && !verify_name(b"a\0"));
    }
}
