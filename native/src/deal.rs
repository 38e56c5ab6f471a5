//! The balanced strategy's deal in rounds: in each round, the largest partition goes to the
//! member with the least lag so far, the next largest to the next member, and so on.
//!
//! The rounds come in the order they are dealt, each one its members (ascending member
//! numbers) and its partitions (largest lag first, as many as members). A round whose
//! leading lag is zero is dealt in member order without sorting. Ties between equal lags go
//! to the lower position in the round, that is the lower member number (a stable sort),
//! exactly as the strategy's rule says. Lags and lag sums are i128: a partition's lag is at
//! most 2^63 - 1 and a group at most 2^32 partitions, so no sum overflows.

use crate::input::Invalid;
use crate::packed_sort::sort_positions;

/// The rounds of one deal, concatenated: round `r` is `members[at..at + sizes[r]]` and
/// `parts[at..at + sizes[r]]`, where `at` is the sum of the sizes before it.
pub struct Rounds<'a> {
    pub sizes: &'a [i64],
    pub members: &'a [i64],
    pub parts: &'a [i64],
    pub sorted: &'a [u8],
}

/// Who takes each partition of `rounds.parts`, in that order; `load` (each member's lag so
/// far) ends with the dealt lags added.
pub fn deal(rounds: &Rounds<'_>, lags: &[i64], load: &mut [i128]) -> Result<Vec<i64>, Invalid> {
    check(rounds, lags.len(), load.len())?;
    let mut takers = Vec::with_capacity(rounds.members.len());
    let mut sorted: Vec<i64> = Vec::new();
    let (mut keys, mut positions, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
    let mut at = 0usize;
    for (r, &size) in rounds.sizes.iter().enumerate() {
        let end = at + size as usize;
        let members = &rounds.members[at..end];
        let order = if rounds.sorted[r] == 0 {
            members
        } else {
            // equal loads keep member order (the members come ascending)
            keys.clear();
            keys.extend(members.iter().map(|&m| load[m as usize]));
            sorted.clear();
            if sort_positions(&keys, &mut positions, &mut scratch) {
                sorted.extend(positions.iter().map(|&i| members[i as usize]));
            } else {
                sorted.extend_from_slice(members);
                sorted.sort_by_key(|&m| load[m as usize]);
            }
            &sorted[..]
        };
        for (&m, &x) in order.iter().zip(&rounds.parts[at..end]) {
            load[m as usize] += i128::from(lags[x as usize]);
            takers.push(m);
        }
        at = end;
    }
    Ok(takers)
}

fn check(rounds: &Rounds<'_>, partitions: usize, members: usize) -> Result<(), Invalid> {
    if rounds.sorted.len() != rounds.sizes.len() {
        return Err(Invalid(format!(
            "sorted has {} entries but there are {} rounds",
            rounds.sorted.len(),
            rounds.sizes.len()
        )));
    }
    let mut total = 0usize;
    for (r, &size) in rounds.sizes.iter().enumerate() {
        if size < 0 {
            return Err(Invalid(format!("round {r} has a negative size, {size}")));
        }
        total = total
            .checked_add(size as usize)
            .ok_or_else(|| Invalid("the rounds' sizes add up beyond any group".to_owned()))?;
    }
    if total != rounds.members.len() || total != rounds.parts.len() {
        return Err(Invalid(format!(
            "the rounds' sizes add up to {total} but there are {} members and {} partitions",
            rounds.members.len(),
            rounds.parts.len()
        )));
    }
    within(rounds.members, members, "member", "a member number")?;
    within(
        rounds.parts,
        partitions,
        "partition",
        "a flat partition number",
    )
}

/// Every value in `0..count`, else the first that is not, named `what` (not `number`).
fn within(values: &[i64], count: usize, what: &str, number: &str) -> Result<(), Invalid> {
    match values.iter().find(|&&v| v < 0 || v as usize >= count) {
        Some(v) => Err(Invalid(format!(
            "{what} {v} is not {number} (0 to {})",
            count as i64 - 1
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_goes_to_the_least_loaded_and_ties_to_the_lower_member() {
        let rounds = Rounds {
            sizes: &[2, 2],
            members: &[0, 1, 0, 1],
            parts: &[0, 1, 2, 3],
            sorted: &[1, 1],
        };
        let lags = [10, 5, 7, 1];
        let mut load = [0, 0];
        // round 1: tie, member 0 takes 10; round 2: member 1 (5) takes 7, member 0 takes 1
        assert_eq!(deal(&rounds, &lags, &mut load).unwrap(), vec![0, 1, 1, 0]);
        assert_eq!(load, [11, 12]);
    }

    #[test]
    fn loads_too_far_apart_to_pack_are_dealt_the_same_way() {
        let rounds = Rounds {
            sizes: &[3],
            members: &[0, 1, 2],
            parts: &[0, 1, 2],
            sorted: &[1],
        };
        let lags = [9, 8, 7];
        let mut load = [1 << 100, 5, 5];
        // members 1 and 2 tie (ties to the lower), member 0 is far behind them
        assert_eq!(deal(&rounds, &lags, &mut load).unwrap(), vec![1, 2, 0]);
        assert_eq!(load, [(1 << 100) + 7, 14, 13]);
    }
}
