//! Local moves: lower the most-loaded member's lag without breaking the count targets.
//!
//! Repeatedly, the member with the most lag (`h`) looks at the members with the least
//! lag, lightest first, and with the first that can help makes the change (`changes`: a
//! swap, a hand-over or an exchange) that brings the larger of the two lags lowest. When
//! none helps and the two hold few partitions, their partitions are re-split exactly
//! (`pair_split`). A change is made only when both members end below `h`'s lag, so the
//! sorted member lags fall at every step and the moves end. When `h` cannot be helped,
//! any two members even out their lags with the same changes (which never raises the
//! largest lag and may open a way for `h`), and `h` tries again, a few times at most.
//!
//! The rules (`Rules`): `frugal` moves make any change, first those that bring both
//! members to the goal with the fewest moves, and are patient (no stop on small gains,
//! no evening out); otherwise only changes that leave no more partitions away from their
//! previous owner are made, and the moves stop when `stall_steps` changes in a row gained
//! less than `stall_gain` of the lag together. With `uneven`, hand-overs may leave the
//! totals uneven. Everything ends when the largest lag reaches `stop_at`, or when the work
//! budget (partitions looked at) is spent.
//!
//! Lags are int64 and lag sums i128 (a partition's lag is at most 2^63 - 1, a group at most
//! 2^32 partitions: no sum wraps). The goal is a whole number too (the caller's bar rounded
//! down: a member lag is within a bar exactly when it is within its floor), so every
//! comparison is exact integer arithmetic.
use crate::pair_split::SplitLimits;
use crate::placement::Placement;

/// What the moves may do.
pub struct Rules {
    pub frugal: bool,
    pub uneven: bool,
}

/// The constants that bound the moves (the strategy's tuning).
pub struct Tuning {
    /// The lightest members each step considers as partners.
    pub partners: usize,
    /// Work charged per topic a change looks at, beside its partitions.
    pub topic_work: i64,
    /// Rounds of evening out, and the work each may take at most.
    pub evening_rounds: i64,
    pub evening_work: i64,
    /// Stop when the last `stall_steps` changes together gained under `stall_gain`.
    pub stall_steps: usize,
    pub stall_gain: f64,
    pub split: SplitLimits,
    /// Work charged per partner an exact re-split is tried with.
    pub split_work: i64,
}

/// Lower the largest member lag toward `stop_at` as far as `rules` let local moves go,
/// with `work` partitions looked at at most.
pub fn lower_max_lag(
    placement: &mut Placement<'_>,
    rules: &Rules,
    stop_at: i128,
    mut work: i64,
    tuning: &Tuning,
) {
    let goal = rules.frugal.then_some(stop_at);
    let pass = Pass {
        stop_at,
        goal,
        patient: rules.frugal,
        uneven: rules.uneven,
    };
    improve(placement, &pass, &mut work, tuning);
    let rounds = if rules.frugal {
        0
    } else {
        tuning.evening_rounds
    };
    for _ in 0..rounds {
        let top = placement.max_load();
        let mut side = work.min(tuning.evening_work);
        let given = side;
        if top <= stop_at || given <= 0 || even_out(placement, &mut side, tuning) == 0 {
            return;
        }
        work -= given - side;
        let again = Pass {
            stop_at,
            goal: None,
            patient: false,
            uneven: false,
        };
        improve(placement, &again, &mut work, tuning);
        if placement.max_load() >= top {
            return;
        }
    }
}

/// One run of `improve`: toward `stop_at`, with `goal` the frugal moves aim at.
struct Pass {
    stop_at: i128,
    goal: Option<i128>,
    patient: bool,
    uneven: bool,
}

/// Change the most-loaded member while that helps; return how many changes were made.
fn improve(placement: &mut Placement<'_>, pass: &Pass, work: &mut i64, tuning: &Tuning) -> usize {
    let mut changes = 0;
    let mut tops: Vec<i128> = Vec::new();
    let mut lighter: Vec<usize> = Vec::new();
    while *work > 0 {
        let (h, top) = most_loaded(&placement.load);
        if top <= pass.stop_at
            || (!pass.patient && stalled(&tops, top, tuning.stall_steps, tuning.stall_gain))
        {
            break;
        }
        tops.push(top);
        let mine = placement.held_by_topic(h);
        least_loaded_below(&placement.load, top, tuning.partners, &mut lighter);
        *work -= (placement.held[h].len() + placement.load.len()) as i64;
        let mut best = None;
        for &o in &lighter {
            let change =
                placement.best_change(h, o, &mine, work, tuning.topic_work, pass.goal, pass.uneven);
            if let Some(change) = change {
                if best.is_none_or(|known| change < known) {
                    best = Some(change);
                }
            }
            if let Some(known) = best {
                // the lightest partner that helps will do
                if pass.goal.is_none() || (known[0] == 0 && known[1] <= 1) {
                    break;
                }
            }
        }
        if let Some(change) = best {
            placement.apply_change(h, &change);
        } else if !resplit(placement, h, &lighter, work, pass, tuning) {
            break;
        }
        changes += 1;
    }
    changes
}

/// The first of the most loaded members, and its lag.
fn most_loaded(load: &[i128]) -> (usize, i128) {
    let mut h = 0;
    for (m, &l) in load.iter().enumerate() {
        if l > load[h] {
            h = m;
        }
    }
    (h, load.get(h).copied().unwrap_or(0))
}

/// The `count` least loaded members below `top` into `out`, lightest first, equal lags by
/// member number.
fn least_loaded_below(load: &[i128], top: i128, count: usize, out: &mut Vec<usize>) {
    out.clear();
    out.extend((0..load.len()).filter(|&m| load[m] < top));
    let key = |&m: &usize| (load[m], m);
    if out.len() > count && count > 0 {
        out.select_nth_unstable_by_key(count - 1, key);
    }
    out.truncate(count);
    out.sort_unstable_by_key(key);
}

/// True when the last `steps` changes together gained under `gain` of the lag.
fn stalled(tops: &[i128], top: i128, steps: usize, gain: f64) -> bool {
    // a heuristic stop: the float rounding of the gain does not matter
    steps <= tops.len()
        && steps > 0
        && ((tops[tops.len() - steps] - top) as f64) < gain * top as f64
}

/// Make costless changes between any two members that lower the larger of their lags.
fn even_out(placement: &mut Placement<'_>, work: &mut i64, tuning: &Tuning) -> usize {
    let mut changes = 0;
    let mut progress = true;
    // most loaded first, equal lags by member number; after a change only its two
    // members move in it, so they alone are put back in their places
    let mut order: Vec<usize> = (0..placement.load.len()).collect();
    let mut changed: Option<(usize, usize)> = None;
    while progress && *work > 0 {
        progress = false;
        let load = &placement.load;
        let heavier_first = |&m: &usize| (std::cmp::Reverse(load[m]), m);
        match changed.take() {
            None => order.sort_by_key(heavier_first),
            Some((a, b)) => {
                order.retain(|&m| m != a && m != b);
                for m in [a, b] {
                    let at = order.partition_point(|n| heavier_first(n) < heavier_first(&m));
                    order.insert(at, m);
                }
            }
        }
        *work -= placement.load.len() as i64;
        for (i, &a) in order.iter().enumerate() {
            let mine = placement.held_by_topic(a);
            *work -= placement.held[a].len() as i64;
            for &b in order[i + 1..].iter().rev() {
                if placement.load[b] >= placement.load[a] || *work <= 0 {
                    break;
                }
                let change =
                    placement.best_change(a, b, &mine, work, tuning.topic_work, None, false);
                if let Some(change) = change {
                    placement.apply_change(a, &change);
                    changed = Some((a, change[4] as usize));
                    changes += 1;
                    progress = true;
                    break;
                }
            }
            if progress || *work <= 0 {
                break;
            }
        }
    }
    changes
}

/// Apply the best exact re-split of `h` with one of `lighter`, if any helps.
fn resplit(
    placement: &mut Placement<'_>,
    h: usize,
    lighter: &[usize],
    work: &mut i64,
    pass: &Pass,
    tuning: &Tuning,
) -> bool {
    let free = pass.goal.is_none();
    let mut best: Option<(i128, usize, Vec<u32>, Vec<u32>)> = None;
    for &o in lighter {
        *work -= tuning.split_work;
        let split = placement.best_split(h, o, free, &tuning.split, pass.uneven);
        if let Some((larger, gives, takes)) = split {
            if best.as_ref().is_none_or(|known| larger < known.0) {
                best = Some((larger, o, gives, takes));
            }
        }
    }
    let Some((_, o, gives, takes)) = best else {
        return false;
    };
    for x in gives {
        placement.move_to(x, o);
    }
    for y in takes {
        placement.move_to(y, h);
    }
    true
}
