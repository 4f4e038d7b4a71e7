//! The two sorts behind GEOSEARCH's ASC/DESC, as redis-server 7.0.15 on Debian runs them, so
//! that members at the same distance come out in the same order.
//!
//! - `qsort`: glibc 2.36's `qsort()`, which for arrays of any size a search can build is its
//!   top-down merge sort (`msort_with_tmp`: left half `n/2`, ties taken from the left) —
//!   stable. geo.c calls it when every result is returned.
//! - `pqsort`: pqsort.c `pqsort()`, Redis's partial quicksort (NetBSD's Bentley–McIlroy
//!   qsort, which only recurses into partitions that overlap the wanted range of ranks). geo.c
//!   calls it when COUNT cuts the results; it is not stable, and which of several equidistant
//!   members make the cut depends on its exact pivot choices, reproduced here. As in 7.0.15
//!   (checked live: equidistant members come out swapped), there is no switch to insertion
//!   sort after a partition without swaps — only below 7 elements.
//!
//! Comparators return C's negative/zero/positive. Deviation: none; the element swaps that C
//! does bytewise are whole-element swaps here, which is the same permutation.

/// glibc `qsort()` (merge sort): stable for a consistent comparator.
pub fn qsort<T: Clone>(v: &mut [T], cmp: &impl Fn(&T, &T) -> i32) {
    if v.len() <= 1 {
        return;
    }
    let n1 = v.len() / 2;
    qsort(&mut v[..n1], cmp);
    qsort(&mut v[n1..], cmp);
    let mut merged = Vec::with_capacity(v.len());
    let (mut i, mut j) = (0, n1);
    while i < n1 && j < v.len() {
        if cmp(&v[i], &v[j]) <= 0 {
            merged.push(v[i].clone());
            i += 1;
        } else {
            merged.push(v[j].clone());
            j += 1;
        }
    }
    merged.extend_from_slice(&v[i..n1]);
    // Whatever is left of the right half is already in place.
    let done = merged.len();
    v[..done].clone_from_slice(&merged);
}

/// pqsort.c `pqsort(a, n, es, cmp, lrange, rrange)`: afterwards `v[lrange..=rrange]` holds
/// the elements of those ranks, in order.
pub fn pqsort<T>(v: &mut [T], cmp: &impl Fn(&T, &T) -> i32, lrange: usize, rrange: usize) {
    partial(v, 0, cmp, lrange, rrange);
}

fn insertion_sort<T>(a: &mut [T], cmp: &impl Fn(&T, &T) -> i32) {
    for pm in 1..a.len() {
        let mut pl = pm;
        while pl > 0 && cmp(&a[pl - 1], &a[pl]) > 0 {
            a.swap(pl, pl - 1);
            pl -= 1;
        }
    }
}

fn med3<T>(a: &[T], x: usize, y: usize, z: usize, cmp: &impl Fn(&T, &T) -> i32) -> usize {
    if cmp(&a[x], &a[y]) < 0 {
        if cmp(&a[y], &a[z]) < 0 {
            y
        } else if cmp(&a[x], &a[z]) < 0 {
            z
        } else {
            x
        }
    } else if cmp(&a[y], &a[z]) > 0 {
        y
    } else if cmp(&a[x], &a[z]) < 0 {
        x
    } else {
        z
    }
}

fn vecswap<T>(a: &mut [T], x: usize, y: usize, n: usize) {
    for i in 0..n {
        a.swap(x + i, y + i);
    }
}

/// Sorts `a`, which starts at absolute rank `base`, as far as ranks `lo..=hi` need.
fn partial<T>(mut a: &mut [T], mut base: usize, cmp: &impl Fn(&T, &T) -> i32, lo: usize, hi: usize) {
    // The partition [start, start + len) matters only if it overlaps the wanted ranks.
    let wanted = |start: usize, len: usize| hi >= start && lo < start + len;
    loop {
        let n = a.len();
        if n < 7 {
            insertion_sort(a, cmp);
            return;
        }
        let mut pm = n / 2;
        if n > 7 {
            let mut pl = 0;
            let mut pn = n - 1;
            if n > 40 {
                let d = n / 8;
                pl = med3(a, pl, pl + d, pl + 2 * d, cmp);
                pm = med3(a, pm - d, pm, pm + d, cmp);
                pn = med3(a, pn - 2 * d, pn - d, pn, cmp);
            }
            pm = med3(a, pl, pm, pn, cmp);
        }
        a.swap(0, pm);
        let (mut pa, mut pb) = (1, 1);
        let (mut pc, mut pd) = (n - 1, n - 1);
        loop {
            while pb <= pc {
                let r = cmp(&a[pb], &a[0]);
                if r > 0 {
                    break;
                }
                if r == 0 {
                    a.swap(pa, pb);
                    pa += 1;
                }
                pb += 1;
            }
            while pb <= pc {
                let r = cmp(&a[pc], &a[0]);
                if r < 0 {
                    break;
                }
                if r == 0 {
                    a.swap(pc, pd);
                    pd -= 1;
                }
                pc -= 1;
            }
            if pb > pc {
                break;
            }
            a.swap(pb, pc);
            pb += 1;
            pc -= 1;
        }
        let r = pa.min(pb - pa);
        vecswap(a, 0, pb - r, r);
        let r = (pd - pc).min(n - pd - 1);
        vecswap(a, pb, n - r, r);
        let left = pb - pa;
        if left > 1 && wanted(base, left) {
            partial(&mut a[..left], base, cmp, lo, hi);
        }
        let right = pd - pc;
        if right <= 1 {
            return;
        }
        // Iterate rather than recurse on the right-hand partition.
        base += n - right;
        let rest = a;
        a = &mut rest[n - right..];
        if !wanted(base, right) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by_key(a: &(i32, usize), b: &(i32, usize)) -> i32 {
        a.0.cmp(&b.0) as i32
    }

    #[test]
    fn qsort_is_stable() {
        let mut v: Vec<(i32, usize)> = [3, 1, 3, 2, 1, 3, 0, 2].iter().copied().zip(0..).collect();
        qsort(&mut v, &by_key);
        assert_eq!(v, vec![(0, 6), (1, 1), (1, 4), (2, 3), (2, 7), (3, 0), (3, 2), (3, 5)]);
    }

    #[test]
    fn pqsort_orders_the_wanted_ranks() {
        let mut seed = 7u64;
        for n in [1usize, 5, 7, 8, 40, 41, 100, 500] {
            let mut v: Vec<(i32, usize)> = (0..n)
                .map(|i| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (((seed >> 33) % 50) as i32, i)
                })
                .collect();
            let mut sorted: Vec<i32> = v.iter().map(|x| x.0).collect();
            sorted.sort();
            let hi = (n / 3).max(1) - 1;
            pqsort(&mut v, &by_key, 0, hi);
            let got: Vec<i32> = v[..=hi].iter().map(|x| x.0).collect();
            assert_eq!(got, sorted[..=hi], "n={n}");
        }
    }
}
