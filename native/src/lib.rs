//! `lagassign._native`: the sidecar's compiled half.
//!
//! `assignment_json` writes an answer's `assignment` JSON straight from the owner array of
//! the balanced strategy (owner member number per flat partition), instead of building a
//! dict of lists in Python and encoding it. `by_lag_order` gives each topic's partitions
//! by lag, `deal_rounds` is the balanced strategy's deal in rounds, `lower_max_lag` its
//! local moves. The work itself is pure Rust (`plan`, `write`; `by_lag`, `deal` and their
//! `packed_sort`; `moves` and what it calls); this file turns the Python arguments into
//! slices, with clear errors for bad ones.

mod by_lag;
mod changes;
mod deal;
mod exact;
mod input;
mod moves;
mod moves_input;
mod numerals;
mod packed_sort;
mod pair_split;
mod placement;
mod plan;
mod write;

use pyo3::buffer::{Element, PyBuffer};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyFloat, PyInt, PyList, PyTuple};

use crate::by_lag::by_lag;
use crate::deal::{deal, Rounds};
use crate::exact::Goal;
use crate::input::{Form, Invalid};
use crate::moves::{Rules, Tuning};
use crate::moves_input::{run, MovesInput, Outcome};
use crate::pair_split::SplitLimits;
use crate::plan::Plan;

/// The JSON bytes of an answer's `assignment`, written from the owner array.
///
/// `owner`: int32 buffer, the member number of each flat partition, or -1 for nobody.
/// `topic_starts`: int64 buffer or list of int, T + 1 entries from 0 to len(owner).
/// `topic_keys`, `member_keys`: lists of bytes, the JSON text of each topic and member.
/// `form`: "topics" or "indexed".
#[pyfunction]
#[pyo3(signature = (owner, topic_starts, topic_keys, member_keys, form))]
fn assignment_json<'py>(
    py: Python<'py>,
    owner: &Bound<'py, PyAny>,
    topic_starts: &Bound<'py, PyAny>,
    topic_keys: &Bound<'py, PyAny>,
    member_keys: &Bound<'py, PyAny>,
    form: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let name = form
        .extract::<&str>()
        .map_err(|_| not_a_wanted(form, "form", "the str \"topics\" or \"indexed\""))?;
    let form = Form::named(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "form must be \"topics\" or \"indexed\", got {name:?}"
        ))
    })?;
    let owner = one_dimensional::<i32>(py, owner, "owner", "int32")?
        .ok_or_else(|| not_a_wanted(owner, "owner", "a one-dimensional int32 buffer"))?;
    let topic_starts = starts_of(py, topic_starts)?;
    let topic_keys = json_texts(topic_keys, "topic_keys")?;
    let member_keys = json_texts(member_keys, "member_keys")?;
    // Bytes objects are immutable and stay referenced here: their slices outlive the writing.
    let topic_texts: Vec<&[u8]> = topic_keys.iter().map(|k| k.as_bytes()).collect();
    let member_texts: Vec<&[u8]> = member_keys.iter().map(|k| k.as_bytes()).collect();
    let plan = py
        .detach(|| Plan::new(&owner, &topic_starts, &topic_texts, &member_texts, form))
        .map_err(|invalid: Invalid| PyValueError::new_err(invalid.0))?;
    // Written straight into the bytes object: no second copy of the JSON.
    PyBytes::new_with(py, plan.json_len, |out| {
        py.detach(|| plan.write_into(out));
        Ok(())
    })
}

/// The balanced strategy's deal in rounds (`deal.rs`): fills `takers` (a writable int64
/// buffer, one entry per dealt partition) with the member that takes each partition.
///
/// `lags` (per flat partition) and `load` (per member, the lag it holds so far): int64
/// buffers or sequences of int (any size up to 2^127). The rounds, concatenated in the
/// order they are dealt: `sizes` (int64, one per round), `members` and `parts` (int64,
/// each round's members ascending and its partitions largest lag first), `sorted` (uint8,
/// one per round: 0 to deal the round in member order, else least-loaded member first).
#[pyfunction]
#[pyo3(signature = (lags, load, sizes, members, parts, sorted, takers))]
#[allow(clippy::too_many_arguments)]
fn deal_rounds(
    py: Python<'_>,
    lags: &Bound<'_, PyAny>,
    load: &Bound<'_, PyAny>,
    sizes: &Bound<'_, PyAny>,
    members: &Bound<'_, PyAny>,
    parts: &Bound<'_, PyAny>,
    sorted: &Bound<'_, PyAny>,
    takers: &Bound<'_, PyAny>,
) -> PyResult<()> {
    // int64 lags stay 8 bytes each: each is widened where it is added
    let narrow_lags = one_dimensional::<i64>(py, lags, "lags", "int64")?;
    let wide_lags = match narrow_lags {
        Some(_) => Vec::new(),
        None => wide_ints(py, lags, "lags")?,
    };
    let mut load = wide_ints(py, load, "load")?;
    let sizes = int64s(py, sizes, "sizes")?;
    let members = int64s(py, members, "members")?;
    let parts = int64s(py, parts, "parts")?;
    let sorted = one_dimensional::<u8>(py, sorted, "sorted", "uint8")?
        .ok_or_else(|| not_a_wanted(sorted, "sorted", "a one-dimensional uint8 buffer"))?;
    let out = PyBuffer::<i64>::get(takers)
        .map_err(|_| not_a_wanted(takers, "takers", "a writable int64 buffer"))?;
    let rounds = Rounds {
        sizes: &sizes,
        members: &members,
        parts: &parts,
        sorted: &sorted,
    };
    let dealt = py
        .detach(|| match &narrow_lags {
            Some(lags) => deal(&rounds, lags, &mut load),
            None => deal(&rounds, &wide_lags, &mut load),
        })
        .map_err(|invalid: Invalid| PyValueError::new_err(invalid.0))?;
    if out.item_count() != dealt.len() {
        return Err(PyValueError::new_err(format!(
            "takers has {} entries but {} partitions are dealt",
            out.item_count(),
            dealt.len()
        )));
    }
    out.copy_from_slice(py, &dealt)
}

/// Each topic's partitions by lag (`by_lag.rs`), into `out` (a writable int64 buffer, one
/// entry per partition): topic by topic, each topic's flat partition numbers largest lag
/// first, equal lags by the lower number.
///
/// `lags`: int64 buffer, per flat partition. `topic_starts`: T + 1 ints from 0 to len(lags).
#[pyfunction]
#[pyo3(signature = (lags, topic_starts, out))]
fn by_lag_order(
    py: Python<'_>,
    lags: &Bound<'_, PyAny>,
    topic_starts: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let lags = int64s(py, lags, "lags")?;
    let starts = starts_of(py, topic_starts)?;
    let out_buffer = writable_int64s(out, "out")?;
    if out_buffer.item_count() != lags.len() {
        return Err(PyValueError::new_err(format!(
            "out has {} entries but lags has {}: one each",
            out_buffer.item_count(),
            lags.len()
        )));
    }
    let order = py
        .detach(|| by_lag(&lags, &starts))
        .map_err(|invalid: Invalid| PyValueError::new_err(invalid.0))?;
    out_buffer.copy_from_slice(py, &order)
}

/// The balanced strategy's local moves, made in place: `owner` and `stamp` are updated
/// and `(members, loads, next_stamp)` returned: the members whose partitions changed
/// (ascending), their lags, and the next free stamp. The moves themselves are `moves.rs`.
///
/// `lags`: per flat partition, an int64 buffer or a sequence of int (each an int64).
/// `topic_starts`: T + 1 ints from 0 to len(lags). `subscriptions`: a sequence of
/// `(topics, members)`, every member in one. `base`: per topic, the base count P // C.
/// `previous`: per flat partition its previous owner or -1, or None. `members`: how many
/// members the group has. `owner`, `stamp`: writable int64 buffers, per flat partition
/// its member (-1: nobody) and when it came to that member (a member's partitions, in
/// order, are its partitions by ascending stamp). `next_stamp`: the first stamp to give;
/// the partitions of every member that changed are restamped in order from it.
/// `stop_at`: int or float. `work`: the budget in partitions looked at. `tuning`: an
/// object with the attributes `partners`, `topic_work`, `evening_rounds`, `evening_work`,
/// `stall_steps`, `stall_gain`, `split_max_partitions`, `split_max_tries` and `split_work`.
#[pyfunction]
#[pyo3(signature = (lags, topic_starts, subscriptions, base, previous, members, owner, stamp, next_stamp, stop_at, work, frugal, uneven, tuning))]
#[allow(clippy::too_many_arguments)]
fn lower_max_lag<'py>(
    py: Python<'py>,
    lags: &Bound<'py, PyAny>,
    topic_starts: &Bound<'py, PyAny>,
    subscriptions: &Bound<'py, PyAny>,
    base: &Bound<'py, PyAny>,
    previous: &Bound<'py, PyAny>,
    members: usize,
    owner: &Bound<'py, PyAny>,
    stamp: &Bound<'py, PyAny>,
    next_stamp: i64,
    stop_at: &Bound<'py, PyAny>,
    work: i64,
    frugal: bool,
    uneven: bool,
    tuning: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyTuple>> {
    let owner_out = writable_int64s(owner, "owner")?;
    let stamp_out = writable_int64s(stamp, "stamp")?;
    let input = MovesInput {
        lags: ints(py, lags, "lags")?,
        topic_starts: starts_of(py, topic_starts)?,
        subscriptions: subscriptions.extract().map_err(|err| {
            PyTypeError::new_err(format!(
                "subscriptions must be a sequence of (topics, members), each a sequence of \
                 int: {err}"
            ))
        })?,
        base: ints(py, base, "base")?,
        previous: if previous.is_none() {
            None
        } else {
            Some(ints(py, previous, "previous")?)
        },
        members,
        owner: owner_out.to_vec(py)?,
        stamp: stamp_out.to_vec(py)?,
        next_stamp,
    };
    let stop_at = goal_of(stop_at)?;
    let tuning = tuning_of(tuning)?;
    let rules = Rules { frugal, uneven };
    let outcome: Outcome = py
        .detach(|| run(&input, &rules, stop_at, work, &tuning))
        .map_err(|invalid: Invalid| PyValueError::new_err(invalid.0))?;
    write_changes(py, &owner_out, input.owner, &outcome.owners)?;
    write_changes(py, &stamp_out, input.stamp, &outcome.stamps)?;
    (outcome.members, outcome.loads, outcome.next_stamp).into_pyobject(py)
}

/// Sets `values[x] = value` for every `(x, value)` of `changes` and writes `values` into
/// `buffer`, which held `values` before; the buffer is left alone when nothing changed.
fn write_changes(
    py: Python<'_>,
    buffer: &PyBuffer<i64>,
    mut values: Vec<i64>,
    changes: &[(usize, i64)],
) -> PyResult<()> {
    if changes.is_empty() {
        return Ok(());
    }
    for &(x, value) in changes {
        values[x] = value;
    }
    buffer.copy_from_slice(py, &values)
}

/// A writable one-dimensional int64 buffer in this machine's byte order.
fn writable_int64s(value: &Bound<'_, PyAny>, name: &str) -> PyResult<PyBuffer<i64>> {
    let buffer = PyBuffer::<i64>::get(value)
        .map_err(|_| not_a_wanted(value, name, "a writable one-dimensional int64 buffer"))?;
    if buffer.readonly() {
        return Err(PyTypeError::new_err(format!(
            "{name} must be a writable int64 buffer, got a read-only one"
        )));
    }
    if buffer.dimensions() != 1 || !in_native_byte_order(buffer.format().to_bytes()) {
        return Err(PyTypeError::new_err(format!(
            "{name} must be a one-dimensional int64 buffer in this machine's byte order"
        )));
    }
    Ok(buffer)
}

/// An int (within ±2^100, beyond any group's lag) or a float, as Python compares it.
fn goal_of(value: &Bound<'_, PyAny>) -> PyResult<Goal> {
    if let Ok(float) = value.cast::<PyFloat>() {
        return Ok(Goal::Float(float.value()));
    }
    if value.is_instance_of::<PyInt>() {
        const REACH: i128 = 1 << 100;
        return match value.extract::<i128>() {
            Ok(v) if (-REACH..=REACH).contains(&v) => Ok(Goal::Int(v)),
            _ => Err(PyValueError::new_err(format!(
                "stop_at is {value}: an int goal must be within ±2**100"
            ))),
        };
    }
    Err(not_a_wanted(value, "stop_at", "an int or a float"))
}

/// The moves' constants, read from the attributes of `tuning`.
fn tuning_of(tuning: &Bound<'_, PyAny>) -> PyResult<Tuning> {
    fn attribute<'py>(tuning: &Bound<'py, PyAny>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        tuning
            .getattr(name)
            .map_err(|err| PyTypeError::new_err(format!("tuning has no {name}: {err}")))
    }
    fn read(tuning: &Bound<'_, PyAny>, name: &str) -> PyResult<i64> {
        attribute(tuning, name)?.extract::<i64>().map_err(|err| {
            PyTypeError::new_err(format!("tuning.{name} must be an int (int64): {err}"))
        })
    }
    fn fraction(tuning: &Bound<'_, PyAny>, name: &str) -> PyResult<f64> {
        attribute(tuning, name)?
            .extract::<f64>()
            .map_err(|err| PyTypeError::new_err(format!("tuning.{name} must be a float: {err}")))
    }
    fn count(tuning: &Bound<'_, PyAny>, name: &str, least: i64) -> PyResult<i64> {
        let value = read(tuning, name)?;
        if value < least {
            return Err(PyValueError::new_err(format!(
                "tuning.{name} is {value}: it must be at least {least}"
            )));
        }
        Ok(value)
    }
    Ok(Tuning {
        partners: count(tuning, "partners", 0)? as usize,
        topic_work: count(tuning, "topic_work", 0)?,
        evening_rounds: count(tuning, "evening_rounds", 0)?,
        evening_work: count(tuning, "evening_work", 0)?,
        stall_steps: count(tuning, "stall_steps", 1)? as usize,
        stall_gain: fraction(tuning, "stall_gain")?,
        split: SplitLimits {
            max_partitions: count(tuning, "split_max_partitions", 0)? as usize,
            max_tries: count(tuning, "split_max_tries", 0)? as u64,
        },
        split_work: count(tuning, "split_work", 0)?,
    })
}

/// Integers from an int64 buffer, or from any sequence of int.
fn ints(py: Python<'_>, value: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<i64>> {
    if let Some(narrow) = one_dimensional::<i64>(py, value, name, "int64")? {
        return Ok(narrow);
    }
    value.extract::<Vec<i64>>().map_err(|err| {
        PyTypeError::new_err(format!(
            "{name} must be an int64 buffer or a sequence of int: {err}"
        ))
    })
}

/// A one-dimensional int64 buffer, copied.
fn int64s(py: Python<'_>, value: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<i64>> {
    one_dimensional::<i64>(py, value, name, "int64")?
        .ok_or_else(|| not_a_wanted(value, name, "a one-dimensional int64 buffer"))
}

/// Integers up to 2^127 from an int64 buffer, or from any sequence of int.
fn wide_ints(py: Python<'_>, value: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<i128>> {
    if let Some(narrow) = one_dimensional::<i64>(py, value, name, "int64")? {
        return Ok(narrow.into_iter().map(i128::from).collect());
    }
    value.extract::<Vec<i128>>().map_err(|err| {
        PyTypeError::new_err(format!(
            "{name} must be an int64 buffer or a sequence of int: {err}"
        ))
    })
}

/// The items of a one-dimensional buffer of `T`, copied; `None` if `value` has no such buffer.
fn one_dimensional<T: Element + Copy>(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    name: &str,
    dtype: &str,
) -> PyResult<Option<Vec<T>>> {
    let Ok(buffer) = PyBuffer::<T>::get(value) else {
        return Ok(None);
    };
    if !in_native_byte_order(buffer.format().to_bytes()) {
        return Err(PyTypeError::new_err(format!(
            "{name} must be an {dtype} buffer in this machine's byte order, got format {:?}",
            buffer.format()
        )));
    }
    if buffer.dimensions() != 1 {
        return Err(PyTypeError::new_err(format!(
            "{name} must be a one-dimensional {dtype} buffer, got {} dimensions",
            buffer.dimensions()
        )));
    }
    buffer.to_vec(py).map(Some)
}

/// Whether a buffer's struct format string (e.g. `i`, `<i`, `>q`) is in native byte order:
/// PyO3 checks the item's kind and size, not its byte order.
fn in_native_byte_order(format: &[u8]) -> bool {
    match format.first() {
        Some(b'<') => cfg!(target_endian = "little"),
        Some(b'>' | b'!') => cfg!(target_endian = "big"),
        _ => true,
    }
}

/// `topic_starts` as int64: from an int64 buffer, or a list or tuple of int.
fn starts_of(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    if let Some(starts) = one_dimensional::<i64>(py, value, "topic_starts", "int64")? {
        return Ok(starts);
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        return value.extract::<Vec<i64>>().map_err(|err| {
            PyTypeError::new_err(format!("topic_starts must hold ints (int64): {err}"))
        });
    }
    Err(not_a_wanted(
        value,
        "topic_starts",
        "an int64 buffer or a list of int",
    ))
}

/// TypeError: `name` must be `wanted`, with the type (and numpy dtype) of what it got.
fn not_a_wanted(value: &Bound<'_, PyAny>, name: &str, wanted: &str) -> PyErr {
    let got = match value.get_type().name() {
        Ok(type_name) => type_name.to_string(),
        Err(_) => "an object of unknown type".to_owned(),
    };
    let dtype = match value.getattr("dtype") {
        Ok(dtype) => format!(" of dtype {dtype}"),
        Err(_) => String::new(),
    };
    PyTypeError::new_err(format!("{name} must be {wanted}, got {got}{dtype}"))
}

/// `value` as a list of non-empty bytes: each one JSON text written verbatim.
fn json_texts<'py>(value: &Bound<'py, PyAny>, name: &str) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let list = value
        .cast::<PyList>()
        .map_err(|_| not_a_wanted(value, name, "a list of bytes (each one's JSON text)"))?;
    let mut texts = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        let text = item.cast_into::<PyBytes>().map_err(|err| {
            let got = err.into_inner().get_type().name().map(|n| n.to_string());
            PyTypeError::new_err(format!(
                "{name}[{i}] must be bytes (its JSON text), got {}",
                got.as_deref().unwrap_or("an object of unknown type")
            ))
        })?;
        if text.as_bytes().is_empty() {
            return Err(PyValueError::new_err(format!(
                "{name}[{i}] is empty: it must be JSON text such as b'\"orders\"'"
            )));
        }
        texts.push(text);
    }
    Ok(texts)
}

#[pymodule]
mod _native {
    #[pymodule_export]
    use super::assignment_json;
    #[pymodule_export]
    use super::by_lag_order;
    #[pymodule_export]
    use super::deal_rounds;
    #[pymodule_export]
    use super::lower_max_lag;
}
