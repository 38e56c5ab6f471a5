//! The local moves' input checked, the moves run, and what changed handed back.

use crate::input::{topic_bounds, Invalid};
use crate::moves::{lower_max_lag, Rules, Tuning};
use crate::placement::{Group, Placement, NONE};

/// One group's placement as the caller holds it.
pub struct MovesInput<'a> {
    /// Per flat partition.
    pub lags: &'a [i64],
    /// The topics' first flat positions, and their end.
    pub topic_starts: &'a [i64],
    /// Per subscription: its topics and its members.
    pub subscriptions: &'a [(Vec<i64>, Vec<i64>)],
    /// Per topic, the base count P // C.
    pub base: &'a [i64],
    /// Per flat partition, its previous owner or -1; None when nobody owned anything.
    pub previous: Option<&'a [i64]>,
    /// How many members the group has.
    pub members: usize,
    /// Per flat partition, its owner or -1 (nobody).
    pub owner: &'a [i64],
    /// Per flat partition, when it came to its owner: a member's partitions, in order,
    /// are its partitions by ascending stamp.
    pub stamp: &'a [i64],
    /// The stamp the next partition to change hands gets (then one more, and so on).
    pub next_stamp: i64,
    /// The layout keeps the totals within one, not each topic's counts.
    pub by_totals: bool,
}

/// The members whose partitions changed (ascending) with their lags; the partitions that
/// changed owner with their new owner, and the new stamps (a changed member's partitions
/// restamped in order from the input's `next_stamp`), each as (partition, value); and the
/// next stamp after those. Every other owner and stamp stays as it was.
pub struct Outcome {
    pub members: Vec<u32>,
    pub loads: Vec<i128>,
    pub owners: Vec<(usize, i64)>,
    pub stamps: Vec<(usize, i64)>,
    pub next_stamp: i64,
}

pub fn run(
    input: &MovesInput<'_>,
    rules: &Rules,
    stop_at: i128,
    work: i64,
    tuning: &Tuning,
) -> Result<Outcome, Invalid> {
    let partitions = input.lags.len();
    let bounds = topic_bounds(input.topic_starts, partitions, "lags")?;
    let topics = bounds.len() - 1;
    if input.base.len() != topics {
        return Err(Invalid(format!(
            "base has {} entries but topic_starts describes {topics} topics",
            input.base.len()
        )));
    }
    let counts = 0..=i64::from(u32::MAX);
    if let Some(t) = input.base.iter().position(|b| !counts.contains(b)) {
        return Err(Invalid(format!(
            "base[{t}] is {}: a count of partitions, 0 to {}",
            input.base[t],
            u32::MAX
        )));
    }
    let members = input.members;
    let mut topic_of = vec![0u32; partitions];
    for (t, pair) in bounds.windows(2).enumerate() {
        topic_of[pair[0]..pair[1]].fill(t as u32);
    }
    let (subscription_of, subscriptions) = subscriptions_of(input.subscriptions, topics, members)?;
    if input.by_totals && subscriptions.len() > 1 {
        return Err(Invalid(format!(
            "by_totals needs one subscription shared by every member, got {}",
            subscriptions.len()
        )));
    }
    if let Some(previous) = input.previous {
        check_previous(previous, partitions, members)?;
    }
    if input.owner.len() != partitions {
        return Err(Invalid(format!(
            "owner has {} entries but lags has {partitions} partitions: one each",
            input.owner.len()
        )));
    }
    let (held, owner) = held_of(input.owner, input.stamp, members)?;
    let group = Group {
        lags: input.lags,
        topic_of,
        subscription_of,
        subscriptions,
        base: input.base,
        previous: input.previous,
        by_totals: input.by_totals,
    };
    let mut placement = Placement::new(group, held, owner);
    let before = placement.owner.clone();
    if members > 0 {
        lower_max_lag(&mut placement, rules, stop_at, work, tuning);
    }
    let mut changed = vec![false; members];
    let mut outcome = Outcome {
        members: Vec::new(),
        loads: Vec::new(),
        owners: Vec::new(),
        stamps: Vec::new(),
        next_stamp: input.next_stamp,
    };
    for (x, (&was, &now)) in before.iter().zip(&placement.owner).enumerate() {
        if was != now {
            outcome.owners.push((x, i64::from(now)));
            changed[was as usize] = true;
            changed[now as usize] = true;
        }
    }
    for (m, _) in changed.iter().enumerate().filter(|(_, &c)| c) {
        outcome.members.push(m as u32);
        outcome.loads.push(placement.load[m]);
        for &x in &placement.held[m] {
            outcome.stamps.push((x as usize, outcome.next_stamp));
            outcome.next_stamp += 1;
        }
    }
    Ok(outcome)
}

/// Per member its subscription's number, and per subscription its topics ascending.
#[allow(clippy::type_complexity)]
fn subscriptions_of(
    given: &[(Vec<i64>, Vec<i64>)],
    topics: usize,
    members: usize,
) -> Result<(Vec<u32>, Vec<Vec<u32>>), Invalid> {
    let mut of = vec![u32::MAX; members];
    let mut out = Vec::with_capacity(given.len());
    for (s, (its_topics, its_members)) in given.iter().enumerate() {
        let mut numbers = Vec::with_capacity(its_topics.len());
        for &t in its_topics {
            if t < 0 || t as usize >= topics {
                return Err(Invalid(format!(
                    "subscription {s} names topic {t}: not a topic number (0 to {})",
                    topics as i64 - 1
                )));
            }
            numbers.push(t as u32);
        }
        numbers.sort_unstable();
        numbers.dedup();
        out.push(numbers);
        for &m in its_members {
            if m < 0 || m as usize >= members {
                return Err(Invalid(format!(
                    "subscription {s} names member {m}: not a member number (0 to {})",
                    members as i64 - 1
                )));
            }
            if of[m as usize] != u32::MAX {
                return Err(Invalid(format!(
                    "member {m} is in subscriptions {} and {s}: each member has one",
                    of[m as usize]
                )));
            }
            of[m as usize] = s as u32;
        }
    }
    if let Some(m) = of.iter().position(|&s| s == u32::MAX) {
        return Err(Invalid(format!("member {m} is in no subscription")));
    }
    Ok((of, out))
}

fn check_previous(previous: &[i64], partitions: usize, members: usize) -> Result<(), Invalid> {
    if previous.len() != partitions {
        return Err(Invalid(format!(
            "previous has {} entries but there are {partitions} partitions",
            previous.len()
        )));
    }
    if let Some(x) = previous.iter().position(|&m| m < -1 || m >= members as i64) {
        return Err(Invalid(format!(
            "previous[{x}] is {}: not a member number (0 to {}) nor -1 (nobody)",
            previous[x],
            members as i64 - 1
        )));
    }
    Ok(())
}

/// Each member's partitions in order (by ascending stamp; equal stamps by partition), and
/// each partition's holder (or NONE), from the owner and stamp of every partition.
///
/// Stamps come from a counter, so they are usually distinct and within a few times the
/// partition count of each other: then one pass writes each (partition, holder) into a
/// table indexed by stamp and one pass over the table deals them out; otherwise a sort
/// orders them.
#[allow(clippy::type_complexity)]
fn held_of(
    owner: &[i64],
    stamp: &[i64],
    members: usize,
) -> Result<(Vec<Vec<u32>>, Vec<u32>), Invalid> {
    if stamp.len() != owner.len() {
        return Err(Invalid(format!(
            "stamp has {} entries but owner has {}: one each per partition",
            stamp.len(),
            owner.len()
        )));
    }
    let mut counts = vec![0usize; members];
    let mut holder = vec![NONE; owner.len()];
    let (mut low, mut high, mut held_count) = (i64::MAX, i64::MIN, 0usize);
    for (x, (&m, &s)) in owner.iter().zip(stamp).enumerate() {
        if m < -1 || m >= members as i64 {
            return Err(Invalid(format!(
                "owner[{x}] is {m}: not a member number (0 to {}) nor -1 (nobody)",
                members as i64 - 1
            )));
        }
        if m >= 0 {
            counts[m as usize] += 1;
            holder[x] = m as u32;
            low = low.min(s);
            high = high.max(s);
            held_count += 1;
        }
    }
    let mut held: Vec<Vec<u32>> = counts.iter().map(|&n| Vec::with_capacity(n)).collect();
    if held_count == 0 {
        return Ok((held, holder));
    }
    let span = i128::from(high) - i128::from(low);
    if span < 4 * held_count as i128 {
        const EMPTY: u64 = u64::MAX;
        // each entry: partition in the high half, holder in the low half
        let mut table = vec![EMPTY; span as usize + 1];
        let mut distinct = true;
        for (x, (&m, &s)) in holder.iter().zip(stamp).enumerate() {
            if m != NONE {
                let at = &mut table[(s - low) as usize];
                if *at != EMPTY {
                    distinct = false;
                    break;
                }
                *at = (x as u64) << 32 | u64::from(m);
            }
        }
        if distinct {
            for &entry in table.iter().filter(|&&e| e != EMPTY) {
                held[(entry & 0xffff_ffff) as usize].push((entry >> 32) as u32);
            }
            return Ok((held, holder));
        }
    }
    let mut sorted: Vec<u32> = (0..owner.len() as u32)
        .filter(|&x| holder[x as usize] != NONE)
        .collect();
    sorted.sort_unstable_by_key(|&x| (stamp[x as usize], x));
    for x in sorted {
        held[holder[x as usize] as usize].push(x);
    }
    Ok((held, holder))
}

#[cfg(test)]
mod tests {
    use super::held_of;

    /// Each member's partitions by (stamp, partition), by a plain sort.
    fn by_sort(owner: &[i64], stamp: &[i64], members: usize) -> Vec<Vec<u32>> {
        let mut order: Vec<u32> = (0..owner.len() as u32)
            .filter(|&x| owner[x as usize] >= 0)
            .collect();
        order.sort_by_key(|&x| (stamp[x as usize], x));
        let mut held = vec![Vec::new(); members];
        for x in order {
            held[owner[x as usize] as usize].push(x);
        }
        held
    }

    #[test]
    fn the_table_and_the_sort_order_alike() {
        let owner = [0, -1, 1, 0, 2, 1];
        // distinct and close (the table), repeated, and spread wide (the sort)
        for stamp in [
            [5, 0, 3, 4, 9, 7],
            [2, 0, 2, 1, 1, 0],
            [i64::MAX, 0, i64::MIN, 4, -3, 1 << 40],
        ] {
            let (held, holder) = held_of(&owner, &stamp, 3).unwrap();
            assert_eq!(held, by_sort(&owner, &stamp, 3));
            assert_eq!(holder, [0, u32::MAX, 1, 0, 2, 1]);
        }
        let (held, _) = held_of(&[-1, -1], &[0, 0], 2).unwrap();
        assert_eq!(held, vec![Vec::<u32>::new(); 2]);
    }
}
