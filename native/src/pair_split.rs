//! Re-splitting two members' partitions exactly, when they hold only a few.
//!
//! Single swaps and hand-overs get stuck when the partitions are few and their lags
//! coarse (two members, 3 + 4 partitions). For two members `h` and `o` holding at most
//! `split_max_partitions` partitions of the topics both subscribe to, every re-split of
//! those partitions that keeps the count rules is tried: per topic each still holds
//! P // C or P // C + 1, and their totals stay the same or trade places. The re-split
//! leaving the larger of their lags lowest wins (then the one moving fewest partitions
//! from their previous owners, then the least partitions `h` keeps, compared topic by
//! topic), if it is lower than `h`'s lag now. With `free`, only re-splits that leave no
//! more partitions away from their previous owners count; with `uneven`, the totals may
//! change. More than `split_max_tries` re-splits: none is tried.

use crate::placement::Placement;

/// What bounds the search.
pub struct SplitLimits {
    pub max_partitions: usize,
    pub max_tries: u64,
}

/// One way a topic's pool is split: the partitions `h` takes, in pool order.
struct Part {
    count: i64,
    lag: i128,
    cost: i128,
    parts: Vec<u32>,
}

/// The best exact re-split: (larger lag after, partitions `h` gives, partitions `h` takes),
/// both ascending.
pub type Split = (i128, Vec<u32>, Vec<u32>);

impl Placement<'_> {
    pub fn best_split(
        &self,
        h: usize,
        o: usize,
        free: bool,
        limits: &SplitLimits,
        uneven: bool,
    ) -> Option<Split> {
        let group = &self.group;
        let (lags, topic_of) = (group.lags, &group.topic_of);
        let shared = |t: u32| group.subscribes(h, t) && group.subscribes(o, t);
        // the pools, topic by topic in order of first appearance: h's partitions, then o's
        let mut pools: Vec<(u32, Vec<u32>)> = Vec::new();
        let mut size = 0usize;
        for m in [h, o] {
            for &x in &self.held[m] {
                let t = topic_of[x as usize];
                if !shared(t) {
                    continue;
                }
                size += 1;
                if size > limits.max_partitions {
                    return None;
                }
                match pools.iter_mut().find(|(known, _)| *known == t) {
                    Some((_, pool)) => pool.push(x),
                    None => pools.push((t, vec![x])),
                }
            }
        }
        if size < 2 {
            return None;
        }
        pools.sort_by_key(|&(t, _)| t);
        let options: Vec<Vec<Part>> = pools
            .iter()
            .map(|(t, pool)| self.options(h, o, pool, group.base[*t as usize]))
            .collect();
        let mut leaves: u64 = 1;
        for choices in &options {
            leaves = leaves.saturating_mul(choices.len() as u64);
        }
        if leaves == 0 || leaves > limits.max_tries {
            return None;
        }
        let owned_by_h = |x: u32| self.owner[x as usize] as usize == h;
        let pooled: i128 = pools
            .iter()
            .flat_map(|(_, p)| p)
            .map(|&x| i128::from(lags[x as usize]))
            .sum();
        let mine_lag: i128 = pools
            .iter()
            .flat_map(|(_, p)| p)
            .filter(|&&x| owned_by_h(x))
            .map(|&x| i128::from(lags[x as usize]))
            .sum();
        let mine_count = pools
            .iter()
            .flat_map(|(_, p)| p)
            .filter(|&&x| owned_by_h(x))
            .count();
        let fixed_h = self.load[h] - mine_lag;
        let fixed_o = self.load[o] - (pooled - mine_lag);
        let totals = [self.held[h].len() as i64, self.held[o].len() as i64];
        let outside_h = self.held[h].len() as i64 - mine_count as i64;
        // every leaf: one option per topic, counted like an odometer
        let mut pick = vec![0usize; options.len()];
        let mut best: Option<(i128, i128, Vec<usize>)> = None;
        loop {
            let (mut count, mut lag, mut moved) = (0i64, 0i128, 0i128);
            for (choices, &i) in options.iter().zip(&pick) {
                count += choices[i].count;
                lag += choices[i].lag;
                moved += choices[i].cost;
            }
            if (uneven || totals.contains(&(outside_h + count))) && !(free && moved > 0) {
                let larger = (fixed_h + lag).max(fixed_o + pooled - lag);
                let better = match &best {
                    None => true,
                    Some((l, c, chosen)) => (larger, moved)
                        .cmp(&(*l, *c))
                        .then_with(|| chosen_cmp(&options, &pick, chosen))
                        .is_lt(),
                };
                if better {
                    best = Some((larger, moved, pick.clone()));
                }
            }
            if !advance(&mut pick, &options) {
                break;
            }
        }
        let (larger, _, chosen) = best?;
        if larger >= self.load[h] {
            return None;
        }
        let mut keep: Vec<u32> = options
            .iter()
            .zip(&chosen)
            .flat_map(|(choices, &i)| choices[i].parts.iter().copied())
            .collect();
        keep.sort_unstable();
        let mut mine: Vec<u32> = pools
            .iter()
            .flat_map(|(_, p)| p.iter().copied())
            .filter(|&x| owned_by_h(x))
            .collect();
        mine.sort_unstable();
        let gives = mine
            .iter()
            .copied()
            .filter(|x| keep.binary_search(x).is_err())
            .collect();
        let takes = keep
            .iter()
            .copied()
            .filter(|x| mine.binary_search(x).is_err())
            .collect();
        Some((larger, gives, takes))
    }

    /// Every way `h` may take `base` or `base + 1` of `pool` leaving `o` as many.
    fn options(&self, h: usize, o: usize, pool: &[u32], base: i64) -> Vec<Part> {
        let lags = self.group.lags;
        // the cost of a split: what goes to h from o, and what goes to o from h
        let moving = |from: usize, to: usize| -> Vec<i128> {
            pool.iter()
                .map(|&x| {
                    if self.owner[x as usize] as usize == from {
                        self.cost(x, to)
                    } else {
                        0
                    }
                })
                .collect()
        };
        let to_h = moving(o, h);
        let to_o = moving(h, o);
        let spread: i128 = to_o.iter().sum();
        let n = pool.len() as i64;
        let mut out = Vec::new();
        for k in [base, base + 1] {
            if !(base <= n - k && n - k <= base + 1) || k < 0 {
                continue;
            }
            for_each_combination(pool.len(), k as usize, |chosen| {
                out.push(Part {
                    count: k,
                    lag: chosen
                        .iter()
                        .map(|&i| i128::from(lags[pool[i] as usize]))
                        .sum(),
                    cost: spread + chosen.iter().map(|&i| to_h[i] - to_o[i]).sum::<i128>(),
                    parts: chosen.iter().map(|&i| pool[i]).collect(),
                });
            });
        }
        out
    }
}

/// The chosen parts of `pick` against those of `other`, topic by topic, each topic's
/// partitions in order (the tie-break between equally good re-splits).
fn chosen_cmp(options: &[Vec<Part>], pick: &[usize], other: &[usize]) -> std::cmp::Ordering {
    for (choices, (&a, &b)) in options.iter().zip(pick.iter().zip(other)) {
        let order = choices[a].parts.cmp(&choices[b].parts);
        if order.is_ne() {
            return order;
        }
    }
    std::cmp::Ordering::Equal
}

/// The next leaf after `pick`, the last topic turning fastest; false after the last.
fn advance(pick: &mut [usize], options: &[Vec<Part>]) -> bool {
    for depth in (0..pick.len()).rev() {
        pick[depth] += 1;
        if pick[depth] < options[depth].len() {
            return true;
        }
        pick[depth] = 0;
    }
    false
}

/// Calls `visit` with every `k`-subset of `0..n`, ascending within each.
fn for_each_combination(n: usize, k: usize, mut visit: impl FnMut(&[usize])) {
    if k > n {
        return;
    }
    let mut chosen: Vec<usize> = (0..k).collect();
    loop {
        visit(&chosen);
        // the rightmost position that can still advance
        let Some(i) = (0..k).rev().find(|&i| chosen[i] < n - k + i) else {
            return;
        };
        chosen[i] += 1;
        for j in i + 1..k {
            chosen[j] = chosen[j - 1] + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::for_each_combination;

    #[test]
    fn combinations_come_in_lexicographic_order() {
        let mut seen = Vec::new();
        for_each_combination(4, 2, |c| seen.push(c.to_vec()));
        assert_eq!(
            seen,
            vec![
                vec![0, 1],
                vec![0, 2],
                vec![0, 3],
                vec![1, 2],
                vec![1, 3],
                vec![2, 3]
            ]
        );
        let mut empty = Vec::new();
        for_each_combination(3, 0, |c| empty.push(c.to_vec()));
        assert_eq!(empty, vec![Vec::<usize>::new()]);
    }
}
