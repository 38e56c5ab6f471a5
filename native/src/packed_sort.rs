//! Sorting small keys fast: each key and its position packed into one u64, so the sort
//! compares plain integers. The deal sorts every round's members by lag and every topic's
//! partitions by lag this way (a million partitions: a thousand sorts of two thousand).

/// Orders `positions` (0 to n - 1, n = `keys.len()`) by ascending key, equal keys by
/// position, and returns true; returns false, leaving `positions` unspecified, when the
/// keys' spread (largest minus smallest) does not fit beside a position in 64 bits.
pub fn sort_positions(keys: &[i128], positions: &mut Vec<u32>, scratch: &mut Vec<u64>) -> bool {
    positions.clear();
    let (Some(&low), Some(&high)) = (keys.iter().min(), keys.iter().max()) else {
        return true;
    };
    // bits for the positions 0 to n - 1, and what is left of the 64 for the key
    let bits = u64::BITS - ((keys.len() - 1) as u64).leading_zeros();
    let room = 1i128 << (u64::BITS - bits);
    if high.checked_sub(low).is_none_or(|spread| spread >= room) {
        return false;
    }
    scratch.clear();
    scratch.extend(
        keys.iter()
            .zip(0u64..)
            .map(|(&key, i)| (((key - low) as u64) << bits) | i),
    );
    scratch.sort_unstable();
    let mask = (1u64 << bits) - 1;
    positions.extend(scratch.iter().map(|&packed| (packed & mask) as u32));
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(keys: &[i128]) -> Option<Vec<u32>> {
        let (mut positions, mut scratch) = (Vec::new(), Vec::new());
        sort_positions(keys, &mut positions, &mut scratch).then_some(positions)
    }

    #[test]
    fn ascending_keys_and_ties_by_position() {
        assert_eq!(sorted(&[5, -3, 5, 0, 9, -3]), Some(vec![1, 5, 3, 0, 2, 4]));
        assert_eq!(sorted(&[7]), Some(vec![0]));
        assert_eq!(sorted(&[]), Some(vec![]));
    }

    #[test]
    fn a_spread_too_wide_to_pack_is_refused() {
        // two keys: one bit for the position, 63 for the spread
        assert_eq!(sorted(&[0, (1 << 63) - 1]), Some(vec![0, 1]));
        assert_eq!(sorted(&[0, 1 << 63]), None);
        assert_eq!(sorted(&[i128::MIN, i128::MAX]), None);
    }
}
