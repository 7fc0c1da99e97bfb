//! The program's one stable sort.
//!
//! `slice::sort_by` and its kin are generic over the element and the comparison, so each call
//! site carried its own copy of the standard library's stable sort: about 4 KB apiece, 70 KB of
//! the static binary for 17 call sites (measured with `cargo bloat`). Here the sort itself is
//! instantiated once, over positions with a `dyn` comparison, and each caller adds only the small
//! generic shell that moves the elements into the order found. The result is `sort_by`'s:
//! stable, equal elements keep their order. `clippy.toml` disallows the standard sorts so that
//! copies do not creep back.

use std::cmp::Ordering;

/// Sorts `v` by `cmp`, stably, like `slice::sort_by`.
pub fn by<T>(v: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    let order = positions(v.len(), &|a, b| cmp(&v[a], &v[b]));
    // The moves are worked out once, not per element type: each caller's copy is this loop of
    // swaps (moving through a `Vec<Option<T>>` instead cost about 600 bytes per caller).
    for (a, b) in swaps(order) {
        v.swap(a, b);
    }
}

/// Sorts `v` by the key `f` gives, stably, like `slice::sort_by_key`.
pub fn by_key<T, K: Ord>(v: &mut [T], f: impl Fn(&T) -> K) {
    by(v, |a, b| f(a).cmp(&f(b)));
}

/// Sorts `v` in ascending order, stably, like `slice::sort`.
pub fn ascending<T: Ord>(v: &mut [T]) {
    by(v, T::cmp);
}

/// The positions `0..n` in the order `cmp` puts them, ties in their original order. The one
/// instantiation of the standard library's sort.
#[allow(clippy::disallowed_methods)]
fn positions(n: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

/// The swaps that put the elements in `order` (`order[i]`: where the element that goes to `i`
/// is now), one cycle of the permutation after another: at most `n - 1` of them.
fn swaps(mut order: Vec<usize>) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for start in 0..order.len() {
        // Each position is visited once: a placed one points at itself.
        let mut at = start;
        while order[at] != start && order[at] != at {
            let from = order[at];
            out.push((at, from));
            order[at] = at;
            at = from;
        }
        order[at] = at;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pseudo-random pairs with many equal keys, so that stability is visible.
    fn pairs(n: usize) -> Vec<(u32, usize)> {
        (0..n).map(|i| (((i * 7919 + 13) % 31) as u32, i)).collect()
    }

    #[test]
    fn same_order_as_the_standard_stable_sort() {
        for n in [0, 1, 2, 3, 19, 20, 21, 64, 1000] {
            let mut ours = pairs(n);
            let mut std_sorted = ours.clone();
            by_key(&mut ours, |p| p.0);
            std_sorted.sort_by_key(|p| p.0);
            assert_eq!(ours, std_sorted, "n = {n}");
            // Equal keys keep their original order.
            assert!(ours.windows(2).all(|w| w[0].0 < w[1].0 || w[0].1 < w[1].1), "n = {n}");
        }
    }

    #[test]
    fn by_and_ascending_agree_with_std() {
        let mut floats: Vec<f64> = (0..500).map(|i| ((i * 37) % 101) as f64 - 50.5).collect();
        floats.push(f64::NAN);
        floats.push(-0.0);
        let mut expected = floats.clone();
        expected.sort_by(f64::total_cmp);
        by(&mut floats, f64::total_cmp);
        let bits = |v: &[f64]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&floats), bits(&expected));

        let mut words: Vec<String> = ["pear", "apple", "fig", "apple", "kiwi"].map(String::from).to_vec();
        ascending(&mut words);
        assert_eq!(words, ["apple", "apple", "fig", "kiwi", "pear"]);
    }

    #[test]
    fn moves_elements_without_cloning_them() {
        // Owned, non-Clone elements come out whole and in order.
        struct Boxed(Box<u8>);
        let mut v: Vec<Boxed> = [3u8, 1, 2].into_iter().map(|b| Boxed(Box::new(b))).collect();
        by_key(&mut v, |b| *b.0);
        assert_eq!(v.iter().map(|b| *b.0).collect::<Vec<_>>(), [1, 2, 3]);
    }
}
