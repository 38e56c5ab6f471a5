//! Each topic's partitions by lag, largest first, equal lags by partition id: the order the
//! balanced strategy deals and reads them in.

use crate::input::{topic_bounds, Invalid};
use crate::packed_sort::sort_positions;

/// The flat partition numbers of every topic, topic by topic, each topic's by lag (largest
/// first, equal lags by the lower number). `starts` are the topics' first flat positions
/// and their end, ascending from 0 to `lags.len()`.
pub fn by_lag(lags: &[i64], starts: &[i64]) -> Result<Vec<i64>, Invalid> {
    let bounds = topic_bounds(starts, lags.len(), "lags")?;
    let mut order = Vec::with_capacity(lags.len());
    let (mut keys, mut positions, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
    let mut keyed: Vec<(std::cmp::Reverse<i64>, u32)> = Vec::new();
    for pair in bounds.windows(2) {
        let (start, end) = (pair[0], pair[1]);
        keys.clear();
        keys.extend(lags[start..end].iter().map(|&lag| -i128::from(lag)));
        if !sort_positions(&keys, &mut positions, &mut scratch) {
            // lags too far apart to pack: (largest lag first, then the lower number) are
            // unique keys, so an unstable sort gives exactly the stable order
            keyed.clear();
            keyed.extend(
                lags[start..end]
                    .iter()
                    .zip(0u32..)
                    .map(|(&lag, i)| (std::cmp::Reverse(lag), i)),
            );
            keyed.sort_unstable();
            positions.clear();
            positions.extend(keyed.iter().map(|&(_, i)| i));
        }
        order.extend(positions.iter().map(|&i| (start + i as usize) as i64));
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_first_within_each_topic_and_ties_by_number() {
        // topic 0: partitions 0-2, topic 1: partitions 3-6
        let lags = [5, 9, 5, 0, 7, 7, 8];
        assert_eq!(
            by_lag(&lags, &[0, 3, 7]).unwrap(),
            vec![1, 0, 2, 6, 4, 5, 3]
        );
    }

    #[test]
    fn lags_too_far_apart_to_pack_keep_the_same_order() {
        let lags = [0, i64::MAX, 3, i64::MAX, 0];
        assert_eq!(by_lag(&lags, &[0, 5]).unwrap(), vec![1, 3, 2, 0, 4]);
    }

    #[test]
    fn starts_that_do_not_cover_the_lags_are_refused() {
        assert!(by_lag(&[1, 2], &[0, 1]).is_err());
        assert!(by_lag(&[1, 2], &[0, 2, 1, 2]).is_err());
        assert!(by_lag(&[], &[0]).unwrap().is_empty());
    }
}
