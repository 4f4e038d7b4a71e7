//! Access control lists: models acl.c — users and their rules (`ACLCreateUser()`,
//! `ACLSetUser()`, `ACLSetSelector()`, `aclCreateSelectorFromOpSet()`,
//! `ACLMergeSelectorArguments()`), the rule strings ACL LIST and ACL GETUSER print
//! (`ACLDescribeUser()`, `ACLDescribeSelector()`, `ACLDescribeSelectorCommandRules()` with its
//! category best-fit), the permission check (`ACLCheckAllUserCommandPerm()`,
//! `ACLSelectorCheckCmd()`, `ACLSelectorCheckKey()`, `ACLCheckChannelAgainstList()`),
//! credentials (`ACLCheckUserCredentials()`, SHA-256 password hashes), the pub/sub revocation
//! test of `ACLKillPubsubClientsIfNeeded()` and the ACL log (`addACLLogEntry()`).
//!
//! Pure data and algorithms: no engine, no clients, no replies. The commands (ACL …, and the
//! checks run for every command, script call and EXEC) are command/acl.rs; what the check needs
//! of a command — its id, its keys — the caller hands in. The command ids index a 1024-bit
//! bitmap per selector, as Redis's `allowed_commands`; the ids come from a `Universe`: every
//! command and subcommand redis-server 7.0.15 has (from the recorded specs, handler or not),
//! because `+@read` and the best-fit description count commands the playground lacks too.
//!
//! Deviations: Redis walks its command dict in hash order (random per process), so the order of
//! single-command rules in ACL LIST/GETUSER (`+get +set`) and of ACL CAT's names varies between
//! runs of redis-server; here it is the universe's order (by name, subcommands after their
//! container). The playground's CLOCK (not Redis) is no rule's target: as a module command
//! loaded later would be, it is allowed by the "future commands" bit `+@all` sets.

use std::collections::{BTreeMap, HashMap, VecDeque};

use crate::ds::sha256::sha256_hex;
use crate::tokenize::split_args;
use crate::util::glob_match;

// -------------------------------------------------------------------------------------------
// Categories and the command universe
// -------------------------------------------------------------------------------------------

/// acl.c `ACLCommandCategories`, in its order (ACL CAT, the best-fit search).
pub const CATEGORIES: [&str; 21] = [
    "keyspace",
    "read",
    "write",
    "set",
    "sortedset",
    "list",
    "hash",
    "string",
    "bitmap",
    "hyperloglog",
    "geo",
    "stream",
    "pubsub",
    "admin",
    "fast",
    "slow",
    "blocking",
    "dangerous",
    "connection",
    "transaction",
    "scripting",
];

/// `USER_COMMAND_BITS_COUNT`: the bits of a selector's command bitmap; the last one is never a
/// command's: `+@all` sets it, so a user built from `+@all` also runs "future" commands.
const COMMAND_BITS: usize = 1024;
const FUTURE_BIT: usize = COMMAND_BITS - 1;
const WORDS: usize = COMMAND_BITS / 64;

/// `strcasecmp()` of a C string (up to its first NUL) with a word.
fn c_eq_ic(a: &[u8], word: &str) -> bool {
    c_str(a).eq_ignore_ascii_case(word.as_bytes())
}

/// The bytes C sees through `%s`, `strcmp()` and `strlen()`: up to the first NUL.
pub fn c_str(a: &[u8]) -> &[u8] {
    match a.iter().position(|&b| b == 0) {
        Some(n) => &a[..n],
        None => a,
    }
}

/// acl.c `ACLGetCommandCategoryFlagByName()`: the category's index in `CATEGORIES`.
pub fn category_index(name: &[u8]) -> Option<usize> {
    CATEGORIES.iter().position(|c| c_eq_ic(name, c))
}

/// One command or subcommand as the ACL sees it (`struct redisCommand`'s `id`, `fullname`,
/// `acl_categories`, `parent`, `subcommands_dict`).
#[derive(Debug, Clone)]
pub struct UniverseCommand {
    pub name: String,
    /// One bit per `CATEGORIES` entry.
    pub categories: u32,
    pub parent: Option<usize>,
    pub subcommands: Vec<usize>,
}

/// `server.orig_commands` with the command ids: every command, id = index.
#[derive(Debug, Clone, Default)]
pub struct Universe {
    commands: Vec<UniverseCommand>,
    index: HashMap<String, usize>,
    /// Per category, the bitmap of its commands (ACL LIST's best fit counts with these).
    masks: Vec<[u64; WORDS]>,
}

impl Universe {
    pub fn new() -> Universe {
        Universe::default()
    }

    /// Adds a command (a subcommand after its container, `container|sub`) with its recorded
    /// categories (`@read`…); returns its id, or None once the bitmap is full.
    pub fn add(&mut self, name: &str, categories: &[String], parent: Option<usize>) -> Option<usize> {
        let id = self.commands.len();
        if id >= FUTURE_BIT {
            return None;
        }
        let mut bits = 0u32;
        for c in categories {
            if let Some(i) = category_index(c.trim_start_matches('@').as_bytes()) {
                bits |= 1 << i;
            }
        }
        self.commands.push(UniverseCommand { name: name.to_string(), categories: bits, parent, subcommands: vec![] });
        self.masks.resize(CATEGORIES.len(), [0; WORDS]);
        for (i, mask) in self.masks.iter_mut().enumerate() {
            if bits & (1 << i) != 0 {
                mask[id / 64] |= 1 << (id % 64);
            }
        }
        if let Some(p) = parent {
            if let Some(pc) = self.commands.get_mut(p) {
                pc.subcommands.push(id);
            }
        }
        self.index.insert(name.to_ascii_lowercase(), id);
        Some(id)
    }

    /// The id of a command by its full name (`get`, `config|get`).
    pub fn id(&self, fullname: &str) -> Option<usize> {
        self.index.get(fullname).copied()
    }

    pub fn command(&self, id: usize) -> Option<&UniverseCommand> {
        self.commands.get(id)
    }

    pub fn len(&self) -> usize {
        self.commands.len()
    }

    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    /// acl.c `ACLLookupCommand()` (server.c `lookupCommandBySdsLogic()`, strict): `name` or
    /// `container|sub`; anything deeper, or a `|` after a command without subcommands, is unknown.
    fn lookup(&self, name: &[u8]) -> Option<usize> {
        let name = c_str(name);
        if name.is_empty() {
            return None;
        }
        let parts: Vec<&[u8]> = name.split(|&b| b == b'|').collect();
        let base = self.index.get(&String::from_utf8_lossy(parts[0]).to_ascii_lowercase()).copied()?;
        match parts.len() {
            1 => Some(base),
            2 if !self.commands[base].subcommands.is_empty() => {
                let full = format!("{}|{}", self.commands[base].name, String::from_utf8_lossy(parts[1]));
                self.index.get(&full.to_ascii_lowercase()).copied()
            }
            _ => None,
        }
    }

    /// The top-level commands, in the universe's order (Redis: its dict's order).
    fn top_level(&self) -> impl Iterator<Item = usize> + '_ {
        self.commands.iter().enumerate().filter(|(_, c)| c.parent.is_none()).map(|(i, _)| i)
    }

    /// acl.c `aclCatWithFlags()`: every command and subcommand in a category.
    pub fn in_category(&self, category: usize) -> Vec<&str> {
        let mut out = Vec::new();
        for top in self.top_level() {
            let c = &self.commands[top];
            if c.categories & (1 << category) != 0 {
                out.push(c.name.as_str());
            }
            for &s in &c.subcommands {
                if self.commands[s].categories & (1 << category) != 0 {
                    out.push(self.commands[s].name.as_str());
                }
            }
        }
        out
    }
}

// -------------------------------------------------------------------------------------------
// Selectors and users
// -------------------------------------------------------------------------------------------

/// `ACL_READ_PERMISSION` / `ACL_WRITE_PERMISSION` of a key pattern (and of a key a command
/// reads or writes).
pub const KEY_READ: u8 = 1;
pub const KEY_WRITE: u8 = 2;
const KEY_ALL: u8 = KEY_READ | KEY_WRITE;

#[derive(Debug, Clone, PartialEq)]
struct KeyPattern {
    flags: u8,
    pattern: Vec<u8>,
}

/// acl.c `aclSelector`: what one set of rules allows.
#[derive(Debug, Clone, PartialEq)]
pub struct Selector {
    root: bool,
    allkeys: bool,
    allchannels: bool,
    allcommands: bool,
    allowed: [u64; WORDS],
    /// `allowed_firstargs`: per command id, the first arguments allowed though the command is not.
    firstargs: BTreeMap<usize, Vec<Vec<u8>>>,
    patterns: Vec<KeyPattern>,
    channels: Vec<Vec<u8>>,
}

/// Why ACLSetUser()/ACLSetSelector() refused a rule (its errno), with acl.c
/// `ACLSetUserStringError()`'s words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleError {
    /// EINVAL
    Syntax,
    /// ENOENT
    UnknownCommand,
    /// EEXIST
    PatternAfterAllKeys,
    /// EISDIR
    PatternAfterAllChannels,
    /// ENODEV
    NoSuchPassword,
    /// EBADMSG
    BadHash,
    /// ECHILD
    SubcommandFirstArg,
}

impl RuleError {
    pub fn message(self) -> &'static str {
        match self {
            RuleError::Syntax => "Syntax error",
            RuleError::UnknownCommand => "Unknown command or category name in ACL",
            RuleError::PatternAfterAllKeys => {
                "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"
            }
            RuleError::PatternAfterAllChannels => {
                "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"
            }
            RuleError::NoSuchPassword => "The password you are trying to remove from the user does not exist",
            RuleError::BadHash => {
                "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"
            }
            RuleError::SubcommandFirstArg => "Allowing first-arg of a subcommand is not supported",
        }
    }
}

/// acl.c `ACLStringHasSpaces()`: C `isspace()` or a NUL.
pub fn has_spaces(s: &[u8]) -> bool {
    s.iter().any(|&b| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | 0))
}

impl Selector {
    /// acl.c `ACLCreateSelector()`: no permissions; `allchannels` per acl-pubsub-default.
    fn new(root: bool, allchannels: bool) -> Selector {
        Selector {
            root,
            allkeys: false,
            allchannels,
            allcommands: false,
            allowed: [0; WORDS],
            firstargs: BTreeMap::new(),
            patterns: vec![],
            channels: vec![],
        }
    }

    fn bit(&self, id: usize) -> bool {
        id < COMMAND_BITS && self.allowed[id / 64] & (1 << (id % 64)) != 0
    }

    /// acl.c `ACLSetSelectorCommandBit()`: clearing a bit clears ALLCOMMANDS.
    fn set_bit(&mut self, id: usize, value: bool) {
        if id >= COMMAND_BITS {
            return;
        }
        if value {
            self.allowed[id / 64] |= 1 << (id % 64);
        } else {
            self.allowed[id / 64] &= !(1 << (id % 64));
            self.allcommands = false;
        }
    }

    /// acl.c `ACLChangeSelectorPerm()`: a container's subcommands follow it.
    fn change_perm(&mut self, u: &Universe, id: usize, allow: bool) {
        self.set_bit(id, allow);
        self.firstargs.remove(&id);
        if let Some(c) = u.command(id) {
            for &s in &c.subcommands {
                self.set_bit(s, allow);
            }
        }
    }

    /// acl.c `ACLSetSelectorCommandBitsForCategoryLogic()`.
    fn change_category(&mut self, u: &Universe, category: usize, allow: bool) {
        let flag = 1u32 << category;
        let tops: Vec<usize> = u.top_level().collect();
        for top in tops {
            if u.commands[top].categories & flag != 0 {
                self.change_perm(u, top, allow);
            }
            for &s in &u.commands[top].subcommands {
                if u.commands[s].categories & flag != 0 {
                    self.change_perm(u, s, allow);
                }
            }
        }
    }

    /// acl.c `ACLCountCategoryBitsForSelector()`: (allowed, denied) commands of a category.
    fn count_category(&self, u: &Universe, category: usize) -> (u64, u64) {
        let Some(mask) = u.masks.get(category) else { return (0, 0) };
        let (mut on, mut all) = (0, 0);
        for (m, a) in mask.iter().zip(&self.allowed) {
            on += (m & a).count_ones() as u64;
            all += m.count_ones() as u64;
        }
        (on, all - on)
    }

    fn all_commands(&mut self, allow: bool) {
        self.allowed = [if allow { u64::MAX } else { 0 }; WORDS];
        self.allcommands = allow;
        self.firstargs.clear();
    }

    /// acl.c `ACLSetSelector()`: one rule about commands, keys or channels.
    fn apply(&mut self, op: &[u8], u: &Universe) -> Result<(), RuleError> {
        let first = op.first().copied().unwrap_or(0);
        let second = op.get(1).copied().unwrap_or(0);
        if c_eq_ic(op, "allkeys") || c_eq_ic(op, "~*") {
            self.allkeys = true;
            self.patterns.clear();
        } else if c_eq_ic(op, "resetkeys") {
            self.allkeys = false;
            self.patterns.clear();
        } else if c_eq_ic(op, "allchannels") || c_eq_ic(op, "&*") {
            self.allchannels = true;
            self.channels.clear();
        } else if c_eq_ic(op, "resetchannels") {
            self.allchannels = false;
            self.channels.clear();
        } else if c_eq_ic(op, "allcommands") || c_eq_ic(op, "+@all") {
            self.all_commands(true);
        } else if c_eq_ic(op, "nocommands") || c_eq_ic(op, "-@all") {
            self.all_commands(false);
        } else if first == b'~' || first == b'%' {
            if self.allkeys {
                return Err(RuleError::PatternAfterAllKeys);
            }
            let mut flags = 0u8;
            let mut offset = 1;
            if first == b'%' {
                while offset < op.len() {
                    let c = op[offset];
                    if c.eq_ignore_ascii_case(&b'R') && flags & KEY_READ == 0 {
                        flags |= KEY_READ;
                    } else if c.eq_ignore_ascii_case(&b'W') && flags & KEY_WRITE == 0 {
                        flags |= KEY_WRITE;
                    } else if c == b'~' {
                        offset += 1;
                        break;
                    } else {
                        return Err(RuleError::Syntax);
                    }
                    offset += 1;
                }
                if flags == 0 {
                    return Err(RuleError::Syntax);
                }
            } else {
                flags = KEY_ALL;
            }
            let pattern = &op[offset.min(op.len())..];
            if has_spaces(pattern) {
                return Err(RuleError::Syntax);
            }
            match self.patterns.iter_mut().find(|p| p.pattern == pattern) {
                Some(p) => p.flags |= flags,
                None => self.patterns.push(KeyPattern { flags, pattern: pattern.to_vec() }),
            }
            self.allkeys = false;
        } else if first == b'&' {
            if self.allchannels {
                return Err(RuleError::PatternAfterAllChannels);
            }
            let pattern = &op[1..];
            if has_spaces(pattern) {
                return Err(RuleError::Syntax);
            }
            if !self.channels.iter().any(|c| c == pattern) {
                self.channels.push(pattern.to_vec());
            }
            self.allchannels = false;
        } else if first == b'+' && second != b'@' {
            let name = c_str(&op[1..]);
            match name.iter().rposition(|&b| b == b'|') {
                None => {
                    let id = u.lookup(name).ok_or(RuleError::UnknownCommand)?;
                    self.change_perm(u, id, true);
                }
                Some(bar) => {
                    let (base, sub) = (&name[..bar], &name[bar + 1..]);
                    let id = u.lookup(base).ok_or(RuleError::UnknownCommand)?;
                    if u.commands[id].parent.is_some() {
                        return Err(RuleError::SubcommandFirstArg);
                    }
                    if sub.is_empty() {
                        return Err(RuleError::Syntax);
                    }
                    if !u.commands[id].subcommands.is_empty() {
                        let sub_id = u.lookup(name).ok_or(RuleError::UnknownCommand)?;
                        self.change_perm(u, sub_id, true);
                    } else {
                        // acl.c ACLAddAllowedFirstArg(): SELECT|0, DEBUG|OBJECT…
                        let list = self.firstargs.entry(id).or_default();
                        if !list.iter().any(|a| a.eq_ignore_ascii_case(sub)) {
                            list.push(sub.to_vec());
                        }
                    }
                }
            }
        } else if first == b'-' && second != b'@' {
            let id = u.lookup(&op[1..]).ok_or(RuleError::UnknownCommand)?;
            self.change_perm(u, id, false);
        } else if (first == b'+' || first == b'-') && second == b'@' {
            let category = category_index(&op[2..]).ok_or(RuleError::UnknownCommand)?;
            self.change_category(u, category, first == b'+');
        } else {
            return Err(RuleError::Syntax);
        }
        Ok(())
    }

    /// acl.c `ACLSelectorCanExecuteFutureCommands()`.
    fn can_execute_future(&self) -> bool {
        self.bit(FUTURE_BIT)
    }

    /// acl.c `ACLDescribeSelectorCommandRules()`: `+@all`/`-@all`, then the categories that
    /// best fit what is left (each at most once), then single commands and first-args, so that
    /// applying the string rebuilds exactly this bitmap.
    pub fn describe_commands(&self, u: &Universe) -> String {
        let mut rules = String::new();
        let mut fake = Selector::new(false, false);
        let additive = !self.can_execute_future();
        if additive {
            rules.push_str("-@all ");
            fake.all_commands(false);
        } else {
            rules.push_str("+@all ");
            fake.all_commands(true);
        }
        let mut temp = Selector::new(false, false);
        temp.allowed = self.allowed;
        let mut applied = [false; CATEGORIES.len()];
        loop {
            let mut best = None;
            let (mut mindiff, mut maxsame) = (i32::MAX as u64, 0u64);
            for (j, done) in applied.iter().enumerate() {
                if *done {
                    continue;
                }
                let (on, off) = temp.count_category(u, j);
                let (diff, same) = if additive { (off, on) } else { (on, off) };
                if same > diff && (diff < mindiff || (diff == mindiff && same > maxsame)) {
                    best = Some(j);
                    mindiff = diff;
                    maxsame = same;
                }
            }
            let Some(best) = best else { break };
            fake.change_category(u, best, additive);
            temp.change_category(u, best, !additive);
            rules.push_str(if additive { "+@" } else { "-@" });
            rules.push_str(CATEGORIES[best]);
            rules.push(' ');
            applied[best] = true;
        }
        let tops: Vec<usize> = u.top_level().collect();
        for top in tops {
            self.describe_single(u, top, &mut fake, &mut rules);
        }
        rules.pop();
        rules
    }

    /// acl.c `ACLDescribeSelectorCommandRulesSingleCommands()` for one command and its
    /// subcommands.
    fn describe_single(&self, u: &Universe, id: usize, fake: &mut Selector, rules: &mut String) {
        let userbit = self.bit(id);
        if userbit != fake.bit(id) {
            rules.push(if userbit { '+' } else { '-' });
            rules.push_str(&u.commands[id].name);
            rules.push(' ');
            fake.change_perm(u, id, userbit);
        }
        for &s in &u.commands[id].subcommands.clone() {
            self.describe_single(u, s, fake, rules);
        }
        if !userbit {
            if let Some(args) = self.firstargs.get(&id) {
                for a in args {
                    rules.push('+');
                    rules.push_str(&u.commands[id].name);
                    rules.push('|');
                    rules.push_str(&String::from_utf8_lossy(a));
                    rules.push(' ');
                }
            }
        }
    }

    /// The key patterns as ACL GETUSER shows them: `~*`, or each pattern with its
    /// permission (`~k*`, `%R~r*`, `%W~w*`), space-separated.
    pub fn describe_keys(&self) -> Vec<u8> {
        if self.allkeys {
            return b"~*".to_vec();
        }
        let mut out = Vec::new();
        for (i, p) in self.patterns.iter().enumerate() {
            if i > 0 {
                out.push(b' ');
            }
            out.extend(pattern_string(p));
        }
        out
    }

    /// The channel patterns as ACL GETUSER shows them: `&*`, or `&a &b`.
    pub fn describe_channels(&self) -> Vec<u8> {
        if self.allchannels {
            return b"&*".to_vec();
        }
        let mut out = Vec::new();
        for (i, c) in self.channels.iter().enumerate() {
            if i > 0 {
                out.push(b' ');
            }
            out.push(b'&');
            out.extend(c);
        }
        out
    }

    /// acl.c `ACLDescribeSelector()`.
    fn describe(&self, u: &Universe) -> Vec<u8> {
        let mut out = Vec::new();
        if self.allkeys {
            out.extend(b"~* ");
        } else {
            for p in &self.patterns {
                out.extend(pattern_string(p));
                out.push(b' ');
            }
        }
        if self.allchannels {
            out.extend(b"&* ");
        } else {
            out.extend(b"resetchannels ");
            for c in &self.channels {
                out.push(b'&');
                out.extend(c);
                out.push(b' ');
            }
        }
        out.extend(self.describe_commands(u).into_bytes());
        out
    }

    /// acl.c `ACLSelectorCheckKey()`.
    fn check_key(&self, key: &[u8], key_flags: u8) -> bool {
        self.allkeys
            || self.patterns.iter().any(|p| p.flags & key_flags == key_flags && glob_match(&p.pattern, key, false))
    }

    /// acl.c `ACLSelectorCheckCmd()`.
    fn check_command(
        &self,
        cmd: &CheckedCommand,
        argv: &[Vec<u8>],
        keys: &mut KeyCache,
        idx: &mut usize,
    ) -> Result<(), Reason> {
        // A command outside the universe (the playground's CLOCK) is a "future" command.
        let allowed = if cmd.id < FUTURE_BIT { self.bit(cmd.id) } else { self.can_execute_future() };
        if !self.allcommands && !cmd.no_auth && !allowed {
            let Some(allowed) = self.firstargs.get(&cmd.id).filter(|_| argv.len() >= 2) else {
                return Err(Reason::Command);
            };
            let first = argv.get(if cmd.is_subcommand { 2 } else { 1 }).map(|a| c_str(a)).unwrap_or(b"");
            if !allowed.iter().any(|a| c_str(a).eq_ignore_ascii_case(first)) {
                return Err(Reason::Command);
            }
        }
        if !self.allkeys {
            for &(pos, flags) in keys.get() {
                let key = argv.get(pos).map(|k| k.as_slice()).unwrap_or(b"");
                if !self.check_key(key, flags) {
                    *idx = pos;
                    return Err(Reason::Key);
                }
            }
        }
        if !self.allchannels {
            let (from, to, literal) = match cmd.channels {
                ChannelArgs::None => return Ok(()),
                ChannelArgs::Publish => (1, 2, false),
                ChannelArgs::Subscribe => (1, argv.len(), false),
                ChannelArgs::PatternSubscribe => (1, argv.len(), true),
            };
            for (j, channel) in argv.iter().enumerate().take(to).skip(from) {
                if !channel_allowed(&self.channels, channel, literal) {
                    *idx = j;
                    return Err(Reason::Channel);
                }
            }
        }
        Ok(())
    }
}

/// acl.c `sdsCatPatternString()`.
fn pattern_string(p: &KeyPattern) -> Vec<u8> {
    let mut out: Vec<u8> = match p.flags {
        KEY_ALL => b"~".to_vec(),
        KEY_READ => b"%R~".to_vec(),
        _ => b"%W~".to_vec(),
    };
    out.extend(&p.pattern);
    out
}

/// acl.c `ACLCheckChannelAgainstList()`: `literal` compares the names as C strings (a
/// PSUBSCRIBE pattern must be one of the allowed patterns), else they are matched as globs.
pub fn channel_allowed(list: &[Vec<u8>], channel: &[u8], literal: bool) -> bool {
    list.iter().any(|p| if literal { c_str(p) == c_str(channel) } else { glob_match(p, channel, false) })
}

/// `USER_FLAG_SANITIZE_PAYLOAD` / `_SKIP`: neither until a rule sets one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Payload {
    Unset,
    Sanitize,
    Skip,
}

/// acl.c `user`.
#[derive(Debug, Clone, PartialEq)]
pub struct User {
    pub name: Vec<u8>,
    enabled: bool,
    nopass: bool,
    sanitize: Payload,
    /// SHA-256 hex digests.
    passwords: Vec<String>,
    /// The root selector first.
    selectors: Vec<Selector>,
}

impl User {
    /// acl.c `ACLCreateUser()`: disabled, no passwords, a root selector allowing nothing.
    pub fn new(name: &[u8], pubsub_allchannels: bool) -> User {
        User {
            name: name.to_vec(),
            enabled: false,
            nopass: false,
            sanitize: Payload::Unset,
            passwords: vec![],
            selectors: vec![Selector::new(true, pubsub_allchannels)],
        }
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    pub fn nopass(&self) -> bool {
        self.nopass
    }

    pub fn passwords(&self) -> &[String] {
        &self.passwords
    }

    /// The root selector, then the others.
    pub fn selectors(&self) -> &[Selector] {
        &self.selectors
    }

    /// `ACLUserFlags` in order, as ACL GETUSER lists them.
    pub fn flags(&self) -> Vec<&'static str> {
        let mut out = vec![if self.enabled { "on" } else { "off" }];
        if self.nopass {
            out.push("nopass");
        }
        match self.sanitize {
            Payload::Skip => out.push("skip-sanitize-payload"),
            Payload::Sanitize => out.push("sanitize-payload"),
            Payload::Unset => {}
        }
        out
    }

    /// acl.c `ACLSetUser()`: one rule. `pubsub_allchannels` is acl-pubsub-default.
    pub fn apply(&mut self, op: &[u8], u: &Universe, pubsub_allchannels: bool) -> Result<(), RuleError> {
        if op.is_empty() {
            return Ok(());
        }
        let first = op[0];
        if c_eq_ic(op, "on") {
            self.enabled = true;
        } else if c_eq_ic(op, "off") {
            self.enabled = false;
        } else if c_eq_ic(op, "skip-sanitize-payload") {
            self.sanitize = Payload::Skip;
        } else if c_eq_ic(op, "sanitize-payload") {
            self.sanitize = Payload::Sanitize;
        } else if c_eq_ic(op, "nopass") {
            self.nopass = true;
            self.passwords.clear();
        } else if c_eq_ic(op, "resetpass") {
            self.nopass = false;
            self.passwords.clear();
        } else if first == b'>' || first == b'#' {
            let hash = if first == b'>' { sha256_hex(&op[1..]) } else { valid_hash(&op[1..])? };
            if !self.passwords.contains(&hash) {
                self.passwords.push(hash);
            }
            self.nopass = false;
        } else if first == b'<' || first == b'!' {
            let hash = if first == b'<' { sha256_hex(&op[1..]) } else { valid_hash(&op[1..])? };
            let at = self.passwords.iter().position(|p| *p == hash).ok_or(RuleError::NoSuchPassword)?;
            self.passwords.remove(at);
        } else if first == b'(' && op[op.len() - 1] == b')' {
            // acl.c aclCreateSelectorFromOpSet(): the rules inside, split as sdssplitargs does.
            let mut s = Selector::new(false, pubsub_allchannels);
            for rule in split_args(&op[1..op.len() - 1]).unwrap_or_default() {
                s.apply(&rule, u)?;
            }
            self.selectors.push(s);
        } else if c_eq_ic(op, "clearselectors") {
            self.selectors.truncate(1);
        } else if c_eq_ic(op, "reset") {
            self.nopass = false;
            self.passwords.clear();
            let root = &mut self.selectors[0];
            root.allkeys = false;
            root.patterns.clear();
            root.allchannels = pubsub_allchannels;
            root.channels.clear();
            self.enabled = false;
            self.sanitize = Payload::Sanitize;
            self.selectors.truncate(1);
            self.selectors[0].all_commands(false);
        } else {
            self.selectors[0].apply(op, u)?;
        }
        Ok(())
    }

    /// acl.c `ACLDescribeUser()`: the rules after `user <name> ` in ACL LIST.
    pub fn describe(&self, u: &Universe) -> Vec<u8> {
        let mut out = Vec::new();
        for f in self.flags() {
            out.extend(f.as_bytes());
            out.push(b' ');
        }
        for p in &self.passwords {
            out.push(b'#');
            out.extend(p.as_bytes());
            out.push(b' ');
        }
        for s in &self.selectors {
            if s.root {
                out.extend(s.describe(u));
            } else {
                out.extend(b" (");
                out.extend(s.describe(u));
                out.push(b')');
            }
        }
        out
    }

    /// acl.c `ACLCheckAllUserCommandPerm()`: some selector must allow the command with all its
    /// keys and channels. When none does, the error reported is the "most relevant" one:
    /// channels over keys over the command, the later argument among equals.
    pub fn check(
        &self,
        cmd: &CheckedCommand,
        argv: &[Vec<u8>],
        keys: &mut dyn FnMut() -> Vec<(usize, u8)>,
    ) -> Result<(), Denied> {
        let mut cache = KeyCache { keys: None, get: keys };
        let mut relevant = Reason::Command;
        let (mut local_idx, mut last_idx) = (0usize, 0usize);
        for s in &self.selectors {
            match s.check_command(cmd, argv, &mut cache, &mut local_idx) {
                Ok(()) => return Ok(()),
                Err(r) => {
                    if r > relevant || (r == relevant && local_idx > last_idx) {
                        relevant = r;
                        last_idx = local_idx;
                    }
                }
            }
        }
        Err(Denied { reason: relevant, pos: last_idx })
    }

    /// acl.c `ACLUserCheckCmdWithUnrestrictedKeyAccess()` for read access (what SORT's BY and
    /// GET patterns need): some selector allows the command with its keys and channels and can
    /// read every key — `~*` (allkeys) or a read pattern that is exactly `*` (as a C string).
    pub fn check_with_all_keys_readable(
        &self,
        cmd: &CheckedCommand,
        argv: &[Vec<u8>],
        keys: &mut dyn FnMut() -> Vec<(usize, u8)>,
    ) -> bool {
        let mut cache = KeyCache { keys: None, get: keys };
        let mut idx = 0usize;
        self.selectors.iter().any(|s| {
            s.check_command(cmd, argv, &mut cache, &mut idx).is_ok()
                && (s.allkeys || s.patterns.iter().any(|p| p.flags & KEY_READ == KEY_READ && c_str(&p.pattern) == b"*"))
        })
    }

    /// A selector allows every command, key and channel (the default user): no check needed.
    pub fn unrestricted(&self) -> bool {
        self.selectors.iter().any(|s| s.allcommands && s.allkeys && s.allchannels)
    }

    /// Whether any selector allows this channel (acl.c `ACLUserCheckChannelPerm()`).
    pub fn channel_allowed(&self, channel: &[u8], literal: bool) -> bool {
        self.selectors.iter().any(|s| s.allchannels || channel_allowed(&s.channels, channel, literal))
    }
}

/// acl.c `ACLCheckPasswordHash()`.
fn valid_hash(h: &[u8]) -> Result<String, RuleError> {
    if h.len() != 64 || !h.iter().all(|&c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c)) {
        return Err(RuleError::BadHash);
    }
    Ok(String::from_utf8_lossy(h).into_owned())
}

/// `getKeysFromCommandWithSpecs()` run once for all selectors (acl.c `aclKeyResultCache`).
struct KeyCache<'a> {
    keys: Option<Vec<(usize, u8)>>,
    get: &'a mut dyn FnMut() -> Vec<(usize, u8)>,
}

impl KeyCache<'_> {
    fn get(&mut self) -> &[(usize, u8)] {
        if self.keys.is_none() {
            self.keys = Some((self.get)());
        }
        self.keys.as_deref().unwrap_or(&[])
    }
}

/// Which arguments of a command are channels (acl.c `ACLDoesCommandHaveChannels()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelArgs {
    None,
    /// PUBLISH, SPUBLISH: the first argument.
    Publish,
    /// SUBSCRIBE, SSUBSCRIBE: every argument, matched against the allowed patterns.
    Subscribe,
    /// PSUBSCRIBE: every argument, which must equal an allowed pattern.
    PatternSubscribe,
}

/// What the check needs to know of a command beyond its arguments.
#[derive(Debug, Clone, Copy)]
pub struct CheckedCommand {
    pub id: usize,
    /// A subcommand: a first-arg rule would look at argv[2].
    pub is_subcommand: bool,
    /// `CMD_NO_AUTH` commands (AUTH, HELLO…) need no command permission.
    pub no_auth: bool,
    pub channels: ChannelArgs,
}

/// `ACL_DENIED_*`, ordered as Redis ranks them when several selectors fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reason {
    Command = 1,
    Key = 2,
    Auth = 3,
    Channel = 4,
}

impl Reason {
    pub fn name(self) -> &'static str {
        match self {
            Reason::Command => "command",
            Reason::Key => "key",
            Reason::Auth => "auth",
            Reason::Channel => "channel",
        }
    }
}

/// A denial and the argument it is about (a key's or channel's position).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Denied {
    pub reason: Reason,
    pub pos: usize,
}

/// `ACL_LOG_CTX_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    Toplevel,
    Multi,
    Lua,
}

impl Context {
    pub fn name(self) -> &'static str {
        match self {
            Context::Toplevel => "toplevel",
            Context::Multi => "multi",
            Context::Lua => "lua",
        }
    }
}

// -------------------------------------------------------------------------------------------
// The users, the log
// -------------------------------------------------------------------------------------------

/// acl.c `ACLLogEntry`.
#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    pub count: u64,
    pub reason: Reason,
    pub context: Context,
    pub object: Vec<u8>,
    pub username: Vec<u8>,
    /// When it last happened (virtual ms).
    pub ctime_ms: i64,
    /// The client's CLIENT INFO line then.
    pub client_info: String,
}

/// Entries within this many ms of each other may merge (`ACL_LOG_GROUPING_MAX_TIME_DELTA`).
const LOG_GROUPING_MS: i64 = 60_000;
/// How many recent entries a new one is compared with.
const LOG_MATCH_SCAN: usize = 10;

/// acl.c's globals: `Users` (a radix tree: byte order) and `ACLLog`.
#[derive(Debug, Clone)]
pub struct Acl {
    users: BTreeMap<Vec<u8>, User>,
    log: VecDeque<LogEntry>,
    /// The requirepass last applied to the default user (config.c `updateRequirePass()` runs
    /// when the value changes).
    requirepass: Vec<u8>,
}

impl Default for Acl {
    fn default() -> Acl {
        Acl::new()
    }
}

/// Why SETUSER failed: its error text (without the `ERR `).
pub type SetUserError = Vec<u8>;

impl Acl {
    /// acl.c `ACLInit()` + `ACLCreateDefaultUser()`: `default`, on, nopass, every command,
    /// key and channel.
    pub fn new() -> Acl {
        let mut d = User::new(b"default", false);
        d.enabled = true;
        d.nopass = true;
        let root = &mut d.selectors[0];
        root.all_commands(true);
        root.allkeys = true;
        root.allchannels = true;
        let mut users = BTreeMap::new();
        users.insert(b"default".to_vec(), d);
        Acl { users, log: VecDeque::new(), requirepass: vec![] }
    }

    pub fn user(&self, name: &[u8]) -> Option<&User> {
        self.users.get(name)
    }

    pub fn default_user(&self) -> &User {
        // Never removed (ACL DELUSER refuses it).
        &self.users[b"default".as_slice()]
    }

    /// Every user, by name (byte order, as the radix tree).
    pub fn users(&self) -> impl Iterator<Item = &User> {
        self.users.values()
    }

    pub fn user_count(&self) -> usize {
        self.users.len()
    }

    /// acl.c `ACLMergeSelectorArguments()`: a selector spread over several arguments
    /// (`(+get` `~k)`) is joined with spaces. Err: the index of the argument that opened an
    /// unclosed one.
    pub fn merge_selector_args(args: &[Vec<u8>]) -> Result<Vec<Vec<u8>>, usize> {
        let mut out = Vec::with_capacity(args.len());
        let mut open: Option<(usize, Vec<u8>)> = None;
        for (j, op) in args.iter().enumerate() {
            if op.first() == Some(&b'(') && op.last() != Some(&b')') {
                open = Some((j, op.clone()));
                continue;
            }
            if let Some((_, sel)) = open.as_mut() {
                sel.push(b' ');
                sel.extend_from_slice(c_str(op));
                if op.last() == Some(&b')') {
                    if let Some((_, sel)) = open.take() {
                        out.push(sel);
                    }
                }
                continue;
            }
            out.push(op.clone());
        }
        match open {
            Some((j, _)) => Err(j),
            None => Ok(out),
        }
    }

    /// ACL SETUSER's core: applies every rule to a copy of the user (or a new one) and stores
    /// it only when all of them are valid. Returns the user as it was (None when new), for
    /// `pubsub_revoked`. Err: the rule that failed and why.
    pub fn set_user(
        &mut self,
        name: &[u8],
        rules: &[Vec<u8>],
        u: &Universe,
        pubsub_allchannels: bool,
    ) -> Result<Option<User>, (Vec<u8>, RuleError)> {
        let old = self.users.get(name).cloned();
        let mut temp = match &old {
            Some(o) => o.clone(),
            None => User::new(name, pubsub_allchannels),
        };
        for rule in rules {
            temp.apply(rule, u, pubsub_allchannels).map_err(|e| (rule.clone(), e))?;
        }
        self.users.insert(name.to_vec(), temp);
        Ok(old)
    }

    /// Removes a user (not `default`): whether it existed.
    pub fn del_user(&mut self, name: &[u8]) -> bool {
        name != b"default" && self.users.remove(name).is_some()
    }

    /// acl.c `ACLCheckUserCredentials()`: the user exists, is enabled, and has no password or
    /// this one.
    pub fn check_credentials(&self, name: &[u8], password: &[u8]) -> bool {
        let Some(u) = self.users.get(name) else { return false };
        if !u.enabled {
            return false;
        }
        if u.nopass {
            return true;
        }
        let hashed = sha256_hex(password);
        u.passwords.contains(&hashed)
    }

    /// config.c `updateRequirePass()` → acl.c `ACLUpdateDefaultUserPassword()`, when the value
    /// changed: the default user's passwords become that one, or nopass for "".
    pub fn sync_requirepass(&mut self, pass: &[u8]) {
        if pass == self.requirepass.as_slice() {
            return;
        }
        self.requirepass = pass.to_vec();
        // Password rules don't look at commands.
        let u = &Universe::new();
        let Some(d) = self.users.get_mut(b"default".as_slice()) else { return };
        let _ = d.apply(b"resetpass", u, false);
        if pass.is_empty() {
            let _ = d.apply(b"nopass", u, false);
        } else {
            let mut op = b">".to_vec();
            op.extend_from_slice(pass);
            let _ = d.apply(&op, u, false);
        }
    }

    /// acl.c `addACLLogEntry()`: a similar recent entry (same reason, context, object and
    /// user, within a minute, among the last 10) is bumped to the top; otherwise a new entry
    /// is added and the log trimmed to `max_len` (acllog-max-len).
    pub fn log_add(&mut self, entry: LogEntry, max_len: usize) {
        let matched = self.log.iter().take(LOG_MATCH_SCAN).position(|e| {
            e.reason == entry.reason
                && e.context == entry.context
                && (e.ctime_ms - entry.ctime_ms).abs() <= LOG_GROUPING_MS
                && e.object == entry.object
                && e.username == entry.username
        });
        match matched.and_then(|i| self.log.remove(i)) {
            Some(mut e) => {
                e.client_info = entry.client_info;
                e.ctime_ms = entry.ctime_ms;
                e.count += 1;
                self.log.push_front(e);
            }
            None => {
                self.log.push_front(entry);
                self.log.truncate(max_len);
            }
        }
    }

    /// The newest entries first.
    pub fn log(&self) -> impl Iterator<Item = &LogEntry> {
        self.log.iter()
    }

    pub fn log_len(&self) -> usize {
        self.log.len()
    }

    pub fn log_reset(&mut self) {
        self.log.clear();
    }
}

/// acl.c `ACLKillPubsubClientsIfNeeded()`'s test: None when the new rules allow every channel
/// the old ones did (a selector with all channels, or every old pattern still listed);
/// otherwise the new user's channel patterns, against which each subscriber is then checked
/// (`subscription_revoked`).
pub fn pubsub_revoked(new: &User, old: &User) -> Option<Vec<Vec<u8>>> {
    if new.selectors.iter().any(|s| s.allchannels) {
        return None;
    }
    let upcoming: Vec<Vec<u8>> = new.selectors.iter().flat_map(|s| s.channels.iter().cloned()).collect();
    let kept = old.selectors.iter().all(|s| s.channels.iter().all(|c| upcoming.contains(c)));
    if kept {
        None
    } else {
        Some(upcoming)
    }
}

/// Whether a subscriber with these channels and patterns loses one of them under `upcoming`:
/// its patterns must be listed literally, its channels must match a pattern.
pub fn subscription_revoked(upcoming: &[Vec<u8>], channels: &[Vec<u8>], patterns: &[Vec<u8>]) -> bool {
    patterns.iter().any(|p| !channel_allowed(upcoming, p, true))
        || channels.iter().any(|c| !channel_allowed(upcoming, c, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn universe() -> Universe {
        let mut u = Universe::new();
        let cats = |c: &[&str]| c.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        u.add("get", &cats(&["@read", "@string", "@fast"]), None);
        u.add("set", &cats(&["@write", "@string", "@slow"]), None);
        let cfg = u.add("config", &cats(&["@slow"]), None);
        u.add("config|get", &cats(&["@admin", "@slow", "@dangerous"]), cfg);
        u.add("config|set", &cats(&["@admin", "@slow", "@dangerous"]), cfg);
        u.add("select", &cats(&["@keyspace", "@fast"]), None);
        u
    }

    fn args(v: &[&str]) -> Vec<Vec<u8>> {
        v.iter().map(|a| a.as_bytes().to_vec()).collect()
    }

    fn user_with(rules: &[&str]) -> User {
        let u = universe();
        let mut user = User::new(b"u", false);
        for r in rules {
            user.apply(r.as_bytes(), &u, false).unwrap();
        }
        user
    }

    #[test]
    fn the_default_user_runs_everything() {
        let acl = Acl::new();
        let d = acl.default_user();
        assert_eq!(String::from_utf8(d.describe(&universe())).unwrap(), "on nopass ~* &* +@all");
        assert!(acl.check_credentials(b"default", b"anything"));
        assert!(!acl.check_credentials(b"nobody", b""));
    }

    #[test]
    fn rules_describe_back_to_themselves() {
        let u = universe();
        let user = user_with(&["on", ">p", "~k*", "%R~r*", "%W~w*", "&ch", "+@all", "-config|set", "-set"]);
        assert_eq!(
            String::from_utf8(user.describe(&u)).unwrap(),
            "on #148de9c5a7a44d19e56cd9ae1a554bf67847afb0c58f6e12fa29ac7ddfca9940 ~k* %R~r* %W~w* resetchannels \
             &ch +@all -@write -config|set"
        );
        let user = user_with(&["-@all", "+select|0", "+select|1", "+config|get", "(~x +get)"]);
        assert_eq!(
            String::from_utf8(user.describe(&u)).unwrap(),
            "off resetchannels -@all +config|get +select|0 +select|1 (~x resetchannels -@all +@read)"
        );
        // A category is chosen when it fits better than the commands one by one.
        let user = user_with(&["+@admin"]);
        assert_eq!(user.selectors()[0].describe_commands(&u), "-@all +@admin");
    }

    #[test]
    fn bad_rules_are_refused_with_their_reason() {
        let u = universe();
        let mut user = User::new(b"u", false);
        let mut bad = |r: &str| user.apply(r.as_bytes(), &u, false).unwrap_err();
        assert_eq!(bad("+nosuch"), RuleError::UnknownCommand);
        assert_eq!(bad("+@nosuch"), RuleError::UnknownCommand);
        assert_eq!(bad("+get|"), RuleError::Syntax);
        assert_eq!(bad("+config|get|x"), RuleError::SubcommandFirstArg);
        assert_eq!(bad("-select|0"), RuleError::UnknownCommand);
        assert_eq!(bad("#abc"), RuleError::BadHash);
        assert_eq!(bad("<nope"), RuleError::NoSuchPassword);
        assert_eq!(bad("%X~k"), RuleError::Syntax);
        assert_eq!(bad("%~k"), RuleError::Syntax);
        assert_eq!(bad("~a b"), RuleError::Syntax);
        assert_eq!(bad("((+get))"), RuleError::Syntax);
        assert_eq!(bad("bogus"), RuleError::Syntax);
        user.apply(b"allkeys", &u, false).unwrap();
        assert_eq!(user.apply(b"~k", &u, false), Err(RuleError::PatternAfterAllKeys));
    }

    #[test]
    fn selectors_spread_over_arguments_are_merged() {
        assert_eq!(
            Acl::merge_selector_args(&args(&["on", "(+get", "~k)", "(+set)"])).unwrap(),
            args(&["on", "(+get ~k)", "(+set)"])
        );
        assert_eq!(Acl::merge_selector_args(&args(&["on", "(+get", "~k"])), Err(1));
    }

    #[test]
    fn the_most_relevant_denial_is_reported() {
        let u = universe();
        let user = user_with(&["+get", "~a", "(+get ~b)"]);
        let get = CheckedCommand {
            id: u.id("get").unwrap(),
            is_subcommand: false,
            no_auth: false,
            channels: ChannelArgs::None,
        };
        let mut keys = || vec![(1, KEY_READ)];
        assert_eq!(user.check(&get, &args(&["get", "a"]), &mut keys), Ok(()));
        assert_eq!(user.check(&get, &args(&["get", "b"]), &mut keys), Ok(()));
        assert_eq!(user.check(&get, &args(&["get", "c"]), &mut keys), Err(Denied { reason: Reason::Key, pos: 1 }));
        let set = CheckedCommand { id: u.id("set").unwrap(), ..get };
        assert_eq!(
            user.check(&set, &args(&["set", "a", "v"]), &mut keys),
            Err(Denied { reason: Reason::Command, pos: 0 })
        );
        // Read-only patterns don't allow writes.
        let reader = user_with(&["+@all", "%R~r*"]);
        let mut writes = || vec![(1, KEY_WRITE)];
        assert!(reader.check(&set, &args(&["set", "r1", "v"]), &mut writes).is_err());
        assert!(reader.check(&get, &args(&["get", "r1"]), &mut keys).is_ok());
    }

    #[test]
    fn first_args_and_channels() {
        let u = universe();
        let user = user_with(&["-@all", "+select|0", "&news.*"]);
        let select = CheckedCommand {
            id: u.id("select").unwrap(),
            is_subcommand: false,
            no_auth: false,
            channels: ChannelArgs::None,
        };
        let mut none = || Vec::new();
        assert!(user.check(&select, &args(&["select", "0"]), &mut none).is_ok());
        assert!(user.check(&select, &args(&["select", "1"]), &mut none).is_err());
        assert!(user.channel_allowed(b"news.tech", false));
        assert!(!user.channel_allowed(b"news.*x", true));
        assert!(user.channel_allowed(b"news.*", true));
    }

    #[test]
    fn the_log_groups_similar_entries() {
        let mut acl = Acl::new();
        let entry = |object: &str, at: i64| LogEntry {
            count: 1,
            reason: Reason::Key,
            context: Context::Toplevel,
            object: object.as_bytes().to_vec(),
            username: b"u".to_vec(),
            ctime_ms: at,
            client_info: String::new(),
        };
        acl.log_add(entry("a", 0), 128);
        acl.log_add(entry("b", 10), 128);
        acl.log_add(entry("a", 20), 128);
        let counts: Vec<(Vec<u8>, u64)> = acl.log().map(|e| (e.object.clone(), e.count)).collect();
        assert_eq!(counts, vec![(b"a".to_vec(), 2), (b"b".to_vec(), 1)]);
        // Over a minute later it is a new entry; the log keeps max_len entries.
        acl.log_add(entry("a", 70_021), 2);
        assert_eq!(acl.log_len(), 2);
        assert_eq!(acl.log().next().unwrap().count, 1);
    }
}
