//! Numbers as the local moves meet them, compared the way Python compares them.
//!
//! Lags are int64 and lag sums exact i128 (a partition's lag is at most 2^63 - 1, a group
//! at most 2^32 partitions). A goal is an int or a float (`Goal`). An int is never
//! rounded to a float to be compared with one: `2^53 + 1 > 2.0^53` holds, as in Python.
//! Arithmetic mixing the two is Python's: the int becomes the nearest float (ties to
//! even, as `float(int)`), then the float operation runs.

use std::cmp::Ordering;

/// An int or a float, as Python holds a goal and what is computed from it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Goal {
    Int(i128),
    Float(f64),
}

/// 2^127: every i128 is below it, every i128 is at least its negation.
const I128_SPAN: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0;

/// `float(i)` in Python: the nearest float, ties to even.
pub fn to_float(i: i128) -> f64 {
    i as f64
}

/// `i` against `f` exactly; None when `f` is NaN (every comparison with NaN is false).
pub fn cmp_int_float(i: i128, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    if f >= I128_SPAN {
        return Some(Ordering::Less);
    }
    if f < -I128_SPAN {
        return Some(Ordering::Greater);
    }
    let floor = f.floor();
    // An integral float within [-2^127, 2^127): converted exactly.
    let whole = floor as i128;
    match i.cmp(&whole) {
        Ordering::Equal if f > floor => Some(Ordering::Less),
        other => Some(other),
    }
}

impl Goal {
    /// `i` against this number exactly (None against NaN).
    fn cmp_from(self, i: i128) -> Option<Ordering> {
        match self {
            Goal::Int(v) => Some(i.cmp(&v)),
            Goal::Float(f) => cmp_int_float(i, f),
        }
    }

    /// `i - self`.
    pub fn subtracted_from(self, i: i128) -> Goal {
        match self {
            Goal::Int(v) => Goal::Int(i - v),
            Goal::Float(f) => Goal::Float(to_float(i) - f),
        }
    }

    /// `self - i`.
    pub fn minus(self, i: i128) -> Goal {
        match self {
            Goal::Int(v) => Goal::Int(v - i),
            Goal::Float(f) => Goal::Float(f - to_float(i)),
        }
    }

    /// Python's truth value: nonzero (NaN is true).
    pub fn is_true(self) -> bool {
        match self {
            Goal::Int(v) => v != 0,
            Goal::Float(f) => f != 0.0,
        }
    }
}

/// `i < g`.
pub fn lt(i: i128, g: Goal) -> bool {
    g.cmp_from(i) == Some(Ordering::Less)
}

/// `i <= g`.
pub fn le(i: i128, g: Goal) -> bool {
    matches!(g.cmp_from(i), Some(Ordering::Less | Ordering::Equal))
}

/// `i >= g`.
pub fn ge(i: i128, g: Goal) -> bool {
    matches!(g.cmp_from(i), Some(Ordering::Greater | Ordering::Equal))
}

/// `i > g`.
pub fn gt(i: i128, g: Goal) -> bool {
    g.cmp_from(i) == Some(Ordering::Greater)
}

/// `bisect.bisect_left(sorted, key)`: the first position whose value is not below `key`.
pub fn bisect_left(sorted: &[i128], key: Goal) -> usize {
    sorted.partition_point(|&v| lt(v, key))
}

/// `bisect.bisect_right(sorted, key)`: the first position whose value is above `key`.
pub fn bisect_right(sorted: &[i128], key: Goal) -> usize {
    sorted.partition_point(|&v| !gt(v, key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_beyond_2_53_are_compared_exactly_with_floats() {
        let two_53 = 1i128 << 53;
        assert_eq!(
            cmp_int_float(two_53 + 1, two_53 as f64),
            Some(Ordering::Greater)
        );
        assert_eq!(cmp_int_float(two_53, two_53 as f64), Some(Ordering::Equal));
        assert_eq!(cmp_int_float(3, 3.5), Some(Ordering::Less));
        assert_eq!(cmp_int_float(4, 3.5), Some(Ordering::Greater));
        assert_eq!(cmp_int_float(-4, -3.5), Some(Ordering::Less));
        assert_eq!(cmp_int_float(-3, -3.5), Some(Ordering::Greater));
        assert_eq!(
            cmp_int_float(i128::MAX, f64::INFINITY),
            Some(Ordering::Less)
        );
        assert_eq!(
            cmp_int_float(i128::MIN, f64::NEG_INFINITY),
            Some(Ordering::Greater)
        );
        assert_eq!(cmp_int_float(i128::MIN, -I128_SPAN), Some(Ordering::Equal));
        assert_eq!(cmp_int_float(i128::MAX, I128_SPAN), Some(Ordering::Less));
        assert_eq!(cmp_int_float(0, f64::NAN), None);
    }

    #[test]
    fn bisections_over_ints_with_a_float_key_are_pythons() {
        let sorted = [1, 2, 2, 3];
        assert_eq!(bisect_left(&sorted, Goal::Float(2.0)), 1);
        assert_eq!(bisect_right(&sorted, Goal::Float(2.0)), 3);
        assert_eq!(bisect_left(&sorted, Goal::Float(2.5)), 3);
        assert_eq!(bisect_right(&sorted, Goal::Int(2)), 3);
        assert_eq!(bisect_left(&sorted, Goal::Float(f64::NAN)), 0);
        assert_eq!(bisect_right(&sorted, Goal::Float(f64::NAN)), 4);
    }

    #[test]
    fn mixed_arithmetic_rounds_the_int_first() {
        let big = (1i128 << 60) + 1;
        assert_eq!(
            Goal::Float(0.5).subtracted_from(big),
            Goal::Float((1u64 << 60) as f64 - 0.5)
        );
        assert_eq!(Goal::Int(7).minus(3), Goal::Int(4));
        assert!(!Goal::Float(0.0).is_true());
        assert!(Goal::Float(f64::NAN).is_true());
    }
}
