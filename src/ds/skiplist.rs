//! The sorted-set skiplist: models t_zset.c `zslCreate`, `zslInsert`, `zslDelete`,
//! `zslDeleteNode`, `zslUpdateScore`, `zslGetRank`, `zslGetElementByRank`, `zslIsInRange`,
//! `zslFirstInRange`/`zslLastInRange` and their lexicographic twins, and the range deletions.
//!
//! Nodes are ordered by (score, member bytes); every level stores a forward link and its span
//! (how many level-0 steps it jumps), which gives O(log N) rank; level 0 also has a backward
//! link. The header node has `MAX_LEVEL` levels. Levels are chosen by the caller with
//! `random_level(rng)` — p = 1/4, at most 32, as `zslRandomLevel` — so the engine's one seeded
//! RNG decides them. Differences: nodes live in an arena (`Vec`) addressed by index instead of
//! pointers, and lookups can record the path they took (for the view), which Redis doesn't do.

/// ZSKIPLIST_MAXLEVEL in 7.0 (it was 64 in 5.0).
pub const MAX_LEVEL: usize = 32;
/// ZSKIPLIST_P.
pub const P: f64 = 0.25;

/// "No node".
pub const NIL: u32 = u32::MAX;
const HEADER: u32 = 0;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Level {
    pub forward: u32,
    pub span: u64,
}

#[derive(Debug, Clone)]
pub struct Node {
    pub ele: Vec<u8>,
    pub score: f64,
    pub backward: u32,
    pub levels: Vec<Level>,
}

/// t_zset.c `zslRandomLevel()`: start at 1, add a level while a uniform draw in [0,1) is
/// below 0.25, at most 32. `draw` yields uniform values in [0, 1).
pub fn random_level(mut draw: impl FnMut() -> f64) -> usize {
    let mut level = 1;
    while level < MAX_LEVEL && draw() < P {
        level += 1;
    }
    level
}

/// A score range: `(min`/`[min` … `max)`/`max]` (server.h `zrangespec`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreRange {
    pub min: f64,
    pub max: f64,
    pub minex: bool,
    pub maxex: bool,
}

impl ScoreRange {
    pub fn gte_min(&self, v: f64) -> bool {
        if self.minex {
            v > self.min
        } else {
            v >= self.min
        }
    }
    pub fn lte_max(&self, v: f64) -> bool {
        if self.maxex {
            v < self.max
        } else {
            v <= self.max
        }
    }
    pub fn contains(&self, v: f64) -> bool {
        self.gte_min(v) && self.lte_max(v)
    }
    /// True when no value can be in the range.
    pub fn is_empty(&self) -> bool {
        self.min > self.max || (self.min == self.max && (self.minex || self.maxex))
    }
}

/// One end of a lexicographic range (server.h `zlexrangespec`): `-`, `+`, `[x`, `(x`.
#[derive(Debug, Clone, PartialEq)]
pub enum LexBound {
    MinusInf,
    PlusInf,
    Inclusive(Vec<u8>),
    Exclusive(Vec<u8>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct LexRange {
    pub min: LexBound,
    pub max: LexBound,
}

impl LexRange {
    /// t_zset.c `zslLexValueGteMin()`.
    pub fn gte_min(&self, v: &[u8]) -> bool {
        match &self.min {
            LexBound::MinusInf => true,
            LexBound::PlusInf => false,
            LexBound::Inclusive(m) => v >= m.as_slice(),
            LexBound::Exclusive(m) => v > m.as_slice(),
        }
    }
    /// t_zset.c `zslLexValueLteMax()`.
    pub fn lte_max(&self, v: &[u8]) -> bool {
        match &self.max {
            LexBound::PlusInf => true,
            LexBound::MinusInf => false,
            LexBound::Inclusive(m) => v <= m.as_slice(),
            LexBound::Exclusive(m) => v < m.as_slice(),
        }
    }
    pub fn contains(&self, v: &[u8]) -> bool {
        self.gte_min(v) && self.lte_max(v)
    }
    /// t_zset.c `zslIsInLexRange()`'s emptiness test (`sdscmplex` of the two bounds).
    pub fn is_empty(&self) -> bool {
        use std::cmp::Ordering::*;
        fn order(b: &LexBound) -> (i32, Option<&[u8]>) {
            match b {
                LexBound::MinusInf => (0, None),
                LexBound::PlusInf => (2, None),
                LexBound::Inclusive(v) | LexBound::Exclusive(v) => (1, Some(v.as_slice())),
            }
        }
        let (a, b) = (order(&self.min), order(&self.max));
        let cmp = a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1));
        let min_ex = matches!(self.min, LexBound::Exclusive(_));
        let max_ex = matches!(self.max, LexBound::Exclusive(_));
        cmp == Greater || (cmp == Equal && (min_ex || max_ex))
    }
}

/// `(score, member)` ordering: score first, then member bytes (`sdscmp` = memcmp, then length).
fn before(score: f64, ele: &[u8], other_score: f64, other_ele: &[u8]) -> bool {
    score < other_score || (score == other_score && ele < other_ele)
}

/// What the range finders ask of a range: whether it is empty and where a node stands against
/// its two ends. Score ranges judge a node by its score, lex ranges by its member bytes;
/// t_zset.c writes each finder twice, once per kind.
trait NodeRange {
    fn is_empty(&self) -> bool;
    fn node_gte_min(&self, n: &Node) -> bool;
    fn node_lte_max(&self, n: &Node) -> bool;
}

impl NodeRange for ScoreRange {
    fn is_empty(&self) -> bool {
        ScoreRange::is_empty(self)
    }
    fn node_gte_min(&self, n: &Node) -> bool {
        self.gte_min(n.score)
    }
    fn node_lte_max(&self, n: &Node) -> bool {
        self.lte_max(n.score)
    }
}

impl NodeRange for LexRange {
    fn is_empty(&self) -> bool {
        LexRange::is_empty(self)
    }
    fn node_gte_min(&self, n: &Node) -> bool {
        self.gte_min(&n.ele)
    }
    fn node_lte_max(&self, n: &Node) -> bool {
        self.lte_max(&n.ele)
    }
}

/// Which end of a range a finder looks for.
#[derive(Clone, Copy)]
enum End {
    First,
    Last,
}

/// One step of a recorded search: the node examined at a level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathStep {
    pub level: usize,
    pub node: u32,
    /// 1-based rank of `node`.
    pub rank: u64,
    /// Whether the search moved onto `node` (else it stopped before it and went down a level).
    pub moved: bool,
}

/// Boxed so a sorted set's value stays small in the keyspace table (every entry of which is as
/// big as its largest variant).
#[derive(Debug, Clone)]
pub struct Skiplist {
    s: Box<Core>,
}

#[derive(Debug, Clone)]
struct Core {
    nodes: Vec<Node>,
    free: Vec<u32>,
    tail: u32,
    length: usize,
    level: usize,
}

impl Default for Skiplist {
    fn default() -> Self {
        Skiplist::new()
    }
}

impl Skiplist {
    /// t_zset.c `zslCreate()`: a header with MAX_LEVEL empty levels.
    pub fn new() -> Skiplist {
        let header = Node {
            ele: Vec::new(),
            score: 0.0,
            backward: NIL,
            levels: vec![Level { forward: NIL, span: 0 }; MAX_LEVEL],
        };
        Skiplist { s: Box::new(Core { nodes: vec![header], free: Vec::new(), tail: NIL, length: 0, level: 1 }) }
    }

    pub fn len(&self) -> usize {
        self.s.length
    }
    pub fn is_empty(&self) -> bool {
        self.s.length == 0
    }
    /// The highest level in use (`zsl->level`).
    pub fn level(&self) -> usize {
        self.s.level
    }
    pub fn node(&self, i: u32) -> &Node {
        &self.s.nodes[i as usize]
    }
    pub fn header(&self) -> u32 {
        HEADER
    }
    pub fn first(&self) -> u32 {
        self.s.nodes[HEADER as usize].levels[0].forward
    }
    pub fn tail(&self) -> u32 {
        self.s.tail
    }
    pub fn next(&self, i: u32) -> u32 {
        self.s.nodes[i as usize].levels[0].forward
    }
    pub fn prev(&self, i: u32) -> u32 {
        self.s.nodes[i as usize].backward
    }

    fn alloc(&mut self, node: Node) -> u32 {
        if let Some(i) = self.s.free.pop() {
            self.s.nodes[i as usize] = node;
            i
        } else {
            self.s.nodes.push(node);
            (self.s.nodes.len() - 1) as u32
        }
    }

    fn fwd(&self, x: u32, lvl: usize) -> u32 {
        self.s.nodes[x as usize].levels[lvl].forward
    }

    /// The last node before (score, ele) at each level, and the rank of each.
    fn find_update(&self, score: f64, ele: &[u8]) -> ([u32; MAX_LEVEL], [u64; MAX_LEVEL]) {
        let mut update = [HEADER; MAX_LEVEL];
        let mut rank = [0u64; MAX_LEVEL];
        let mut x = HEADER;
        for i in (0..self.s.level).rev() {
            rank[i] = if i == self.s.level - 1 { 0 } else { rank[i + 1] };
            loop {
                let f = self.fwd(x, i);
                if f == NIL {
                    break;
                }
                let n = &self.s.nodes[f as usize];
                if before(n.score, &n.ele, score, ele) {
                    rank[i] += self.s.nodes[x as usize].levels[i].span;
                    x = f;
                } else {
                    break;
                }
            }
            update[i] = x;
        }
        (update, rank)
    }

    /// t_zset.c `zslInsert()`: inserts a member the caller knows is absent, at `level`
    /// (from `random_level`). Returns the new node.
    pub fn insert(&mut self, score: f64, ele: Vec<u8>, level: usize) -> u32 {
        self.insert_ranked(score, ele, level).0
    }

    /// `insert`, also returning the new node's 1-based rank (known from the descent).
    #[allow(clippy::needless_range_loop)] // indexes update[]/rank[] by level, as zslInsert() does
    pub fn insert_ranked(&mut self, score: f64, ele: Vec<u8>, level: usize) -> (u32, u64) {
        let level = level.clamp(1, MAX_LEVEL);
        let (mut update, mut rank) = self.find_update(score, &ele);
        if level > self.s.level {
            for i in self.s.level..level {
                rank[i] = 0;
                update[i] = HEADER;
                self.s.nodes[HEADER as usize].levels[i].span = self.s.length as u64;
            }
            self.s.level = level;
        }
        let x = self.alloc(Node { ele, score, backward: NIL, levels: vec![Level { forward: NIL, span: 0 }; level] });
        for i in 0..level {
            let u = update[i] as usize;
            let uf = self.s.nodes[u].levels[i].forward;
            let uspan = self.s.nodes[u].levels[i].span;
            self.s.nodes[x as usize].levels[i].forward = uf;
            self.s.nodes[u].levels[i].forward = x;
            self.s.nodes[x as usize].levels[i].span = uspan - (rank[0] - rank[i]);
            self.s.nodes[u].levels[i].span = (rank[0] - rank[i]) + 1;
        }
        for i in level..self.s.level {
            self.s.nodes[update[i] as usize].levels[i].span += 1;
        }
        self.s.nodes[x as usize].backward = if update[0] == HEADER { NIL } else { update[0] };
        let next = self.fwd(x, 0);
        if next != NIL {
            self.s.nodes[next as usize].backward = x;
        } else {
            self.s.tail = x;
        }
        self.s.length += 1;
        (x, rank[0] + 1)
    }

    /// t_zset.c `zslDeleteNode()`.
    #[allow(clippy::needless_range_loop)] // indexes update[] by level, as zslDeleteNode() does
    fn delete_node(&mut self, x: u32, update: &[u32; MAX_LEVEL]) {
        for i in 0..self.s.level {
            let u = update[i] as usize;
            if self.s.nodes[u].levels[i].forward == x {
                self.s.nodes[u].levels[i].span += self.s.nodes[x as usize].levels[i].span;
                self.s.nodes[u].levels[i].span -= 1;
                self.s.nodes[u].levels[i].forward = self.s.nodes[x as usize].levels[i].forward;
            } else {
                self.s.nodes[u].levels[i].span -= 1;
            }
        }
        let next = self.fwd(x, 0);
        let back = self.s.nodes[x as usize].backward;
        if next != NIL {
            self.s.nodes[next as usize].backward = back;
        } else {
            self.s.tail = back;
        }
        while self.s.level > 1 && self.fwd(HEADER, self.s.level - 1) == NIL {
            self.s.level -= 1;
        }
        self.s.length -= 1;
        self.s.nodes[x as usize].ele = Vec::new();
        self.s.nodes[x as usize].levels = Vec::new();
        self.s.free.push(x);
    }

    /// t_zset.c `zslDelete()`: removes (score, ele) if present.
    pub fn delete(&mut self, score: f64, ele: &[u8]) -> bool {
        let (update, _) = self.find_update(score, ele);
        let x = self.fwd(update[0], 0);
        if x != NIL && self.s.nodes[x as usize].score == score && self.s.nodes[x as usize].ele == ele {
            self.delete_node(x, &update);
            true
        } else {
            false
        }
    }

    /// t_zset.c `zslUpdateScore()`: in place if the order is unchanged (judged by scores only,
    /// as Redis does), else delete and insert a new node at `new_level()`.
    pub fn update_score(&mut self, cur: f64, ele: &[u8], new: f64, new_level: impl FnOnce() -> usize) -> Option<u32> {
        let (update, _) = self.find_update(cur, ele);
        let x = self.fwd(update[0], 0);
        if x == NIL || self.s.nodes[x as usize].score != cur || self.s.nodes[x as usize].ele != ele {
            return None;
        }
        let back = self.s.nodes[x as usize].backward;
        let next = self.fwd(x, 0);
        if (back == NIL || self.s.nodes[back as usize].score < new)
            && (next == NIL || self.s.nodes[next as usize].score > new)
        {
            self.s.nodes[x as usize].score = new;
            return Some(x);
        }
        let owned = self.s.nodes[x as usize].ele.clone();
        self.delete_node(x, &update);
        Some(self.insert(new, owned, new_level()))
    }

    /// t_zset.c `zslGetRank()`: 1-based rank of (score, ele), 0 if absent. Records the path.
    pub fn rank(&self, score: f64, ele: &[u8], path: Option<&mut Vec<PathStep>>) -> u64 {
        let mut path = path;
        let mut rank = 0;
        let mut x = HEADER;
        for i in (0..self.s.level).rev() {
            loop {
                let f = self.fwd(x, i);
                if f == NIL {
                    break;
                }
                let f_rank = rank + self.s.nodes[x as usize].levels[i].span;
                let n = &self.s.nodes[f as usize];
                let moved = n.score < score || (n.score == score && n.ele.as_slice() <= ele);
                if let Some(p) = path.as_deref_mut() {
                    p.push(PathStep { level: i, node: f, rank: f_rank, moved });
                }
                if moved {
                    rank = f_rank;
                    x = f;
                } else {
                    break;
                }
            }
            if x != HEADER && self.s.nodes[x as usize].score == score && self.s.nodes[x as usize].ele == ele {
                return rank;
            }
        }
        0
    }

    /// t_zset.c `zslGetElementByRank()`: the node at 1-based `rank`, or NIL.
    pub fn by_rank(&self, rank: u64) -> u32 {
        self.by_rank_from(HEADER, 0, rank)
    }

    fn by_rank_from(&self, start: u32, start_rank: u64, rank: u64) -> u32 {
        let mut traversed = start_rank;
        let mut x = start;
        for i in (0..self.s.level).rev() {
            loop {
                let f = self.fwd(x, i);
                if f == NIL || traversed + self.s.nodes[x as usize].levels[i].span > rank {
                    break;
                }
                traversed += self.s.nodes[x as usize].levels[i].span;
                x = f;
            }
            if traversed == rank {
                return if x == HEADER { NIL } else { x };
            }
        }
        NIL
    }

    /// t_zset.c `zslIsInRange()`.
    pub fn in_range(&self, r: &ScoreRange) -> bool {
        self.may_hold(r)
    }

    /// t_zset.c `zslNthInRange()` for n = 0: the first node in range, recording the path.
    pub fn first_in_range(&self, r: &ScoreRange, path: Option<&mut Vec<PathStep>>) -> u32 {
        self.range_end(r, End::First, path)
    }

    /// t_zset.c `zslLastInRange()`.
    pub fn last_in_range(&self, r: &ScoreRange) -> u32 {
        self.range_end(r, End::Last, None)
    }

    /// t_zset.c `zslIsInLexRange()`.
    pub fn in_lex_range(&self, r: &LexRange) -> bool {
        self.may_hold(r)
    }

    /// t_zset.c `zslFirstInLexRange()`.
    pub fn first_in_lex_range(&self, r: &LexRange) -> u32 {
        self.range_end(r, End::First, None)
    }

    /// t_zset.c `zslLastInLexRange()`.
    pub fn last_in_lex_range(&self, r: &LexRange) -> u32 {
        self.range_end(r, End::Last, None)
    }

    /// `zslIsInRange()` and `zslIsInLexRange()`: false when the range is empty or lies wholly
    /// after the tail or before the first node.
    fn may_hold<R: NodeRange>(&self, r: &R) -> bool {
        if r.is_empty() || self.s.tail == NIL {
            return false;
        }
        if !r.node_gte_min(&self.s.nodes[self.s.tail as usize]) {
            return false;
        }
        let first = self.first();
        first != NIL && r.node_lte_max(&self.s.nodes[first as usize])
    }

    /// The four range finders (`zslNthInRange()` for n = 0, `zslLastInRange()` and the lex
    /// twins) as one descent. For the first node, move on while the next node is below the
    /// range's minimum, then take one step at level 0; for the last, move on while the next node
    /// is within its maximum. The node reached satisfies one end only, so it is checked against
    /// the other. Every node examined is recorded in `path`.
    fn range_end<R: NodeRange>(&self, r: &R, end: End, path: Option<&mut Vec<PathStep>>) -> u32 {
        let mut path = path;
        if !self.may_hold(r) {
            return NIL;
        }
        let mut x = HEADER;
        let mut traversed = 0u64;
        for i in (0..self.s.level).rev() {
            loop {
                let f = self.fwd(x, i);
                if f == NIL {
                    break;
                }
                let f_rank = traversed + self.s.nodes[x as usize].levels[i].span;
                let n = &self.s.nodes[f as usize];
                let moved = match end {
                    End::First => !r.node_gte_min(n),
                    End::Last => r.node_lte_max(n),
                };
                if let Some(p) = path.as_deref_mut() {
                    p.push(PathStep { level: i, node: f, rank: f_rank, moved });
                }
                if moved {
                    traversed = f_rank;
                    x = f;
                } else {
                    break;
                }
            }
        }
        let (x, in_range) = match end {
            End::First => {
                let x = self.fwd(x, 0);
                (x, x != NIL && r.node_lte_max(&self.s.nodes[x as usize]))
            }
            End::Last => (x, x != HEADER && r.node_gte_min(&self.s.nodes[x as usize])),
        };
        if in_range {
            x
        } else {
            NIL
        }
    }

    /// Deletes the nodes in 1-based ranks `start..=end` (`zslDeleteRangeByRank`), returning
    /// the removed members.
    pub fn delete_range_by_rank(&mut self, start: u64, end: u64) -> Vec<(Vec<u8>, f64)> {
        let mut removed = Vec::new();
        let mut update = [HEADER; MAX_LEVEL];
        let mut traversed = 0u64;
        let mut x = HEADER;
        for i in (0..self.s.level).rev() {
            loop {
                let f = self.fwd(x, i);
                if f != NIL && traversed + self.s.nodes[x as usize].levels[i].span < start {
                    traversed += self.s.nodes[x as usize].levels[i].span;
                    x = f;
                } else {
                    break;
                }
            }
            update[i] = x;
        }
        traversed += 1;
        let mut x = self.fwd(x, 0);
        while x != NIL && traversed <= end {
            let next = self.fwd(x, 0);
            removed.push((self.s.nodes[x as usize].ele.clone(), self.s.nodes[x as usize].score));
            self.delete_node(x, &update);
            traversed += 1;
            x = next;
        }
        removed
    }

    /// t_zset.c `zslDeleteRangeByLex()`: descends to the first node not below the range's
    /// minimum (by member bytes, as if every score were equal), then deletes nodes while they are
    /// below its maximum. Returns the removed members.
    pub fn delete_range_by_lex(&mut self, r: &LexRange) -> Vec<(Vec<u8>, f64)> {
        let mut removed = Vec::new();
        let mut update = [HEADER; MAX_LEVEL];
        let mut x = HEADER;
        for i in (0..self.s.level).rev() {
            loop {
                let f = self.fwd(x, i);
                if f != NIL && !r.gte_min(&self.s.nodes[f as usize].ele) {
                    x = f;
                } else {
                    break;
                }
            }
            update[i] = x;
        }
        let mut x = self.fwd(x, 0);
        while x != NIL && r.lte_max(&self.s.nodes[x as usize].ele) {
            let next = self.fwd(x, 0);
            removed.push((self.s.nodes[x as usize].ele.clone(), self.s.nodes[x as usize].score));
            self.delete_node(x, &update);
            x = next;
        }
        removed
    }

    /// Iterates (member, score) from the first node, ascending.
    pub fn iter(&self) -> SkiplistIter<'_> {
        SkiplistIter { zsl: self, at: self.first() }
    }

    /// Checks every invariant (order, spans, backward links, length, tail); for tests.
    pub fn check(&self) -> Result<(), String> {
        let mut count = 0usize;
        let mut prev = NIL;
        let mut x = self.first();
        while x != NIL {
            let n = &self.s.nodes[x as usize];
            if n.backward != prev {
                return Err(format!("bad backward at node {x}"));
            }
            if prev != NIL {
                let p = &self.s.nodes[prev as usize];
                if !before(p.score, &p.ele, n.score, &n.ele) {
                    return Err(format!("order broken at node {x}"));
                }
            }
            count += 1;
            prev = x;
            x = n.levels[0].forward;
        }
        if count != self.s.length || prev != self.s.tail {
            return Err(format!("length {} / counted {count}, tail mismatch", self.s.length));
        }
        // Spans: the rank reached by following level i equals the count of level-0 steps.
        for lvl in 0..self.s.level {
            let mut rank = 0u64;
            let mut x = HEADER;
            loop {
                let l = self.s.nodes[x as usize].levels[lvl];
                if l.forward == NIL {
                    break;
                }
                rank += l.span;
                let target = self.by_rank_slow(rank);
                if target != l.forward {
                    return Err(format!("span mismatch at level {lvl}"));
                }
                x = l.forward;
            }
        }
        Ok(())
    }

    fn by_rank_slow(&self, rank: u64) -> u32 {
        let mut x = self.first();
        let mut r = 1;
        while x != NIL && r < rank {
            x = self.fwd(x, 0);
            r += 1;
        }
        x
    }
}

pub struct SkiplistIter<'a> {
    zsl: &'a Skiplist,
    at: u32,
}

impl<'a> Iterator for SkiplistIter<'a> {
    type Item = (&'a [u8], f64);
    fn next(&mut self) -> Option<Self::Item> {
        if self.at == NIL {
            return None;
        }
        let n = self.zsl.node(self.at);
        self.at = n.levels[0].forward;
        Some((n.ele.as_slice(), n.score))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Lcg(u64);
    impl Lcg {
        fn draw(&mut self) -> f64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    #[test]
    fn insert_delete_rank_and_ranges_keep_invariants() {
        let mut rng = Lcg(1);
        let mut zsl = Skiplist::new();
        let mut model: Vec<(f64, Vec<u8>)> = Vec::new();
        for i in 0..2000u32 {
            let score = ((i * 7919) % 101) as f64;
            let ele = format!("m{}", (i * 31) % 1500).into_bytes();
            if model.iter().any(|(_, e)| *e == ele) {
                let pos = model.iter().position(|(_, e)| *e == ele).unwrap();
                let (s, e) = model.remove(pos);
                assert!(zsl.delete(s, &e));
            } else {
                let lvl = random_level(|| rng.draw());
                zsl.insert(score, ele.clone(), lvl);
                model.push((score, ele));
            }
        }
        model.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap().then_with(|| a.1.cmp(&b.1)));
        zsl.check().unwrap();
        let got: Vec<(f64, Vec<u8>)> = zsl.iter().map(|(e, s)| (s, e.to_vec())).collect();
        assert_eq!(got, model);
        for (i, (s, e)) in model.iter().enumerate() {
            assert_eq!(zsl.rank(*s, e, None), i as u64 + 1);
            assert_eq!(zsl.node(zsl.by_rank(i as u64 + 1)).ele, *e);
        }
        let r = ScoreRange { min: 10.0, max: 20.0, minex: true, maxex: false };
        let first = zsl.first_in_range(&r, None);
        let want = model.iter().position(|(s, _)| r.contains(*s)).unwrap();
        assert_eq!(zsl.node(first).ele, model[want].1);
        let last = zsl.last_in_range(&r);
        let want_last = model.iter().rposition(|(s, _)| r.contains(*s)).unwrap();
        assert_eq!(zsl.node(last).ele, model[want_last].1);
        let removed = zsl.delete_range_by_rank(2, 5);
        assert_eq!(removed.len(), 4);
        zsl.check().unwrap();
    }

    /// The one descent against a scan of the level-0 list, on random skiplists and random
    /// ranges (fixed seed), for all four finders; the recorded path is checked too: every step
    /// names its node's true rank, and the search moved onto exactly the nodes before the range.
    #[test]
    fn range_finders_agree_with_a_scan() {
        let mut rng = Lcg(7);
        let mut pick = |n: u64| (rng.draw() * n as f64) as u64;
        let bound = |pick: &mut dyn FnMut(u64) -> u64| -> LexBound {
            let v = vec![b'a' + pick(6) as u8; 1 + pick(2) as usize];
            match pick(8) {
                0 => LexBound::MinusInf,
                1 => LexBound::PlusInf,
                2..=4 => LexBound::Inclusive(v),
                _ => LexBound::Exclusive(v),
            }
        };
        let mut draws = Lcg(99);
        for round in 0..300 {
            let mut zsl = Skiplist::new();
            let lex = round % 2 == 1;
            for i in 0..pick(40) {
                let (score, ele) = if lex {
                    // Lex ranges assume equal scores, as ZRANGEBYLEX does.
                    (0.0, vec![b'a' + pick(6) as u8; 1 + pick(2) as usize])
                } else {
                    (pick(12) as f64, format!("m{i}").into_bytes())
                };
                if zsl.iter().all(|(e, _)| e != ele.as_slice()) {
                    zsl.insert(score, ele, random_level(|| draws.draw()));
                }
            }
            let mut nodes = Vec::new();
            let mut x = zsl.first();
            while x != NIL {
                nodes.push(x);
                x = zsl.next(x);
            }
            let scan = |inside: &dyn Fn(&Node) -> bool| {
                let first = nodes.iter().copied().find(|&x| inside(zsl.node(x))).unwrap_or(NIL);
                let last = nodes.iter().copied().rev().find(|&x| inside(zsl.node(x))).unwrap_or(NIL);
                (first, last)
            };
            if lex {
                let r = LexRange { min: bound(&mut pick), max: bound(&mut pick) };
                let (first, last) = scan(&|n| !r.is_empty() && r.contains(&n.ele));
                assert_eq!(zsl.first_in_lex_range(&r), first, "{r:?}");
                assert_eq!(zsl.last_in_lex_range(&r), last, "{r:?}");
            } else {
                let (a, b) = (pick(14) as f64 - 1.0, pick(14) as f64 - 1.0);
                let r = ScoreRange { min: a, max: b, minex: pick(2) == 1, maxex: pick(2) == 1 };
                let (first, last) = scan(&|n| r.contains(n.score));
                let mut path = Vec::new();
                assert_eq!(zsl.first_in_range(&r, Some(&mut path)), first, "{r:?}");
                assert_eq!(zsl.last_in_range(&r), last, "{r:?}");
                if zsl.in_range(&r) {
                    assert!(!path.is_empty());
                }
                for step in path {
                    let n = zsl.node(step.node);
                    assert_eq!(zsl.rank(n.score, &n.ele, None), step.rank);
                    assert_eq!(step.moved, !r.gte_min(n.score), "{step:?} {r:?}");
                }
            }
        }
    }

    #[test]
    fn update_score_in_place_or_moved() {
        let mut zsl = Skiplist::new();
        for (s, e) in [(1.0, "a"), (2.0, "b"), (3.0, "c")] {
            zsl.insert(s, e.as_bytes().to_vec(), 1);
        }
        let same = zsl.update_score(2.0, b"b", 2.5, || 1).unwrap();
        assert_eq!(zsl.node(same).score, 2.5);
        zsl.update_score(2.5, b"b", 10.0, || 3).unwrap();
        let order: Vec<&[u8]> = zsl.iter().map(|(e, _)| e).collect();
        assert_eq!(order, vec![&b"a"[..], b"c", b"b"]);
        zsl.check().unwrap();
    }

    #[test]
    fn ties_order_by_member_bytes() {
        let mut zsl = Skiplist::new();
        for e in ["b", "a", "B"] {
            zsl.insert(1.0, e.as_bytes().to_vec(), 1);
        }
        let order: Vec<&[u8]> = zsl.iter().map(|(e, _)| e).collect();
        assert_eq!(order, vec![&b"B"[..], b"a", b"b"]);
    }

    #[test]
    fn lex_ranges() {
        let r = LexRange { min: LexBound::Inclusive(b"b".to_vec()), max: LexBound::Exclusive(b"d".to_vec()) };
        assert!(r.contains(b"b") && r.contains(b"c") && !r.contains(b"d"));
        assert!(LexRange { min: LexBound::PlusInf, max: LexBound::MinusInf }.is_empty());
        assert!(
            LexRange { min: LexBound::Exclusive(b"a".to_vec()), max: LexBound::Inclusive(b"a".to_vec()) }.is_empty()
        );
    }
}
