//! The local moves' one typed call: `lower_max_lag(request)` takes a `MovesRequest` (read
//! field by field from the attributes of the caller's object, arrays as NumPy int64 arrays)
//! and returns a `Moved` (what changed), leaving the caller's arrays as they were.

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::input::Invalid;
use crate::moves::{Rules, Tuning};
use crate::moves_input::{run, MovesInput};
use crate::pair_split::SplitLimits;

/// One group's placement and what the moves may do, as the strategy holds them.
#[derive(FromPyObject)]
pub struct MovesRequest<'py> {
    /// Per flat partition.
    lags: PyReadonlyArray1<'py, i64>,
    /// T + 1 entries from 0 to len(lags).
    topic_starts: Vec<i64>,
    /// `(topics, members)` per subscription, every member in one.
    subscriptions: Vec<(Vec<i64>, Vec<i64>)>,
    /// Per topic, the base count P // C.
    base: Vec<i64>,
    /// Per flat partition, its previous owner or -1; None when nobody owned anything.
    previous: Option<PyReadonlyArray1<'py, i64>>,
    /// How many members the group has.
    members: usize,
    /// Per flat partition, its member (-1: nobody), and when it came to that member.
    owner: PyReadonlyArray1<'py, i64>,
    stamp: PyReadonlyArray1<'py, i64>,
    /// The first stamp to give.
    next_stamp: i64,
    /// The goal, a whole lag (within ±2^100).
    stop_at: i128,
    /// The budget in partitions looked at.
    work: i64,
    frugal: bool,
    uneven: bool,
    /// The layout keeps the totals within one, not each topic's counts.
    by_totals: bool,
    tuning: MoveTuning,
}

/// The constants that bound the moves: the strategy's tuning, read by attribute name.
#[derive(FromPyObject)]
pub struct MoveTuning {
    partners: usize,
    topic_work: u32,
    evening_rounds: u32,
    evening_work: u32,
    stall_steps: usize,
    stall_gain: f64,
    split_max_partitions: usize,
    split_max_tries: u64,
    split_work: u32,
}

/// What the moves changed: `partitions[i]` went to `owners[i]`; `restamped[i]` (every
/// partition of a member that changed, in its order) has stamp `stamps[i]`; `members`
/// (ascending) are those whose partitions changed, `loads` their lags; `next_stamp` the
/// next free stamp.
#[pyclass(frozen, module = "lagassign._native")]
pub struct Moved {
    #[pyo3(get)]
    partitions: Py<PyArray1<i64>>,
    #[pyo3(get)]
    owners: Py<PyArray1<i64>>,
    #[pyo3(get)]
    restamped: Py<PyArray1<i64>>,
    #[pyo3(get)]
    stamps: Py<PyArray1<i64>>,
    #[pyo3(get)]
    members: Vec<u32>,
    #[pyo3(get)]
    loads: Vec<i128>,
    #[pyo3(get)]
    next_stamp: i64,
}

const GOAL_REACH: i128 = 1 << 100;

/// The balanced strategy's local moves (`moves.rs`) on one placement.
#[pyfunction]
pub fn lower_max_lag(py: Python<'_>, request: &Bound<'_, PyAny>) -> PyResult<Moved> {
    let request: MovesRequest<'_> = request.extract().map_err(|err| with_causes(py, err))?;
    if !(-GOAL_REACH..=GOAL_REACH).contains(&request.stop_at) {
        return Err(PyValueError::new_err(format!(
            "stop_at is {}: the goal must be within ±2**100",
            request.stop_at
        )));
    }
    let t = &request.tuning;
    if t.stall_steps < 1 {
        return Err(PyValueError::new_err(
            "tuning.stall_steps is 0: it must be at least 1",
        ));
    }
    let tuning = Tuning {
        partners: t.partners,
        topic_work: i64::from(t.topic_work),
        evening_rounds: i64::from(t.evening_rounds),
        evening_work: i64::from(t.evening_work),
        stall_steps: t.stall_steps,
        stall_gain: t.stall_gain,
        split: SplitLimits {
            max_partitions: t.split_max_partitions,
            max_tries: t.split_max_tries,
        },
        split_work: i64::from(t.split_work),
    };
    let rules = Rules {
        frugal: request.frugal,
        uneven: request.uneven,
    };
    let previous = match &request.previous {
        Some(array) => Some(contiguous(array, "previous")?),
        None => None,
    };
    let input = MovesInput {
        lags: contiguous(&request.lags, "lags")?,
        topic_starts: &request.topic_starts,
        subscriptions: &request.subscriptions,
        base: &request.base,
        previous,
        members: request.members,
        owner: contiguous(&request.owner, "owner")?,
        stamp: contiguous(&request.stamp, "stamp")?,
        next_stamp: request.next_stamp,
        by_totals: request.by_totals,
    };
    let (stop_at, work) = (request.stop_at, request.work);
    let outcome = py
        .detach(|| run(&input, &rules, stop_at, work, &tuning))
        .map_err(|invalid: Invalid| PyValueError::new_err(invalid.0))?;
    let (partitions, owners): (Vec<i64>, Vec<i64>) =
        outcome.owners.iter().map(|&(x, m)| (x as i64, m)).unzip();
    let (restamped, stamps): (Vec<i64>, Vec<i64>) =
        outcome.stamps.iter().map(|&(x, s)| (x as i64, s)).unzip();
    let array = |values: Vec<i64>| PyArray1::from_vec(py, values).unbind();
    Ok(Moved {
        partitions: array(partitions),
        owners: array(owners),
        restamped: array(restamped),
        stamps: array(stamps),
        members: outcome.members,
        loads: outcome.loads,
        next_stamp: outcome.next_stamp,
    })
}

/// `err` with the messages of its causes after its own: what field of what field is wrong.
fn with_causes(py: Python<'_>, err: PyErr) -> PyErr {
    let mut text = err.value(py).to_string();
    let mut cause = err.cause(py);
    while let Some(inner) = cause {
        text = format!("{text}: {}", inner.value(py));
        cause = inner.cause(py);
    }
    PyErr::from_type(err.get_type(py), text)
}

/// The items of a one-dimensional array, read in place (a view with gaps is refused).
pub fn contiguous<'a, T: numpy::Element>(
    array: &'a PyReadonlyArray1<'_, T>,
    name: &str,
) -> PyResult<&'a [T]> {
    array
        .as_slice()
        .map_err(|_| PyTypeError::new_err(format!("{name} must be a contiguous array")))
}
