//! Changes between two members: the swaps, hand-overs and exchanges that keep the count
//! rules.
//!
//! For a member `h` and a lighter member `o`:
//!
//! - swap: `h` gives a partition of topic t to `o` and takes back a smaller one of t;
//!   every count stays the same;
//! - hand over: `h` holds P // C + 1 partitions of t, `o` holds P // C of t and one
//!   partition fewer in all (or, with `uneven`, whatever their totals); `h` gives `o` one
//!   partition of t;
//! - exchange: `h` holds the extra of t1 and `o` the extra of t2 (each holding P // C of
//!   the other's topic); they trade one partition each.
//!
//! When the layout keeps the totals within one rather than each topic's counts
//! (`Group::by_totals`), a swap may trade partitions of any two topics and a hand-over
//! give any partition.
//!
//! `best_change` finds the one that leaves the larger of the two lags lowest, looking per
//! topic only at the partners nearest to half the gap (a bisection over `o`'s partitions
//! by lag), so a member with thousands of partitions costs little. A change's cost is how
//! many more partitions it leaves away from their previous owner (`Placement::cost`);
//! without a goal only changes costing nothing count, with one (frugal) those bringing
//! both members to the goal at the least cost come first.
//!
//! The best change is the least of all the changes looked at, compared as tuples; the goal
//! is a whole number and every comparison exact integer arithmetic.

use crate::placement::{ByTopic, Placement, NONE};

/// A change, compared element by element: `[0, cost, partitions moved, shift, o, x, y]`
/// for one that brings both members to the goal, else `[1, larger lag after, cost,
/// partitions moved, o, x, y]`. `o` takes `x` from `h`; `h` takes `y` back from `o`, or
/// nothing when `y` is -1.
pub type Change = [i128; 7];

/// Two members weighed against each other: `h` and a lighter `o`.
struct Pair {
    h: usize,
    o: usize,
    low: i128,
    gap: i128,
    /// A shift of lag in `[need, room]` brings both members to the goal.
    need: i128,
    room: i128,
    goal: Option<i128>,
}

impl Pair {
    fn new(placement: &Placement<'_>, h: usize, o: usize, goal: Option<i128>) -> Pair {
        let top = placement.load[h];
        let low = placement.load[o];
        let (need, room) = match goal {
            Some(g) => (top - g, g - low),
            None => (1, 0), // no shift is in [1, 0]
        };
        Pair {
            h,
            o,
            low,
            gap: top - low,
            need,
            room,
            goal,
        }
    }

    /// Keep in `best` the lesser of it and the change moving `x` to `o` (and `y`, if not
    /// -1, back to `h`) at cost `c`.
    fn consider(&self, best: &mut Option<Change>, lags: &[i64], c: i128, x: u32, y: i64) {
        let back = if y >= 0 {
            i128::from(lags[y as usize])
        } else {
            0
        };
        let d = i128::from(lags[x as usize]) - back;
        let moves = if y < 0 { 1 } else { 2 };
        let (x, y, o) = (i128::from(x), i128::from(y), self.o as i128);
        let change = if self.need <= d && d <= self.room {
            [0, c, moves, d, o, x, y]
        } else {
            [1, self.low + (self.gap - d).max(d), c, moves, o, x, y]
        };
        if best.is_none_or(|known| change < known) {
            *best = Some(change);
        }
    }
}

impl Placement<'_> {
    pub fn apply_change(&mut self, h: usize, change: &Change) {
        let (o, x, y) = (change[4] as usize, change[5] as u32, change[6]);
        self.move_to(x, o);
        if y >= 0 {
            self.move_to(y as u32, h);
        }
    }

    /// The change between `h` and a lighter `o` that leaves the larger of their lags lowest.
    ///
    /// `mine`: what `h` holds by topic. Charges `work` with the partitions looked at and
    /// `topic_work` per topic.
    #[allow(clippy::too_many_arguments)]
    pub fn best_change(
        &mut self,
        h: usize,
        o: usize,
        mine: &ByTopic,
        work: &mut i64,
        topic_work: i64,
        goal: Option<i128>,
        uneven: bool,
    ) -> Option<Change> {
        if self.group.by_totals {
            return self.best_change_by_totals(h, o, work, goal, uneven);
        }
        let theirs = self.held_by_topic(o);
        for (i, &t) in mine.topics.iter().enumerate() {
            self.slot_h[t as usize] = i as u32;
        }
        for (i, &t) in theirs.topics.iter().enumerate() {
            self.slot_o[t as usize] = i as u32;
        }
        let pair = Pair::new(self, h, o, goal);
        let base = self.group.base;
        let hands_over = uneven || self.held[o].len() + 1 == self.held[h].len();
        let mut spent = self.held[o].len() as i64;
        let mut best: Option<Change> = None;
        let mut h_extras: Vec<usize> = Vec::new();
        let mut lone: Vec<(u32, u32)> = Vec::new(); // topics where each holds one: (x, y)
        for (i, &t) in mine.topics.iter().enumerate() {
            if !self.group.subscribes(o, t) {
                continue;
            }
            let hx = mine.group(i);
            let oy = match self.slot_o[t as usize] {
                NONE => &[][..],
                j => theirs.group(j as usize),
            };
            let (nx, ny) = (hx.len() as i64, oy.len() as i64);
            spent += nx + ny + topic_work;
            if nx == 1 && ny == 1 {
                lone.push((hx[0], oy[0]));
            } else {
                self.better(&mut best, &pair, hx, Some(oy));
            }
            let b = base[t as usize];
            if nx == b + 1 && ny == b {
                if hands_over {
                    self.better(&mut best, &pair, hx, None);
                }
                h_extras.push(i);
            }
        }
        let mut o_extras: Vec<usize> = Vec::new();
        for (j, &t) in theirs.topics.iter().enumerate() {
            let b = base[t as usize];
            let mine_of_t = match self.slot_h[t as usize] {
                NONE => 0,
                i => mine.group(i as usize).len() as i64,
            };
            if theirs.group(j).len() as i64 == b + 1
                && self.group.subscribes(h, t)
                && mine_of_t == b
            {
                o_extras.push(j);
            }
        }
        for &i in &h_extras {
            for &j in &o_extras {
                let (hx, oy) = (mine.group(i), theirs.group(j));
                spent += hx.len() as i64 + oy.len() as i64 + topic_work;
                self.better(&mut best, &pair, hx, Some(oy));
            }
        }
        for &(x, y) in &lone {
            self.better_swap(&mut best, &pair, x, y);
        }
        for &t in &mine.topics {
            self.slot_h[t as usize] = NONE;
        }
        for &t in &theirs.topics {
            self.slot_o[t as usize] = NONE;
        }
        *work -= spent;
        best
    }

    /// `best_change` in a layout kept by totals: any partition of `h` for any of `o`'s,
    /// or any partition of `h` handed over when `o` holds one fewer in all.
    fn best_change_by_totals(
        &self,
        h: usize,
        o: usize,
        work: &mut i64,
        goal: Option<i128>,
        uneven: bool,
    ) -> Option<Change> {
        let pair = Pair::new(self, h, o, goal);
        let (gives, takes) = (&self.held[h], &self.held[o]);
        let mut best: Option<Change> = None;
        self.better(&mut best, &pair, gives, Some(takes));
        if uneven || takes.len() + 1 == gives.len() {
            self.better(&mut best, &pair, gives, None);
        }
        *work -= (gives.len() + takes.len()) as i64;
        best
    }

    /// One partition of each, `x` of `h` for `y` of `o`: `better` with one of each.
    fn better_swap(&self, best: &mut Option<Change>, pair: &Pair, x: u32, y: u32) {
        let lags = self.group.lags;
        let c = self.cost(x, pair.o) + self.cost(y, pair.h);
        if pair.goal.is_none() && c > 0 {
            return;
        }
        let d = i128::from(lags[x as usize]) - i128::from(lags[y as usize]);
        if 0 < d && d < pair.gap {
            pair.consider(best, lags, c, x, i64::from(y));
        }
    }

    /// Keep in `best` the lesser of it and the best change that moves one of `gives` to
    /// `o`: with `takes`, `o` gives back one of it; with None, nothing.
    fn better(&self, best: &mut Option<Change>, pair: &Pair, gives: &[u32], takes: Option<&[u32]>) {
        let lags = self.group.lags;
        let (h, o, gap, goal) = (pair.h, pair.o, pair.gap, pair.goal);
        let Some(takes) = takes else {
            for &x in gives {
                let c = self.cost(x, o);
                let lx = i128::from(lags[x as usize]);
                if 0 < lx && lx < gap && (goal.is_some() || c <= 0) {
                    pair.consider(best, lags, c, x, -1);
                }
            }
            return;
        };
        if takes.is_empty() || gives.is_empty() {
            return;
        }
        // the cheapest pairs are searched class by class of what each partition costs
        let give_by = by_cost(gives, |x| self.cost(x, o));
        let take_by = by_cost(takes, |y| self.cost(y, h));
        let narrow = goal.is_some_and(|g| g != 0);
        let mut back_lags: Vec<i128> = Vec::new();
        for (cy, back) in take_by.iter() {
            let mut back = back.clone();
            back.sort_by_key(|&y| lags[y as usize]); // stable: equal lags keep their order
            back_lags.clear();
            back_lags.extend(back.iter().map(|&y| i128::from(lags[y as usize])));
            for (cx, xs) in give_by.iter() {
                if goal.is_none() && cx + cy > 0 {
                    continue;
                }
                for &x in xs {
                    let lx = i128::from(lags[x as usize]);
                    // the first taken back at or above lx - gap / 2 (doubled: no rounding)
                    let i = back_lags.partition_point(|&v| 2 * v < 2 * lx - gap) as isize;
                    let third = if narrow {
                        // the last taken back at or below lx - need
                        back_lags.partition_point(|&v| v <= lx - pair.need) as isize - 1
                    } else {
                        -1
                    };
                    for j in [i - 1, i, third] {
                        if j < 0 || j as usize >= back.len() {
                            continue;
                        }
                        let d = lx - back_lags[j as usize];
                        if 0 < d && d < gap {
                            pair.consider(best, lags, cx + cy, x, i64::from(back[j as usize]));
                        }
                    }
                }
            }
        }
    }
}

/// `parts` split by cost (-1, 0 or 1), each class in the order of `parts`; empty classes
/// left out.
fn by_cost(parts: &[u32], cost: impl Fn(u32) -> i128) -> Vec<(i128, Vec<u32>)> {
    let mut classes: Vec<(i128, Vec<u32>)> = Vec::new();
    for &x in parts {
        let c = cost(x);
        match classes.iter_mut().find(|(known, _)| *known == c) {
            Some((_, members)) => members.push(x),
            None => classes.push((c, vec![x])),
        }
    }
    classes
}
