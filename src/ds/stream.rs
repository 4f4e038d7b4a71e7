//! A Redis 7.0 stream: models stream.h and the data-structure half of t_stream.c — a radix
//! tree of listpacks (`s->rax`, keyed by each node's master ID as 16 big-endian bytes), the
//! length / last-id / first-id / max-deleted-entry-id / entries-added fields, and the consumer
//! groups (`streamCG` with its PEL of `streamNACK`s, `streamConsumer`s with their own PELs).
//!
//! Each node's listpack holds exactly the bytes Redis writes (ds/listpack.rs): the master entry
//! (`count`, `deleted`, the master fields, a 0 terminator), then per entry `flags`, the ID as
//! ms/seq deltas from the master ID, the fields unless `SAMEFIELDS` says they equal the master
//! fields, the values, and the `lp-count` that lets an iterator walk backwards. So XADD's
//! node split (`stream-node-max-bytes` / `stream-node-max-entries`), field compression, XDEL's
//! deleted flags, the trimming rules and the memory numbers all come out as in Redis:
//! `streamAppendItem()`, `streamTrim()`, `lpGetEdgeStreamID()`, `streamIteratorGetID()` /
//! `streamIteratorRemoveEntry()` (as `range()` / `delete_item()`), `streamGetEdgeID()`,
//! `streamRangeHasTombstones()`, `streamEstimateDistanceFromFirstEverEntry()`, `streamIncrID()`,
//! `streamDecrID()`; the allocation behind each listpack follows 7.0's pre-allocation (lpNew of
//! 4096 bytes, `lp_malloc_size()` growth, realloc on shrink, `lpShrinkToFit()` when a node
//! is full), which is what MEMORY USAGE reports. A stream restored from a payload
//! (persist/rdb_load.rs) gets its nodes' bytes as they were written, each allocated at its
//! exact size as rdb.c loads it, once `validate_listpack()` (`streamValidateListpackIntegrity()`)
//! passed them; its counters arrive as the payload says, so the arithmetic on them wraps as C's
//! does.
//!
//! The rax itself is not stored: nodes live in a `BTreeMap` by master ID, and the rax's shape
//! (`numnodes`, which XINFO and MEMORY USAGE report) is computed from the sorted keys — rax.c
//! keeps a tree of 16-byte keys in one canonical form whatever the order of inserts and
//! removes (raxRemove recompresses what raxInsert would not have split), so counting nodes of
//! that form gives Redis's number. PELs are `BTreeMap`s by ID with the same counting.
//! Differences: in the used_memory model, the rax allocations of group and consumer names and
//! of PELs beyond 64 entries are estimated (58 bytes a pending entry and tree, measured) —
//! MEMORY USAGE, which uses Redis's own formula over node counts, is exact; a NACK names its
//! consumer instead of pointing at it.

use std::collections::{BTreeMap, BTreeSet};

use super::listpack::{Entry as LpEntry, Listpack};
use super::sds::{sds_alloc, size_class};

/// STREAM_ITEM_FLAG_*.
pub const FLAG_DELETED: i64 = 1;
pub const FLAG_SAMEFIELDS: i64 = 2;
/// STREAM_LISTPACK_MAX_PRE_ALLOCATE.
pub const MAX_PRE_ALLOCATE: usize = 4096;
/// STREAM_LISTPACK_MAX_SIZE.
pub const LISTPACK_MAX_SIZE: usize = 1 << 30;
/// SCG_INVALID_ENTRIES_READ.
pub const INVALID_ENTRIES_READ: i64 = -1;

// struct sizes (64-bit, 7.0)
pub const SIZEOF_STREAM: usize = 80;
pub const SIZEOF_STREAM_ID: usize = 16;
pub const SIZEOF_RAX: usize = 24;
pub const SIZEOF_RAX_NODE: usize = 4;
pub const SIZEOF_CG: usize = 40;
pub const SIZEOF_CONSUMER: usize = 24;
pub const SIZEOF_NACK: usize = 24;

/// A stream entry ID.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StreamId {
    pub ms: u64,
    pub seq: u64,
}

impl StreamId {
    pub const MIN: StreamId = StreamId { ms: 0, seq: 0 };
    pub const MAX: StreamId = StreamId { ms: u64::MAX, seq: u64::MAX };

    pub fn new(ms: u64, seq: u64) -> StreamId {
        StreamId { ms, seq }
    }

    pub fn is_zero(&self) -> bool {
        self.ms == 0 && self.seq == 0
    }

    /// `streamIncrID()`: false (and 0-0) past the last possible ID.
    pub fn incr(&mut self) -> bool {
        if self.seq == u64::MAX {
            if self.ms == u64::MAX {
                *self = StreamId::MIN;
                return false;
            }
            self.ms += 1;
            self.seq = 0;
        } else {
            self.seq += 1;
        }
        true
    }

    /// `streamDecrID()`: false (and the maximum ID) before 0-0.
    pub fn decr(&mut self) -> bool {
        if self.seq == 0 {
            if self.ms == 0 {
                *self = StreamId::MAX;
                return false;
            }
            self.ms -= 1;
            self.seq = u64::MAX;
        } else {
            self.seq -= 1;
        }
        true
    }

    /// `streamEncodeID()`: 128 bits, big endian, so that byte order is ID order.
    pub fn encode(&self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&self.ms.to_be_bytes());
        b[8..].copy_from_slice(&self.seq.to_be_bytes());
        b
    }

    /// `streamDecodeID()`.
    pub fn decode(b: &[u8; 16]) -> StreamId {
        let half = |h: &[u8]| h.iter().fold(0u64, |acc, &x| acc << 8 | x as u64);
        StreamId { ms: half(&b[..8]), seq: half(&b[8..]) }
    }
}

impl std::fmt::Display for StreamId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.ms, self.seq)
    }
}

/// `stream-node-max-bytes` and `stream-node-max-entries`, read when a command runs.
#[derive(Clone, Copy, Debug)]
pub struct NodeLimits {
    pub max_bytes: u64,
    pub max_entries: i64,
}

impl Default for NodeLimits {
    fn default() -> Self {
        NodeLimits { max_bytes: 4096, max_entries: 100 }
    }
}

/// Why `append_item` refused (errno in `streamAppendItem()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppendError {
    /// EDOM: the ID is not greater than the last one (or its sequence would overflow).
    IdTooSmall,
    /// ERANGE: the fields and values add up to more than a listpack may hold.
    TooLarge,
    /// `<ms>-*` when the last ID's sequence is already the largest: 7.0.15 returns C_ERR here
    /// without setting errno, so the reply depends on a stale errno (EAGAIN from the last
    /// socket read in practice), which xaddCommand() reports as "too large".
    SeqExhausted,
}

/// The trimming a XADD or XTRIM asked for (`streamAddTrimArgs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrimStrategy {
    None,
    MaxLen(u64),
    MinId(StreamId),
}

/// A listpack node and the allocation behind it (jemalloc's usable size).
#[derive(Debug, Clone, PartialEq)]
struct Node {
    lp: Listpack,
    alloc: usize,
}

impl Node {
    /// `lpNew(capacity)`.
    fn new(capacity: usize) -> Node {
        Node { lp: Listpack::new(), alloc: size_class(capacity.max(super::listpack::HDR_SIZE + 1)) }
    }

    /// What lpInsert's reallocation does after the listpack went from `old` bytes to its
    /// current size: grow only past the allocation, shrink to fit on any shrink.
    fn resized(&mut self, old: usize) {
        let new = self.lp.bytes();
        if (new > old && new > self.alloc) || new < old {
            self.alloc = size_class(new);
        }
    }

    fn append(&mut self, ele: &[u8]) {
        let old = self.lp.bytes();
        self.lp.append(ele);
        self.resized(old);
    }

    fn append_int(&mut self, v: i64) {
        let old = self.lp.bytes();
        self.lp.append_int(v);
        self.resized(old);
    }

    fn replace_int(&mut self, p: usize, v: i64) {
        let old = self.lp.bytes();
        self.lp.replace_int(p, v);
        self.resized(old);
    }

    /// `lpShrinkToFit()`.
    fn shrink_to_fit(&mut self) {
        let n = self.lp.bytes();
        if self.alloc > n {
            self.alloc = size_class(n);
        }
    }

    /// The master entry: (position of the first master field, their count, position of the
    /// first entry's flags or None).
    fn master(&self) -> (usize, usize, Option<usize>) {
        let lp = &self.lp;
        let count = lp.first().unwrap_or(super::listpack::HDR_SIZE);
        let deleted = lp.next(count).unwrap_or(count);
        let nf = lp.next(deleted).unwrap_or(deleted);
        let master_count = lp.get_int(nf).max(0) as usize;
        let first_field = lp.next(nf).unwrap_or(nf);
        let mut p = first_field;
        for _ in 0..master_count {
            p = lp.next(p).unwrap_or(p);
        }
        // `p` is the master terminator (the 0 lp-count).
        (first_field, master_count, lp.next(p))
    }

    /// Parses the entry whose flags are at `p`.
    fn entry_at(&self, master_id: StreamId, master_count: usize, p: usize) -> EntryPos {
        let lp = &self.lp;
        let flags = lp.get_int(p);
        let ms_at = lp.next(p).unwrap_or(p);
        let seq_at = lp.next(ms_at).unwrap_or(ms_at);
        let id = StreamId {
            ms: master_id.ms.wrapping_add(lp.get_int(ms_at) as u64),
            seq: master_id.seq.wrapping_add(lp.get_int(seq_at) as u64),
        };
        let mut q = lp.next(seq_at).unwrap_or(seq_at);
        let numfields;
        if flags & FLAG_SAMEFIELDS != 0 {
            numfields = master_count;
        } else {
            numfields = lp.get_int(q).max(0) as usize;
            q = lp.next(q).unwrap_or(q);
        }
        let values_at = q;
        let skip = if flags & FLAG_SAMEFIELDS != 0 { numfields } else { numfields * 2 };
        for _ in 0..skip {
            q = lp.next(q).unwrap_or(q);
        }
        // `q` is the entry's lp-count.
        EntryPos { flags, id, numfields, values_at, next: lp.next(q) }
    }

    /// Every entry of the node in order (deleted ones included).
    fn entries(&self, master_id: StreamId) -> Vec<EntryPos> {
        let (_, master_count, mut p) = self.master();
        let mut out = Vec::new();
        while let Some(at) = p {
            let e = self.entry_at(master_id, master_count, at);
            p = e.next;
            out.push(EntryPos { next: Some(at), ..e });
        }
        out
    }
}

/// An entry's place in its listpack; `next` is the flags position of the following entry
/// (in `entries()`, the entry's own flags position).
#[derive(Debug, Clone, Copy)]
struct EntryPos {
    flags: i64,
    id: StreamId,
    numfields: usize,
    values_at: usize,
    next: Option<usize>,
}

/// One entry as an iterator yields it.
pub struct Entry<'a> {
    pub id: StreamId,
    pub flags: i64,
    lp: &'a Listpack,
    master_fields: usize,
    values_at: usize,
    numfields: usize,
}

impl<'a> Entry<'a> {
    pub fn numfields(&self) -> usize {
        self.numfields
    }

    /// The field/value pairs (`streamIteratorGetField()`).
    pub fn fields(&self) -> impl Iterator<Item = (LpEntry<'a>, LpEntry<'a>)> + '_ {
        let same = self.flags & FLAG_SAMEFIELDS != 0;
        let lp = self.lp;
        let mut f = self.master_fields;
        let mut p = Some(self.values_at);
        (0..self.numfields).map_while(move |_| {
            let at = p?;
            if same {
                let field = lp.get(f);
                f = lp.next(f).unwrap_or(f);
                let value = lp.get(at);
                p = lp.next(at);
                Some((field, value))
            } else {
                let field = lp.get(at);
                let vat = lp.next(at)?;
                let value = lp.get(vat);
                p = lp.next(vat);
                Some((field, value))
            }
        })
    }
}

/// A pending entry (`streamNACK`): last delivery time, deliveries, owner.
#[derive(Debug, Clone, PartialEq)]
pub struct Nack {
    pub delivery_time: i64,
    pub delivery_count: u64,
    /// The owning consumer's name; empty only transiently (XCLAIM FORCE before assigning).
    pub consumer: Vec<u8>,
}

/// `streamConsumer`: when it was last seen, its own PEL.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Consumer {
    pub seen_time: i64,
    pub pel: BTreeSet<StreamId>,
}

/// `streamCG`.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub last_id: StreamId,
    pub entries_read: i64,
    pub pel: BTreeMap<StreamId, Nack>,
    pub consumers: BTreeMap<Vec<u8>, Consumer>,
}

impl Group {
    pub fn new(last_id: StreamId, entries_read: i64) -> Group {
        Group { last_id, entries_read, pel: BTreeMap::new(), consumers: BTreeMap::new() }
    }
}

/// The shape of a rax of 16-byte keys: `numnodes` and the bytes its nodes allocate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RaxShape {
    pub nodes: usize,
    pub bytes: usize,
}

/// rax.c `raxNodeCurrentLength()` of a node with `size` characters.
fn rax_node_len(size: usize, compressed: bool, key_with_data: bool) -> usize {
    let pad = (8 - (size + 4) % 8) % 8;
    let children = if compressed { 8 } else { 8 * size };
    SIZEOF_RAX_NODE + size + pad + children + if key_with_data { 8 } else { 0 }
}

/// A chain of `k` characters with one child: compressed, or a one-child node for k = 1.
fn chain_len(k: usize) -> usize {
    rax_node_len(k, true, false)
}

/// The rax holding `keys` (sorted, distinct, 16 bytes each) as rax.c builds it: the head, one
/// node per branch point, one per child of a branch point (a compressed node when the edge is
/// longer than one character), one per key.
pub fn rax_shape(keys: &[[u8; 16]]) -> RaxShape {
    let mut s = RaxShape::default();
    if keys.is_empty() {
        return RaxShape { nodes: 1, bytes: size_class(rax_node_len(0, false, false)) };
    }
    let top = if keys.len() == 1 { 16 } else { lcp(&keys[0], &keys[keys.len() - 1]) };
    if top == 0 {
        // The head is itself the first branch.
        subtree(keys, 0, false, &mut s);
    } else {
        s.nodes += 1;
        s.bytes += size_class(chain_len(top));
        subtree(keys, top, false, &mut s);
    }
    s
}

fn lcp(a: &[u8; 16], b: &[u8; 16]) -> usize {
    a.iter().zip(b.iter()).take_while(|(x, y)| x == y).count()
}

/// Adds the subtree of `keys`, whose top node is reached from its parent (a branch at depth
/// `parent_depth` when `from_branch`) after the edge character at `parent_depth`.
fn subtree(keys: &[[u8; 16]], parent_depth: usize, from_branch: bool, s: &mut RaxShape) {
    let depth = if keys.len() == 1 { 16 } else { lcp(&keys[0], &keys[keys.len() - 1]) };
    if from_branch && depth - parent_depth >= 2 {
        // The child of the branch: a chain of the characters between the edge and the node.
        s.nodes += 1;
        s.bytes += size_class(chain_len(depth - parent_depth - 1));
    }
    s.nodes += 1;
    if keys.len() == 1 {
        s.bytes += size_class(rax_node_len(0, false, true));
        return;
    }
    let mut groups = 0;
    let mut i = 0;
    let mut starts = Vec::new();
    while i < keys.len() {
        let c = keys[i][depth];
        let j = i + keys[i..].iter().take_while(|k| k[depth] == c).count();
        starts.push((i, j));
        groups += 1;
        i = j;
    }
    s.bytes += size_class(rax_node_len(groups, false, false));
    for (a, b) in starts {
        subtree(&keys[a..b], depth, true, s);
    }
}

/// The shape of a rax holding these IDs.
pub fn id_rax_shape<'a>(ids: impl Iterator<Item = &'a StreamId>) -> RaxShape {
    let keys: Vec<[u8; 16]> = ids.map(|id| id.encode()).collect();
    rax_shape(&keys)
}

/// object.c `streamRadixTreeMemoryUsage()` (its `size = ` overwrites the rax struct's size,
/// as in Redis).
pub fn rax_memory_usage(numele: usize, numnodes: usize) -> usize {
    numele * SIZEOF_STREAM_ID + numnodes * SIZEOF_RAX_NODE + numnodes * 8 * 30
}

/// t_stream.c `streamValidateListpackIntegrity(lp, size, deep=1)`, what RESTORE checks of a
/// stream node under `sanitize-dump-payload yes`: a sound listpack (`listpack::walk`; its
/// header's element count is not looked at) holding the master entry — count, deleted, the
/// number of master fields, the fields, a 0 — then exactly count + deleted entries, each of
/// flags, the ID's two deltas, the number of fields unless SAMEFIELDS, the fields and values,
/// and an lp-count equal to the elements the entry took; every one of those numbers an integer
/// (or a string that reads as one). A node of the master entry alone passes, as in Redis.
///
/// Stricter than Redis, which keeps such nodes and then goes wrong on them (negative counters
/// after XDEL, replies of a negative length): the counts and numbers of fields must not be
/// negative, and `count` must be the number of entries not flagged deleted.
pub fn validate_listpack(lp: &[u8]) -> bool {
    let Some(elements) = super::listpack::walk(lp) else { return false };
    let n = elements.len();
    let int = |i: usize| -> Option<i64> {
        match elements.get(i)? {
            LpEntry::Int(v) => Some(*v),
            LpEntry::Str(s) => crate::util::string2ll(s),
        }
    };
    let check = || -> Option<bool> {
        let (count, deleted, master_fields) = (int(0)?, int(1)?, int(2)?);
        if count < 0 || deleted < 0 || master_fields < 0 || master_fields as u64 >= n as u64 {
            return Some(false);
        }
        let mut p = 3 + master_fields as usize;
        if int(p)? != 0 {
            return Some(false);
        }
        p += 1;
        let mut live = 0i64;
        for _ in 0..count.checked_add(deleted)? {
            let (flags, _ms, _seq) = (int(p)?, int(p + 1)?, int(p + 2)?);
            p += 3;
            let same = flags & FLAG_SAMEFIELDS != 0;
            let fields = if same {
                master_fields
            } else {
                p += 1;
                int(p - 1)?
            };
            if fields < 0 || fields as u64 >= n as u64 {
                return Some(false);
            }
            // lp-count: flags, the two deltas and the values, plus the count and the fields.
            let extra = if same { 3 } else { 3 + fields + 1 };
            p += if same { fields as usize } else { 2 * fields as usize };
            if int(p)? != fields + extra {
                return Some(false);
            }
            p += 1;
            if flags & FLAG_DELETED == 0 {
                live += 1;
            }
        }
        Some(p == n && live == count)
    };
    check().unwrap_or(false)
}

/// `stream` (t_stream.c / stream.h).
#[derive(Debug, PartialEq)]
pub struct Stream {
    nodes: BTreeMap<StreamId, Node>,
    pub length: u64,
    pub last_id: StreamId,
    pub first_id: StreamId,
    pub max_deleted_entry_id: StreamId,
    pub entries_added: u64,
    /// Created on demand, as `s->cgroups`.
    cgroups: Option<BTreeMap<Vec<u8>, Group>>,
    /// The groups' share of `alloc()`, forgotten whenever a group is handed out mutably.
    groups_alloc: GroupsAlloc,
    /// The rax's shape, recomputed when a node is added or removed.
    shape: RaxShape,
    /// Σ of the nodes' listpack allocations.
    lp_alloc: usize,
}

impl Clone for Stream {
    /// t_stream.c `streamDup()` (COPY): each listpack is duplicated at its exact size
    /// (`lpDup()`), groups, consumers and PELs are copied.
    fn clone(&self) -> Stream {
        let nodes: BTreeMap<StreamId, Node> =
            self.nodes.iter().map(|(k, n)| (*k, Node { lp: n.lp.clone(), alloc: size_class(n.lp.bytes()) })).collect();
        let lp_alloc = nodes.values().map(|n| n.alloc).sum();
        Stream {
            nodes,
            length: self.length,
            last_id: self.last_id,
            first_id: self.first_id,
            max_deleted_entry_id: self.max_deleted_entry_id,
            entries_added: self.entries_added,
            cgroups: self.cgroups.clone(),
            groups_alloc: GroupsAlloc::default(),
            shape: self.shape,
            lp_alloc,
        }
    }
}

impl Default for Stream {
    fn default() -> Self {
        Stream::new()
    }
}

impl Stream {
    /// `streamNew()`.
    pub fn new() -> Stream {
        Stream {
            nodes: BTreeMap::new(),
            length: 0,
            last_id: StreamId::MIN,
            first_id: StreamId::MIN,
            max_deleted_entry_id: StreamId::MIN,
            entries_added: 0,
            cgroups: None,
            groups_alloc: GroupsAlloc::default(),
            shape: rax_shape(&[]),
            lp_alloc: 0,
        }
    }

    /// rdb.c's loader: adds a node read from a payload (`validate_listpack` passed), its
    /// listpack allocated at its exact size; false when a node of that master ID exists
    /// ("Listpack re-added with existing key"). `loaded()` finishes the rax.
    pub fn load_node(&mut self, master: StreamId, lp: Vec<u8>) -> bool {
        if self.nodes.contains_key(&master) {
            return false;
        }
        let node = Node { alloc: size_class(lp.len()), lp: Listpack::from(lp) };
        self.lp_alloc += node.alloc;
        self.nodes.insert(master, node);
        true
    }

    /// After `load_node()`s: the rax's shape, computed once.
    pub fn loaded(&mut self) {
        self.reshape();
    }

    /// `raxSize(s->rax)`: listpack nodes.
    pub fn rax_keys(&self) -> usize {
        self.nodes.len()
    }

    /// `s->rax->numnodes`.
    pub fn rax_nodes(&self) -> usize {
        self.shape.nodes
    }

    fn reshape(&mut self) {
        let keys: Vec<[u8; 16]> = self.nodes.keys().map(|k| k.encode()).collect();
        self.shape = rax_shape(&keys);
    }

    fn insert_node(&mut self, key: StreamId, node: Node) {
        self.lp_alloc += node.alloc;
        self.nodes.insert(key, node);
        self.reshape();
    }

    fn remove_node(&mut self, key: StreamId) {
        if let Some(n) = self.nodes.remove(&key) {
            self.lp_alloc -= n.alloc;
        }
        self.reshape();
    }

    /// Runs `f` on a node, keeping the allocation total right.
    fn with_node<R>(&mut self, key: StreamId, f: impl FnOnce(&mut Node) -> R) -> Option<R> {
        let n = self.nodes.get_mut(&key)?;
        let before = n.alloc;
        let r = f(n);
        self.lp_alloc = self.lp_alloc - before + n.alloc;
        Some(r)
    }

    /// The rax in key order: each node's master ID and its listpack (rdb.c saves them as they
    /// are).
    pub fn listpacks(&self) -> impl Iterator<Item = (&StreamId, &Listpack)> {
        self.nodes.iter().map(|(k, n)| (k, &n.lp))
    }

    pub fn group(&self, name: &[u8]) -> Option<&Group> {
        self.cgroups.as_ref()?.get(name)
    }

    pub fn group_mut(&mut self, name: &[u8]) -> Option<&mut Group> {
        self.groups_alloc.0.set(None);
        self.cgroups.as_mut()?.get_mut(name)
    }

    /// The groups in name order (the cgroups rax's order).
    pub fn groups(&self) -> impl Iterator<Item = (&Vec<u8>, &Group)> {
        self.cgroups.iter().flatten()
    }

    /// `streamCreateCG()`: false if a group of that name exists.
    pub fn create_group(&mut self, name: &[u8], group: Group) -> bool {
        self.groups_alloc.0.set(None);
        let groups = self.cgroups.get_or_insert_with(BTreeMap::new);
        if groups.contains_key(name) {
            return false;
        }
        groups.insert(name.to_vec(), group);
        true
    }

    /// XGROUP DESTROY: true if the group existed.
    pub fn remove_group(&mut self, name: &[u8]) -> bool {
        self.groups_alloc.0.set(None);
        self.cgroups.as_mut().and_then(|g| g.remove(name)).is_some()
    }

    pub fn group_count(&self) -> usize {
        self.cgroups.as_ref().map_or(0, |g| g.len())
    }

    // -----------------------------------------------------------------------------------------
    // Appending
    // -----------------------------------------------------------------------------------------

    /// `streamAppendItem()`: `fields` is the flat field/value list; `use_id` an explicit ID
    /// (`seq_given` false for `<ms>-*`), otherwise the ID comes from `now_ms` as
    /// `streamNextID()` makes it.
    pub fn append_item(
        &mut self,
        fields: &[Vec<u8>],
        use_id: Option<StreamId>,
        seq_given: bool,
        now_ms: u64,
        limits: NodeLimits,
    ) -> Result<StreamId, AppendError> {
        let id = match use_id {
            Some(u) if seq_given => u,
            Some(u) => {
                if self.last_id.ms == u.ms {
                    if self.last_id.seq == u64::MAX {
                        return Err(AppendError::SeqExhausted);
                    }
                    StreamId { ms: u.ms, seq: self.last_id.seq + 1 }
                } else {
                    u
                }
            }
            None => self.next_id(now_ms),
        };
        if id <= self.last_id {
            return Err(AppendError::IdTooSmall);
        }
        let totelelen: usize = fields.iter().map(|f| f.len()).sum();
        if totelelen > LISTPACK_MAX_SIZE {
            return Err(AppendError::TooLarge);
        }
        let numfields = fields.len() / 2;

        // The tail node, unless it is full.
        let mut tail = self.nodes.keys().next_back().copied();
        if let Some(key) = tail {
            let node = &self.nodes[&key];
            let max_bytes = if limits.max_bytes == 0 || limits.max_bytes > LISTPACK_MAX_SIZE as u64 {
                LISTPACK_MAX_SIZE as u64
            } else {
                limits.max_bytes
            };
            let mut new_node = false;
            if node.lp.bytes() as u64 + totelelen as u64 >= max_bytes {
                new_node = true;
            } else if limits.max_entries != 0 {
                let lp = &node.lp;
                let p = lp.first().unwrap_or(0);
                let count = lp.get_int(p) + lp.next(p).map_or(0, |q| lp.get_int(q));
                if count >= limits.max_entries {
                    new_node = true;
                }
            }
            if new_node {
                self.with_node(key, |n| n.shrink_to_fit());
                tail = None;
            }
        }

        let mut flags = 0;
        let master_id = match tail {
            None => {
                let mut prealloc = MAX_PRE_ALLOCATE;
                if limits.max_bytes > 0 && (limits.max_bytes as usize) < prealloc {
                    prealloc = limits.max_bytes as usize;
                }
                let mut node = Node::new(prealloc);
                node.append_int(1);
                node.append_int(0);
                node.append_int(numfields as i64);
                for i in 0..numfields {
                    node.append(&fields[i * 2]);
                }
                node.append_int(0);
                self.insert_node(id, node);
                flags |= FLAG_SAMEFIELDS;
                id
            }
            Some(key) => {
                let same = self
                    .with_node(key, |n| {
                        let p = n.lp.first().unwrap_or(0);
                        let count = n.lp.get_int(p);
                        n.replace_int(p, count + 1);
                        let (first_field, master_count, _) = n.master();
                        if master_count != numfields {
                            return false;
                        }
                        let mut f = first_field;
                        for i in 0..master_count {
                            if !n.lp.get(f).eq_bytes(&fields[i * 2]) {
                                return false;
                            }
                            f = n.lp.next(f).unwrap_or(f);
                        }
                        true
                    })
                    .unwrap_or(false);
                if same {
                    flags |= FLAG_SAMEFIELDS;
                }
                key
            }
        };

        let same = flags & FLAG_SAMEFIELDS != 0;
        self.with_node(master_id, |n| {
            n.append_int(flags);
            n.append_int(id.ms.wrapping_sub(master_id.ms) as i64);
            n.append_int(id.seq.wrapping_sub(master_id.seq) as i64);
            if !same {
                n.append_int(numfields as i64);
            }
            for i in 0..numfields {
                if !same {
                    n.append(&fields[i * 2]);
                }
                n.append(&fields[i * 2 + 1]);
            }
            let mut lp_count = numfields as i64 + 3;
            if !same {
                lp_count += numfields as i64 + 1;
            }
            n.append_int(lp_count);
        });
        // Wrapping, as C's unsigned fields do (a restored payload may carry any values).
        self.length = self.length.wrapping_add(1);
        self.entries_added = self.entries_added.wrapping_add(1);
        self.last_id = id;
        if self.length == 1 {
            self.first_id = id;
        }
        Ok(id)
    }

    /// `streamNextID()`: the clock's ms with sequence 0, or the last ID plus one.
    pub fn next_id(&self, now_ms: u64) -> StreamId {
        if now_ms > self.last_id.ms {
            StreamId { ms: now_ms, seq: 0 }
        } else {
            let mut id = self.last_id;
            id.incr();
            id
        }
    }

    // -----------------------------------------------------------------------------------------
    // Iterating
    // -----------------------------------------------------------------------------------------

    /// `streamIteratorStart()` + `streamIteratorGetID()`: the entries with `start <= id <= end`,
    /// forward or (`rev`) backward, tombstones skipped unless asked; `f` returns false to stop.
    pub fn range(
        &self,
        start: StreamId,
        end: StreamId,
        rev: bool,
        skip_tombstones: bool,
        mut f: impl FnMut(&Entry<'_>) -> bool,
    ) {
        if !rev {
            let from = if !start.is_zero() {
                self.nodes.range(..=start).next_back().map(|(k, _)| *k).or_else(|| self.nodes.keys().next().copied())
            } else {
                self.nodes.keys().next().copied()
            };
            let Some(from) = from else { return };
            for (master_id, node) in self.nodes.range(from..) {
                let (master_fields, master_count, mut p) = node.master();
                while let Some(at) = p {
                    let e = node.entry_at(*master_id, master_count, at);
                    p = e.next;
                    if e.id >= start && (!skip_tombstones || e.flags & FLAG_DELETED == 0) {
                        if e.id > end {
                            return;
                        }
                        let entry = Entry {
                            id: e.id,
                            flags: e.flags,
                            lp: &node.lp,
                            master_fields,
                            values_at: e.values_at,
                            numfields: e.numfields,
                        };
                        if !f(&entry) {
                            return;
                        }
                    }
                }
            }
        } else {
            let from = if !end.is_zero() {
                self.nodes.range(..=end).next_back().map(|(k, _)| *k).or_else(|| self.nodes.keys().next_back().copied())
            } else {
                self.nodes.keys().next_back().copied()
            };
            let Some(from) = from else { return };
            for (master_id, node) in self.nodes.range(..=from).rev() {
                let (master_fields, master_count, _) = node.master();
                // Backwards as Redis walks: each entry's trailing lp-count says how many
                // elements to step back to reach its flags; 0 is the master entry's terminator.
                let lp = &node.lp;
                let mut p = lp.last();
                while let Some(q) = p {
                    let lp_count = lp.get_int(q);
                    if lp_count <= 0 {
                        break;
                    }
                    let mut flags_at = Some(q);
                    for _ in 0..lp_count {
                        flags_at = flags_at.and_then(|x| lp.prev(x));
                    }
                    let Some(flags_at) = flags_at else { break };
                    p = lp.prev(flags_at);
                    let e = node.entry_at(*master_id, master_count, flags_at);
                    if e.id <= end && (!skip_tombstones || e.flags & FLAG_DELETED == 0) {
                        if e.id < start {
                            return;
                        }
                        let entry = Entry {
                            id: e.id,
                            flags: e.flags,
                            lp: &node.lp,
                            master_fields,
                            values_at: e.values_at,
                            numfields: e.numfields,
                        };
                        if !f(&entry) {
                            return;
                        }
                    }
                }
            }
        }
    }

    /// `streamEntryExists()`.
    pub fn entry_exists(&self, id: StreamId) -> bool {
        let mut found = false;
        self.range(id, id, false, true, |_| {
            found = true;
            false
        });
        found
    }

    /// `streamGetEdgeID()`: the first (or last) entry's ID, tombstones skipped or not; the
    /// maximum (first) or minimum (last) ID when there is none.
    pub fn edge_id(&self, first: bool, skip_tombstones: bool) -> StreamId {
        let mut found = None;
        self.range(StreamId::MIN, StreamId::MAX, !first, skip_tombstones, |e| {
            found = Some(e.id);
            false
        });
        found.unwrap_or(if first { StreamId::MAX } else { StreamId::MIN })
    }

    /// `streamLastValidID()`.
    pub fn last_valid_id(&self) -> StreamId {
        self.edge_id(false, true)
    }

    // -----------------------------------------------------------------------------------------
    // Deleting and trimming
    // -----------------------------------------------------------------------------------------

    /// `streamDeleteItem()` + `streamIteratorRemoveEntry()`: flags the entry deleted and
    /// updates its node's counters, freeing the node when it was its last live entry.
    pub fn delete_item(&mut self, id: StreamId) -> bool {
        let key = if id.is_zero() {
            self.nodes.keys().next().copied()
        } else {
            self.nodes.range(..=id).next_back().map(|(k, _)| *k).or_else(|| self.nodes.keys().next().copied())
        };
        let Some(key) = key else { return false };
        // The iterator would go on to later nodes, but their entries are all greater.
        let Some(node) = self.nodes.get(&key) else { return false };
        let (_, master_count, mut p) = node.master();
        let mut found = None;
        while let Some(at) = p {
            let e = node.entry_at(key, master_count, at);
            if e.id > id {
                break;
            }
            if e.id == id && e.flags & FLAG_DELETED == 0 {
                found = Some((at, e));
                break;
            }
            p = e.next;
        }
        let Some((flags_at, pos)) = found else { return false };
        let remove = self
            .with_node(key, |n| {
                n.replace_int(flags_at, pos.flags | FLAG_DELETED);
                let p = n.lp.first().unwrap_or(0);
                let aux = n.lp.get_int(p);
                if aux == 1 {
                    return true;
                }
                n.replace_int(p, aux - 1);
                let q = n.lp.next(p).unwrap_or(p);
                let deleted = n.lp.get_int(q);
                n.replace_int(q, deleted + 1);
                false
            })
            .unwrap_or(false);
        if remove {
            self.remove_node(key);
        }
        self.length = self.length.wrapping_sub(1);
        true
    }

    /// `streamTrim()`: whole nodes while they can go, then (unless `approx`) entries flagged
    /// deleted in the node that straddles the limit; `limit` (0 = none) caps the entries
    /// removed. Returns how many were removed; updates `first_id`.
    pub fn trim(&mut self, strategy: TrimStrategy, approx: bool, limit: i64) -> i64 {
        if strategy == TrimStrategy::None {
            return 0;
        }
        let mut deleted: i64 = 0;
        let keys: Vec<StreamId> = self.nodes.keys().copied().collect();
        for key in keys {
            if let TrimStrategy::MaxLen(maxlen) = strategy {
                if self.length <= maxlen {
                    break;
                }
            }
            let node = &self.nodes[&key];
            let p = node.lp.first().unwrap_or(0);
            let entries = node.lp.get_int(p);
            if limit != 0 && deleted + entries > limit {
                break;
            }
            let remove_node = match strategy {
                // Unsigned, as in C (`s->length - entries >= maxlen`).
                TrimStrategy::MaxLen(maxlen) => self.length.wrapping_sub(entries as u64) >= maxlen,
                TrimStrategy::MinId(min) => {
                    let all = node.entries(key);
                    all.last().map(|e| e.id).unwrap_or(StreamId::MIN) < min
                }
                TrimStrategy::None => false,
            };
            if remove_node {
                self.remove_node(key);
                self.length = self.length.wrapping_sub(entries as u64);
                deleted += entries;
                continue;
            }
            if approx {
                break;
            }
            // Flag entries inside this node.
            let positions = self.nodes[&key].entries(key);
            let mut deleted_from_lp: i64 = 0;
            let mut to_flag = Vec::new();
            for e in &positions {
                let stop = match strategy {
                    TrimStrategy::MaxLen(maxlen) => self.length.wrapping_sub(to_flag.len() as u64) <= maxlen,
                    TrimStrategy::MinId(min) => e.id >= min,
                    TrimStrategy::None => true,
                };
                if stop {
                    break;
                }
                if e.flags & FLAG_DELETED == 0 {
                    to_flag.push(*e);
                }
            }
            self.with_node(key, |n| {
                // The last first: setting the deleted bit never changes an integer's width, but
                // a flags entry restored as a string ("2") comes back shorter as an integer,
                // which moves what follows it.
                for e in to_flag.iter().rev() {
                    n.replace_int(e.next.unwrap_or(0), e.flags | FLAG_DELETED);
                    deleted_from_lp += 1;
                }
                let p = n.lp.first().unwrap_or(0);
                n.replace_int(p, entries - deleted_from_lp);
                let q = n.lp.next(p).unwrap_or(p);
                let marked = n.lp.get_int(q);
                n.replace_int(q, marked + deleted_from_lp);
            });
            self.length = self.length.wrapping_sub(deleted_from_lp as u64);
            deleted += deleted_from_lp;
            break;
        }
        self.first_id = if self.length == 0 { StreamId::MIN } else { self.edge_id(true, true) };
        deleted
    }

    // -----------------------------------------------------------------------------------------
    // Consumer-group bookkeeping (7.0's lag)
    // -----------------------------------------------------------------------------------------

    /// `streamRangeHasTombstones()`.
    pub fn range_has_tombstones(&self, start: Option<StreamId>, end: Option<StreamId>) -> bool {
        if self.length == 0 || self.max_deleted_entry_id.is_zero() {
            return false;
        }
        if self.first_id > self.max_deleted_entry_id {
            return false;
        }
        let start = start.unwrap_or(StreamId::MIN);
        let end = end.unwrap_or(StreamId::MAX);
        start <= self.max_deleted_entry_id && self.max_deleted_entry_id <= end
    }

    /// `streamEstimateDistanceFromFirstEverEntry()`: the logical read counter of `id`, or
    /// INVALID_ENTRIES_READ when it can't be known.
    pub fn estimate_distance(&self, id: StreamId) -> i64 {
        if self.entries_added == 0 {
            return 0;
        }
        if self.length == 0 && id <= self.last_id {
            return self.entries_added as i64;
        }
        if id == self.last_id {
            return self.entries_added as i64;
        } else if id > self.last_id {
            return INVALID_ENTRIES_READ;
        }
        if self.max_deleted_entry_id.is_zero() || self.max_deleted_entry_id < self.first_id {
            if id < self.first_id {
                return self.entries_added.wrapping_sub(self.length) as i64;
            } else if id == self.first_id {
                return self.entries_added.wrapping_sub(self.length).wrapping_add(1) as i64;
            }
        }
        INVALID_ENTRIES_READ
    }

    /// `streamReplyWithCGLag()`'s number: None when it can't be known.
    pub fn group_lag(&self, g: &Group) -> Option<i64> {
        if self.entries_added == 0 {
            return Some(0);
        }
        if g.entries_read != INVALID_ENTRIES_READ && !self.range_has_tombstones(Some(g.last_id), None) {
            return Some((self.entries_added as i64).wrapping_sub(g.entries_read));
        }
        let read = self.estimate_distance(g.last_id);
        (read != INVALID_ENTRIES_READ).then(|| (self.entries_added as i64).wrapping_sub(read))
    }

    // -----------------------------------------------------------------------------------------
    // Memory
    // -----------------------------------------------------------------------------------------

    /// object.c `objectComputeSize()` for a stream (MEMORY USAGE), without the robj header
    /// (memory.rs adds it): the first `samples` listpacks averaged over all but the last, plus
    /// the last; the PELs' rax estimate.
    pub fn compute_size(&self, samples: usize) -> usize {
        let mut asize = SIZEOF_STREAM;
        asize += rax_memory_usage(self.nodes.len(), self.shape.nodes);
        let mut lpsize = 0usize;
        let mut taken = 0usize;
        for n in self.nodes.values().take(samples) {
            lpsize += n.alloc;
            taken += 1;
        }
        if self.nodes.len() <= taken {
            asize += lpsize;
        } else {
            lpsize = lpsize.checked_div(taken).unwrap_or(lpsize);
            asize += lpsize * (self.nodes.len() - 1);
            asize += self.nodes.values().next_back().map_or(0, |n| n.alloc);
        }
        if let Some(groups) = &self.cgroups {
            for g in groups.values() {
                asize += SIZEOF_CG;
                asize += rax_memory_usage(g.pel.len(), id_rax_shape(g.pel.keys()).nodes);
                asize += SIZEOF_NACK * g.pel.len();
                for (name, c) in &g.consumers {
                    asize += SIZEOF_CONSUMER;
                    asize += name.len();
                    asize += rax_memory_usage(c.pel.len(), id_rax_shape(c.pel.iter()).nodes);
                }
            }
        }
        asize
    }

    /// What the stream's allocations add to used_memory (without the robj header, which
    /// memory.rs adds): exact for the stream struct, its rax and listpacks; PELs exact up to 64
    /// entries, else from a per-entry average; group and consumer names' rax nodes estimated.
    pub fn alloc(&self) -> usize {
        let mut total = size_class(SIZEOF_STREAM) + size_class(SIZEOF_RAX) + self.shape.bytes + self.lp_alloc;
        if let Some(cached) = self.groups_alloc.0.get() {
            return total + cached;
        }
        let before = total;
        if let Some(groups) = &self.cgroups {
            total += size_class(SIZEOF_RAX) + names_rax_bytes(groups.keys());
            for g in groups.values() {
                total += size_class(SIZEOF_CG) + 2 * size_class(SIZEOF_RAX);
                total += pel_rax_bytes(g.pel.len(), || id_rax_shape(g.pel.keys()));
                total += g.pel.len() * size_class(SIZEOF_NACK);
                total += names_rax_bytes(g.consumers.keys());
                for (name, c) in &g.consumers {
                    total += size_class(SIZEOF_CONSUMER) + sds_alloc(name.len()) + size_class(SIZEOF_RAX);
                    total += pel_rax_bytes(c.pel.len(), || id_rax_shape(c.pel.iter()));
                }
            }
        }
        self.groups_alloc.0.set(Some(total - before));
        total
    }

    /// lazyfree.c `lazyfreeGetFreeEffort()` for a stream.
    pub fn free_effort(&self) -> u64 {
        let mut effort = self.shape.nodes as u64;
        if let Some(groups) = &self.cgroups {
            if let Some(first) = groups.values().next() {
                effort += groups.len() as u64 * (1 + first.pel.len() as u64);
            }
        }
        effort
    }

    /// Listpack nodes and pending entries (what freeing the stream walks).
    pub fn allocations(&self) -> (usize, usize) {
        let nacks = self.cgroups.as_ref().map_or(0, |g| g.values().map(|g| g.pel.len()).sum());
        (self.nodes.len(), nacks)
    }

    /// The node layout, for tests and views: (master ID, live count, deleted count, listpack
    /// bytes, allocation).
    pub fn node_layout(&self) -> Vec<(StreamId, i64, i64, usize, usize)> {
        self.nodes
            .iter()
            .map(|(k, n)| {
                let p = n.lp.first().unwrap_or(0);
                let q = n.lp.next(p).unwrap_or(p);
                (*k, n.lp.get_int(p), n.lp.get_int(q), n.lp.bytes(), n.alloc)
            })
            .collect()
    }
}

/// A cache that takes no part in comparing streams.
#[derive(Debug, Default)]
struct GroupsAlloc(std::cell::Cell<Option<usize>>);

impl PartialEq for GroupsAlloc {
    fn eq(&self, _: &GroupsAlloc) -> bool {
        true
    }
}

/// A PEL's rax allocations: exact up to 64 entries (this runs after every write to the
/// stream, for every consumer), else from a per-entry average.
fn pel_rax_bytes(len: usize, shape: impl FnOnce() -> RaxShape) -> usize {
    const EXACT: usize = 64;
    if len <= EXACT {
        return shape().bytes;
    }
    // IDs close together cost ~58 bytes of rax nodes a key: a leaf, a chain node and a share
    // of a branch (measured with `rax_shape` from 1,000 to 100,000 keys, and on redis-server).
    let per_key = 58;
    size_class(rax_node_len(0, false, false)) + len * per_key
}

/// An estimate of a rax of names: a compressed node of the name and a leaf each.
fn names_rax_bytes<'a>(names: impl Iterator<Item = &'a Vec<u8>>) -> usize {
    names.map(|n| size_class(chain_len(n.len().max(1))) + size_class(rax_node_len(0, false, true))).sum::<usize>()
        + size_class(rax_node_len(0, false, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fv(pairs: &[(&str, &str)]) -> Vec<Vec<u8>> {
        pairs.iter().flat_map(|(f, v)| [f.as_bytes().to_vec(), v.as_bytes().to_vec()]).collect()
    }

    fn ids(s: &Stream, start: StreamId, end: StreamId, rev: bool) -> Vec<StreamId> {
        let mut out = Vec::new();
        s.range(start, end, rev, true, |e| {
            out.push(e.id);
            true
        });
        out
    }

    #[test]
    fn nodes_split_at_max_entries_and_compress_same_fields() {
        let mut s = Stream::new();
        let lim = NodeLimits { max_bytes: 4096, max_entries: 3 };
        for i in 1..=7u64 {
            s.append_item(&fv(&[("a", "1"), ("b", "x")]), Some(StreamId::new(i, 0)), true, 0, lim).unwrap();
        }
        assert_eq!(s.rax_keys(), 3);
        assert_eq!(s.length, 7);
        let all = ids(&s, StreamId::MIN, StreamId::MAX, false);
        assert_eq!(all.len(), 7);
        let back = ids(&s, StreamId::MIN, StreamId::MAX, true);
        assert_eq!(back.iter().rev().copied().collect::<Vec<_>>(), all);
        let mut fields = Vec::new();
        s.range(StreamId::new(5, 0), StreamId::new(5, 0), false, true, |e| {
            fields = e.fields().map(|(f, v)| (f.to_bytes(), v.to_bytes())).collect();
            true
        });
        assert_eq!(fields, vec![(b"a".to_vec(), b"1".to_vec()), (b"b".to_vec(), b"x".to_vec())]);
    }

    #[test]
    fn deleting_flags_entries_and_frees_empty_nodes() {
        let mut s = Stream::new();
        let lim = NodeLimits { max_bytes: 4096, max_entries: 2 };
        for i in 1..=4u64 {
            s.append_item(&fv(&[("f", "v")]), Some(StreamId::new(i, 0)), true, 0, lim).unwrap();
        }
        assert!(s.delete_item(StreamId::new(1, 0)));
        assert!(!s.delete_item(StreamId::new(1, 0)));
        assert_eq!(s.rax_keys(), 2);
        assert!(s.delete_item(StreamId::new(2, 0)));
        assert_eq!(s.rax_keys(), 1);
        assert_eq!(ids(&s, StreamId::MIN, StreamId::MAX, false), vec![StreamId::new(3, 0), StreamId::new(4, 0)]);
    }

    #[test]
    fn rax_shapes_count_like_rax_c() {
        assert_eq!(rax_shape(&[]).nodes, 1);
        let k = |b0: u8, b15: u8| {
            let mut a = [0u8; 16];
            a[0] = b0;
            a[15] = b15;
            a
        };
        assert_eq!(rax_shape(&[k(0, 1)]).nodes, 2);
        // Two keys differing in the last byte: head chain, branch, two leaves.
        assert_eq!(rax_shape(&[k(0, 1), k(0, 2)]).nodes, 4);
        // Differing in the first byte: the head branches, each child a chain then a leaf.
        assert_eq!(rax_shape(&[k(1, 0), k(2, 0)]).nodes, 5);
        // A stream of one node, as XINFO STREAM shows it.
        let mut s = Stream::new();
        s.append_item(&fv(&[("a", "1")]), Some(StreamId::new(1, 1)), true, 0, NodeLimits::default()).unwrap();
        assert_eq!((s.rax_keys(), s.rax_nodes()), (1, 2));
    }

    #[test]
    fn trimming_by_length_and_min_id() {
        let lim = NodeLimits { max_bytes: 4096, max_entries: 10 };
        let mut s = Stream::new();
        for i in 1..=100u64 {
            s.append_item(&fv(&[("f", "v")]), Some(StreamId::new(i, 0)), true, 0, lim).unwrap();
        }
        assert_eq!(s.trim(TrimStrategy::MaxLen(55), true, 0), 40);
        assert_eq!(s.length, 60);
        assert_eq!(s.trim(TrimStrategy::MaxLen(55), false, 0), 5);
        assert_eq!(s.length, 55);
        assert_eq!(s.first_id, StreamId::new(46, 0));
        assert_eq!(s.trim(TrimStrategy::MinId(StreamId::new(90, 0)), false, 0), 44);
        assert_eq!(s.first_id, StreamId::new(90, 0));
    }

    /// A listpack of these elements (integers or strings), as a stream node's bytes.
    fn lp(elements: &[&str]) -> Vec<u8> {
        let mut b = super::super::listpack::Builder::new();
        for e in elements {
            b.push(e.as_bytes());
        }
        b.finish()
    }

    #[test]
    fn nodes_validate_as_redis_checks_them() {
        // Every node XADD, XDEL and XTRIM leave passes.
        let mut s = Stream::new();
        let lim = NodeLimits { max_bytes: 4096, max_entries: 5 };
        for i in 1..=23u64 {
            let f = if i % 4 == 0 { fv(&[("other", "x")]) } else { fv(&[("a", "1"), ("b", "2")]) };
            s.append_item(&f, Some(StreamId::new(i, 0)), true, 0, lim).unwrap();
        }
        s.delete_item(StreamId::new(7, 0));
        s.trim(TrimStrategy::MaxLen(20), false, 0);
        assert!(s.listpacks().all(|(_, l)| validate_listpack(l.as_bytes())));
        let master = ["2", "0", "1", "f", "0"];
        let entries = ["2", "0", "0", "a", "4", "0", "1", "0", "1", "g", "b", "6"];
        let node = |m: &[&str], e: &[&str]| lp(&[m, e].concat());
        assert!(validate_listpack(&node(&master, &entries)));
        // Accepted as Redis accepts them: the master entry alone; the header's count wrong.
        assert!(validate_listpack(&node(&["0", "0", "1", "f", "0"], &[])));
        let mut wrong_count = node(&master, &entries);
        wrong_count[4] = 3;
        assert!(validate_listpack(&wrong_count));
        // Refused as Redis refuses them.
        assert!(!validate_listpack(&lp(&[])));
        assert!(!validate_listpack(&node(&["3", "0", "1", "f", "0"], &entries)), "count + deleted ≠ entries");
        assert!(!validate_listpack(&node(&["2", "0", "1", "f", "7"], &entries)), "no master terminator");
        assert!(!validate_listpack(&node(&master, &[&entries[..], &["9"]].concat())), "a trailing element");
        assert!(!validate_listpack(&node(&master, &[&entries[..11], &["5"]].concat())), "lp-count");
        assert!(!validate_listpack(&node(&master, &[&["x"], &entries[1..]].concat())), "flags not a number");
        assert!(!validate_listpack(&node(&["2", "0", "9999", "f", "0"], &entries)));
        // Refused beyond Redis, which keeps them and goes wrong later.
        assert!(!validate_listpack(&node(&["3", "-1", "1", "f", "0"], &entries)), "negative deleted");
        assert!(!validate_listpack(&node(&["1", "1", "1", "f", "0"], &entries)), "count ≠ live entries");
        assert!(!validate_listpack(&node(&master, &["2", "0", "0", "a", "4", "0", "1", "0", "-1", "2"])), "-1 fields");
        assert!(!validate_listpack(&node(&["1", "0", "-1", "0"], &["2", "0", "0", "2"])), "-1 master fields");
    }

    #[test]
    fn ids_step_at_their_limits() {
        let mut a = StreamId::new(1, u64::MAX);
        assert!(a.incr());
        assert_eq!(a, StreamId::new(2, 0));
        let mut m = StreamId::MAX;
        assert!(!m.incr());
        let mut z = StreamId::MIN;
        assert!(!z.decr());
        assert_eq!(z, StreamId::MAX);
    }
}
